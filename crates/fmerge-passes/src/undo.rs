//! Undoing merges in place: the size guard's cheap way to take back the merges whose
//! generated code measured larger than what they replaced.
//!
//! **Why.** The guard used to veto the losing merges and run every stage again from a fresh
//! copy of the input, up to twice. On large modules that was two thirds of fmerge's time (a
//! 15 MB Rust module: three runs of the stages and two module copies to undo 29 small merges).
//! A losing unit is closed over the functions its merges touched (`crate::guard::units`), so
//! it can usually be taken back by itself: its functions go back to what they were in the
//! input, and the bodies it created go away.
//!
//! **What is undone, and when.** Only merges of constants or of similar functions, whose
//! shared body is a new function and whose members became thunks or had their call sites
//! rewritten (merges of identical functions point other functions' uses at the survivor,
//! which cannot be told apart afterwards). For each losing unit:
//! - every function of the unit the input defines gets its input definition back
//!   ([`Snapshot::restore`]: body, attributes, linkage, comdat; created again if it was
//!   erased);
//! - every call elsewhere that was rewritten to call a new body of the unit becomes a call of
//!   the member it was written for: the member is the one whose recorded arguments
//!   ([`crate::fold::CallArg`]) the call passes (the same constants, at the same places; its
//!   own arguments where the member's were forwarded);
//! - the unit's new functions are erased.
//!
//! **Units undone along.** A call of a losing unit's body can sit in the merged body of
//! another unit: the merge rewrote two callers' calls to pass different constants to the
//! body, then those two callers merged, and the merged caller passes a `select` on its own
//! function id (or a parameter of its own) where each caller passed a constant. No member's
//! call looks like that, so the call cannot be turned back by itself; it goes away when the
//! caller's unit is undone as well (its functions get their input definitions back, which call
//! the input's functions). Such units are added until every call can be turned back; they are
//! not vetoed (they did not lose), and their functions get the same second chance to merge
//! (with the losing unit's functions apart, their merge comes out different, and is measured).
//!
//! Everything is checked before anything changes, and if any unit cannot be undone this way
//! (a use of a new body that is not such a call, a call that matches no member or more than
//! one, a member of a chain of merges with rewritten calls, an input body that refers to a
//! function another merge erased), nothing is undone and the guard runs the stages again as
//! before. Why the result is correct: a restored function is its input definition, with every
//! global it refers to mapped to the same-named global of the module, and each of those is
//! the input's function or one equivalent to it (merging never changes what a function does);
//! a call turned back calls the very function, with the very arguments, that the input's call
//! did before the merge rewrote it. The module is verified afterwards like any other.

