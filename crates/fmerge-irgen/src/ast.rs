//! The functions the generator makes, as a small structured language that lowers to SSA
//! without undefined behaviour: every shift amount, index and divisor is masked, `nsw`/`nuw`
//! flags only sit on operations whose operands are masked small enough, and every loop runs
//! at most 8 times.
//!
//! Stack slots live in [`Stmt::Scope`]s: `llvm.lifetime.start`, a fill of every element, the
//! body (the only place the slot is read or written), a checksum of the slot, then
//! `llvm.lifetime.end`; a slot may have several scopes, never two at once.
//!
//! *Facts* (parameter and return attributes, call-site attributes, metadata, poison and
//! fast-math flags, `llvm.assume`) are *declared* by a member and *checked* when it is lowered:
//! each one is emitted only if it holds for the member's own program (its [`Param::domain`],
//! how the driver passes its pointers, its masks and clamps), so that family members state
//! different true facts, and a merge that keeps one member's fact for another changes what
//! the program does once `opt -O2` exploits it. Each fact comes with a *probe*, code whose
//! result the fact decides (a comparison against the declaring member's bound, a null check,
//! the low bits of a pointer, a store/store/load through two pointers).

/// An integer type. Arithmetic inside a function happens in its `arith` type (i32 or i64).
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
    /// Element `index & (len - 1)` of stack slot `k` (only inside a scope of `k`).
    SlotLoad(usize, Box<Expr>),
    /// Element `index & (elems - 1)` of pointer parameter `k`, or 0 when it is null.
    PLoad(usize, Box<Expr>),
    /// The low four bits of pointer parameter `k` (the probe of `align`).
    PAlign(usize),
    /// `call range(W 0, 2^d) W @lowbits_W(a, 2^k - 1)` with `fact = Some(d)` (a call-site
    /// fact, emitted when `d >= k`), then its probe: `r < 2^probe ? r : r ^ 0x5a5a`.
    Masked {
        k: u8,
        probe: u8,
        fact: Option<u8>,
        a: Box<Expr>,
    },
    /// A load from `@rtab{table}_W`, whose 16 values are in `0..2^RTAB_BITS[table]`, with
    /// `!range !{0, 2^d}` for `md = Some(d)` (emitted when it holds); the probe as for
    /// [`Expr::Masked`].
    RLoad {
        table: usize,
        probe: u8,
        md: Option<u8>,
        idx: Box<Expr>,
    },
    /// A pointer loaded from `@ptab{t}` (t = 0: 16-byte aligned pointers, 1: some misaligned,
    /// 2: some null), with `!nonnull`/`!align 16` when `md` (emitted where they hold); probe:
    /// null ? 77 : (low four bits + the element it points to).
    PtrLoad {
        table: usize,
        md: bool,
        idx: Box<Expr>,
    },
    /// `m = a & mask`, then `op` with constant `c`, its flag when `flag` and valid, and the
    /// probe the flag decides (see [`EdgeOp`]).
    Edge {
        op: EdgeOp,
        flag: bool,
        mask: i64,
        c: i64,
        a: Box<Expr>,
    },
    /// `d = sitofp (a | or_bit)`, `fcmp [nnan] uno (fdiv [nnan] d, d), 0` and
    /// `fcmp oeq (fdiv [ninf] 1, d), inf` (the flags are emitted when `or_bit != 0`: d is
    /// never 0).
    Fp {
        nnan: bool,
        ninf: bool,
        or_bit: i64,
        a: Box<Expr>,
    },
}

