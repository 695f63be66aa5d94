//! Keeping only what two merged functions share.
//!
//! Structural comparison ignores poison-generating flags (`nsw`, `nuw`, `exact`, `inbounds`,
//! `disjoint`, `nneg`, fast-math ...), metadata attachments (`!tbaa`, `!range`, `!nonnull`,
//! `!alias.scope` ...) and the intersectable part of attribute lists (`range`, `nonnull`,
//! `memory(...)`, `nounwind` ...). LLVM defines all of them as droppable without changing what
//! the program means, but each is a promise about the values that flow through: one copy
//! serving several functions may only keep the promises that hold in all of them.

use fmerge_core::compare::Walk;
use fmerge_core::ir::opcode;
use fmerge_llvm::Value;

/// Instruction pairs of two equal functions: (instruction of the body that will serve both,
/// corresponding instruction of the other function), in walk order.
pub fn pairs<'m>(
    keep_insts: &[Value<'m>],
    keep_walk: &Walk,
    other_insts: &[Value<'m>],
    other_walk: &Walk,
) -> Vec<(Value<'m>, Value<'m>)> {
    keep_walk
        .insts
        .iter()
        .zip(&other_walk.insts)
        .map(|(&i, &j)| (keep_insts[i as usize], other_insts[j as usize]))
        .collect()
}

fn is_call(v: Value<'_>) -> bool {
    matches!(v.opcode(), Some(opcode::CALL | opcode::INVOKE | opcode::CALL_BR))
}

/// Can `keep` (a function with the instruction pairs given) take on `other`'s promises?
pub fn compatible(keep: Value<'_>, other: Value<'_>, pairs: &[(Value<'_>, Value<'_>)]) -> bool {
    keep.attrs_intersectable(other)
        && pairs.iter().filter(|(a, _)| is_call(*a)).all(|(a, b)| a.attrs_intersectable(*b))
}

/// Gives `keep` and its instructions the intersection of their promises with `other`'s.
/// Returns false if something did not intersect (callers check [`compatible`] first).
pub fn apply(keep: Value<'_>, other: Value<'_>, pairs: &[(Value<'_>, Value<'_>)]) -> bool {
    let mut ok = keep.intersect_attrs_with(other);
    for &(a, b) in pairs {
        ok &= instruction(a, b);
    }
    ok
}

/// Gives instruction `keep` the intersection of its flags, metadata and (for calls) attributes
/// with those of `other`, the instruction it will also stand for. Returns false if the call
/// attributes do not intersect (the flags and metadata are intersected regardless).
pub fn instruction(keep: Value<'_>, other: Value<'_>) -> bool {
    if keep == other || keep.opcode() != other.opcode() {
        return true;
    }
    keep.and_ir_flags(other);
    let theirs = other.metadata_attachments();
    for (kind, node) in keep.metadata_attachments() {
        if !theirs.contains(&(kind, node)) {
            keep.drop_metadata(kind);
        }
    }
    !is_call(keep) || keep.intersect_attrs_with(other)
}