use crate::fold::{self, CallArg};
use crate::guard::{Footprint, Unit};
use fmerge_core::ir::opcode;
use fmerge_llvm::{Instruction, Module, Snapshot, TailCallKind, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What an undo took back.
pub struct Undone {
    /// The merges undone (`seq`s).
    pub merges: BTreeSet<usize>,
    /// How many of them did not lose: undone with a losing unit whose body they call.
    pub along: usize,
    /// The functions put back as they were in the input (free to merge again).
    pub freed: std::collections::HashSet<String>,
}

/// The merges of `losers`, among `merges`, taken back in `module` (the working module that
/// `snapshot` pairs with): `Ok(None)` when they cannot all be undone in place, in which case
/// nothing changed. `module` must be swept.
pub fn undo_in_place<'c>(
    module: &mut Module<'c>,
    snapshot: &Snapshot<'c>,
    merges: &[Footprint<'_>],
    losers: &[Unit],
) -> fmerge_llvm::Result<Option<Undone>> {
    let refuse = |why: &str| {
        if std::env::var_os("FMERGE_DEBUG_UNDO").is_some() {
            eprintln!("undo in place: {why}");
        }
        Ok(None)
    };
    let mut seqs: BTreeSet<usize> = losers.iter().flat_map(|u| u.merges.iter().copied()).collect();
    let losing = seqs.clone();
    // The units to undo: the losing ones, and every unit with a merged body that calls a body
    // of a unit being undone in a way no member's call explains (see `units_along`). Each
    // round adds a unit or ends: at most as many rounds as merges.
    let (restore, created, bodies) = loop {
        let undo: Vec<&Footprint<'_>> = merges.iter().filter(|m| seqs.contains(&m.seq)).collect();
        let (restore, created) = match functions_of(snapshot, &undo) {
            Ok(sets) => sets,
            Err(why) => return refuse(&why),
        };
        let bodies: BTreeMap<&str, &Footprint<'_>> = undo.iter().map(|m| (m.body, *m)).collect();
        match outside_calls(module, &restore, &created, &bodies) {
            Ok(calls) => {
                // The calls must hold all of their members' arguments.
                let arity =
                    |member: &str| snapshot.module().function(member).map(|f| f.params().len());
                if let Some(c) = calls.iter().find(|c| arity(c.member) != Some(c.args.len())) {
                    return refuse(&format!("member {} cannot be called again", c.member));
                }
                break (restore, created, bodies);
            }
            Err(blocked) => {
                let along = units_along(merges, &seqs, &blocked.caller);
                if along.is_empty() {
                    return refuse(&blocked.why);
                }
                if std::env::var_os("FMERGE_DEBUG_UNDO").is_some() {
                    eprintln!("undo in place: {}; undoing merges {along:?} too", blocked.why);
                }
                seqs.extend(along);
            }
        }
    };
    let names: Vec<&str> = restore.iter().copied().collect();
    // The input bodies, read now: what they call decides what must be redone in them.
    snapshot.materialize(&names)?;
    let replaced = replacements(merges);
    // Functions the restored bodies call whose calls other merges rewrote: declared again for
    // the restore where those merges erased them, and the restored bodies' calls then
    // rewritten as those merges did.
    let rewrites = rewrites_to_reapply(module, snapshot, &restore, &created, &seqs, merges);
    let declared: Vec<&str> = rewrites.iter().filter(|r| !r.live).map(|r| r.callee).collect();
    for &callee in &declared {
        let input = snapshot.module().function(callee).expect("checked");
        module.add_function(callee, input.global_value_type());
    }
    if let Err(why) = snapshot.restorable(module, &names, &replaced) {
        assert!(module.erase_functions(&declared), "new declarations have no uses");
        return refuse(&format!("not restorable: {why}"));
    }
    snapshot.restore(module, &names, &replaced)?;
    for r in &rewrites {
        let (Some(callee), Some(body)) = (module.function(r.callee), module.function(r.body))
        else {
            unreachable!("declared above; a body of a merge that stays")
        };
        for (user, _) in callee.users() {
            let Some(call) = user.as_instruction() else { continue };
            let caller = call.parent_block().map(|b| b.parent().name());
            if !caller.is_some_and(|c| restore.contains(c.as_str())) {
                continue;
            }
            let args: Vec<Value<'_>> = r
                .args
                .iter()
                .map(|a| match a {
                    CallArg::Param(k) => call.operand(*k).expect("checked: a plain direct call"),
                    CallArg::Constant(c) => c.value(module).expect("one context"),
                    CallArg::Global(g) => module.global_value(g).expect("checked"),
                    CallArg::Other => unreachable!("not reapplied"),
                })
                .collect();
            fold::replace_call(module, call, body, &args);
        }
    }
    // The same calls as checked above (restoring changed only the unit's own functions): each
    // becomes a call of its member, which exists again.
    let bug = |what: String| fmerge_llvm::LlvmError::InvalidIr {
        message: format!("undoing a merge: {what} (a bug: please report it)"),
    };
    let calls = outside_calls(module, &restore, &created, &bodies).map_err(|b| bug(b.why))?;
    for c in calls {
        let member =
            module.function(c.member).ok_or_else(|| bug(format!("{} is gone", c.member)))?;
        fold::replace_call(module, c.call, member, &c.args);
    }
    let created: Vec<&str> = created.into_iter().collect();
    if !module.erase_functions(&created) || !module.erase_functions(&declared) {
        return Err(fmerge_llvm::LlvmError::InvalidIr {
            message: "undoing a merge left a use of its merged body (a bug: please report it)"
                .to_string(),
        });
    }
    // A function whose calls a merge rewrote, kept only for uses the undone merges made: gone
    // now, as that merge left it (one at a time: one still used elsewhere stays).
    for r in rewrites.iter().filter(|r| r.live) {
        module.erase_functions(&[r.callee]);
    }
    let along = seqs.difference(&losing).count();
    Ok(Some(Undone { merges: seqs, along, freed: names.iter().map(|n| n.to_string()).collect() }))
}

/// The functions of the merges `undo` that the input defines (to be restored), and those the
/// merges made (to be erased); `Err` says why the merges cannot be undone in place.
fn functions_of<'a>(
    snapshot: &Snapshot<'_>,
    undo: &[&Footprint<'a>],
) -> Result<(BTreeSet<&'a str>, BTreeSet<&'a str>), String> {
    if let Some(m) = undo.iter().find(|m| !m.undoable) {
        return Err(format!("merge {} is not undoable", m.seq));
    }
    let mut restore: BTreeSet<&str> = BTreeSet::new();
    let mut created: BTreeSet<&str> = BTreeSet::new();
    for m in undo {
        for n in m.originals.iter().map(String::as_str).chain(m.members.iter().copied()) {
            if snapshot.module().function(n).is_some_and(|f| !f.is_declaration()) {
                restore.insert(n);
            } else {
                created.insert(n);
            }
        }
        if snapshot.module().function(m.body).is_some() {
            // A body named like an input function: not a merge this undo understands.
            return Err(format!("merge {}: body named like an input function", m.seq));
        }
        created.insert(m.body);
    }
    Ok((restore, created))
}

/// The merges, not among `undoing`, of every unit (`crate::guard::units`) that touches
/// `caller`: a function with a call of a body being undone that cannot be turned back. Such a
/// call is in a merged body of another unit (a call rewritten to the body, then merged with
/// a member's call that passes other constants: the argument is a `select` on the merged
/// body's function id, or a parameter of its own), and it goes away when that unit is
/// undone as well: its functions get their input definitions back, which call the input's
/// functions. Empty if no merge touches `caller` (then nothing can explain the call).
fn units_along(merges: &[Footprint<'_>], undoing: &BTreeSet<usize>, caller: &str) -> Vec<usize> {
    let touches = |m: &Footprint<'_>| {
        m.body == caller || m.members.contains(&caller) || m.originals.iter().any(|o| o == caller)
    };
    if !merges.iter().any(|m| !undoing.contains(&m.seq) && touches(m)) {
        return Vec::new();
    }
    let none = BTreeMap::new();
    crate::guard::units(merges, &none, &none)
        .into_iter()
        .filter(|u| u.merges.iter().any(|s| !undoing.contains(s)))
        .filter(|u| merges.iter().any(|m| u.merges.contains(&m.seq) && touches(m)))
        .flat_map(|u| u.merges)
        .filter(|s| !undoing.contains(s))
        .collect()
}

/// The functions merges erased after pointing every use at an equal function, with the
/// function that stands for each now (following later merges of that one).
fn replacements<'a>(merges: &[Footprint<'a>]) -> Vec<(&'a str, &'a str)> {
    let by: BTreeMap<&str, &str> =
        merges.iter().flat_map(|m| m.replaced.iter().map(move |&r| (r, m.body))).collect();
    by.keys()
        .map(|&erased| {
            let mut now = by[erased];
            // Each step goes to a later merge: at most as many steps as merges.
            for _ in 0..merges.len() {
                match by.get(now) {
                    Some(&next) => now = next,
                    None => break,
                }
            }
            (erased, now)
        })
        .collect()
}