/// A generated function that others may call (integer parameters only). Callers pass what
/// the driver would: arguments clamped into each parameter's domain, with its ABI extension.
#[derive(Clone, Debug, PartialEq)]
pub struct Callee {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Ty,
    pub ret_ext: Ext,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cond {
    pub pred: Pred,
    pub a: Expr,
    pub b: Expr,
    /// `!prof` branch weights on the branch (a hint: never wrong, may differ between members).
    pub prof: Option<(u32, u32)>,
}

/// Operations whose poison-generating flag is valid or not depending on a mask: the operand is
/// `a & mask` and the flag is emitted only if it holds for every value of that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeOp {
    /// `add nsw m, c`; probe `icmp sgt r, m`.
    AddNsw,
    /// `add nuw m, c`; probe `icmp ugt r, m`.
    AddNuw,
    /// `shl nuw m, c`; probe `lshr r, c == m`.
    ShlNuw,
    /// `shl nsw m, c`; probe `ashr r, c == m`.
    ShlNsw,
    /// `lshr exact m, c`; probe `shl r, c == m`.
    LShrExact,
    /// `or disjoint m, c`; probe `sub r, c == m`.
    OrDisjoint,
    /// `zext nneg (trunc m to i32) to i64`; probe: equal to the `sext`.
    ZextNneg,
    /// `trunc nuw m to i8`; probe: `zext` back equals `m`.
    TruncNuw,
    /// `icmp samesign ult m, c` (LLVM 22's -O2 does not exploit it observably).
    CmpSamesign,
}

pub const EDGE_OPS: [EdgeOp; 9] = [
    EdgeOp::AddNsw,
    EdgeOp::AddNuw,
    EdgeOp::ShlNuw,
    EdgeOp::ShlNsw,
    EdgeOp::LShrExact,
    EdgeOp::OrDisjoint,
    EdgeOp::ZextNneg,
    EdgeOp::TruncNuw,
    EdgeOp::CmpSamesign,
];

/// The constant an edge operation uses: shift amounts are taken modulo the width.
pub fn edge_c(op: EdgeOp, w: Ty, c: i64) -> i64 {
    match op {
        EdgeOp::ShlNuw | EdgeOp::ShlNsw | EdgeOp::LShrExact => c & i64::from(w.bits() - 1),
        _ => c,
    }
}

/// Whether `op`'s flag holds for every `m = x & mask` (of `w`'s width) with constant `c`
/// (already through [`edge_c`]).
pub fn edge_flag_valid(op: EdgeOp, w: Ty, mask: i64, c: i64) -> bool {
    let bits = w.bits();
    let umask = if bits == 64 { mask as u64 } else { (mask as u64) & ((1u64 << bits) - 1) };
    let smax = (1u64 << (bits - 1)) - 1;
    let umax = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let cu = if bits == 64 { c as u64 } else { (c as u64) & umax };
    match op {
        // m in 0..=umask when the sign bit is clear
        EdgeOp::AddNsw => umask <= smax && cu <= smax && umask + cu <= smax,
        EdgeOp::AddNuw => umask.checked_add(cu).is_some_and(|s| s <= umax),
        EdgeOp::ShlNuw => {
            cu < u64::from(bits) && u64::from(umask.leading_zeros()) >= cu + u64::from(64 - bits)
        }
        EdgeOp::ShlNsw => {
            cu < u64::from(bits) && u64::from(umask.leading_zeros()) > cu + u64::from(64 - bits)
        }
        EdgeOp::LShrExact => cu < u64::from(bits) && umask & ((1u64 << cu) - 1) == 0,
        EdgeOp::OrDisjoint => umask & cu == 0,
        EdgeOp::ZextNneg => umask & 0x8000_0000 == 0,
        EdgeOp::TruncNuw => umask <= 0xff,
        EdgeOp::CmpSamesign => umask <= smax && cu <= smax,
    }
}

/// `zeroext`/`signext` on a narrow parameter or return value (an ABI attribute: callers and
/// callee agree on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ext {
    None,
    Zext,
    Sext,
}

impl Ext {
    pub fn ll(self) -> &'static str {
        match self {
            Ext::None => "",
            Ext::Zext => "zeroext ",
            Ext::Sext => "signext ",
        }
    }
}

/// What a pointer parameter's function does with element 0 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    /// Nothing in particular.
    Nothing,
    /// Stores to it unconditionally in the entry block (makes `initializes` true when the
    /// pointer is never null).
    Store,
    /// Reads it first (the value the driver stored before the call).
    Load,
}

