//! [`Instruction`] and the [`Block`]s that hold them: opcodes, successors, the state that
//! makes two instructions one operation (predicates, orderings, alignments, call shapes),
//! metadata, phis. [`TailCallKind`] is fmerge's name for LLVM's enum.

use super::{Function, Type, Value, narrower_handle};
use crate::ffi;
use fmerge_core::ir::opcode;
use llvm_sys::LLVMTailCallKind;
use llvm_sys::core as c;
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// An instruction (placed in a block, or a fresh clone not placed yet).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction<'m>(pub(super) Value<'m>);
narrower_handle!(Instruction => Value);

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block<'m> {
    raw: NonNull<llvm_sys::LLVMBasicBlock>,
    _m: PhantomData<&'m ()>,
}

/// LLVM's fixed metadata kind id of `!dbg`.
const MD_DBG: u32 = 0;

/// A call's tail-call marker. The discriminants are the C API's numbers, which the lowering
/// hashes into call states (summaries depend on them: they must not change).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum TailCallKind {
    None = 0,
    Tail = 1,
    MustTail = 2,
    NoTail = 3,
}

impl TailCallKind {
    pub(crate) fn from_llvm(k: LLVMTailCallKind) -> TailCallKind {
        match k {
            LLVMTailCallKind::LLVMTailCallKindNone => TailCallKind::None,
            LLVMTailCallKind::LLVMTailCallKindTail => TailCallKind::Tail,
            LLVMTailCallKind::LLVMTailCallKindMustTail => TailCallKind::MustTail,
            LLVMTailCallKind::LLVMTailCallKindNoTail => TailCallKind::NoTail,
        }
    }

    pub(crate) fn to_llvm(self) -> LLVMTailCallKind {
        match self {
            TailCallKind::None => LLVMTailCallKind::LLVMTailCallKindNone,
            TailCallKind::Tail => LLVMTailCallKind::LLVMTailCallKindTail,
            TailCallKind::MustTail => LLVMTailCallKind::LLVMTailCallKindMustTail,
            TailCallKind::NoTail => LLVMTailCallKind::LLVMTailCallKindNoTail,
        }
    }
}

