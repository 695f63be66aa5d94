//! Random functions and the mutations that turn one function into a family of similar ones.

use crate::ast::*;
use crate::rng::Rng;

/// Helpers and globals every module has (see `module.rs`).
pub const PURE_HELPERS: usize = 3;
pub const TABLES: usize = 3;
pub const CELLS: usize = 4;

/// Value bits of the `!range` tables `@rtab{k}_W` (16 values in `0..2^bits`).
pub const RTAB_BITS: [u8; 4] = [2, 4, 7, 12];

/// What a generated function may contain.
#[derive(Clone, Copy, Debug)]
pub struct Features<'a> {
    /// `invoke` + `landingpad` (needs a C++ runtime at execution time).
    pub eh: bool,
    /// Generated functions (of earlier families) that may be called.
    pub callees: &'a [Callee],
    /// Stack slots with lifetime markers.
    pub slots: bool,
    /// Facts (attributes, metadata, flags, assumes) and pointer parameters.
    pub facts: bool,
}

#[derive(Clone, Copy, Debug)]
struct Ctx<'a> {
    vars: usize,
    loops: usize,
    eh: bool,
    callees: &'a [Callee],
    /// Slots in scope here (bit k: slot k).
    live: u32,
    /// Slots the function has.
    slots: usize,
    /// Pointer parameters (bit k: parameter k).
    ptrs: u32,
    facts: bool,
}

impl Ctx<'_> {
    fn pick_bit(rng: &mut Rng, mask: u32) -> usize {
        let bits: Vec<usize> = (0..32).filter(|b| mask & (1 << b) != 0).collect();
        *rng.pick(&bits)
    }
}

fn ctx_for<'a>(f: &Function, feat: Features<'a>, loops: usize, live: u32) -> Ctx<'a> {
    Ctx {
        vars: f.num_vars(),
        loops,
        eh: feat.eh,
        callees: feat.callees,
        live,
        slots: f.slots.len(),
        ptrs: f
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ptr.is_some())
            .fold(0, |m, (k, _)| m | 1 << k),
        facts: feat.facts,
    }
}

fn leaf(rng: &mut Rng, c: Ctx<'_>) -> Expr {
    match rng.below(10) {
        0..=3 => Expr::Var(rng.below(c.vars)),
        4 if c.loops > 0 => Expr::LoopIdx(rng.below(c.loops)),
        _ => Expr::Const(rng.constant()),
    }
}

/// A mask `2^k - 1` with `k` in `lo..=hi`.
fn low_mask(rng: &mut Rng, lo: u32, hi: u32) -> i64 {
    let k = rng.range(i64::from(lo), i64::from(hi)) as u32;
    if k >= 64 { -1 } else { (1i64 << k) - 1 }
}

/// An edge operation whose flag holds in the function that has it (mask and constant chosen
/// for that; mutations may widen the mask, and the flag then goes).
pub fn edge(rng: &mut Rng, a: Box<Expr>) -> Expr {
    let op = *rng.pick(&EDGE_OPS);
    let (mask, c) = match op {
        EdgeOp::AddNsw | EdgeOp::AddNuw => (low_mask(rng, 2, 20), rng.range(1, 1000)),
        EdgeOp::ShlNuw | EdgeOp::ShlNsw => (low_mask(rng, 2, 20), rng.range(1, 8)),
        EdgeOp::LShrExact => {
            let c = rng.range(1, 4);
            (low_mask(rng, 4, 20) & !((1i64 << c) - 1), c)
        }
        EdgeOp::OrDisjoint => {
            let k = rng.range(2, 16);
            ((1i64 << k) - 1, 1i64 << (k + rng.range(0, 3)))
        }
        EdgeOp::ZextNneg => (low_mask(rng, 2, 30), 0),
        EdgeOp::TruncNuw => (low_mask(rng, 2, 8), 0),
        EdgeOp::CmpSamesign => (low_mask(rng, 2, 20), rng.range(0, 1000)),
    };
    Expr::Edge { op, flag: rng.chance(85), mask, c, a }
}

/// One of the fact-carrying expressions.
fn fact_expr(rng: &mut Rng, sub: Box<Expr>) -> Expr {
    match rng.below(5) {
        0 => {
            let k = *rng.pick(&[2u8, 3, 4, 8, 12, 16]);
            Expr::Masked { k, probe: k, fact: rng.chance(75).then_some(k), a: sub }
        }
        1 => {
            let table = rng.below(RTAB_BITS.len());
            let bits = RTAB_BITS[table];
            Expr::RLoad { table, probe: bits, md: rng.chance(75).then_some(bits), idx: sub }
        }
        2 => Expr::PtrLoad { table: rng.below(3), md: rng.chance(75), idx: sub },
        3 => Expr::Fp {
            nnan: rng.chance(70),
            ninf: rng.chance(70),
            or_bit: if rng.chance(80) { 1 << rng.below(8) } else { 0 },
            a: sub,
        },
        _ => edge(rng, sub),
    }
}