/// A rewrite of call sites to redo in restored bodies: calls of `callee` (a function whose
/// calls a merge that stays rewrote) become calls of `body` with `args`. `live`: the working
/// module still has `callee` (the merge did not erase it: the merged bodies being undone
/// used its address), else the merge erased it.
struct Rewrite<'a> {
    callee: &'a str,
    body: &'a str,
    args: Vec<CallArg>,
    live: bool,
}

/// The rewrites the restored bodies (`restore`) need: for each function they call whose call
/// sites a merge not being undone rewrote, and that the working module no longer has (the
/// merge erased it) or has only for uses in the functions being undone (`restore`, `created`:
/// a merged body of an undone merge passed its address; undone, the input's bodies call it,
/// and left so it would stay, with a body the staying merge took away). Only those whose calls in the input bodies are plain direct calls, whose
/// arguments are all recorded, and whose merged body is still there; anything else the
/// restore check then refuses.
fn rewrites_to_reapply<'a>(
    module: &Module<'_>,
    snapshot: &Snapshot<'_>,
    restore: &BTreeSet<&str>,
    created: &BTreeSet<&str>,
    undone: &BTreeSet<usize>,
    merges: &[Footprint<'a>],
) -> Vec<Rewrite<'a>> {
    let staying = || merges.iter().filter(|m| !undone.contains(&m.seq));
    // What became of each function a staying merge took away: its calls now go to a body with
    // these arguments, or (identical functions) every use went to the body.
    let rewritten: BTreeMap<&str, (&str, &[CallArg])> = staying()
        .flat_map(|m| m.rewritten.iter().filter_map(move |&(f, args)| Some((f, (m.body, args?)))))
        .collect();
    let replaced: BTreeMap<&str, &str> =
        staying().flat_map(|m| m.replaced.iter().map(move |&r| (r, m.body))).collect();
    let mut out = Vec::new();
    for (&callee, &(body, args)) in &rewritten {
        // Still there: kept only if every use is in a function being undone (a merged body
        // that passed its address, to be erased); then its calls are rewritten like the
        // erased ones', and it goes.
        let live = module.function(callee).is_some();
        let undoing = |f: &str| restore.contains(f) || created.contains(f);
        if let Some(f) = module.function(callee) {
            let only_undone = f.users().into_iter().all(|(u, _)| {
                u.as_instruction()
                    .and_then(|i| i.parent_block())
                    .is_some_and(|b| undoing(b.parent().name().as_str()))
            });
            if !only_undone {
                continue;
            }
        }
        let Some(input) = snapshot.module().function(callee) else { continue };
        let arity = input.params().len() as u32;
        let mut used = false;
        let plain = input.users().into_iter().all(|(u, k)| {
            let Some(call) = u.as_instruction() else { return false };
            let Some(caller) = call.parent_block().map(|b| b.parent().name()) else {
                return false;
            };
            if !restore.contains(caller.as_str()) {
                return true;
            }
            used = true;
            call.opcode() == opcode::CALL
                && k == arity
                && call.num_operands() == arity + 1
                && call.operand_bundles().is_empty()
                && call.tail_call_kind() != TailCallKind::MustTail
        });
        if !used || !plain {
            continue;
        }
        // The body may have been merged away in turn: follow it to the function that stands
        // for it now, composing the arguments.
        let (mut body, mut args) = (body, args.to_vec());
        for _ in 0..=merges.len() {
            if module.function(body).is_some() {
                break;
            }
            if let Some(&next) = replaced.get(body) {
                body = next;
            } else if let Some(&(next, outer)) = rewritten.get(body) {
                args = outer
                    .iter()
                    .map(|a| match a {
                        CallArg::Param(k) => {
                            args.get(*k as usize).cloned().unwrap_or(CallArg::Other)
                        }
                        other => other.clone(),
                    })
                    .collect();
                body = next;
            } else {
                break;
            }
        }
        if module.function(body).is_some() && fixed_values_are_plain(module, &args) {
            out.push(Rewrite { callee, body, args, live });
        }
    }
    out
}

