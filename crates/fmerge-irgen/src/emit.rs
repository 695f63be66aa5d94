//! Lowering a generated [`Function`] to textual LLVM IR in SSA form: locals become SSA values
//! with phis at every join and loop header, loops are counted, and `invoke`s get a landing pad
//! that catches the helper's C++ exception.

use crate::ast::*;
use std::collections::BTreeSet;
use std::fmt::Write;

struct Em<'f> {
    f: &'f Function,
    w: Ty,
    lines: Vec<String>,
    tmp: usize,
    blk: usize,
    cur: String,
    env: Vec<String>,
    loops: Vec<String>,
    arr: bool,
}

fn pred(p: Pred) -> &'static str {
    match p {
        Pred::Eq => "eq",
        Pred::Ne => "ne",
        Pred::Slt => "slt",
        Pred::Sle => "sle",
        Pred::Sgt => "sgt",
        Pred::Ult => "ult",
        Pred::Uge => "uge",
    }
}

/// Variables a statement list may assign (for loop-header phis).
fn assigned(stmts: &[Stmt], out: &mut BTreeSet<usize>) {
    for s in stmts {
        match s {
            Stmt::Assign(k, _) | Stmt::Invoke(k, _, _) => {
                out.insert(*k);
            }
            Stmt::If(_, a, b) => {
                assigned(a, out);
                assigned(b, out);
            }
            Stmt::Switch(_, cs, d) => {
                for (_, b) in cs {
                    assigned(b, out);
                }
                assigned(d, out);
            }
            Stmt::Loop(_, b) | Stmt::DynLoop(_, b) => assigned(b, out),
            _ => {}
        }
    }
}

/// `v` (of type `from`) converted to `to`.
fn convert(em: &mut Em<'_>, v: &str, from: Ty, to: Ty, signed: bool) -> String {
    if from.bits() == to.bits() {
        return v.to_string();
    }
    let t = em.t();
    let op = if from.bits() > to.bits() {
        "trunc"
    } else if signed {
        "sext"
    } else {
        "zext"
    };
    em.i(format!("{t} = {op} {} {v} to {}", from.ll(), to.ll()));
    t
}