fn expr(rng: &mut Rng, c: Ctx<'_>, depth: u32) -> Expr {
    if depth == 0 || rng.chance(25) {
        return leaf(rng, c);
    }
    let d = depth - 1;
    let sub = |rng: &mut Rng| Box::new(expr(rng, c, d));
    match rng.below(26) {
        0..=4 => Expr::Bin(*rng.pick(&BINOPS), sub(rng), sub(rng)),
        5 => Expr::SafeAdd { nsw: rng.chance(50), nuw: rng.chance(50), a: sub(rng), b: sub(rng) },
        6 => Expr::SafeMul { nsw: rng.chance(50), nuw: rng.chance(50), a: sub(rng), b: sub(rng) },
        7 => Expr::Shift(
            *rng.pick(&[ShiftOp::Shl, ShiftOp::LShr, ShiftOp::AShr]),
            sub(rng),
            sub(rng),
        ),
        8 => Expr::Div(
            *rng.pick(&[DivOp::UDiv, DivOp::URem, DivOp::SDiv, DivOp::SRem]),
            sub(rng),
            sub(rng),
        ),
        9 => Expr::Cmp(*rng.pick(&PREDS), sub(rng), sub(rng)),
        10 => {
            Expr::Select(*rng.pick(&PREDS), Box::new([*sub(rng), *sub(rng), *sub(rng), *sub(rng)]))
        }
        11 | 12 => Expr::Pure(rng.below(PURE_HELPERS), sub(rng), sub(rng)),
        13 => Expr::LogRet(rng.range(0, 99), sub(rng)),
        14 => Expr::Table(rng.below(TABLES), sub(rng)),
        15 => Expr::Arr(sub(rng)),
        16 => Expr::Intr2(*rng.pick(&INTR2), sub(rng), sub(rng)),
        17 => Expr::Intr1(*rng.pick(&[Intr1::Ctpop, Intr1::Bswap, Intr1::Abs]), sub(rng)),
        18 => Expr::Narrow { to16: rng.chance(50), signed: rng.chance(50), a: sub(rng) },
        19 if c.loops == 0 && !c.callees.is_empty() => {
            let callee = rng.pick(c.callees).clone();
            let args = callee.params.iter().map(|_| expr(rng, c, d.min(1))).collect();
            Expr::Call(Box::new(callee), args)
        }
        20 | 21 if c.live != 0 => Expr::SlotLoad(Ctx::pick_bit(rng, c.live), sub(rng)),
        22 if c.ptrs != 0 => {
            let k = Ctx::pick_bit(rng, c.ptrs);
            if rng.chance(25) { Expr::PAlign(k) } else { Expr::PLoad(k, sub(rng)) }
        }
        23 | 24 if c.facts => {
            let a = sub(rng);
            fact_expr(rng, a)
        }
        _ => leaf(rng, c),
    }
}

fn cond(rng: &mut Rng, c: Ctx<'_>) -> Cond {
    let pred = *rng.pick(&PREDS);
    let prof =
        (c.facts && rng.chance(20)).then(|| (rng.range(1, 2000) as u32, rng.range(1, 2000) as u32));
    if matches!(pred, Pred::Eq | Pred::Ne) {
        // Equality of two random values is almost never true: compare two low bits instead.
        let a = Expr::Bin(BinOp::And, Box::new(expr(rng, c, 2)), Box::new(Expr::Const(3)));
        return Cond { pred, a, b: Expr::Const(rng.range(0, 3)), prof };
    }
    Cond { pred, a: expr(rng, c, 2), b: expr(rng, c, 1), prof }
}

fn block(rng: &mut Rng, c: Ctx<'_>, depth: u32, max: usize) -> Vec<Stmt> {
    let n = rng.range(1, max as i64) as usize;
    (0..n).map(|_| stmt(rng, c, depth)).collect()
}

/// A scope of a slot that is not live here (None if all are).
fn scope(rng: &mut Rng, c: Ctx<'_>, depth: u32) -> Option<Stmt> {
    let free: Vec<usize> = (0..c.slots).filter(|k| c.live & (1 << k) == 0).collect();
    if free.is_empty() {
        return None;
    }
    let slot = *rng.pick(&free);
    let inner = Ctx { live: c.live | 1 << slot, ..c };
    let mut body = block(rng, inner, depth, 3);
    // The slot is used in its scope: a store and a load at least now and then.
    if rng.chance(70) {
        body.insert(0, Stmt::SlotStore(slot, expr(rng, inner, 1), expr(rng, inner, 2)));
    }
    if rng.chance(70) {
        let v = rng.below(c.vars);
        body.push(Stmt::Assign(
            v,
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Var(v)),
                Box::new(Expr::SlotLoad(slot, Box::new(expr(rng, inner, 1)))),
            ),
        ));
    }
    Some(Stmt::Scope {
        slot,
        seed: expr(rng, c, 2),
        body,
        fold: rng.below(c.vars),
        helper: rng.chance(40),
    })
}

fn stmt(rng: &mut Rng, c: Ctx<'_>, depth: u32) -> Stmt {
    let nested = depth > 0;
    let d = depth.saturating_sub(1);
    match rng.below(27) {
        0..=6 => Stmt::Assign(rng.below(c.vars), expr(rng, c, 3)),
        7 | 8 if nested => Stmt::If(cond(rng, c), block(rng, c, d, 3), {
            if rng.chance(50) { block(rng, c, d, 2) } else { vec![] }
        }),
        9 if nested => {
            let mut vals: Vec<i64> = (0..8).collect();
            let n = rng.range(1, 4) as usize;
            let cases: Vec<(i64, Vec<Stmt>)> = (0..n)
                .map(|_| {
                    let v = vals.remove(rng.below(vals.len()));
                    (v, block(rng, c, d, 2))
                })
                .collect();
            let dflt = if rng.chance(20) { Dflt::Case(rng.below(cases.len())) } else { Dflt::Own };
            Stmt::Switch(expr(rng, c, 2), cases, block(rng, c, d, 2), dflt)
        }
        10 if nested && c.loops < 2 => {
            let inner = Ctx { loops: c.loops + 1, ..c };
            Stmt::Loop(rng.range(1, 8) as u8, block(rng, inner, d, 3))
        }
        11 if nested && c.loops < 2 => {
            let e = expr(rng, c, 2);
            let inner = Ctx { loops: c.loops + 1, ..c };
            Stmt::DynLoop(e, block(rng, inner, d, 3))
        }
        12 | 13 => Stmt::Log(rng.range(0, 99), expr(rng, c, 2)),
        14 => Stmt::StoreCell(rng.below(CELLS), expr(rng, c, 2)),
        15 => Stmt::StoreArr(expr(rng, c, 1), expr(rng, c, 2)),
        16 | 18 if c.eh => Stmt::Invoke(rng.below(c.vars), expr(rng, c, 2), rng.range(-50, 50)),
        17 => Stmt::Return(cond(rng, c), expr(rng, c, 2)),
        22 | 23 if c.slots > 0 => {
            scope(rng, c, d).unwrap_or_else(|| Stmt::Assign(rng.below(c.vars), expr(rng, c, 2)))
        }
        24 if c.live != 0 => {
            Stmt::SlotStore(Ctx::pick_bit(rng, c.live), expr(rng, c, 1), expr(rng, c, 2))
        }
        25 if c.ptrs != 0 => {
            Stmt::PStore(Ctx::pick_bit(rng, c.ptrs), expr(rng, c, 1), expr(rng, c, 2))
        }
        _ => Stmt::Assign(rng.below(c.vars), expr(rng, c, 2)),
    }
}