impl<'m> Instruction<'m> {
    /// A handle on a pointer the caller knows to be an instruction.
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<Instruction<'m>> {
        let v = Value::from_raw(raw)?;
        debug_assert!(v.is_instruction());
        Some(Instruction(v))
    }

    pub fn as_value(self) -> Value<'m> {
        self.0
    }

    /// LLVM C API opcode (see `fmerge_core::ir::opcode`).
    pub fn opcode(self) -> u32 {
        // SAFETY: a live instruction (the handle's kind).
        unsafe { c::LLVMGetInstructionOpcode(self.raw()) as u32 }
    }

    /// A call, invoke or callbr.
    pub fn is_call_like(self) -> bool {
        matches!(self.opcode(), opcode::CALL | opcode::INVOKE | opcode::CALL_BR)
    }

    pub fn parent_block(self) -> Option<Block<'m>> {
        // SAFETY: live instruction.
        Block::from_raw(unsafe { c::LLVMGetInstructionParent(self.raw()) })
    }

    pub fn next_instruction(self) -> Option<Instruction<'m>> {
        // SAFETY: live instruction.
        Instruction::from_raw(unsafe { c::LLVMGetNextInstruction(self.raw()) })
    }

    /// Successor blocks of a terminator.
    pub fn successors(self) -> Vec<Block<'m>> {
        // SAFETY: live instruction; LLVMGetNumSuccessors requires a terminator (checked).
        unsafe {
            if c::LLVMIsATerminatorInst(self.raw()).is_null() {
                return Vec::new();
            }
            let n = c::LLVMGetNumSuccessors(self.raw());
            (0..n).filter_map(|k| Block::from_raw(c::LLVMGetSuccessor(self.raw(), k))).collect()
        }
    }

    /// The case values of a `switch`, in case order (the successor of case `k` is successor
    /// `k + 1`). LLVM 22 keeps them outside the operand list, so walking operands misses them.
    pub fn switch_case_values(self) -> Vec<Value<'m>> {
        assert_eq!(self.opcode(), opcode::SWITCH, "not a switch");
        // SAFETY: a live switch instruction (checked); successor 0 is the default destination,
        // successors 1..n have a case value each.
        unsafe {
            let n = c::LLVMGetNumSuccessors(self.raw());
            (1..n)
                .filter_map(|k| Value::from_raw(c::LLVMGetSwitchCaseValue(self.raw(), k)))
                .collect()
        }
    }

    // ---- the state of an operation -------------------------------------------------------

    pub fn icmp_predicate(self) -> u32 {
        // SAFETY: only called on icmp instructions (caller checks opcode).
        unsafe { c::LLVMGetICmpPredicate(self.raw()) as u32 }
    }
    pub fn fcmp_predicate(self) -> u32 {
        // SAFETY: only called on fcmp instructions (caller checks opcode).
        unsafe { c::LLVMGetFCmpPredicate(self.raw()) as u32 }
    }
    /// Poison-generating and fast-math flags, as LLVM stores them.
    pub fn raw_optional_flags(self) -> u32 {
        // SAFETY: live instruction.
        unsafe { ffi::fm_raw_optional_flags(self.raw()) }
    }
    pub fn alignment(self) -> u32 {
        // SAFETY: only for alloca/load/store/atomics (caller checks opcode).
        unsafe { c::LLVMGetAlignment(self.raw()) }
    }
    pub fn is_volatile(self) -> bool {
        // SAFETY: only for memory instructions (caller checks opcode).
        unsafe { c::LLVMGetVolatile(self.raw()) != 0 }
    }
    pub fn ordering(self) -> u32 {
        // SAFETY: only for load/store/fence/atomicrmw (caller checks opcode).
        unsafe { c::LLVMGetOrdering(self.raw()) as u32 }
    }
    pub fn sync_scope(self) -> u32 {
        // SAFETY: only for atomic instructions (caller checks opcode).
        unsafe { c::LLVMGetAtomicSyncScopeID(self.raw()) }
    }
    pub fn cmpxchg_orderings(self) -> (u32, u32, bool) {
        // SAFETY: only for cmpxchg (caller checks opcode).
        unsafe {
            (
                c::LLVMGetCmpXchgSuccessOrdering(self.raw()) as u32,
                c::LLVMGetCmpXchgFailureOrdering(self.raw()) as u32,
                c::LLVMGetWeak(self.raw()) != 0,
            )
        }
    }
    pub fn atomic_rmw_op(self) -> u32 {
        // SAFETY: only for atomicrmw (caller checks opcode).
        unsafe { c::LLVMGetAtomicRMWBinOp(self.raw()) as u32 }
    }
    pub fn allocated_type(self) -> Type<'m> {
        // SAFETY: only for alloca (caller checks opcode).
        Type::from_raw(unsafe { c::LLVMGetAllocatedType(self.raw()) }).expect("alloca type")
    }
    pub fn gep_source_type(self) -> Type<'m> {
        // SAFETY: only for GEP instructions (caller checks opcode).
        Type::from_raw(unsafe { c::LLVMGetGEPSourceElementType(self.raw()) }).expect("GEP type")
    }
    /// Indices of extractvalue/insertvalue.
    pub fn aggregate_indices(self) -> Vec<u32> {
        // SAFETY: only for extractvalue/insertvalue (caller checks opcode); LLVM returns a
        // pointer to `n` indices owned by the instruction.
        unsafe {
            let n = c::LLVMGetNumIndices(self.raw()) as usize;
            let p = c::LLVMGetIndices(self.raw());
            if p.is_null() || n == 0 {
                return Vec::new();
            }
            std::slice::from_raw_parts(p, n).to_vec()
        }
    }
    pub fn shuffle_mask(self) -> Vec<i32> {
        // SAFETY: only for shufflevector (caller checks opcode).
        unsafe {
            let n = c::LLVMGetNumMaskElements(self.raw());
            (0..n).map(|k| c::LLVMGetMaskValue(self.raw(), k)).collect()
        }
    }
    pub fn landingpad_is_cleanup(self) -> bool {
        // SAFETY: only for landingpad (caller checks opcode).
        unsafe { c::LLVMIsCleanup(self.raw()) != 0 }
    }

    // ---- calls ---------------------------------------------------------------------------

    /// Called function type of a call/invoke/callbr.
    pub fn called_function_type(self) -> Type<'m> {
        // SAFETY: only for call-like instructions (caller checks opcode).
        Type::from_raw(unsafe { c::LLVMGetCalledFunctionType(self.raw()) }).expect("callee type")
    }
    /// The callee operand of a call-like instruction.
    pub fn called_value(self) -> Option<Value<'m>> {
        // SAFETY: only for call-like instructions (caller checks opcode).
        Value::from_raw(unsafe { c::LLVMGetCalledValue(self.raw()) })
    }
    pub fn num_arg_operands(self) -> u32 {
        // SAFETY: only for call-like instructions (caller checks opcode).
        unsafe { c::LLVMGetNumArgOperands(self.raw()) }
    }
    /// The calling convention of a call-like instruction.
    pub fn call_conv(self) -> u32 {
        // SAFETY: only for call-like instructions (caller checks opcode).
        unsafe { c::LLVMGetInstructionCallConv(self.raw()) }
    }
    pub fn tail_call_kind(self) -> TailCallKind {
        // SAFETY: only for call instructions (caller checks opcode).
        TailCallKind::from_llvm(unsafe { c::LLVMGetTailCallKind(self.raw()) })
    }
    /// Whether argument `k` of this call must be an immediate (`immarg`).
    pub fn call_arg_is_immarg(self, k: u32) -> bool {
        // SAFETY: only for call-like instructions, `k` below the argument count (caller).
        unsafe { ffi::fm_call_arg_is_immarg(self.raw(), k) != 0 }
    }
    /// Operand bundle tags, and the number of operands each bundle has.
    pub fn operand_bundles(self) -> Vec<(String, u32)> {
        // SAFETY: only for call-like instructions (caller checks opcode); each bundle is
        // disposed after reading.
        unsafe {
            let n = c::LLVMGetNumOperandBundles(self.raw());
            (0..n)
                .map(|k| {
                    let b = c::LLVMGetOperandBundleAtIndex(self.raw(), k);
                    let mut len = 0usize;
                    let tag = c::LLVMGetOperandBundleTag(b, &mut len);
                    let tag =
                        String::from_utf8_lossy(std::slice::from_raw_parts(tag as *const u8, len))
                            .into_owned();
                    let args = c::LLVMGetNumOperandBundleArgs(b);
                    c::LLVMDisposeOperandBundle(b);
                    (tag, args)
                })
                .collect()
        }
    }
    /// Identity of the part of this call site's attribute list that must be equal for two of
    /// them to be one operation; the rest can be intersected
    /// (`Instruction::intersect_attrs_with`, in [`crate::edit`]).
    pub fn attr_key(self) -> usize {
        assert!(self.is_call_like());
        // SAFETY: a live call site (checked).
        unsafe { ffi::fm_attr_key(self.raw()) as usize }
    }
    /// Identity of this call site's whole attribute list (LLVM uniques lists and keeps them as
    /// long as the context: equal identities have equal [`Instruction::attr_key`]s).
    pub fn attr_list_identity(self) -> usize {
        assert!(self.is_call_like());
        // SAFETY: a live call site (checked); only reads its attribute list's address.
        unsafe { ffi::fm_attr_list(self.raw()) as usize }
    }
    /// Stable content hash of what [`Instruction::attr_key`] identifies (equal across runs
    /// and modules).
    pub fn attr_key_hash(self) -> u64 {
        assert!(self.is_call_like());
        // SAFETY: a live call site (checked).
        unsafe { ffi::fm_attr_key_hash(self.raw()) }
    }
    /// Whether this call site's attributes intersect with those of call site `other`.
    pub fn attrs_intersectable(self, other: Instruction<'m>) -> bool {
        assert!(self.is_call_like() && other.is_call_like());
        // SAFETY: two live call sites (checked).
        unsafe { ffi::fm_attrs_intersectable(self.raw(), other.raw()) != 0 }
    }

    // ---- metadata and phis ---------------------------------------------------------------

    /// Non-debug metadata attachments as (kind, identity of the node). The debug location
    /// (kind 0, `!dbg`) is never among them: LLVM 22's "other than debug loc" query still
    /// reports it.
    pub fn metadata_attachments(self) -> Vec<(u32, usize)> {
        // SAFETY: live instruction; the entries array is disposed after reading.
        unsafe {
            let mut n = 0usize;
            let entries = c::LLVMInstructionGetAllMetadataOtherThanDebugLoc(self.raw(), &mut n);
            let out = (0..n as u32)
                .filter(|&k| c::LLVMValueMetadataEntriesGetKind(entries, k) != MD_DBG)
                .map(|k| {
                    (
                        c::LLVMValueMetadataEntriesGetKind(entries, k),
                        c::LLVMValueMetadataEntriesGetMetadata(entries, k) as usize,
                    )
                })
                .collect();
            if !entries.is_null() {
                c::LLVMDisposeValueMetadataEntries(entries);
            }
            out
        }
    }

    /// Incoming (value, block) pairs of a phi.
    pub fn phi_incoming(self) -> Vec<(Value<'m>, Block<'m>)> {
        // SAFETY: only for phi nodes (caller checks opcode).
        unsafe {
            let n = c::LLVMCountIncoming(self.raw());
            (0..n)
                .map(|k| {
                    (
                        Value::from_raw(c::LLVMGetIncomingValue(self.raw(), k)).expect("phi value"),
                        Block::from_raw(c::LLVMGetIncomingBlock(self.raw(), k)).expect("phi block"),
                    )
                })
                .collect()
        }
    }
}