/// A pointer parameter: a buffer of `elems` arith-type elements that the driver owns (an alloca
/// in `main`, so that `initializes` and `noalias` can be exploited at the call sites).
#[derive(Clone, Debug, PartialEq)]
pub struct PtrParam {
    /// Elements (a power of two); the buffer has room for more.
    pub elems: u32,
    /// The driver passes null on every fourth call.
    pub null_calls: bool,
    /// The driver passes the buffer plus this many elements (0: 16-byte aligned).
    pub misalign: u8,
    /// The driver passes the same pointer as parameter `k` (an earlier pointer parameter).
    pub alias_of: Option<usize>,
    pub first: First,
    /// Declared attributes (each emitted only when it holds, see [`Function::ptr_attrs`]).
    pub nonnull: bool,
    pub align16: bool,
    pub deref: bool,
    pub noalias: bool,
    pub nocapture: bool,
    pub writable: bool,
    pub noundef: bool,
    pub initializes: bool,
}

/// Where a switch's default goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dflt {
    /// To its own block (the default statements).
    Own,
    /// To case `i`'s block (the default statements are not emitted).
    Case(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Assign(usize, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// `switch (e & 7)`; case values are distinct and in `0..8`, in this order.
    Switch(Expr, Vec<(i64, Vec<Stmt>)>, Vec<Stmt>, Dflt),
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
    /// A use region of stack slot `slot`: `lifetime.start`, every element set from `seed`
    /// (a loop, or the helper `@fill_W` when `helper`), the body, the slot's checksum
    /// (a loop or `@sum_W`) xor-ed into variable `fold`, `lifetime.end`.
    Scope {
        slot: usize,
        seed: Expr,
        body: Vec<Stmt>,
        fold: usize,
        helper: bool,
    },
    /// Store to element `index & (len - 1)` of stack slot `k` (only inside a scope of `k`).
    SlotStore(usize, Expr, Expr),
    /// Store to element `index & (elems - 1)` of pointer parameter `k` (skipped when null).
    PStore(usize, Expr, Expr),
    /// Store 1111 through `p`, 2222 through `q` (both element 0), load through `p` and xor
    /// it into `var` (the probe of `noalias`; skipped when either is null).
    AliasProbe {
        p: usize,
        q: usize,
        var: usize,
    },
    /// `llvm.assume` of parameter `k`'s domain (integer) or of its alignment and non-nullness
    /// (pointer, as operand bundles); emitted only where it holds.
    Assume(usize),
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
    /// When the parameter is narrower than the arith type: sign-extend it (else zero-extend).
    pub signed: bool,
    /// The values every caller passes: `lo..hi`, both in `0..2^(bits-1)` (none: any value).
    pub domain: Option<(i64, i64)>,
    /// The declared `range` attribute (emitted only if it contains the domain).
    pub range: Option<(i64, i64)>,
    pub noundef: bool,
    /// ABI extension of a narrow parameter (callers pass it alike).
    pub ext: Ext,
    /// A pointer parameter instead of an integer (`ty`, `signed`, `domain`, `range` unused).
    pub ptr: Option<PtrParam>,
}

impl Param {
    pub fn int(ty: Ty, signed: bool) -> Param {
        Param { ty, signed, domain: None, range: None, noundef: false, ext: Ext::None, ptr: None }
    }

    /// The `range` attribute to emit: the declared one if it holds for the domain.
    pub fn range_attr(&self) -> Option<(i64, i64)> {
        let (lo, hi) = self.range?;
        let (dlo, dhi) = self.domain_ok()?;
        (lo <= dlo && dhi <= hi && lo < hi && hi <= max_signed(self.ty)).then_some((lo, hi))
    }

    /// The domain, if it fits the parameter's type.
    pub fn domain_ok(&self) -> Option<(i64, i64)> {
        self.domain.filter(|&(lo, hi)| 0 <= lo && lo < hi && hi <= max_signed(self.ty))
    }
}

/// The largest positive value of `t` (as an exclusive bound of domains).
pub fn max_signed(t: Ty) -> i64 {
    if t == Ty::I64 { i64::MAX } else { (1i64 << (t.bits() - 1)) - 1 }
}

/// Facts about the returned value.
#[derive(Clone, Debug, PartialEq)]
pub struct RetFacts {
    /// Every returned value is clamped to `lo + (v urem (hi - lo))` (in the return type).
    pub clamp: Option<(i64, i64)>,
    /// The declared return `range` (emitted only if it contains the clamp).
    pub range: Option<(i64, i64)>,
    /// The driver mixes `zext (icmp ult r, probe)` into its hash (the family base's bound).
    pub probe: Option<i64>,
    pub noundef: bool,
    pub ext: Ext,
}

impl RetFacts {
    pub fn none() -> RetFacts {
        RetFacts { clamp: None, range: None, probe: None, noundef: false, ext: Ext::None }
    }

    pub fn clamp_ok(&self, ret: Ty) -> Option<(i64, i64)> {
        self.clamp.filter(|&(lo, hi)| 0 <= lo && lo < hi && hi <= max_signed(ret))
    }

    pub fn range_attr(&self, ret: Ty) -> Option<(i64, i64)> {
        let (lo, hi) = self.range?;
        let (clo, chi) = self.clamp_ok(ret)?;
        (lo <= clo && chi <= hi && lo < hi && hi <= max_signed(ret)).then_some((lo, hi))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// The type arithmetic happens in (i32 or i64); the notes call a change of it "work type".
    pub arith: Ty,
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
    /// Stack slots: elements of the arith type (powers of two), one alloca each.
    pub slots: Vec<u32>,
    pub ret_facts: RetFacts,
    /// Emit every declared fact, true or not (the control that shows a wrong fact is seen).
    pub unchecked: bool,
}

impl Function {
    pub fn num_vars(&self) -> usize {
        self.params.len() + self.locals.len()
    }

    pub fn uses_invoke(&self) -> bool {
        any_stmt(&self.body, &mut |s| matches!(s, Stmt::Invoke(..)))
    }

    /// Whether any parameter is a pointer (such functions are called by the driver only).
    pub fn has_ptr_params(&self) -> bool {
        self.params.iter().any(|p| p.ptr.is_some())
    }

    /// The earlier pointer parameter whose pointer the driver passes for pointer parameter
    /// `k` (its `alias_of`, when that names one).
    pub fn alias_target(&self, k: usize) -> Option<usize> {
        let pp = self.params.get(k)?.ptr.as_ref()?;
        pp.alias_of.filter(|&a| a < k && self.params[a].ptr.is_some())
    }

    /// How the driver passes pointer parameter `k`: (misalignment in elements, null on every
    /// fourth call), following [`Function::alias_target`].
    pub fn passed(&self, k: usize) -> (u8, bool) {
        let k = self.alias_target(k).unwrap_or(k);
        self.params[k].ptr.as_ref().map_or((0, false), |p| (p.misalign, p.null_calls))
    }

    /// Whether the driver passes pointer parameter `k` 16-byte aligned (or null).
    pub fn passed_aligned(&self, k: usize) -> bool {
        let wbytes = u64::from(self.arith.bits() / 8);
        (u64::from(self.passed(k).0) * wbytes).is_multiple_of(16)
    }

    /// Whether the body checks pointer parameter `k` for null before using it: unless the
    /// member declares it `nonnull` and the driver never passes null (like Rust code with a
    /// reference; the branch then tests `false`).
    pub fn null_checked(&self, k: usize) -> bool {
        let declared = self.params[k].ptr.as_ref().is_some_and(|p| p.nonnull);
        self.passed(k).1 || !declared
    }

    /// Whether the body compares pointer parameter `k` with null, and whether it turns it into
    /// an integer (what its `captures` attribute must allow).
    pub fn ptr_uses(&self, k: usize) -> (bool, bool) {
        let Some(pp) = self.params.get(k).and_then(|p| p.ptr.as_ref()) else {
            return (false, false);
        };
        let (mut int, mut null) = (false, pp.first != First::Nothing);
        let mut e = |e: &Expr| match e {
            Expr::PAlign(j) if *j == k => int = true,
            Expr::PLoad(j, _) if *j == k => null = true,
            _ => {}
        };
        walk_exprs(&self.body, &mut e);
        walk_exprs_in(&self.result, &mut e);
        null |= any_stmt(&self.body, &mut |s| match s {
            Stmt::PStore(j, ..) => *j == k,
            Stmt::AliasProbe { p, q, .. } => *p == k || *q == k,
            _ => false,
        });
        (null && self.null_checked(k), int)
    }

    /// The pointer attributes parameter `k` may carry: the declared ones that hold for how the
    /// driver calls this member (all declared ones when `unchecked`).
    pub fn ptr_attrs(&self, k: usize) -> Vec<String> {
        let Some(pp) = &self.params[k].ptr else { return vec![] };
        let wbytes = u64::from(self.arith.bits() / 8);
        let never_null = !self.passed(k).1;
        let aligned = self.passed_aligned(k);
        let aliased = self.alias_target(k).is_some()
            || (0..self.params.len()).any(|q| self.alias_target(q) == Some(k));
        // `initializes` needs the first access to the memory to be this function's store:
        // not a load through another parameter that points to it.
        let init = pp.first == First::Store && never_null && !aliased;
        let ok = |declared: bool, holds: bool| declared && (holds || self.unchecked);
        let bytes = u64::from(pp.elems) * wbytes;
        let mut v = Vec::new();
        if ok(pp.noalias, !aliased) {
            v.push("noalias".to_string());
        }
        if ok(pp.nonnull, never_null) {
            v.push("nonnull".into());
        }
        if ok(pp.noundef, true) {
            v.push("noundef".into());
        }
        if ok(pp.align16, aligned) {
            v.push("align 16".into());
        }
        let deref = ok(pp.deref, never_null);
        if deref {
            v.push(format!("dereferenceable({bytes})"));
        }
        if deref && ok(pp.writable, true) {
            v.push("writable".into());
        }
        if pp.nocapture {
            // What the body does with the address: nothing, a null check, an integer.
            v.push(
                match self.ptr_uses(k) {
                    _ if self.unchecked => "captures(none)",
                    (_, true) => "captures(address)",
                    (true, false) => "captures(address_is_null)",
                    (false, false) => "captures(none)",
                }
                .into(),
            );
        }
        if ok(pp.initializes, init) {
            v.push(format!("initializes((0, {wbytes}))"));
        }
        v
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
            params: self.params.clone(),
            ret: self.ret,
            ret_ext: self.ret_facts.ext,
        }
    }

    pub fn uses_arr(&self) -> bool {
        let mut found = false;
        walk_exprs(&self.body, &mut |e| found |= matches!(e, Expr::Arr(_)));
        walk_exprs_in(&self.result, &mut |e| found |= matches!(e, Expr::Arr(_)));
        found || any_stmt(&self.body, &mut |s| matches!(s, Stmt::StoreArr(..)))
    }

    /// Statements in the body, nested ones included.
    pub fn size(&self) -> usize {
        let mut n = 0;
        any_stmt(&self.body, &mut |_| {
            n += 1;
            false
        });
        n
    }
}

/// The statement lists directly inside `s`.
pub fn sub_blocks(s: &Stmt) -> Vec<&Vec<Stmt>> {
    match s {
        Stmt::If(_, a, b) => vec![a, b],
        Stmt::Switch(_, cs, d, _) => cs.iter().map(|(_, b)| b).chain([d]).collect(),
        Stmt::Loop(_, b) | Stmt::DynLoop(_, b) | Stmt::Scope { body: b, .. } => vec![b],
        _ => vec![],
    }
}

pub fn sub_blocks_mut(s: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match s {
        Stmt::If(_, a, b) => vec![a, b],
        Stmt::Switch(_, cs, d, _) => cs.iter_mut().map(|(_, b)| b).chain([d]).collect(),
        Stmt::Loop(_, b) | Stmt::DynLoop(_, b) | Stmt::Scope { body: b, .. } => vec![b],
        _ => vec![],
    }
}

/// Whether `f` holds for any statement (pre-order, nested ones included).
pub fn any_stmt(stmts: &[Stmt], f: &mut dyn FnMut(&Stmt) -> bool) -> bool {
    for s in stmts {
        if f(s) {
            return true;
        }
        for b in sub_blocks(s) {
            if any_stmt(b, f) {
                return true;
            }
        }
    }
    false
}

/// The expressions directly in a statement, shared or mutable (`$($m)?`: nothing or `mut`):
/// one match for [`stmt_exprs`] and [`stmt_exprs_mut`].
macro_rules! stmt_exprs_of {
    ($s:expr $(, $m:tt)?) => {
        match $s {
            Stmt::Assign(_, e)
            | Stmt::Log(_, e)
            | Stmt::StoreCell(_, e)
            | Stmt::Invoke(_, e, _)
            | Stmt::DynLoop(e, _)
            | Stmt::Switch(e, ..)
            | Stmt::Scope { seed: e, .. } => vec![e],
            Stmt::StoreArr(a, b) | Stmt::SlotStore(_, a, b) | Stmt::PStore(_, a, b) => vec![a, b],
            Stmt::If(c, ..) => vec![&$($m)? c.a, &$($m)? c.b],
            Stmt::Return(c, e) => vec![&$($m)? c.a, &$($m)? c.b, e],
            Stmt::Loop(..) | Stmt::AliasProbe { .. } | Stmt::Assume(_) => vec![],
        }
    };
}

/// The expressions directly in a statement (not in nested statements).
pub fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    stmt_exprs_of!(s)
}