fn ty(rng: &mut Rng) -> Ty {
    *rng.pick(&[Ty::I8, Ty::I16, Ty::I32, Ty::I32, Ty::I64, Ty::I64])
}

fn ext(rng: &mut Rng) -> Ext {
    *rng.pick(&[Ext::None, Ext::Zext, Ext::Sext])
}

/// A domain `lo..hi` inside `0..=max_signed(t)`.
fn domain(rng: &mut Rng, t: Ty) -> (i64, i64) {
    let max = max_signed(t).min(1 << 20);
    let lo = if rng.chance(50) { 0 } else { rng.range(0, 20) };
    let width = *rng.pick(&[2i64, 4, 10, 16, 50, 100, 1000, 100_000]);
    (lo, (lo + width).min(max))
}

fn int_param(rng: &mut Rng, facts: bool) -> Param {
    let mut p = Param::int(ty(rng), rng.chance(50));
    if facts {
        if rng.chance(45) {
            let d = domain(rng, p.ty);
            p.domain = Some(d);
            p.range = rng.chance(85).then_some(d);
        }
        p.noundef = rng.chance(40);
        p.ext = ext(rng);
    }
    p
}

fn ptr_param(rng: &mut Rng, alias_to: Option<usize>) -> PtrParam {
    PtrParam {
        elems: *rng.pick(&[4, 8, 16]),
        null_calls: rng.chance(25),
        misalign: *rng.pick(&[0, 0, 0, 1, 2]),
        alias_of: alias_to.filter(|_| rng.chance(30)),
        first: *rng.pick(&[First::Nothing, First::Store, First::Store, First::Load]),
        nonnull: rng.chance(70),
        align16: rng.chance(60),
        deref: rng.chance(60),
        noalias: rng.chance(60),
        nocapture: rng.chance(50),
        writable: rng.chance(40),
        noundef: rng.chance(50),
        initializes: rng.chance(60),
    }
}

/// Probes of the facts a fresh function states, at the start of its body (before anything
/// reassigns a parameter), into a new local that the result includes.
fn add_probes(rng: &mut Rng, f: &mut Function) {
    let pv = f.num_vars();
    let mut probes = Vec::new();
    for (k, p) in f.params.iter().enumerate() {
        if let Some((lo, hi)) = p.domain_ok() {
            if rng.chance(40) {
                probes.push(Stmt::Assume(k));
            }
            let x = Box::new(Expr::Var(k));
            let probe = match rng.below(4) {
                0 => Expr::Cmp(Pred::Ult, x, Box::new(Expr::Const(hi))),
                1 => Expr::Cmp(Pred::Uge, x, Box::new(Expr::Const(lo))),
                2 => Expr::Select(
                    Pred::Ult,
                    Box::new([
                        *x,
                        Expr::Const(hi),
                        Expr::Const(rng.constant()),
                        Expr::Const(rng.constant()),
                    ]),
                ),
                _ => {
                    let c = Cond { pred: Pred::Slt, a: *x, b: Expr::Const(hi), prof: None };
                    probes.push(Stmt::If(
                        c,
                        vec![Stmt::Log(rng.range(0, 99), Expr::Var(k))],
                        vec![Stmt::Log(rng.range(0, 99), Expr::Const(hi))],
                    ));
                    continue;
                }
            };
            probes.push(Stmt::Assign(
                pv,
                Expr::Bin(BinOp::Xor, Box::new(Expr::Var(pv)), Box::new(probe)),
            ));
        }
        if p.ptr.is_some() {
            if rng.chance(40) {
                probes.push(Stmt::Assume(k));
            }
            let e = if rng.chance(50) {
                Expr::PAlign(k)
            } else {
                Expr::PLoad(k, Box::new(Expr::Const(rng.range(0, 15))))
            };
            probes.push(Stmt::Assign(
                pv,
                Expr::Bin(BinOp::Xor, Box::new(Expr::Var(pv)), Box::new(e)),
            ));
        }
    }
    let ptrs: Vec<usize> = (0..f.params.len()).filter(|&k| f.params[k].ptr.is_some()).collect();
    if ptrs.len() >= 2 {
        probes.push(Stmt::AliasProbe { p: ptrs[0], q: ptrs[1], var: ptrs[0] });
    }
    if probes.is_empty() {
        return;
    }
    f.locals.push(0);
    for (i, s) in probes.into_iter().enumerate() {
        f.body.insert(i, s);
    }
    f.result = Expr::Bin(BinOp::Xor, Box::new(f.result.clone()), Box::new(Expr::Var(pv)));
}

/// A fresh random function.
pub fn function(rng: &mut Rng, name: String, feat: Features<'_>) -> Function {
    let arith = if rng.chance(50) { Ty::I32 } else { Ty::I64 };
    let nparams = rng.range(1, 4) as usize;
    let mut params: Vec<Param> = Vec::new();
    for _ in 0..nparams {
        let ptrs: Vec<usize> = (0..params.len()).filter(|&k| params[k].ptr.is_some()).collect();
        if feat.facts && ptrs.len() < 2 && rng.chance(25) {
            let mut p = Param::int(Ty::I64, false);
            p.ptr = Some(ptr_param(rng, ptrs.first().copied()));
            params.push(p);
        } else {
            params.push(int_param(rng, feat.facts));
        }
    }
    let locals: Vec<i64> = (0..rng.range(0, 3)).map(|_| rng.constant()).collect();
    let slots: Vec<u32> = if feat.slots && rng.chance(55) {
        (0..rng.range(1, 4)).map(|_| *rng.pick(&[2u32, 4, 8, 16, 32])).collect()
    } else {
        vec![]
    };
    let ret = if rng.chance(60) { arith } else { *rng.pick(&[Ty::I32, Ty::I64, Ty::I8]) };
    let mut f = Function {
        name,
        arith,
        ret,
        params,
        locals,
        arr: [0; 8],
        body: vec![],
        result: Expr::Const(0),
        linkage: Linkage::Internal,
        unnamed: UnnamedAddr::None,
        attrs: vec![],
        address_taken: false,
        slots,
        ret_facts: RetFacts::none(),
        unchecked: false,
    };
    let c = ctx_for(&f, feat, 0, 0);
    f.body = block(rng, c, 2, 6);
    if !f.slots.is_empty() {
        // Rust-like: a few scopes in a row, some nested, a slot used in several of them.
        let at = rng.below(f.body.len() + 1);
        for _ in 0..rng.range(1, 3) {
            if let Some(s) = scope(rng, c, 2) {
                f.body.insert(at.min(f.body.len()), s);
            }
        }
    }
    f.result = expr(rng, c, 3);
    for a in &mut f.arr {
        *a = rng.constant();
    }
    f.linkage = *rng.pick(&[
        Linkage::Internal,
        Linkage::Internal,
        Linkage::External,
        Linkage::External,
        Linkage::LinkonceOdr,
        Linkage::WeakOdr,
        Linkage::Weak,
    ]);
    f.unnamed = *rng.pick(&[UnnamedAddr::None, UnnamedAddr::Local, UnnamedAddr::Global]);
    f.attrs = match rng.below(4) {
        0 => vec![],
        1 => vec!["nounwind"],
        2 => vec!["optsize"],
        _ => vec!["nounwind", "optsize"],
    };
    f.address_taken = rng.chance(25);
    if feat.facts {
        if rng.chance(35) {
            let max = max_signed(ret).min(1 << 20);
            let lo = rng.range(0, 5);
            let hi = (lo + *rng.pick(&[2i64, 4, 16, 100, 5000])).min(max);
            f.ret_facts.clamp = Some((lo, hi));
            f.ret_facts.range = rng.chance(85).then_some((lo, hi));
            f.ret_facts.probe = Some(hi);
        }
        f.ret_facts.noundef = rng.chance(40);
        f.ret_facts.ext = ext(rng);
        add_probes(rng, &mut f);
    }
    f
}

