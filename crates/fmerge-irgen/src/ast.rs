//! The functions the generator makes, as a small structured language that lowers to SSA
//! without undefined behaviour: every shift amount, index and divisor is masked, `nsw`/`nuw`
//! flags only sit on operations whose operands are masked small enough, and every loop runs
//! at most 8 times.

/// An integer type. Arithmetic inside a function happens in its `work` type (i32 or i64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I8,
    I16,
    I32,
    I64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 => 32,
            Ty::I64 => 64,
        }
    }

    pub fn ll(self) -> &'static str {
        match self {
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
        }
    }

    /// `v` as a literal of this type (two's complement wrap-around, printed signed).
    pub fn lit(self, v: i64) -> String {
        let b = self.bits();
        if b == 64 {
            v.to_string()
        } else {
            let sh = 64 - b;
            ((v << sh) >> sh).to_string()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
}

pub const BINOPS: [BinOp; 6] =
    [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::And, BinOp::Or, BinOp::Xor];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftOp {
    Shl,
    LShr,
    AShr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivOp {
    UDiv,
    URem,
    SDiv,
    SRem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Ult,
    Uge,
}

pub const PREDS: [Pred; 7] =
    [Pred::Eq, Pred::Ne, Pred::Slt, Pred::Sle, Pred::Sgt, Pred::Ult, Pred::Uge];

/// Two-operand intrinsics (`llvm.smax.*` and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intr2 {
    SMax,
    SMin,
    UMax,
    UMin,
}

pub const INTR2: [Intr2; 4] = [Intr2::SMax, Intr2::SMin, Intr2::UMax, Intr2::UMin];

/// One-operand intrinsics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intr1 {
    Ctpop,
    Bswap,
    Abs,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(i64),
    /// A local variable (parameters are the first ones).
    Var(usize),
    /// The counter of the enclosing loop `depth` levels up (0 = innermost).
    LoopIdx(usize),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `(a & 0xffff) + (b & 0xffff)` with optional `nsw`/`nuw` (cannot overflow).
    SafeAdd {
        nsw: bool,
        nuw: bool,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    /// `(a & 0xff) * (b & 0xff)` with optional `nsw`/`nuw` (cannot overflow).
    SafeMul {
        nsw: bool,
        nuw: bool,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    /// Shift by `b & (bits - 1)`.
    Shift(ShiftOp, Box<Expr>, Box<Expr>),
    /// Unsigned: divide by `b | 1`; signed: by `(b & 255) | 1`.
    Div(DivOp, Box<Expr>, Box<Expr>),
    /// `zext (icmp pred a, b)`.
    Cmp(Pred, Box<Expr>, Box<Expr>),
    /// `select (icmp pred c1, c2), a, b`.
    Select(Pred, Box<[Expr; 4]>),
    /// A call of the pure helper `mix{k}`.
    Pure(usize, Box<Expr>, Box<Expr>),
    /// A call of the helper that logs `(tag, a)` and returns `a ^ tag`.
    LogRet(i64, Box<Expr>),
    /// A load from constant table `k` at `index & 15`.
    Table(usize, Box<Expr>),
    /// A load from the function's local array at `index & 7`.
    Arr(Box<Expr>),
    Intr2(Intr2, Box<Expr>, Box<Expr>),
    Intr1(Intr1, Box<Expr>),
    /// Truncate to i8 (false) or i16 (true) and extend back, signed or not.
    Narrow {
        to16: bool,
        signed: bool,
        a: Box<Expr>,
    },
    /// A call of a generated function of an earlier family (arguments converted to its
    /// parameter types, the result sign-extended or truncated back). Never inside a loop, and
    /// the callee calls no generated function itself, so run time stays bounded.
    Call(Box<Callee>, Vec<Expr>),
}

/// A generated function that others may call.
#[derive(Clone, Debug, PartialEq)]
pub struct Callee {
    pub name: String,
    pub params: Vec<Ty>,
    pub ret: Ty,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    pub pred: Pred,
    pub a: Expr,
    pub b: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Assign(usize, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// `switch (e & 7)`; case values are distinct and in `0..8`.
    Switch(Expr, Vec<(i64, Vec<Stmt>)>, Vec<Stmt>),
    /// `for i in 0..trips` (a constant 1..=8).
    Loop(u8, Vec<Stmt>),
    /// `for i in 0..(e & 7)`.
    DynLoop(Expr, Vec<Stmt>),
    /// A call of the void helper that logs `(tag, e)`.
    Log(i64, Expr),
    /// Store to global cell `k`.
    StoreCell(usize, Expr),
    /// Store to the local array at `index & 7`.
    StoreArr(Expr, Expr),
    /// `var = invoke maythrow(e)`; when it throws, the landing pad sets `var = tag`.
    Invoke(usize, Expr, i64),
    /// `if (cond) return e;`
    Return(Cond, Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Internal,
    External,
    LinkonceOdr,
    WeakOdr,
    Weak,
}

impl Linkage {
    pub fn ll(self) -> &'static str {
        match self {
            Linkage::Internal => "internal ",
            Linkage::External => "",
            Linkage::LinkonceOdr => "linkonce_odr ",
            Linkage::WeakOdr => "weak_odr ",
            Linkage::Weak => "weak ",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnnamedAddr {
    None,
    Local,
    Global,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub ty: Ty,
    /// When the parameter is narrower than the work type: sign-extend it (else zero-extend).
    pub signed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub work: Ty,
    pub ret: Ty,
    pub params: Vec<Param>,
    /// Initial values of the locals that are not parameters.
    pub locals: Vec<i64>,
    /// Initial contents of the local array (allocated only if the body uses it).
    pub arr: [i64; 8],
    pub body: Vec<Stmt>,
    pub result: Expr,
    pub linkage: Linkage,
    pub unnamed: UnnamedAddr,
    /// Extra function attributes (`optsize`, `nounwind`, ...).
    pub attrs: Vec<&'static str>,
    /// The driver calls it through a table of function pointers (its address is taken).
    pub address_taken: bool,
}

impl Function {
    pub fn num_vars(&self) -> usize {
        self.params.len() + self.locals.len()
    }

    pub fn uses_invoke(&self) -> bool {
        fn any(s: &[Stmt]) -> bool {
            s.iter().any(|s| match s {
                Stmt::Invoke(..) => true,
                Stmt::If(_, a, b) => any(a) || any(b),
                Stmt::Switch(_, cs, d) => cs.iter().any(|(_, b)| any(b)) || any(d),
                Stmt::Loop(_, b) | Stmt::DynLoop(_, b) => any(b),
                _ => false,
            })
        }
        any(&self.body)
    }

    /// Whether the body calls another generated function.
    pub fn calls_generated(&self) -> bool {
        let mut found = false;
        walk_exprs(&self.body, &mut |e| found |= matches!(e, Expr::Call(..)));
        walk_exprs_in(&self.result, &mut |e| found |= matches!(e, Expr::Call(..)));
        found
    }

    pub fn callee(&self) -> Callee {
        Callee {
            name: self.name.clone(),
            params: self.params.iter().map(|p| p.ty).collect(),
            ret: self.ret,
        }
    }

    pub fn uses_arr(&self) -> bool {
        let mut found = false;
        walk_exprs(&self.body, &mut |e| found |= matches!(e, Expr::Arr(_)));
        walk_exprs_in(&self.result, &mut |e| found |= matches!(e, Expr::Arr(_)));
        fn st(s: &[Stmt]) -> bool {
            s.iter().any(|s| match s {
                Stmt::StoreArr(..) => true,
                Stmt::If(_, a, b) => st(a) || st(b),
                Stmt::Switch(_, cs, d) => cs.iter().any(|(_, b)| st(b)) || st(d),
                Stmt::Loop(_, b) | Stmt::DynLoop(_, b) => st(b),
                _ => false,
            })
        }
        found || st(&self.body)
    }

    /// Statements in the body, nested ones included.
    pub fn size(&self) -> usize {
        fn n(s: &[Stmt]) -> usize {
            s.iter()
                .map(|s| {
                    1 + match s {
                        Stmt::If(_, a, b) => n(a) + n(b),
                        Stmt::Switch(_, cs, d) => {
                            cs.iter().map(|(_, b)| n(b)).sum::<usize>() + n(d)
                        }
                        Stmt::Loop(_, b) | Stmt::DynLoop(_, b) => n(b),
                        _ => 0,
                    }
                })
                .sum()
        }
        n(&self.body)
    }
}

/// Calls `f` on every expression (pre-order) of the statements.
pub fn walk_exprs(stmts: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match s {
            Stmt::Assign(_, e)
            | Stmt::Log(_, e)
            | Stmt::StoreCell(_, e)
            | Stmt::Invoke(_, e, _) => walk_exprs_in(e, f),
            Stmt::StoreArr(a, b) => {
                walk_exprs_in(a, f);
                walk_exprs_in(b, f);
            }
            Stmt::If(c, a, b) => {
                walk_exprs_in(&c.a, f);
                walk_exprs_in(&c.b, f);
                walk_exprs(a, f);
                walk_exprs(b, f);
            }
            Stmt::Return(c, e) => {
                walk_exprs_in(&c.a, f);
                walk_exprs_in(&c.b, f);
                walk_exprs_in(e, f);
            }
            Stmt::Switch(e, cs, d) => {
                walk_exprs_in(e, f);
                for (_, b) in cs {
                    walk_exprs(b, f);
                }
                walk_exprs(d, f);
            }
            Stmt::Loop(_, b) => walk_exprs(b, f),
            Stmt::DynLoop(e, b) => {
                walk_exprs_in(e, f);
                walk_exprs(b, f);
            }
        }
    }
}

pub fn walk_exprs_in(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    for c in children(e) {
        walk_exprs_in(c, f);
    }
}

pub fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Const(_) | Expr::Var(_) | Expr::LoopIdx(_) => vec![],
        Expr::Bin(_, a, b)
        | Expr::SafeAdd { a, b, .. }
        | Expr::SafeMul { a, b, .. }
        | Expr::Shift(_, a, b)
        | Expr::Div(_, a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Pure(_, a, b)
        | Expr::Intr2(_, a, b) => vec![a, b],
        Expr::Select(_, xs) => xs.iter().collect(),
        Expr::Call(_, args) => args.iter().collect(),
        Expr::LogRet(_, a)
        | Expr::Table(_, a)
        | Expr::Arr(a)
        | Expr::Intr1(_, a)
        | Expr::Narrow { a, .. } => vec![a],
    }
}

pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::Const(_) | Expr::Var(_) | Expr::LoopIdx(_) => vec![],
        Expr::Bin(_, a, b)
        | Expr::SafeAdd { a, b, .. }
        | Expr::SafeMul { a, b, .. }
        | Expr::Shift(_, a, b)
        | Expr::Div(_, a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Pure(_, a, b)
        | Expr::Intr2(_, a, b) => vec![a, b],
        Expr::Select(_, xs) => xs.iter_mut().collect(),
        Expr::Call(_, args) => args.iter_mut().collect(),
        Expr::LogRet(_, a)
        | Expr::Table(_, a)
        | Expr::Arr(a)
        | Expr::Intr1(_, a)
        | Expr::Narrow { a, .. } => vec![a],
    }
}