pub fn stmt_exprs_mut(s: &mut Stmt) -> Vec<&mut Expr> {
    stmt_exprs_of!(s, mut)
}

/// Calls `f` on every expression (pre-order) of the statements.
pub fn walk_exprs(stmts: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        for e in stmt_exprs(s) {
            walk_exprs_in(e, f);
        }
        for b in sub_blocks(s) {
            walk_exprs(b, f);
        }
    }
}

pub fn walk_exprs_in(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    for c in children(e) {
        walk_exprs_in(c, f);
    }
}

/// The direct subexpressions of an expression, shared or mutable (`$iter`: `iter` or
/// `iter_mut`): one match for [`children`] and [`children_mut`].
macro_rules! children_of {
    ($e:expr, $iter:ident) => {
        match $e {
            Expr::Const(_) | Expr::Var(_) | Expr::LoopIdx(_) | Expr::PAlign(_) => vec![],
            Expr::Bin(_, a, b)
            | Expr::SafeAdd { a, b, .. }
            | Expr::SafeMul { a, b, .. }
            | Expr::Shift(_, a, b)
            | Expr::Div(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Pure(_, a, b)
            | Expr::Intr2(_, a, b) => vec![a, b],
            Expr::Select(_, xs) => xs.$iter().collect(),
            Expr::Call(_, args) => args.$iter().collect(),
            Expr::LogRet(_, a)
            | Expr::Table(_, a)
            | Expr::Arr(a)
            | Expr::Intr1(_, a)
            | Expr::Narrow { a, .. }
            | Expr::SlotLoad(_, a)
            | Expr::PLoad(_, a)
            | Expr::Masked { a, .. }
            | Expr::RLoad { idx: a, .. }
            | Expr::PtrLoad { idx: a, .. }
            | Expr::Edge { a, .. }
            | Expr::Fp { a, .. } => vec![a],
        }
    };
}

pub fn children(e: &Expr) -> Vec<&Expr> {
    children_of!(e, iter)
}

pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    children_of!(e, iter_mut)
}