/// How far a family member may drift from its base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drift {
    /// An exact copy (identical merging).
    Identical,
    /// The same instructions, other facts: attributes, metadata, flags, and the values and
    /// pointers the driver passes (identical merging that must intersect facts).
    Facts,
    /// Only constants, callees, globals and switch case values change (constant merging).
    Constants,
    /// Anything: operators, operands, statements, blocks, loops, switches, types, slots.
    Similar,
}

/// Where an expression or statement list sits: enclosing loops and the slots in scope.
#[derive(Clone, Copy, Debug)]
struct At {
    loops: usize,
    live: u32,
}

const TOP: At = At { loops: 0, live: 0 };

/// The position inside statement `s` (at `at`) of its nested statement lists.
fn inner_at(s: &Stmt, at: At) -> At {
    match s {
        Stmt::Loop(..) | Stmt::DynLoop(..) => At { loops: at.loops + 1, ..at },
        Stmt::Scope { slot, .. } => At { live: at.live | 1 << slot, ..at },
        _ => at,
    }
}

/// Visits every expression (pre-order) with where it sits.
fn each_expr(stmts: &mut [Stmt], at: At, f: &mut dyn FnMut(&mut Expr, At)) {
    fn ex(e: &mut Expr, at: At, f: &mut dyn FnMut(&mut Expr, At)) {
        f(e, at);
        for c in children_mut(e) {
            ex(c, at, f);
        }
    }
    for s in stmts {
        let inner = inner_at(s, at);
        for e in stmt_exprs_mut(s) {
            ex(e, at, f);
        }
        for b in sub_blocks_mut(s) {
            each_expr(b, inner, f);
        }
    }
}

/// Visits every statement list with where it sits.
fn each_block(stmts: &mut Vec<Stmt>, at: At, f: &mut dyn FnMut(&mut Vec<Stmt>, At)) {
    f(stmts, at);
    for s in stmts.iter_mut() {
        let inner = inner_at(s, at);
        for b in sub_blocks_mut(s) {
            each_block(b, inner, f);
        }
    }
}

/// Applies `f` to the `k`-th expression (of those where `want` holds), counting in pre-order
/// over the body and then the result. Returns whether there was one.
fn at_expr(
    func: &mut Function,
    rng: &mut Rng,
    want: &dyn Fn(&Expr) -> bool,
    f: &mut dyn FnMut(&mut Expr, At, &mut Rng),
) -> bool {
    let mut n = 0;
    each_expr(&mut func.body, TOP, &mut |e, _| n += usize::from(want(e)));
    let mut rs = [Stmt::Assign(0, func.result.clone())];
    each_expr(&mut rs, TOP, &mut |e, _| n += usize::from(want(e)));
    if n == 0 {
        return false;
    }
    let mut k = rng.below(n) as isize;
    each_expr(&mut func.body, TOP, &mut |e, at| {
        if want(e) {
            if k == 0 {
                f(e, at, rng);
            }
            k -= 1;
        }
    });
    if k >= 0 {
        each_expr(&mut rs, TOP, &mut |e, at| {
            if want(e) {
                if k == 0 {
                    f(e, at, rng);
                }
                k -= 1;
            }
        });
        let [Stmt::Assign(_, e)] = rs else { unreachable!() };
        func.result = e;
    }
    true
}

/// Applies `f` to a random statement list (with where it sits).
fn at_block(func: &mut Function, rng: &mut Rng, f: &mut dyn FnMut(&mut Vec<Stmt>, At, &mut Rng)) {
    let mut n = 0;
    each_block(&mut func.body, TOP, &mut |_, _| n += 1);
    let mut k = rng.below(n) as isize;
    each_block(&mut func.body, TOP, &mut |b, at| {
        if k == 0 {
            f(b, at, rng);
        }
        k -= 1;
    });
}

/// Applies `f` to a random statement (with where it sits) for which `want` holds.
fn at_stmt(
    func: &mut Function,
    rng: &mut Rng,
    want: &dyn Fn(&Stmt) -> bool,
    f: &mut dyn FnMut(&mut Stmt, At, &mut Rng) -> bool,
) -> bool {
    let mut n = 0;
    each_block(&mut func.body, TOP, &mut |b, _| n += b.iter().filter(|s| want(s)).count());
    if n == 0 {
        return false;
    }
    let mut k = rng.below(n) as isize;
    let mut done = false;
    each_block(&mut func.body, TOP, &mut |b, at| {
        for s in b.iter_mut() {
            if want(s) {
                if k == 0 {
                    done = f(s, at, rng);
                }
                k -= 1;
            }
        }
    });
    done
}

