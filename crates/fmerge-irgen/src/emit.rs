//! Lowering a generated [`Function`] to textual LLVM IR in SSA form: locals become SSA values
//! with phis at every join and loop header, loops are counted, and `invoke`s get a landing pad
//! that catches the helper's C++ exception. Stack slots are allocas in the entry block with
//! `llvm.lifetime.start/end` around each scope; facts are emitted only where they hold (see
//! [`crate::ast`]).

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
            Stmt::Assign(k, _)
            | Stmt::Invoke(k, _, _)
            | Stmt::AliasProbe { var: k, .. }
            | Stmt::Scope { fold: k, .. } => {
                out.insert(*k);
            }
            _ => {}
        }
        for b in sub_blocks(s) {
            assigned(b, out);
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

    fn icmp(&mut self, pred: &str, a: &str, b: &str) -> String {
        let t = self.t();
        let w = self.w.ll();
        self.i(format!("{t} = icmp {pred} {w} {a}, {b}"));
        t
    }

    /// `r < 2^probe ? r : r ^ 0x5a5a` (a range fact on `r` decides it).
    fn bits_probe(&mut self, r: &str, probe: u8) -> String {
        let w = self.w.ll();
        let bound = 1i64 << u32::from(probe).min(self.w.bits() - 2);
        let c = self.icmp("ult", r, &bound.to_string());
        let x = self.bin("xor", r, "23130");
        let t = self.t();
        self.i(format!("{t} = select i1 {c}, {w} {r}, {w} {x}"));
        t
    }

    /// Element `idx & (len - 1)` of stack slot `k`.
    fn slot_elem(&mut self, k: usize, idx: &str) -> String {
        let n = i64::from(self.f.slots[k]);
        self.elem(&format!("%s{k}"), n, idx)
    }

    /// Element `idx & (elems - 1)` of pointer parameter `k` (not null).
    fn ptr_elem(&mut self, k: usize, idx: &str) -> String {
        let n = self.f.params[k].ptr.as_ref().map_or(1, |p| i64::from(p.elems));
        let m = self.mask(idx, n - 1);
        let z = convert(self, &m, self.w, Ty::I64, false);
        let p = self.t();
        let w = self.w.ll();
        self.i(format!("{p} = getelementptr inbounds {w}, ptr %p{k}, i64 {z}"));
        p
    }

    /// Whether pointer parameter `k` is null: an `icmp`, or `false` where the function does
    /// not check (see [`Function::null_checked`]).
    fn is_null(&mut self, k: usize) -> String {
        if !self.f.null_checked(k) {
            return "false".into();
        }
        let c = self.t();
        self.i(format!("{c} = icmp eq ptr %p{k}, null"));
        c
    }

    /// Branches to `nonnull` when pointer parameter `k` is not null, else to `join`; returns
    /// the block it branched from.
    fn null_check(&mut self, k: usize, nonnull: &str, join: &str) -> String {
        let c = self.is_null(k);
        let from = self.cur.clone();
        self.i(format!("br i1 {c}, label %{join}, label %{nonnull}"));
        from
    }

    /// `!prof` branch weights of a condition, as an attachment.
    fn prof(c: &Cond) -> String {
        match c.prof {
            Some((a, b)) => format!(", !prof !{{!\"branch_weights\", i32 {a}, i32 {b}}}"),
            None => String::new(),
        }
    }

    /// A returned value: pointer parameters' variables xor-ed in, converted to the return
    /// type, clamped when the function clamps.
    fn ret_value(&mut self, v: &str) -> String {
        let mut v = v.to_string();
        for k in 0..self.f.params.len() {
            if self.f.params[k].ptr.is_some() {
                let e = self.env[k].clone();
                v = self.bin("xor", &v, &e);
            }
        }
        let ret = self.f.ret;
        let mut r = convert(self, &v, self.w, ret, true);
        if let Some((lo, hi)) = self.f.ret_facts.clamp_ok(ret) {
            let u = self.t();
            self.i(format!("{u} = urem {} {r}, {}", ret.ll(), ret.lit(hi - lo)));
            let a = self.t();
            self.i(format!("{a} = add {} {u}, {}", ret.ll(), ret.lit(lo)));
            r = a;
        }
        r
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
                for (a, p) in args.iter().zip(&c.params) {
                    let v = self.expr(a);
                    let t = p.ty;
                    let mut v = convert(self, &v, self.w, t, true);
                    // Callers pass what the driver passes: a value of the parameter's domain.
                    if let Some((lo, hi)) = p.domain_ok() {
                        let u = self.t();
                        self.i(format!("{u} = urem {} {v}, {}", t.ll(), t.lit(hi - lo)));
                        let a = self.t();
                        self.i(format!("{a} = add {} {u}, {}", t.ll(), t.lit(lo)));
                        v = a;
                    }
                    conv.push(format!("{} {}{v}", t.ll(), narrow_ext(t, p.ext)));
                }
                let r = self.t();
                self.i(format!(
                    "{r} = call {}{} @{}({})",
                    narrow_ext(c.ret, c.ret_ext),
                    c.ret.ll(),
                    c.name,
                    conv.join(", ")
                ));
                convert(self, &r, c.ret, self.w, true)
            }
            Expr::SlotLoad(k, a) => {
                let a = self.expr(a);
                let p = self.slot_elem(*k, &a);
                let t = self.t();
                self.i(format!("{t} = load {w}, ptr {p}"));
                t
            }
            Expr::PLoad(k, a) => {
                let a = self.expr(a);
                let (lp, lj) = (self.label("pld"), self.label("pldj"));
                let from = self.null_check(*k, &lp, &lj);
                self.start(&lp);
                let p = self.ptr_elem(*k, &a);
                let v = self.t();
                self.i(format!("{v} = load {w}, ptr {p}"));
                self.i(format!("br label %{lj}"));
                self.start(&lj);
                let t = self.t();
                self.i(format!("{t} = phi {w} [ 0, %{from} ], [ {v}, %{lp} ]"));
                t
            }
            Expr::PAlign(k) => {
                let i = self.t();
                self.i(format!("{i} = ptrtoint ptr %p{k} to i64"));
                let m = self.t();
                self.i(format!("{m} = and i64 {i}, 15"));
                convert(self, &m, Ty::I64, self.w, false)
            }
            Expr::Masked { k, probe, fact, a } => {
                let a = self.expr(a);
                let k = u32::from(*k).min(self.w.bits() - 2);
                let mask = (1i64 << k) - 1;
                let attr = match fact {
                    Some(d) if u32::from(*d) >= k || self.f.unchecked => {
                        let d = u32::from(*d).min(self.w.bits() - 2);
                        format!("range({w} 0, {}) ", 1i64 << d)
                    }
                    _ => String::new(),
                };
                let r = self.t();
                self.i(format!("{r} = call {attr}{w} @lowbits_{w}({w} {a}, {w} {mask})"));
                self.bits_probe(&r, *probe)
            }
            Expr::RLoad { table, probe, md, idx } => {
                let a = self.expr(idx);
                let k = *table % crate::family::RTAB_BITS.len();
                let bits = crate::family::RTAB_BITS[k];
                let p = self.elem(&format!("@rtab{k}_{w}"), 16, &a);
                let md = match md {
                    Some(d) if *d >= bits || self.f.unchecked => {
                        format!(", !range !{{{w} 0, {w} {}}}", 1i64 << d.min(&30))
                    }
                    _ => String::new(),
                };
                let r = self.t();
                self.i(format!("{r} = load {w}, ptr {p}{md}"));
                self.bits_probe(&r, *probe)
            }
            Expr::PtrLoad { table, md, idx } => {
                let a = self.expr(idx);
                let t = *table % 3;
                let m = self.mask(&a, 7);
                let z = convert(self, &m, self.w, Ty::I64, false);
                let pp = self.t();
                self.i(format!(
                    "{pp} = getelementptr inbounds [8 x ptr], ptr @ptab{t}, i64 0, i64 {z}"
                ));
                let mut mds = String::new();
                if *md && (t != 2 || self.f.unchecked) {
                    mds.push_str(", !nonnull !{}");
                }
                if *md && (t != 1 || self.f.unchecked) {
                    mds.push_str(", !align !{i64 16}");
                }
                let p = self.t();
                self.i(format!("{p} = load ptr, ptr {pp}{mds}"));
                let c = self.t();
                self.i(format!("{c} = icmp eq ptr {p}, null"));
                let (lp, lj) = (self.label("ptrl"), self.label("ptrj"));
                let from = self.cur.clone();
                self.i(format!("br i1 {c}, label %{lj}, label %{lp}"));
                self.start(&lp);
                let i = self.t();
                self.i(format!("{i} = ptrtoint ptr {p} to i64"));
                let m = self.t();
                self.i(format!("{m} = and i64 {i}, 15"));
                let v = self.t();
                self.i(format!("{v} = load i64, ptr {p}, align 1"));
                let s = self.t();
                self.i(format!("{s} = add i64 {v}, {m}"));
                self.i(format!("br label %{lj}"));
                self.start(&lj);
                let r = self.t();
                self.i(format!("{r} = phi i64 [ 77, %{from} ], [ {s}, %{lp} ]"));
                convert(self, &r, Ty::I64, self.w, false)
            }
            Expr::Edge { op, flag, mask, c, a } => {
                let a = self.expr(a);
                let c = edge_c(*op, self.w, *c);
                let m = self.bin("and", &a, &self.w.lit(*mask));
                let on = *flag && (edge_flag_valid(*op, self.w, *mask, c) || self.f.unchecked);
                let cl = self.w.lit(c);
                let fl = |f: &str| if on { format!(" {f}") } else { String::new() };
                let (r, probe) = match op {
                    EdgeOp::AddNsw | EdgeOp::AddNuw => {
                        let (f, p) =
                            if *op == EdgeOp::AddNsw { ("nsw", "sgt") } else { ("nuw", "ugt") };
                        let r = self.bin(&format!("add{}", fl(f)), &m, &cl);
                        let p = self.icmp(p, &r, &m);
                        (r, p)
                    }
                    EdgeOp::ShlNuw | EdgeOp::ShlNsw => {
                        let (f, back) =
                            if *op == EdgeOp::ShlNuw { ("nuw", "lshr") } else { ("nsw", "ashr") };
                        let r = self.bin(&format!("shl{}", fl(f)), &m, &cl);
                        let b = self.bin(back, &r, &cl);
                        let p = self.icmp("eq", &b, &m);
                        (r, p)
                    }
                    EdgeOp::LShrExact => {
                        let r = self.bin(&format!("lshr{}", fl("exact")), &m, &cl);
                        let b = self.bin("shl", &r, &cl);
                        let p = self.icmp("eq", &b, &m);
                        (r, p)
                    }
                    EdgeOp::OrDisjoint => {
                        let r = self.bin(&format!("or{}", fl("disjoint")), &m, &cl);
                        let b = self.bin("sub", &r, &cl);
                        let p = self.icmp("eq", &b, &m);
                        (r, p)
                    }
                    EdgeOp::ZextNneg => {
                        let t = convert(self, &m, self.w, Ty::I32, false);
                        let z = self.t();
                        self.i(format!("{z} = zext{} i32 {t} to i64", fl("nneg")));
                        let sx = self.t();
                        self.i(format!("{sx} = sext i32 {t} to i64"));
                        let p = self.t();
                        self.i(format!("{p} = icmp eq i64 {z}, {sx}"));
                        (convert(self, &z, Ty::I64, self.w, false), p)
                    }
                    EdgeOp::TruncNuw => {
                        let t = self.t();
                        self.i(format!("{t} = trunc{} {w} {m} to i8", fl("nuw")));
                        let z = self.t();
                        self.i(format!("{z} = zext i8 {t} to {w}"));
                        let p = self.icmp("eq", &z, &m);
                        (z, p)
                    }
                    EdgeOp::CmpSamesign => {
                        let p = self.t();
                        self.i(format!("{p} = icmp{} ult {w} {m}, {cl}", fl("samesign")));
                        (m, p)
                    }
                };
                let z = self.t();
                self.i(format!("{z} = zext i1 {probe} to {w}"));
                self.bin("xor", &r, &z)
            }
            Expr::Fp { nnan, ninf, or_bit, a } => {
                let a = self.expr(a);
                let ob = self.w.lit(*or_bit);
                let m = self.bin("or", &a, &ob);
                let nonzero = ob != "0" || self.f.unchecked;
                let fl =
                    |on: bool, f: &str| if on && nonzero { format!(" {f}") } else { String::new() };
                let (nan, inf) = (fl(*nnan, "nnan"), fl(*ninf, "ninf"));
                let d = self.t();
                self.i(format!("{d} = sitofp {w} {m} to double"));
                let n = self.t();
                self.i(format!("{n} = fdiv{nan} double {d}, {d}"));
                let c1 = self.t();
                self.i(format!("{c1} = fcmp{nan} uno double {n}, 0.0"));
                let q = self.t();
                self.i(format!("{q} = fdiv{inf} double 1.0, {d}"));
                // No `ninf` on the comparison: its constant operand is infinite.
                let c2 = self.t();
                self.i(format!("{c2} = fcmp oeq double {q}, 0x7FF0000000000000"));
                let z1 = self.t();
                self.i(format!("{z1} = zext i1 {c1} to {w}"));
                let z2 = self.t();
                self.i(format!("{z2} = zext i1 {c2} to {w}"));
                let s2 = self.bin("shl", &z2, "1");
                self.bin("or", &z1, &s2)
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
            Stmt::If(c0, a, b) => {
                let c = self.cond(c0);
                let (lt, le, lj) = (self.label("then"), self.label("else"), self.label("join"));
                let env0 = self.env.clone();
                let from = self.cur.clone();
                let prof = Self::prof(c0);
                if b.is_empty() {
                    self.i(format!("br i1 {c}, label %{lt}, label %{lj}{prof}"));
                } else {
                    self.i(format!("br i1 {c}, label %{lt}, label %{le}{prof}"));
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
            Stmt::Switch(e, cases, default, dflt) => {
                let v = self.expr(e);
                let s = self.mask(&v, 7);
                let lj = self.label("endsw");
                let labels: Vec<String> = cases.iter().map(|_| self.label("case")).collect();
                let to_case = match dflt {
                    Dflt::Case(i) if *i < cases.len() => Some(*i),
                    _ => None,
                };
                let ld = match to_case {
                    Some(i) => labels[i].clone(),
                    None => self.label("default"),
                };
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
                if to_case.is_none() {
                    self.start(&ld);
                    self.stmts(default);
                    self.i(format!("br label %{lj}"));
                    arms.push((self.cur.clone(), self.env.clone()));
                }
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
            Stmt::Return(c0, e) => {
                let c = self.cond(c0);
                let (lr, lc) = (self.label("ret"), self.label("cont"));
                let prof = Self::prof(c0);
                self.i(format!("br i1 {c}, label %{lr}, label %{lc}{prof}"));
                self.start(&lr);
                let v = self.expr(e);
                let r = self.ret_value(&v);
                self.i(format!("ret {} {r}", self.f.ret.ll()));
                self.start(&lc);
            }
            Stmt::Scope { slot, seed, body, fold, helper } => {
                let k = *slot;
                let n = self.f.slots[k];
                let seed = self.expr(seed);
                self.i(format!("call void @llvm.lifetime.start.p0(ptr %s{k})"));
                if *helper {
                    self.i(format!("call void @fill_{w}(ptr %s{k}, i64 {n}, {w} {seed})"));
                } else {
                    // for i in 0..n: s[i] = seed + i * 0x9E3779B1
                    let (lh, lb, lx) =
                        (self.label("fill"), self.label("fillb"), self.label("filled"));
                    let pre = self.cur.clone();
                    self.i(format!("br label %{lh}"));
                    self.start(&lh);
                    let i = self.t();
                    let i1 = self.t();
                    self.i(format!("{i} = phi i64 [ 0, %{pre} ], [ {i1}, %{lb} ]"));
                    let c = self.t();
                    self.i(format!("{c} = icmp ult i64 {i}, {n}"));
                    self.i(format!("br i1 {c}, label %{lb}, label %{lx}"));
                    self.start(&lb);
                    let iw = convert(self, &i, Ty::I64, self.w, false);
                    let m = self.bin("mul", &iw, &self.w.lit(0x9E37_79B1));
                    let v = self.bin("add", &m, &seed);
                    let p = self.t();
                    self.i(format!(
                        "{p} = getelementptr inbounds [{n} x {w}], ptr %s{k}, i64 0, i64 {i}"
                    ));
                    self.i(format!("store {w} {v}, ptr {p}"));
                    self.i(format!("{i1} = add nuw nsw i64 {i}, 1"));
                    self.i(format!("br label %{lh}"));
                    self.start(&lx);
                }
                self.stmts(body);
                let sum = if *helper {
                    let t = self.t();
                    self.i(format!("{t} = call {w} @sum_{w}(ptr %s{k}, i64 {n})"));
                    t
                } else {
                    // acc = acc * 31 + s[i]
                    let (lh, lb, lx) =
                        (self.label("sum"), self.label("sumb"), self.label("summed"));
                    let pre = self.cur.clone();
                    self.i(format!("br label %{lh}"));
                    self.start(&lh);
                    let (i, i1, acc, acc1) = (self.t(), self.t(), self.t(), self.t());
                    self.i(format!("{i} = phi i64 [ 0, %{pre} ], [ {i1}, %{lb} ]"));
                    self.i(format!("{acc} = phi {w} [ 0, %{pre} ], [ {acc1}, %{lb} ]"));
                    let c = self.t();
                    self.i(format!("{c} = icmp ult i64 {i}, {n}"));
                    self.i(format!("br i1 {c}, label %{lb}, label %{lx}"));
                    self.start(&lb);
                    let p = self.t();
                    self.i(format!(
                        "{p} = getelementptr inbounds [{n} x {w}], ptr %s{k}, i64 0, i64 {i}"
                    ));
                    let v = self.t();
                    self.i(format!("{v} = load {w}, ptr {p}"));
                    let m = self.bin("mul", &acc, "31");
                    self.i(format!("{acc1} = add {w} {m}, {v}"));
                    self.i(format!("{i1} = add nuw nsw i64 {i}, 1"));
                    self.i(format!("br label %{lh}"));
                    self.start(&lx);
                    acc
                };
                let old = self.env[*fold].clone();
                self.env[*fold] = self.bin("xor", &old, &sum);
                self.i(format!("call void @llvm.lifetime.end.p0(ptr %s{k})"));
            }
            Stmt::SlotStore(k, i, e) => {
                let i = self.expr(i);
                let v = self.expr(e);
                let p = self.slot_elem(*k, &i);
                self.i(format!("store {w} {v}, ptr {p}"));
            }
            Stmt::PStore(k, i, e) => {
                let i = self.expr(i);
                let v = self.expr(e);
                let (lp, lj) = (self.label("pst"), self.label("pstj"));
                self.null_check(*k, &lp, &lj);
                self.start(&lp);
                let p = self.ptr_elem(*k, &i);
                self.i(format!("store {w} {v}, ptr {p}"));
                self.i(format!("br label %{lj}"));
                self.start(&lj);
            }
            Stmt::AliasProbe { p, q, var } => {
                let c1 = self.is_null(*p);
                let c2 = self.is_null(*q);
                let c = self.t();
                self.i(format!("{c} = or i1 {c1}, {c2}"));
                let (la, lj) = (self.label("alias"), self.label("aliasj"));
                let from = self.cur.clone();
                self.i(format!("br i1 {c}, label %{lj}, label %{la}"));
                self.start(&la);
                self.i(format!("store {w} 1111, ptr %p{p}"));
                self.i(format!("store {w} 2222, ptr %p{q}"));
                let v = self.t();
                self.i(format!("{v} = load {w}, ptr %p{p}"));
                let old = self.env[*var].clone();
                let x = self.bin("xor", &old, &v);
                self.i(format!("br label %{lj}"));
                self.start(&lj);
                let t = self.t();
                self.i(format!("{t} = phi {w} [ {old}, %{from} ], [ {x}, %{la} ]"));
                self.env[*var] = t;
            }
            Stmt::Assume(k) => {
                let p = &self.f.params[*k];
                if let Some(pp) = &p.ptr {
                    let ok = |declared: bool, holds: bool| declared && (holds || self.f.unchecked);
                    let mut bundles = Vec::new();
                    if ok(pp.nonnull, !self.f.passed(*k).1) {
                        bundles.push(format!("\"nonnull\"(ptr %p{k})"));
                    }
                    // Null is aligned: the bundle holds for a pointer that is sometimes null.
                    if ok(pp.align16, self.f.passed_aligned(*k)) {
                        bundles.push(format!("\"align\"(ptr %p{k}, i64 16)"));
                    }
                    if !bundles.is_empty() {
                        self.i(format!(
                            "call void @llvm.assume(i1 true) [ {} ]",
                            bundles.join(", ")
                        ));
                    }
                } else {
                    let range = if self.f.unchecked { p.range } else { p.range_attr() };
                    if let Some((lo, hi)) = range {
                        let t = p.ty.ll();
                        let a = self.t();
                        self.i(format!("{a} = sub {t} %p{k}, {}", p.ty.lit(lo)));
                        let c = self.t();
                        self.i(format!("{c} = icmp ult {t} {a}, {}", p.ty.lit(hi - lo)));
                        self.i(format!("call void @llvm.assume(i1 {c})"));
                    }
                }
            }
        }
    }
}

/// The function's definition as textual IR.
pub fn function(f: &Function) -> String {
    let w = f.arith;
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
        if p.ptr.is_some() {
            // A pointer parameter's variable is an ordinary local (its address never leaks into
            // values: those would differ between runs).
            em.env.push(w.lit(0));
        } else {
            let v = convert(&mut em, &format!("%p{k}"), p.ty, w, p.signed);
            em.env.push(v);
        }
    }
    for &l in &f.locals {
        em.env.push(w.lit(l));
    }
    for (k, n) in f.slots.iter().enumerate() {
        em.i(format!("%s{k} = alloca [{n} x {}], align 8", w.ll()));
    }
    for (k, p) in f.params.iter().enumerate() {
        let Some(pp) = &p.ptr else { continue };
        match pp.first {
            First::Nothing => {}
            First::Store if !f.passed(k).1 => {
                em.i(format!("store {} {}, ptr %p{k}", w.ll(), 1000 + k));
            }
            First::Store | First::Load => {
                let (lp, lj) = (em.label("first"), em.label("firstj"));
                let from = em.null_check(k, &lp, &lj);
                em.start(&lp);
                let v = if pp.first == First::Load {
                    let v = em.t();
                    em.i(format!("{v} = load {}, ptr %p{k}", w.ll()));
                    v
                } else {
                    em.i(format!("store {} {}, ptr %p{k}", w.ll(), 1000 + k));
                    "0".into()
                };
                em.i(format!("br label %{lj}"));
                em.start(&lj);
                let t = em.t();
                em.i(format!("{t} = phi {} [ 0, %{from} ], [ {v}, %{lp} ]", w.ll()));
                em.env[k] = t;
            }
        }
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
    let r = em.ret_value(&v);
    em.i(format!("ret {} {r}", f.ret.ll()));

    let params: Vec<String> = f
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            if p.ptr.is_some() {
                let attrs: String = f.ptr_attrs(k).iter().map(|a| format!("{a} ")).collect();
                format!("ptr {attrs}%p{k}")
            } else {
                let range = if f.unchecked { p.range } else { p.range_attr() };
                let range = range
                    .map(|(lo, hi)| format!("range({} {}, {}) ", p.ty.ll(), lo, hi))
                    .unwrap_or_default();
                let noundef = if p.noundef { "noundef " } else { "" };
                format!("{} {}{noundef}{range}%p{k}", p.ty.ll(), narrow_ext(p.ty, p.ext))
            }
        })
        .collect();
    let rf = &f.ret_facts;
    let range = if f.unchecked { rf.range } else { rf.range_attr(f.ret) };
    let ret_attrs = format!(
        "{}{}{}",
        narrow_ext(f.ret, rf.ext),
        if rf.noundef { "noundef " } else { "" },
        range.map(|(lo, hi)| format!("range({} {lo}, {hi}) ", f.ret.ll())).unwrap_or_default()
    );
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
        "define {}{ret_attrs}{} @{}({}){unnamed}{attrs}{pers} {{",
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

/// `zeroext`/`signext`, on the narrow types only (i8, i16).
pub fn narrow_ext(t: Ty, e: Ext) -> &'static str {
    if t.bits() < 32 { e.ll() } else { "" }
}
