//! How a family member drifts from its base: the positions a mutation may pick (expressions,
//! statement lists, statements, with the loops and stack slots around them), the choice of
//! mutation for a drift, and the invariants every member keeps.

use super::facts::{mutate_fact_constants, mutate_facts};
use super::shapes::{mutate_slots, mutate_switch};
use super::*;

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
pub(super) struct At {
    pub(super) loops: usize,
    pub(super) live: u32,
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
pub(super) fn at_expr(
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
pub(super) fn at_block(
    func: &mut Function,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, At, &mut Rng),
) {
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
pub(super) fn at_stmt(
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
pub(super) fn rename_slot(stmts: &mut [Stmt], from: usize, to: usize) {
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