/// Whether the statements mention slot `k` (a scope of it, a load or a store).
pub fn mentions_slot(stmts: &[Stmt], k: usize) -> bool {
    let mut found = false;
    walk_exprs(stmts, &mut |e| found |= matches!(e, Expr::SlotLoad(s, _) if *s == k));
    found
        || any_stmt(
            stmts,
            &mut |s| matches!(s, Stmt::Scope { slot, .. } | Stmt::SlotStore(slot, ..) if *slot == k),
        )
}

/// Renames slot `from` to `to` in the statements (loads and stores; not scopes).
fn rename_slot(stmts: &mut [Stmt], from: usize, to: usize) {
    let mut body = stmts.to_vec();
    each_expr(&mut body, TOP, &mut |e, _| {
        if let Expr::SlotLoad(s, _) = e
            && *s == from
        {
            *s = to;
        }
    });
    let mut v = body;
    each_block(&mut v, TOP, &mut |b, _| {
        for s in b.iter_mut() {
            if let Stmt::SlotStore(k, ..) = s
                && *k == from
            {
                *k = to;
            }
        }
    });
    stmts.clone_from_slice(&v);
}

/// Changes one fact of `func` without changing its instructions: a parameter's domain and
/// range, `noundef`, `zeroext`/`signext`, how the driver passes a pointer and what the
/// pointer is declared to be, the return facts, flags, metadata, branch weights.
fn mutate_facts(rng: &mut Rng, func: &mut Function) -> bool {
    match rng.below(8) {
        0 | 1 => {
            let ints: Vec<usize> =
                (0..func.params.len()).filter(|&k| func.params[k].ptr.is_none()).collect();
            if ints.is_empty() {
                return false;
            }
            let p = &mut func.params[*rng.pick(&ints)];
            let (lo, hi) = p.domain.unwrap_or_else(|| domain(rng, p.ty));
            let max = max_signed(p.ty).min(1 << 22);
            let d = match rng.below(3) {
                0 => (lo, (hi * 2 + 10).min(max)),
                1 => ((lo + (hi - lo) / 2).min(hi - 1), (hi + rng.range(1, 100)).min(max)),
                _ => (lo / 2, hi),
            };
            p.domain = Some(d);
            p.range = match rng.below(10) {
                0 => None,
                1 => p.range, // stale: it no longer holds and is not emitted
                _ => Some(d),
            };
            true
        }
        2 => {
            let k = rng.below(func.params.len());
            let earlier_ptr = (0..k).find(|&j| func.params[j].ptr.is_some());
            let p = &mut func.params[k];
            match &mut p.ptr {
                Some(pp) => match rng.below(12) {
                    0 => pp.null_calls = !pp.null_calls,
                    1 => pp.misalign = (pp.misalign + 1 + rng.below(2) as u8) % 3,
                    2 => {
                        pp.alias_of = match pp.alias_of {
                            Some(_) => None,
                            None => earlier_ptr,
                        };
                        pp.noalias = !pp.noalias;
                    }
                    3 => pp.nonnull = !pp.nonnull,
                    4 => pp.align16 = !pp.align16,
                    5 => pp.deref = !pp.deref,
                    6 => pp.noalias = !pp.noalias,
                    7 => pp.nocapture = !pp.nocapture,
                    8 => pp.writable = !pp.writable,
                    9 => pp.noundef = !pp.noundef,
                    10 => pp.initializes = !pp.initializes,
                    _ => pp.elems = *rng.pick(&[4, 8, 16]),
                },
                None => {
                    if rng.chance(50) {
                        p.noundef = !p.noundef;
                    } else {
                        p.ext = ext(rng);
                    }
                }
            }
            true
        }
        3 => {
            let r = &mut func.ret_facts;
            match rng.below(3) {
                0 => r.range = if r.range.is_some() { None } else { r.clamp },
                1 => r.noundef = !r.noundef,
                _ => r.ext = ext(rng),
            }
            true
        }
        4 | 5 => at_expr(
            func,
            rng,
            &|e| {
                matches!(
                    e,
                    Expr::Masked { .. }
                        | Expr::RLoad { .. }
                        | Expr::PtrLoad { .. }
                        | Expr::Edge { .. }
                        | Expr::Fp { .. }
                        | Expr::SafeAdd { .. }
                        | Expr::SafeMul { .. }
                )
            },
            &mut |e, _, rng| match e {
                Expr::Masked { k, fact, .. } => {
                    *fact = if fact.is_some() { None } else { Some(*k) }
                }
                Expr::RLoad { table, md, .. } => {
                    *md = if md.is_some() { None } else { Some(RTAB_BITS[*table]) }
                }
                Expr::PtrLoad { md, .. } => *md = !*md,
                Expr::Edge { flag, .. } => *flag = !*flag,
                Expr::Fp { nnan, ninf, .. } => {
                    if rng.chance(50) {
                        *nnan = !*nnan
                    } else {
                        *ninf = !*ninf
                    }
                }
                Expr::SafeAdd { nsw, nuw, .. } | Expr::SafeMul { nsw, nuw, .. } => {
                    if rng.chance(50) { *nsw = !*nsw } else { *nuw = !*nuw }
                }
                _ => unreachable!(),
            },
        ),
        _ => {
            // Branch weights on some condition.
            let mut hit = false;
            at_block(func, rng, &mut |b, _, rng| {
                for s in b.iter_mut() {
                    if let Stmt::If(c, ..) | Stmt::Return(c, ..) = s {
                        c.prof = if c.prof.is_some() && rng.chance(30) {
                            None
                        } else {
                            Some((rng.range(1, 2000) as u32, rng.range(1, 2000) as u32))
                        };
                        hit = true;
                        break;
                    }
                }
            });
            hit
        }
    }
}