/// Whether every fixed value of `args` is an integer or a pointer: such a value reaches the
/// body the same way whatever the caller's target features (`fold::rewritable_call_sites`
/// says why that matters for the others).
fn fixed_values_are_plain(module: &Module<'_>, args: &[CallArg]) -> bool {
    args.iter().all(|a| match a {
        CallArg::Param(_) => true,
        CallArg::Constant(c) => c.value(module).is_some_and(|v| {
            matches!(
                v.ty().kind(),
                fmerge_core::ir::TypeKind::Int | fmerge_core::ir::TypeKind::Pointer
            )
        }),
        // An address (a pointer), of a global the module still has.
        CallArg::Global(g) => module.global_value(g).is_some(),
        CallArg::Other => false,
    })
}

/// A use of a new body that cannot be turned back: why, and the function it is in (`caller`,
/// empty when it is in no function).
struct Blocked {
    why: String,
    caller: String,
}

/// A call outside the unit's functions of one of its new bodies, and the call of an input
/// function it stands for.
struct OutsideCall<'m, 'a> {
    call: Instruction<'m>,
    member: &'a str,
    args: Vec<Value<'m>>,
}

/// Every call of the unit's new functions (`created`) from outside the unit's functions, with
/// the input call each stands for; `Err` says why some use of a new function cannot be undone,
/// and where it is.
fn outside_calls<'m, 'a>(
    module: &'m Module<'_>,
    restore: &BTreeSet<&str>,
    created: &BTreeSet<&str>,
    bodies: &BTreeMap<&str, &Footprint<'a>>,
) -> Result<Vec<OutsideCall<'m, 'a>>, Blocked> {
    let blocked = |why: String| Blocked { why, caller: String::new() };
    let mut out = Vec::new();
    for name in created {
        let Some(f) = module.function(name) else { continue };
        for (user, _) in f.users() {
            let call = user
                .as_instruction()
                .ok_or_else(|| blocked(format!("{name}: used by a non-instruction")))?;
            let caller = call
                .parent_block()
                .ok_or_else(|| blocked(format!("{name}: used by a parentless instruction")))?
                .parent()
                .name();
            if restore.contains(caller.as_str()) || created.contains(caller.as_str()) {
                continue;
            }
            let Some((member, args)) = original_call(call, name, restore, bodies) else {
                let why = format!("{name}: a call in {caller} cannot be turned back");
                return Err(Blocked { why, caller });
            };
            out.push(OutsideCall { call, member, args });
        }
    }
    Ok(out)
}

