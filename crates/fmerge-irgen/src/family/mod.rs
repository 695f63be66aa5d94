//! Random functions and the mutations that turn one function into a family of similar ones.
//!
//! This module makes fresh functions (expressions, statements, parameters and the probes of
//! the facts a function states). The mutations live beside it, by what they change:
//! - `mutate`: how far a member may drift ([`Drift`]), the positions a mutation picks from,
//!   the choice of mutation, and the invariants every member keeps ([`validate`]);
//! - `facts`: facts changed without changing instructions (attributes, metadata, flags, what
//!   the driver passes), and the constants of fact-carrying expressions;
//! - `shapes`: switches (case values, order, default) and stack slots (scopes, sizes,
//!   markers).

mod facts;
mod mutate;
mod shapes;

use crate::ast::*;
use crate::rng::Rng;

pub use mutate::{Drift, mentions_slot, mutate, validate};

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
