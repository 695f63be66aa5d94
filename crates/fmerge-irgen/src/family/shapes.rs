//! Mutations of a function's switches (case values, their order, where the default goes) and
//! of its stack slots (which slot a scope uses, slot sizes, where markers sit, scopes split
//! or joined).

use super::mutate::{at_block, at_stmt, mentions_slot, rename_slot};
use super::*;

/// Changes a switch: a case value, two values swapped, the order of the cases, or where the
/// default goes.
pub(super) fn mutate_switch(rng: &mut Rng, func: &mut Function, kind: u32) -> bool {
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
pub(super) fn mutate_slots(rng: &mut Rng, func: &mut Function, kind: u32) -> bool {
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