/// The call the input made where `call` (a call of the new body `body`) now stands: the input
/// function it called and its arguments. A chain of merges is followed back (a member that
/// is itself a new body of the unit had its calls rewritten in turn). `None` if the call is
/// not a plain direct call of `body`, or at some step no member or more than one fits.
fn original_call<'m, 'a>(
    call: Instruction<'m>,
    body: &str,
    restore: &BTreeSet<&str>,
    bodies: &BTreeMap<&str, &Footprint<'a>>,
) -> Option<(&'a str, Vec<Value<'m>>)> {
    let n = call.num_operands().checked_sub(1)?;
    if call.opcode() != opcode::CALL
        || call.operand(n)?.name() != body
        || !call.operand_bundles().is_empty()
    {
        return None;
    }
    let mut args: Vec<Value<'m>> = (0..n).map(|k| call.operand(k)).collect::<Option<_>>()?;
    let mut callee = body;
    // Each step goes to an earlier merge: at most as many steps as merges.
    for _ in 0..=bodies.len() {
        let (member, positions) = member_called(bodies.get(callee)?, &args)?;
        args = positions.iter().map(|&p| args[p as usize]).collect();
        if restore.contains(member) {
            return Some((member, args));
        }
        callee = member;
    }
    None
}

/// For a call of a merge's body with arguments `args`: the one member whose rewritten calls
/// look like it (the same constants at the same places), and where the member's own
/// arguments are among `args` (argument `k` of the member is `args[positions[k]]`). `None` if
/// no member or more than one fits.
fn member_called<'a>(merge: &Footprint<'a>, args: &[Value<'_>]) -> Option<(&'a str, Vec<u32>)> {
    let mut found = None;
    for &(member, pattern) in &merge.rewritten {
        let pattern = pattern?;
        if pattern.len() != args.len() {
            return None;
        }
        let mut positions: BTreeMap<u32, u32> = BTreeMap::new();
        let mut fits = true;
        for (p, a) in pattern.iter().enumerate() {
            match a {
                CallArg::Param(k) => {
                    positions.insert(*k, p as u32);
                }
                CallArg::Constant(c) => fits &= args[p].context_constant() == Some(*c),
                CallArg::Global(g) => fits &= args[p].is_global_value() && args[p].name() == *g,
                CallArg::Other => return None,
            }
        }
        if !fits {
            continue;
        }
        // Every argument of the member must be there, in order 0, 1, ...
        if positions.keys().copied().ne(0..positions.len() as u32) || found.is_some() {
            return None;
        }
        found = Some((member, positions.into_values().collect()));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge<'a>(seq: usize, originals: &'a [String], body: &'a str) -> Footprint<'a> {
        Footprint {
            seq,
            estimated_saving: 0,
            measured_saving: None,
            originals,
            body,
            members: originals.iter().map(String::as_str).collect(),
            undoable: true,
            rewritten: Vec::new(),
            replaced: Vec::new(),
        }
    }

    #[test]
    fn the_units_along_are_those_of_the_caller() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (read, dec, other, dec2) =
            (n(&["read5", "read6"]), n(&["dec5", "dec6"]), n(&["x", "y"]), n(&["dec5.m", "z"]));
        let merges = vec![
            merge(1, &read, "read5.m"),
            merge(2, &dec, "dec5.m"),
            merge(3, &other, "x.m"),
            // Merges the body of merge 2 again: one unit with it.
            merge(4, &dec2, "dec5.m.m"),
        ];
        let losing: BTreeSet<usize> = [1].into_iter().collect();
        // A call of read5.m in dec5.m (merge 2's body): merge 2's unit, merges 2 and 4.
        assert_eq!(units_along(&merges, &losing, "dec5.m"), vec![2, 4]);
        assert_eq!(units_along(&merges, &losing, "dec5.m.m"), vec![2, 4]);
        // In a function no merge touched: nothing explains the call.
        assert!(units_along(&merges, &losing, "main").is_empty());
        // In a function of a unit already being undone: nothing more to add.
        assert!(units_along(&merges, &losing, "read5.m").is_empty());
    }
}
