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
    let seqs: BTreeSet<usize> = losers.iter().flat_map(|u| u.merges.iter().copied()).collect();
    let undo: Vec<&Footprint<'_>> = merges.iter().filter(|m| seqs.contains(&m.seq)).collect();
    let refuse = |why: &str| {
        if std::env::var_os("FMERGE_DEBUG_UNDO").is_some() {
            eprintln!("undo in place: {why}");
        }
        Ok(None)
    };
    if let Some(m) = undo.iter().find(|m| !m.undoable) {
        return refuse(&format!("merge {} is not undoable", m.seq));
    }
    // The unit's functions the input has, and those the merges made.
    let mut restore: BTreeSet<&str> = BTreeSet::new();
    let mut created: BTreeSet<&str> = BTreeSet::new();
    for m in &undo {
        for n in m.originals.iter().map(String::as_str).chain(m.members.iter().copied()) {
            if snapshot.module().function(n).is_some_and(|f| !f.is_declaration()) {
                restore.insert(n);
            } else {
                created.insert(n);
            }
        }
        if snapshot.module().function(m.body).is_some() {
            // A body named like an input function: not a merge this undo understands.
            return refuse(&format!("merge {}: body named like an input function", m.seq));
        }
        created.insert(m.body);
    }
    let bodies: BTreeMap<&str, &Footprint<'_>> = undo.iter().map(|m| (m.body, *m)).collect();
    // The calls must hold all of their members' arguments.
    let calls = match outside_calls(module, &restore, &created, &bodies) {
        Ok(calls) => calls,
        Err(why) => return refuse(&why),
    };
    let arity = |member: &str| snapshot.module().function(member).map(|f| f.params().len());
    if let Some(c) = calls.iter().find(|c| arity(c.member) != Some(c.args.len())) {
        return refuse(&format!("member {} cannot be called again", c.member));
    }
    drop(calls);
    let names: Vec<&str> = restore.iter().copied().collect();
    // The input bodies, read now: what they call decides what must be redone in them.
    snapshot.materialize(&names)?;
    let replaced = replacements(merges);
    // Functions the restored bodies call that other merges erased after rewriting their
    // calls: declared again for the restore, their calls then rewritten as those merges did.
    let rewrites = rewrites_to_reapply(module, snapshot, &restore, &seqs, merges);
    let declared: Vec<&str> = rewrites.iter().map(|r| r.callee).collect();
    for r in &rewrites {
        let input = snapshot.module().function(r.callee).expect("checked");
        module.add_function(r.callee, input.global_value_type());
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
        let args: Vec<fold::Arg<'_>> = r
            .args
            .iter()
            .map(|a| match a {
                CallArg::Param(k) => fold::Arg::Param(*k),
                CallArg::Constant(c) => fold::Arg::Value(c.value(module).expect("one context")),
                CallArg::Global(g) => fold::Arg::Value(module.global_value(g).expect("checked")),
                CallArg::Other => unreachable!("not reapplied"),
            })
            .collect();
        fold::rewrite_call_sites(module, callee, body, &args);
    }
    // The same calls as checked above (restoring changed only the unit's own functions): each
    // becomes a call of its member, which exists again.
    let bug = |what: String| fmerge_llvm::LlvmError::InvalidIr {
        message: format!("undoing a merge: {what} (a bug: please report it)"),
    };
    for c in outside_calls(module, &restore, &created, &bodies).map_err(bug)? {
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
    Ok(Some(Undone { merges: seqs, freed: names.iter().map(|n| n.to_string()).collect() }))
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

/// A rewrite of call sites to redo in restored bodies: calls of `callee` (a function a merge
/// that stays erased) become calls of `body` with `args`.
struct Rewrite<'a> {
    callee: &'a str,
    body: &'a str,
    args: Vec<CallArg>,
}

/// The rewrites the restored bodies (`restore`) need: for each function they call that the
/// working module no longer has because a merge not being undone rewrote its call sites and
/// erased it. Only those whose calls in the input bodies are plain direct calls, whose
/// arguments are all recorded, and whose merged body is still there; anything else the
/// restore check then refuses.
fn rewrites_to_reapply<'a>(
    module: &Module<'_>,
    snapshot: &Snapshot<'_>,
    restore: &BTreeSet<&str>,
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
        if module.function(callee).is_some() {
            continue;
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
            out.push(Rewrite { callee, body, args });
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

/// A call outside the unit's functions of one of its new bodies, and the call of an input
/// function it stands for.
struct OutsideCall<'m, 'a> {
    call: Instruction<'m>,
    member: &'a str,
    args: Vec<Value<'m>>,
}

/// Every call of the unit's new functions (`created`) from outside the unit's functions, with
/// the input call each stands for; `Err` says why some use of a new function cannot be undone.
fn outside_calls<'m, 'a>(
    module: &'m Module<'_>,
    restore: &BTreeSet<&str>,
    created: &BTreeSet<&str>,
    bodies: &BTreeMap<&str, &Footprint<'a>>,
) -> Result<Vec<OutsideCall<'m, 'a>>, String> {
    let mut out = Vec::new();
    for name in created {
        let Some(f) = module.function(name) else { continue };
        for (user, _) in f.users() {
            let call = user.as_instruction().ok_or(format!("{name}: used by a non-instruction"))?;
            let caller = call
                .parent_block()
                .ok_or(format!("{name}: used by a parentless instruction"))?
                .parent()
                .name();
            if restore.contains(caller.as_str()) || created.contains(caller.as_str()) {
                continue;
            }
            let (member, args) = original_call(call, name, restore, bodies)
                .ok_or(format!("{name}: a call in {caller} cannot be turned back"))?;
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