/// Changes the constants of a fact-carrying expression (a mask, a table, a clamp): the member
/// then states other facts or none.
fn mutate_fact_constants(rng: &mut Rng, func: &mut Function) -> bool {
    if rng.chance(20) && func.ret_facts.clamp.is_some() {
        let (lo, hi) = func.ret_facts.clamp.unwrap();
        let max = max_signed(func.ret).min(1 << 22);
        let c = (lo, (hi * 4 + rng.range(1, 50)).min(max));
        func.ret_facts.clamp = Some(c);
        // The member declares its own, wider range (or none).
        func.ret_facts.range = func.ret_facts.range.map(|_| c);
        return true;
    }
    at_expr(
        func,
        rng,
        &|e| {
            matches!(
                e,
                Expr::Masked { .. }
                    | Expr::RLoad { .. }
                    | Expr::PtrLoad { .. }
                    | Expr::Edge { .. }
                    | Expr::Fp { .. }
            )
        },
        &mut |e, _, rng| match e {
            Expr::Masked { k, fact, .. } => {
                *k = *rng.pick(&[2u8, 3, 4, 8, 12, 16, 20]);
                if fact.is_some() && rng.chance(80) {
                    *fact = Some(*k);
                }
            }
            Expr::RLoad { table, md, .. } => {
                *table = (*table + 1 + rng.below(RTAB_BITS.len() - 1)) % RTAB_BITS.len();
                if md.is_some() && rng.chance(80) {
                    *md = Some(RTAB_BITS[*table]);
                }
            }
            Expr::PtrLoad { table, .. } => *table = (*table + 1 + rng.below(2)) % 3,
            Expr::Edge { mask, c, .. } => match rng.below(3) {
                0 => *mask = -1,
                1 => *mask |= 1i64 << rng.below(62),
                _ => *c = c.wrapping_add(rng.range(1, 1 << 20)),
            },
            Expr::Fp { or_bit, .. } => *or_bit = if *or_bit == 0 { 1 } else { 0 },
            _ => unreachable!(),
        },
    )
}

/// Changes a switch: a case value, two values swapped, the order of the cases, or where the
/// default goes.
fn mutate_switch(rng: &mut Rng, func: &mut Function, kind: u32) -> bool {
    at_stmt(func, rng, &|s| matches!(s, Stmt::Switch(..)), &mut |s, _, rng| {
        let Stmt::Switch(_, cs, _, dflt) = s else { unreachable!() };
        match kind {
            0 => {
                let used: Vec<i64> = cs.iter().map(|c| c.0).collect();
                let free: Vec<i64> = (0..8).filter(|v| !used.contains(v)).collect();
                if free.is_empty() {
                    return false;
                }
                let i = rng.below(cs.len());
                cs[i].0 = *rng.pick(&free);
            }
            1 => {
                if cs.len() < 2 {
                    return false;
                }
                let i = rng.below(cs.len());
                let j = (i + 1 + rng.below(cs.len() - 1)) % cs.len();
                let (a, b) = (cs[i].0, cs[j].0);
                cs[i].0 = b;
                cs[j].0 = a;
            }
            2 => {
                if cs.len() < 2 {
                    return false;
                }
                let i = rng.below(cs.len());
                let c = cs.remove(i);
                let j = rng.below(cs.len() + 1);
                cs.insert(j, c);
                if let Dflt::Case(d) = dflt {
                    // The default keeps its destination block.
                    *d = if *d == i {
                        j
                    } else {
                        let d0 = if *d > i { *d - 1 } else { *d };
                        if d0 >= j { d0 + 1 } else { d0 }
                    };
                }
            }
            _ => {
                *dflt = match dflt {
                    Dflt::Own => Dflt::Case(rng.below(cs.len())),
                    Dflt::Case(_) if rng.chance(50) => Dflt::Own,
                    Dflt::Case(i) => Dflt::Case((*i + 1) % cs.len()),
                };
            }
        }
        true
    })
}

/// Changes the stack slots: which slot a scope uses, a slot's size, where a scope's markers
/// sit (a statement moved into or out of it), a scope split in two or two scopes of one slot
/// joined.
fn mutate_slots(rng: &mut Rng, func: &mut Function, kind: u32) -> bool {
    if func.slots.is_empty() {
        return false;
    }
    match kind {
        0 => {
            let nslots = func.slots.len();
            let mut new_slot = None;
            if rng.chance(35) && nslots < 6 {
                new_slot = Some(*rng.pick(&[2u32, 4, 8, 16, 32]));
            }
            let done =
                at_stmt(func, rng, &|s| matches!(s, Stmt::Scope { .. }), &mut |s, at, rng| {
                    let Stmt::Scope { slot, body, .. } = s else { unreachable!() };
                    let cands: Vec<usize> = (0..nslots + usize::from(new_slot.is_some()))
                        .filter(|&k| {
                            k != *slot && at.live & (1 << k) == 0 && !mentions_slot(body, k)
                        })
                        .collect();
                    if cands.is_empty() {
                        return false;
                    }
                    let to = *rng.pick(&cands);
                    rename_slot(body, *slot, to);
                    *slot = to;
                    true
                });
            if done && let Some(n) = new_slot {
                func.slots.push(n);
            }
            done
        }
        1 => {
            let k = rng.below(func.slots.len());
            let old = func.slots[k];
            func.slots[k] = *rng.pick(&[2u32, 4, 8, 16, 32].map(|n| if n == old { 64 } else { n }));
            true
        }
        2 => {
            let mut hit = false;
            at_block(func, rng, &mut |b, _, rng| {
                let scopes: Vec<usize> =
                    (0..b.len()).filter(|&i| matches!(b[i], Stmt::Scope { .. })).collect();
                if scopes.is_empty() {
                    return;
                }
                let i = *rng.pick(&scopes);
                let Stmt::Scope { slot, .. } = b[i] else { unreachable!() };
                match rng.below(4) {
                    // The statement before moves in (the start marker moves up).
                    0 if i > 0 && !mentions_slot(&b[i - 1..i], slot) => {
                        let s = b.remove(i - 1);
                        if let Stmt::Scope { body, .. } = &mut b[i - 1] {
                            body.insert(0, s);
                        }
                        hit = true;
                    }
                    // The statement after moves in (the end marker moves down).
                    1 if i + 1 < b.len() && !mentions_slot(&b[i + 1..i + 2], slot) => {
                        let s = b.remove(i + 1);
                        if let Stmt::Scope { body, .. } = &mut b[i] {
                            body.push(s);
                        }
                        hit = true;
                    }
                    // The first statement moves out (the start marker moves down).
                    2 => {
                        if let Stmt::Scope { body, .. } = &mut b[i]
                            && !body.is_empty()
                            && !mentions_slot(&body[..1], slot)
                        {
                            let s = body.remove(0);
                            b.insert(i, s);
                            hit = true;
                        }
                    }
                    // The last statement moves out (the end marker moves up).
                    _ => {
                        if let Stmt::Scope { body, .. } = &mut b[i]
                            && let Some(last) = body.last()
                            && !mentions_slot(std::slice::from_ref(last), slot)
                        {
                            let s = body.pop().unwrap();
                            b.insert(i + 1, s);
                            hit = true;
                        }
                    }
                }
            });
            hit
        }
        _ => {
            let mut hit = false;
            at_block(func, rng, &mut |b, _, rng| {
                // Join two adjacent scopes of one slot, or split one.
                for i in 0..b.len().saturating_sub(1) {
                    if let (Stmt::Scope { slot: a, .. }, Stmt::Scope { slot: c, .. }) =
                        (&b[i], &b[i + 1])
                        && a == c
                        && rng.chance(50)
                    {
                        let Stmt::Scope { body: second, .. } = b.remove(i + 1) else {
                            unreachable!()
                        };
                        if let Stmt::Scope { body, .. } = &mut b[i] {
                            body.extend(second);
                        }
                        hit = true;
                        return;
                    }
                }
                let scopes: Vec<usize> = (0..b.len())
                    .filter(|&i| matches!(&b[i], Stmt::Scope { body, .. } if body.len() >= 2))
                    .collect();
                if scopes.is_empty() {
                    return;
                }
                let i = *rng.pick(&scopes);
                let Stmt::Scope { slot, seed, body, fold, helper } = &mut b[i] else {
                    unreachable!()
                };
                let j = rng.range(1, body.len() as i64 - 1) as usize;
                let rest = body.split_off(j);
                let second = Stmt::Scope {
                    slot: *slot,
                    seed: seed.clone(),
                    body: rest,
                    fold: *fold,
                    helper: *helper,
                };
                b.insert(i + 1, second);
                hit = true;
            });
            hit
        }
    }
}

