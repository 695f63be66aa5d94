//! Keeping only what two merged functions share.
//!
//! Structural comparison ignores poison-generating flags (`nsw`, `nuw`, `exact`, `inbounds`,
//! `disjoint`, `nneg`, fast-math ...), metadata attachments (`!tbaa`, `!range`, `!nonnull`,
//! `!alias.scope` ...) and the intersectable part of attribute lists (`range`, `nonnull`,
//! `memory(...)`, `nounwind` ...). LLVM defines all of them as droppable without changing what
//! the program means, but each is a promise about the values that flow through: one copy
//! serving several functions may only keep the promises that hold in all of them.

use fmerge_core::compare::Walk;
use fmerge_llvm::{Function, Instruction};

/// Instruction pairs of two equal functions: (instruction of the body that will serve both,
/// corresponding instruction of the other function), in walk order.
pub fn pairs<'m>(
    keep_insts: &[Instruction<'m>],
    keep_walk: &Walk,
    other_insts: &[Instruction<'m>],
    other_walk: &Walk,
) -> Vec<(Instruction<'m>, Instruction<'m>)> {
    keep_walk
        .insts
        .iter()
        .zip(&other_walk.insts)
        .map(|(&i, &j)| (keep_insts[i as usize], other_insts[j as usize]))
        .collect()
}

/// Can `keep` (a function with the instruction pairs given) take on `other`'s promises?
pub fn compatible<'m>(
    keep: Function<'m>,
    other: Function<'m>,
    pairs: &[(Instruction<'m>, Instruction<'m>)],
) -> bool {
    keep.attrs_intersectable(other)
        && pairs.iter().filter(|(a, _)| a.is_call_like()).all(|(a, b)| a.attrs_intersectable(*b))
}

/// Gives `keep` and its instructions the intersection of their promises with `other`'s.
/// Returns false if something did not intersect (callers check [`compatible`] first).
pub fn apply<'m>(
    keep: Function<'m>,
    other: Function<'m>,
    pairs: &[(Instruction<'m>, Instruction<'m>)],
) -> bool {
    let mut ok = keep.intersect_attrs_with(other);
    for &(a, b) in pairs {
        ok &= instruction(a, b);
    }
    ok
}

/// Gives instruction `keep` the intersection of its flags, metadata and (for calls) attributes
/// with those of `other`, the instruction it will also stand for. Returns false if the call
/// attributes do not intersect (the flags and metadata are intersected regardless).
pub fn instruction<'m>(keep: Instruction<'m>, other: Instruction<'m>) -> bool {
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
    !keep.is_call_like() || keep.intersect_attrs_with(other)
}