impl<'m> Block<'m> {
    pub(crate) fn from_raw(raw: LLVMBasicBlockRef) -> Option<Block<'m>> {
        NonNull::new(raw).map(|raw| Block { raw, _m: PhantomData })
    }

    pub(crate) fn raw(self) -> LLVMBasicBlockRef {
        self.raw.as_ptr()
    }

    pub fn as_value(self) -> Value<'m> {
        // SAFETY: live block.
        Value::from_raw(unsafe { c::LLVMBasicBlockAsValue(self.raw()) }).expect("block value")
    }

    pub fn instructions(self) -> Vec<Instruction<'m>> {
        let mut out = Vec::new();
        // SAFETY: live block; iteration does not mutate.
        let mut i = unsafe { c::LLVMGetFirstInstruction(self.raw()) };
        while let Some(v) = Instruction::from_raw(i) {
            out.push(v);
            // SAFETY: a live instruction of this block.
            i = unsafe { c::LLVMGetNextInstruction(i) };
        }
        out
    }

    /// The number of instructions in the block.
    pub fn instruction_count(self) -> usize {
        let mut n = 0;
        // SAFETY: live block; iteration does not mutate.
        let mut i = unsafe { c::LLVMGetFirstInstruction(self.raw()) };
        while !i.is_null() {
            n += 1;
            // SAFETY: a live instruction of this block.
            i = unsafe { c::LLVMGetNextInstruction(i) };
        }
        n
    }

    pub fn first_instruction(self) -> Option<Instruction<'m>> {
        // SAFETY: live block.
        Instruction::from_raw(unsafe { c::LLVMGetFirstInstruction(self.raw()) })
    }

    pub fn terminator(self) -> Option<Instruction<'m>> {
        // SAFETY: live block.
        Instruction::from_raw(unsafe { c::LLVMGetBasicBlockTerminator(self.raw()) })
    }

    pub fn parent(self) -> Function<'m> {
        // SAFETY: live block inside a function.
        Function::from_raw(unsafe { c::LLVMGetBasicBlockParent(self.raw()) }).expect("block parent")
    }
}

impl fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Block({:p})", self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_call_kinds_keep_the_c_api_numbers() {
        use LLVMTailCallKind::*;
        for (k, llvm) in [
            (TailCallKind::None, LLVMTailCallKindNone),
            (TailCallKind::Tail, LLVMTailCallKindTail),
            (TailCallKind::MustTail, LLVMTailCallKindMustTail),
            (TailCallKind::NoTail, LLVMTailCallKindNoTail),
        ] {
            assert_eq!(k as u32, llvm as u32);
            assert_eq!(TailCallKind::from_llvm(llvm), k);
            assert_eq!(k.to_llvm(), llvm);
        }
    }
}