/// The mutations each drift may choose.
const CONSTANT_KINDS: [usize; 7] = [0, 1, 2, 16, 17, 18, 24];

/// Changes `func` a little, within what `drift` allows. Returns a short description.
pub fn mutate(
    rng: &mut Rng,
    func: &mut Function,
    drift: Drift,
    feat: Features<'_>,
) -> &'static str {
    let vars = func.num_vars();
    let callees = feat.callees;
    for _ in 0..20 {
        let kind = match drift {
            Drift::Identical => return "none",
            Drift::Facts => 25,
            Drift::Constants => *rng.pick(&CONSTANT_KINDS),
            Drift::Similar => rng.below(27),
        };
        let ctx = |f: &Function, at: At| Ctx { vars, ..ctx_for(f, feat, at.loops, at.live) };
        let shape = func.clone();
        let done = match kind {
            0 => at_expr(func, rng, &|e| matches!(e, Expr::Const(_)), &mut |e, _, rng| {
                let Expr::Const(v) = e else { unreachable!() };
                *v = if rng.chance(50) { v.wrapping_add(rng.range(1, 9)) } else { rng.constant() };
            }),
            1 => at_expr(
                func,
                rng,
                &|e| {
                    matches!(
                        e,
                        Expr::Pure(..) | Expr::Table(..) | Expr::LogRet(..) | Expr::Call(..)
                    )
                },
                &mut |e, _, rng| match e {
                    Expr::Pure(k, ..) | Expr::Table(k, _) => *k = (*k + 1 + rng.below(2)) % 3,
                    Expr::LogRet(t, _) => *t = rng.range(0, 99),
                    Expr::Call(c, _) => {
                        // Another callee with the same signature, if there is one.
                        let tys = |ps: &[Param]| ps.iter().map(|p| p.ty).collect::<Vec<_>>();
                        let same: Vec<&Callee> = callees
                            .iter()
                            .filter(|o| {
                                tys(&o.params) == tys(&c.params)
                                    && o.ret == c.ret
                                    && o.name != c.name
                            })
                            .collect();
                        if !same.is_empty() {
                            **c = (*rng.pick(&same)).clone();
                        }
                    }
                    _ => unreachable!(),
                },
            ),
            2 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    for s in b.iter_mut() {
                        match s {
                            Stmt::StoreCell(k, _) => *k = (*k + 1 + rng.below(3)) % CELLS,
                            Stmt::Log(t, _) | Stmt::Invoke(_, _, t) => *t = rng.range(0, 99),
                            _ => continue,
                        }
                        hit = true;
                        break;
                    }
                });
                hit
            }
            3 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::Bin(..) | Expr::Cmp(..) | Expr::Intr2(..) | Expr::Div(..)),
                &mut |e, _, rng| match e {
                    Expr::Bin(op, ..) => *op = *rng.pick(&BINOPS),
                    Expr::Cmp(p, ..) => *p = *rng.pick(&PREDS),
                    Expr::Intr2(i, ..) => *i = *rng.pick(&INTR2),
                    Expr::Div(d, ..) => {
                        *d = *rng.pick(&[DivOp::UDiv, DivOp::URem, DivOp::SDiv, DivOp::SRem])
                    }
                    _ => unreachable!(),
                },
            ),
            4 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::Bin(..) | Expr::Cmp(..) | Expr::Shift(..)),
                &mut |e, _, _| match e {
                    Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) | Expr::Shift(_, a, b) => {
                        std::mem::swap(a, b)
                    }
                    _ => unreachable!(),
                },
            ),
            5 => at_expr(func, rng, &|_| true, &mut |e, at, rng| {
                *e = expr(rng, ctx(&shape, at), 2);
            }),
            6 => {
                at_block(func, rng, &mut |b, at, rng| {
                    let s = stmt(rng, ctx(&shape, at), 1);
                    b.insert(rng.below(b.len() + 1), s);
                });
                true
            }
            7 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    if !b.is_empty() {
                        b.remove(rng.below(b.len()));
                        hit = true;
                    }
                });
                hit
            }
            8 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, at, rng| {
                    if !b.is_empty() {
                        let k = rng.below(b.len());
                        let s = b.remove(k);
                        let c = cond(rng, ctx(&shape, at));
                        b.insert(k, Stmt::If(c, vec![s], vec![]));
                        hit = true;
                    }
                });
                hit
            }
            9 => {
                let mut hit = false;
                at_block(func, rng, &mut |b, _, rng| {
                    for s in b.iter_mut() {
                        match s {
                            Stmt::Loop(n, _) => *n = rng.range(1, 8) as u8,
                            Stmt::Switch(_, cs, _, dflt) => {
                                if cs.len() > 1 && rng.chance(50) {
                                    cs.remove(rng.below(cs.len()));
                                    *dflt = Dflt::Own;
                                } else {
                                    let used: Vec<i64> = cs.iter().map(|c| c.0).collect();
                                    if let Some(v) = (0..8).find(|v| !used.contains(v)) {
                                        cs.push((v, vec![]));
                                    }
                                }
                            }
                            Stmt::If(_, a, e) => std::mem::swap(a, e),
                            _ => continue,
                        }
                        hit = true;
                        break;
                    }
                });
                hit
            }
            10 => at_expr(
                func,
                rng,
                &|e| matches!(e, Expr::SafeAdd { .. } | Expr::SafeMul { .. }),
                &mut |e, _, rng| match e {
                    Expr::SafeAdd { nsw, nuw, .. } | Expr::SafeMul { nsw, nuw, .. } => {
                        if rng.chance(50) { *nsw = !*nsw } else { *nuw = !*nuw }
                    }
                    _ => unreachable!(),
                },
            ),
            11 => {
                let k = rng.below(func.params.len());
                let p = &mut func.params[k];
                if p.ptr.is_some() {
                    false
                } else {
                    p.ty = ty(rng);
                    p.signed = rng.chance(50);
                    true
                }
            }
            12 if rng.chance(30) => {
                func.arith = if func.arith == Ty::I32 { Ty::I64 } else { Ty::I32 };
                true
            }
            13 => {
                func.linkage = *rng.pick(&[
                    Linkage::Internal,
                    Linkage::External,
                    Linkage::LinkonceOdr,
                    Linkage::Weak,
                ]);
                func.unnamed =
                    *rng.pick(&[UnnamedAddr::None, UnnamedAddr::Local, UnnamedAddr::Global]);
                true
            }
            14 => {
                let c = ctx(&shape, TOP);
                func.body.insert(
                    0,
                    Stmt::Loop(rng.range(1, 5) as u8, block(rng, Ctx { loops: 1, ..c }, 0, 2)),
                );
                true
            }
            15 if func.locals.len() < 4 => {
                // One more local: shifts nothing (locals come after the parameters).
                func.locals.push(rng.constant());
                true
            }
            16 => mutate_switch(rng, func, 0),
            17 => mutate_switch(rng, func, 1),
            18 => mutate_switch(rng, func, 2),
            19 => mutate_switch(rng, func, 3),
            20 => mutate_slots(rng, func, 0),
            21 => mutate_slots(rng, func, 1),
            22 => mutate_slots(rng, func, 2),
            23 => mutate_slots(rng, func, 3),
            24 => mutate_fact_constants(rng, func),
            25 => mutate_facts(rng, func),
            26 => {
                let ptrs: Vec<usize> =
                    (0..func.params.len()).filter(|&k| func.params[k].ptr.is_some()).collect();
                if ptrs.is_empty() {
                    false
                } else {
                    let k = *rng.pick(&ptrs);
                    if let Some(pp) = &mut func.params[k].ptr {
                        pp.first = match pp.first {
                            First::Store => First::Load,
                            First::Load => First::Nothing,
                            First::Nothing => First::Store,
                        };
                    }
                    true
                }
            }
            _ => false,
        };
        if done {
            debug_assert!(validate(func).is_ok(), "{kind}: {:?}", validate(func));
            return [
                "constant",
                "callee/global",
                "cell/tag",
                "operator",
                "operand order",
                "subexpression",
                "insert statement",
                "delete statement",
                "wrap in if",
                "loop/switch/if arms",
                "poison flags",
                "parameter type",
                "work type",
                "linkage",
                "add loop",
                "add local",
                "case value",
                "case values swapped",
                "case order",
                "default destination",
                "scope slot",
                "slot size",
                "scope markers moved",
                "scopes split/joined",
                "fact constants",
                "facts",
                "pointer first use",
            ][kind];
        }
    }
    "none"
}