impl Em<'_> {
    fn t(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    fn label(&mut self, base: &str) -> String {
        self.blk += 1;
        format!("{base}{}", self.blk)
    }

    fn i(&mut self, s: String) {
        self.lines.push(format!("  {s}"));
    }

    fn start(&mut self, l: &str) {
        self.lines.push(format!("{l}:"));
        self.cur = l.to_string();
    }

    fn bin(&mut self, op: &str, a: &str, b: &str) -> String {
        let t = self.t();
        let w = self.w.ll();
        self.i(format!("{t} = {op} {w} {a}, {b}"));
        t
    }

    fn mask(&mut self, a: &str, m: i64) -> String {
        self.bin("and", a, &m.to_string())
    }

    /// Pointer to element `idx & (n - 1)` of the `[n x W]` array at `base`.
    fn elem(&mut self, base: &str, n: i64, idx: &str) -> String {
        let m = self.mask(idx, n - 1);
        let z = convert(self, &m, self.w, Ty::I64, false);
        let p = self.t();
        let w = self.w.ll();
        self.i(format!("{p} = getelementptr inbounds [{n} x {w}], ptr {base}, i64 0, i64 {z}"));
        p
    }

    fn expr(&mut self, e: &Expr) -> String {
        let w = self.w.ll();
        match e {
            Expr::Const(v) => self.w.lit(*v),
            Expr::Var(k) => self.env[*k].clone(),
            Expr::LoopIdx(d) => {
                if *d < self.loops.len() {
                    self.loops[self.loops.len() - 1 - d].clone()
                } else {
                    "0".into()
                }
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let op = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::And => "and",
                    BinOp::Or => "or",
                    BinOp::Xor => "xor",
                };
                self.bin(op, &a, &b)
            }
            Expr::SafeAdd { nsw, nuw, a, b } | Expr::SafeMul { nsw, nuw, a, b } => {
                let (op, m) =
                    if matches!(e, Expr::SafeAdd { .. }) { ("add", 0xffff) } else { ("mul", 0xff) };
                let (a, b) = (self.expr(a), self.expr(b));
                let (a, b) = (self.mask(&a, m), self.mask(&b, m));
                let flags =
                    format!("{}{}", if *nuw { " nuw" } else { "" }, if *nsw { " nsw" } else { "" });
                self.bin(&format!("{op}{flags}"), &a, &b)
            }
            Expr::Shift(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let amt = self.mask(&b, i64::from(self.w.bits()) - 1);
                let op = match op {
                    ShiftOp::Shl => "shl",
                    ShiftOp::LShr => "lshr",
                    ShiftOp::AShr => "ashr",
                };
                self.bin(op, &a, &amt)
            }
            Expr::Div(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let (name, d) = match op {
                    DivOp::UDiv | DivOp::URem => ("u", self.bin("or", &b, "1")),
                    DivOp::SDiv | DivOp::SRem => {
                        let m = self.mask(&b, 255);
                        ("s", self.bin("or", &m, "1"))
                    }
                };
                let kind = if matches!(op, DivOp::UDiv | DivOp::SDiv) { "div" } else { "rem" };
                self.bin(&format!("{name}{kind}"), &a, &d)
            }
            Expr::Cmp(p, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let c = self.t();
                self.i(format!("{c} = icmp {} {w} {a}, {b}", pred(*p)));
                let t = self.t();
                self.i(format!("{t} = zext i1 {c} to {w}"));
                t
            }
            Expr::Select(p, xs) => {
                let v: Vec<String> = xs.iter().map(|x| self.expr(x)).collect();
                let c = self.t();
                self.i(format!("{c} = icmp {} {w} {}, {}", pred(*p), v[0], v[1]));
                let t = self.t();
                self.i(format!("{t} = select i1 {c}, {w} {}, {w} {}", v[2], v[3]));
                t
            }
            Expr::Pure(k, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let t = self.t();
                self.i(format!("{t} = call {w} @mix{k}_{w}({w} {a}, {w} {b})"));
                t
            }
            Expr::LogRet(tag, a) => {
                let a = self.expr(a);
                let t = self.t();
                self.i(format!("{t} = call {w} @logret_{w}(i32 {tag}, {w} {a})"));
                t
            }
            Expr::Table(k, a) => {
                let a = self.expr(a);
                let p = self.elem(&format!("@tab{k}_{w}"), 16, &a);
                let t = self.t();
                self.i(format!("{t} = load {w}, ptr {p}"));
                t
            }
            Expr::Arr(a) => {
                let a = self.expr(a);
                let p = self.elem("%arr", 8, &a);
                let t = self.t();
                self.i(format!("{t} = load {w}, ptr {p}"));
                t
            }
            Expr::Intr2(op, a, b) => {
                let (a, b) = (self.expr(a), self.expr(b));
                let n = match op {
                    Intr2::SMax => "smax",
                    Intr2::SMin => "smin",
                    Intr2::UMax => "umax",
                    Intr2::UMin => "umin",
                };
                let t = self.t();
                self.i(format!("{t} = call {w} @llvm.{n}.{w}({w} {a}, {w} {b})"));
                t
            }
            Expr::Intr1(op, a) => {
                let a = self.expr(a);
                let t = self.t();
                let call = match op {
                    Intr1::Ctpop => format!("@llvm.ctpop.{w}({w} {a})"),
                    Intr1::Bswap => format!("@llvm.bswap.{w}({w} {a})"),
                    Intr1::Abs => format!("@llvm.abs.{w}({w} {a}, i1 false)"),
                };
                self.i(format!("{t} = call {w} {call}"));
                t
            }
            Expr::Call(c, args) => {
                let mut conv = Vec::new();
                for (a, t) in args.iter().zip(&c.params) {
                    let v = self.expr(a);
                    let v = convert(self, &v, self.w, *t, true);
                    conv.push(format!("{} {v}", t.ll()));
                }
                let r = self.t();
                self.i(format!("{r} = call {} @{}({})", c.ret.ll(), c.name, conv.join(", ")));
                convert(self, &r, c.ret, self.w, true)
            }
            Expr::Narrow { to16, signed, a } => {
                let a = self.expr(a);
                let n = if *to16 { Ty::I16 } else { Ty::I8 };
                let x = convert(self, &a, self.w, n, false);
                convert(self, &x, n, self.w, *signed)
            }
        }
    }

    fn cond(&mut self, c: &Cond) -> String {
        let (a, b) = (self.expr(&c.a), self.expr(&c.b));
        let t = self.t();
        self.i(format!("{t} = icmp {} {} {a}, {b}", pred(c.pred), self.w.ll()));
        t
    }

    /// Joins the arms `(end block, environment)` at the current block with phis.
    fn join(&mut self, arms: &[(String, Vec<String>)]) {
        let w = self.w.ll();
        let mut env = arms[0].1.clone();
        for (k, slot) in env.iter_mut().enumerate() {
            if arms.iter().all(|(_, e)| e[k] == arms[0].1[k]) {
                continue;
            }
            self.tmp += 1;
            let t = format!("%v{k}.j{}", self.tmp);
            let ins: Vec<String> =
                arms.iter().map(|(b, e)| format!("[ {}, %{b} ]", e[k])).collect();
            self.i(format!("{t} = phi {w} {}", ins.join(", ")));
            *slot = t;
        }
        self.env = env;
    }

    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let w = self.w.ll();
        match s {
            Stmt::Assign(k, e) => {
                let v = self.expr(e);
                self.env[*k] = v;
            }
            Stmt::Log(tag, e) => {
                let v = self.expr(e);
                self.i(format!("call void @log_{w}(i32 {tag}, {w} {v})"));
            }
            Stmt::StoreCell(k, e) => {
                let v = self.expr(e);
                self.i(format!("store {w} {v}, ptr @cell{k}_{w}"));
            }
            Stmt::StoreArr(i, e) => {
                let i = self.expr(i);
                let v = self.expr(e);
                let p = self.elem("%arr", 8, &i);
                self.i(format!("store {w} {v}, ptr {p}"));
            }
            Stmt::If(c, a, b) => {
                let c = self.cond(c);
                let (lt, le, lj) = (self.label("then"), self.label("else"), self.label("join"));
                let env0 = self.env.clone();
                let from = self.cur.clone();
                if b.is_empty() {
                    self.i(format!("br i1 {c}, label %{lt}, label %{lj}"));
                } else {
                    self.i(format!("br i1 {c}, label %{lt}, label %{le}"));
                }
                self.start(&lt);
                self.stmts(a);
                self.i(format!("br label %{lj}"));
                let mut arms = vec![(self.cur.clone(), self.env.clone())];
                if b.is_empty() {
                    arms.push((from, env0));
                } else {
                    self.env = env0;
                    self.start(&le);
                    self.stmts(b);
                    self.i(format!("br label %{lj}"));
                    arms.push((self.cur.clone(), self.env.clone()));
                }
                self.start(&lj);
                self.join(&arms);
            }
            Stmt::Switch(e, cases, default) => {
                let v = self.expr(e);
                let s = self.mask(&v, 7);
                let ld = self.label("default");
                let lj = self.label("endsw");
                let labels: Vec<String> = cases.iter().map(|_| self.label("case")).collect();
                let arms_txt: Vec<String> = cases
                    .iter()
                    .zip(&labels)
                    .map(|((cv, _), l)| format!("{w} {cv}, label %{l}"))
                    .collect();
                self.i(format!("switch {w} {s}, label %{ld} [ {} ]", arms_txt.join(" ")));
                let env0 = self.env.clone();
                let mut arms = Vec::new();
                for ((_, body), l) in cases.iter().zip(&labels) {
                    self.env = env0.clone();
                    self.start(l);
                    self.stmts(body);
                    self.i(format!("br label %{lj}"));
                    arms.push((self.cur.clone(), self.env.clone()));
                }
                self.env = env0;
                self.start(&ld);
                self.stmts(default);
                self.i(format!("br label %{lj}"));
                arms.push((self.cur.clone(), self.env.clone()));
                self.start(&lj);
                self.join(&arms);
            }
            Stmt::Loop(_, body) | Stmt::DynLoop(_, body) => {
                let bound = match s {
                    Stmt::Loop(n, _) => n.to_string(),
                    Stmt::DynLoop(e, _) => {
                        let v = self.expr(e);
                        self.mask(&v, 7)
                    }
                    _ => unreachable!(),
                };
                let (lh, lb, lx) = (self.label("head"), self.label("body"), self.label("exit"));
                let pre = self.cur.clone();
                self.i(format!("br label %{lh}"));
                self.start(&lh);
                let n = self.blk;
                let idx = format!("%i.{n}");
                let idx_slot = self.lines.len();
                self.lines.push(String::new());
                let mut vars = BTreeSet::new();
                assigned(body, &mut vars);
                let mut slots = Vec::new();
                let entry_env = self.env.clone();
                for &k in &vars {
                    slots.push((k, self.lines.len()));
                    self.lines.push(String::new());
                    self.env[k] = format!("%v{k}.h{n}");
                }
                let header_env = self.env.clone();
                let c = self.t();
                self.i(format!("{c} = icmp ult {w} {idx}, {bound}"));
                self.i(format!("br i1 {c}, label %{lb}, label %{lx}"));
                self.start(&lb);
                self.loops.push(idx.clone());
                self.stmts(body);
                self.loops.pop();
                let next = self.bin("add nuw nsw", &idx, "1");
                self.i(format!("br label %{lh}"));
                let latch = self.cur.clone();
                self.lines[idx_slot] =
                    format!("  {idx} = phi {w} [ 0, %{pre} ], [ {next}, %{latch} ]");
                for (k, line) in slots {
                    self.lines[line] = format!(
                        "  %v{k}.h{n} = phi {w} [ {}, %{pre} ], [ {}, %{latch} ]",
                        entry_env[k], self.env[k]
                    );
                }
                self.env = header_env;
                self.start(&lx);
            }
            Stmt::Invoke(k, e, tag) => {
                let v = self.expr(e);
                let (lok, lpad, lj) = (self.label("ok"), self.label("lpad"), self.label("caught"));
                let r = self.t();
                self.i(format!(
                    "{r} = invoke {w} @maythrow_{w}({w} {v}) to label %{lok} unwind label %{lpad}"
                ));
                self.start(&lok);
                self.i(format!("br label %{lj}"));
                self.start(&lpad);
                let lp = self.t();
                self.i(format!("{lp} = landingpad {{ ptr, i32 }} catch ptr @_ZTIi"));
                let ex = self.t();
                self.i(format!("{ex} = extractvalue {{ ptr, i32 }} {lp}, 0"));
                let cb = self.t();
                self.i(format!("{cb} = call ptr @__cxa_begin_catch(ptr {ex})"));
                self.i("call void @__cxa_end_catch()".to_string());
                // The catch is visible in the side-effect log even if `var` is dead.
                self.i(format!("call void @log_{w}(i32 1000, {w} {})", self.w.lit(*tag)));
                self.i(format!("br label %{lj}"));
                self.start(&lj);
                let t = self.t();
                self.i(format!("{t} = phi {w} [ {r}, %{lok} ], [ {}, %{lpad} ]", self.w.lit(*tag)));
                self.env[*k] = t;
            }
            Stmt::Return(c, e) => {
                let c = self.cond(c);
                let (lr, lc) = (self.label("ret"), self.label("cont"));
                self.i(format!("br i1 {c}, label %{lr}, label %{lc}"));
                self.start(&lr);
                let v = self.expr(e);
                let r = convert(self, &v, self.w, self.f.ret, true);
                self.i(format!("ret {} {r}", self.f.ret.ll()));
                self.start(&lc);
            }
        }
    }
}

