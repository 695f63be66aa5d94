//! Mutations of what a function states rather than what it computes: a parameter's domain and
//! attributes, return facts, flags, metadata and branch weights, and the constants of
//! fact-carrying expressions (masks, tables, clamps).

use super::mutate::{at_block, at_expr};
use super::*;

/// Changes one fact of `func` without changing its instructions: a parameter's domain and
/// range, `noundef`, `zeroext`/`signext`, how the driver passes a pointer and what the
/// pointer is declared to be, the return facts, flags, metadata, branch weights.
pub(super) fn mutate_facts(rng: &mut Rng, func: &mut Function) -> bool {
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
pub(super) fn mutate_fact_constants(rng: &mut Rng, func: &mut Function) -> bool {
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