/// Checks the invariants that keep a function free of undefined behaviour: slots are touched
/// only inside a scope of theirs (never two scopes of one slot at once), pointer operations
/// name pointer parameters, variables exist.
pub fn validate(f: &Function) -> Result<(), String> {
    fn ex(f: &Function, e: &Expr, at: At) -> Result<(), String> {
        match e {
            Expr::SlotLoad(k, _) if *k >= f.slots.len() || at.live & (1 << k) == 0 => {
                return Err(format!("slot {k} loaded outside its scope"));
            }
            Expr::Var(k) if *k >= f.num_vars() => return Err(format!("no variable {k}")),
            Expr::PLoad(k, _) | Expr::PAlign(k)
                if f.params.get(*k).is_none_or(|p| p.ptr.is_none()) =>
            {
                return Err(format!("parameter {k} is not a pointer"));
            }
            _ => {}
        }
        children(e).into_iter().try_for_each(|c| ex(f, c, at))
    }
    fn st(f: &Function, ss: &[Stmt], at: At) -> Result<(), String> {
        for s in ss {
            for e in stmt_exprs(s) {
                ex(f, e, at)?;
            }
            let ptr = |k: &usize| f.params.get(*k).is_some_and(|p| p.ptr.is_some());
            match s {
                Stmt::Scope { slot, fold, .. } => {
                    if *slot >= f.slots.len() || at.live & (1 << slot) != 0 {
                        return Err(format!("scope of slot {slot} inside one of its own"));
                    }
                    if *fold >= f.num_vars() {
                        return Err(format!("no variable {fold}"));
                    }
                }
                Stmt::SlotStore(k, ..) if *k >= f.slots.len() || at.live & (1 << k) == 0 => {
                    return Err(format!("slot {k} stored outside its scope"));
                }
                Stmt::PStore(k, ..) if !ptr(k) => return Err(format!("{k} is not a pointer")),
                Stmt::AliasProbe { p, q, var } if !ptr(p) || !ptr(q) || *var >= f.num_vars() => {
                    return Err("bad alias probe".into());
                }
                Stmt::Assign(k, _) | Stmt::Invoke(k, ..) if *k >= f.num_vars() => {
                    return Err(format!("no variable {k}"));
                }
                _ => {}
            }
            let inner = inner_at(s, at);
            for b in sub_blocks(s) {
                st(f, b, inner)?;
            }
        }
        Ok(())
    }
    st(f, &f.body, TOP)?;
    ex(f, &f.result, TOP)
}