/// The function's definition as textual IR.
pub fn function(f: &Function) -> String {
    let w = f.work;
    let mut em = Em {
        f,
        w,
        lines: Vec::new(),
        tmp: 0,
        blk: 0,
        cur: "entry".into(),
        env: Vec::new(),
        loops: Vec::new(),
        arr: f.uses_arr(),
    };
    em.lines.push("entry:".into());
    for (k, p) in f.params.iter().enumerate() {
        let v = convert(&mut em, &format!("%p{k}"), p.ty, w, p.signed);
        em.env.push(v);
    }
    for &l in &f.locals {
        em.env.push(w.lit(l));
    }
    if em.arr {
        em.i(format!("%arr = alloca [8 x {}], align 8", w.ll()));
        for (k, v) in f.arr.iter().enumerate() {
            let p = em.t();
            em.i(format!(
                "{p} = getelementptr inbounds [8 x {0}], ptr %arr, i64 0, i64 {k}",
                w.ll()
            ));
            em.i(format!("store {} {}, ptr {p}", w.ll(), w.lit(*v)));
        }
    }
    em.stmts(&f.body);
    let v = em.expr(&f.result);
    let r = convert(&mut em, &v, w, f.ret, true);
    em.i(format!("ret {} {r}", f.ret.ll()));

    let params: Vec<String> =
        f.params.iter().enumerate().map(|(k, p)| format!("{} %p{k}", p.ty.ll())).collect();
    let unnamed = match f.unnamed {
        UnnamedAddr::None => "",
        UnnamedAddr::Local => " local_unnamed_addr",
        UnnamedAddr::Global => " unnamed_addr",
    };
    let mut s = String::new();
    let attrs: String = f.attrs.iter().map(|a| format!(" {a}")).collect();
    let pers = if f.uses_invoke() { " personality ptr @__gxx_personality_v0" } else { "" };
    writeln!(
        s,
        "define {}{} @{}({}){unnamed}{attrs}{pers} {{",
        f.linkage.ll(),
        f.ret.ll(),
        f.name,
        params.join(", ")
    )
    .unwrap();
    for l in &em.lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("}\n");
    s
}
