//! Building and rewiring IR: new blocks and instructions ([`Builder`]), and every setter of
//! the handles of [`crate::ir`]: names and uses of values, the linkage properties of globals,
//! function-level surgery (attributes, moving and cloning bodies, dominance repair) and the
//! operands, flags and metadata of instructions.
//!
//! Nothing here destroys an LLVM object (see the soundness rule in [`crate::module`]); bodies
//! are *moved* between functions, and functions meant to disappear are queued with
//! `Module::defer_erase`.

use crate::ffi;
use crate::ir::{
    Block, Function, Global, Instruction, Linkage, TailCallKind, Type, UnnamedAddr, Value,
    Visibility,
};
use crate::module::Module;
use fmerge_core::ir::opcode;
use llvm_sys::LLVMIntPredicate;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMBuilderRef;
use std::marker::PhantomData;

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

/// An instruction builder positioned somewhere in one module.
pub struct Builder<'m> {
    raw: LLVMBuilderRef,
    _m: PhantomData<&'m ()>,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: the builder was created by `Builder::new` and is disposed exactly once.
        unsafe { c::LLVMDisposeBuilder(self.raw) }
    }
}

impl<'m> Builder<'m> {
    pub fn new(module: &'m Module<'_>) -> Builder<'m> {
        // SAFETY: the module's context outlives the builder (lifetime `'m`).
        let raw = unsafe { c::LLVMCreateBuilderInContext(c::LLVMGetModuleContext(module.raw())) };
        Builder { raw, _m: PhantomData }
    }

    pub fn position_at_end(&self, b: Block<'m>) {
        // SAFETY: live block of this module.
        unsafe { c::LLVMPositionBuilderAtEnd(self.raw, b.raw()) }
    }

    pub fn position_before(&self, i: Instruction<'m>) {
        // SAFETY: live instruction of this module.
        unsafe { c::LLVMPositionBuilderBefore(self.raw, i.raw()) }
    }

    fn done(v: llvm_sys::prelude::LLVMValueRef) -> Instruction<'m> {
        Instruction::from_raw(v).expect("LLVM builders always return the new instruction")
    }

    pub fn ret(&self, v: Option<Value<'m>>) -> Instruction<'m> {
        // SAFETY: positioned builder; `v` is a live value of this module.
        Self::done(unsafe {
            match v {
                Some(v) => c::LLVMBuildRet(self.raw, v.raw()),
                None => c::LLVMBuildRetVoid(self.raw),
            }
        })
    }

    pub fn br(&self, dest: Block<'m>) -> Instruction<'m> {
        // SAFETY: positioned builder; live block of this module.
        Self::done(unsafe { c::LLVMBuildBr(self.raw, dest.raw()) })
    }

    pub fn cond_br(&self, cond: Value<'m>, then: Block<'m>, els: Block<'m>) -> Instruction<'m> {
        assert_eq!(cond.ty().int_width(), 1, "branch condition must be i1");
        // SAFETY: positioned builder; live values of this module; i1 condition (checked).
        Self::done(unsafe { c::LLVMBuildCondBr(self.raw, cond.raw(), then.raw(), els.raw()) })
    }

    pub fn unreachable(&self) -> Instruction<'m> {
        // SAFETY: positioned builder.
        Self::done(unsafe { c::LLVMBuildUnreachable(self.raw) })
    }

    pub fn select(&self, cond: Value<'m>, a: Value<'m>, b: Value<'m>) -> Instruction<'m> {
        assert_eq!(a.ty(), b.ty(), "select arms of different types");
        // SAFETY: positioned builder; live values, equal arm types (checked).
        Self::done(unsafe { c::LLVMBuildSelect(self.raw, cond.raw(), a.raw(), b.raw(), EMPTY) })
    }

    pub fn icmp_eq(&self, a: Value<'m>, b: Value<'m>) -> Instruction<'m> {
        assert_eq!(a.ty(), b.ty());
        // SAFETY: positioned builder; live values of one type (checked).
        Self::done(unsafe {
            c::LLVMBuildICmp(self.raw, LLVMIntPredicate::LLVMIntEQ, a.raw(), b.raw(), EMPTY)
        })
    }

    pub fn xor(&self, a: Value<'m>, b: Value<'m>) -> Instruction<'m> {
        assert_eq!(a.ty(), b.ty());
        // SAFETY: positioned builder; live integer values of one type (checked).
        Self::done(unsafe { c::LLVMBuildXor(self.raw, a.raw(), b.raw(), EMPTY) })
    }

    pub fn phi(&self, ty: Type<'m>) -> Instruction<'m> {
        // SAFETY: positioned builder; live type.
        Self::done(unsafe { c::LLVMBuildPhi(self.raw, ty.raw(), EMPTY) })
    }

    pub fn alloca(&self, ty: Type<'m>) -> Instruction<'m> {
        // SAFETY: positioned builder; live type.
        Self::done(unsafe { c::LLVMBuildAlloca(self.raw, ty.raw(), EMPTY) })
    }

    pub fn load(&self, ty: Type<'m>, ptr: Value<'m>) -> Instruction<'m> {
        // SAFETY: positioned builder; live values.
        Self::done(unsafe { c::LLVMBuildLoad2(self.raw, ty.raw(), ptr.raw(), EMPTY) })
    }

    pub fn store(&self, v: Value<'m>, ptr: Value<'m>) -> Instruction<'m> {
        // SAFETY: positioned builder; live values.
        Self::done(unsafe { c::LLVMBuildStore(self.raw, v.raw(), ptr.raw()) })
    }

    /// A call of `callee` (of function type `fn_ty`) with `args`.
    pub fn call(&self, fn_ty: Type<'m>, callee: Value<'m>, args: &[Value<'m>]) -> Instruction<'m> {
        let params = fn_ty.param_types();
        assert!(
            args.len() == params.len() || (fn_ty.is_vararg() && args.len() >= params.len()),
            "call with {} arguments to a function type with {} parameters",
            args.len(),
            params.len()
        );
        for (a, p) in args.iter().zip(&params) {
            assert_eq!(a.ty(), *p, "call argument of the wrong type");
        }
        let mut raw: Vec<_> = args.iter().map(|a| a.raw()).collect();
        // SAFETY: positioned builder; argument count and types checked against the type.
        Self::done(unsafe {
            c::LLVMBuildCall2(
                self.raw,
                fn_ty.raw(),
                callee.raw(),
                raw.as_mut_ptr(),
                raw.len() as u32,
                EMPTY,
            )
        })
    }

    /// Inserts an instruction that is not in any block yet (e.g. a fresh clone) here.
    pub fn insert(&self, inst: Instruction<'m>) {
        assert!(inst.parent_block().is_none(), "insert of a placed instruction");
        // SAFETY: positioned builder; a live instruction without parent (checked).
        unsafe { c::LLVMInsertIntoBuilder(self.raw, inst.raw()) }
    }
}

impl<'m> Value<'m> {
    pub fn set_name(self, name: &str) {
        // SAFETY: live value; LLVM copies `len` bytes.
        unsafe { c::LLVMSetValueName2(self.raw(), name.as_ptr() as *const _, name.len()) }
    }

    /// Replaces every use of `self` by `new` (including uses inside constants, e.g. tables of
    /// function pointers).
    pub fn replace_all_uses_with(self, new: Value<'m>) {
        assert!(self.ty() == new.ty(), "RAUW with a value of another type");
        // SAFETY: both live values of one module, of the same type (checked).
        unsafe { c::LLVMReplaceAllUsesWith(self.raw(), new.raw()) }
    }
}

impl<'m> Global<'m> {
    pub fn set_linkage(self, l: Linkage) {
        // SAFETY: live global value (the handle's kind).
        unsafe { c::LLVMSetLinkage(self.raw(), l.to_llvm()) }
    }
    pub fn set_visibility(self, v: Visibility) {
        // SAFETY: live global value.
        unsafe { c::LLVMSetVisibility(self.raw(), v.to_llvm()) }
    }
    pub fn set_unnamed_addr(self, u: UnnamedAddr) {
        // SAFETY: live global value.
        unsafe { c::LLVMSetUnnamedAddress(self.raw(), u.to_llvm()) }
    }
    pub fn set_dso_local(self, local: bool) {
        // SAFETY: live global value.
        unsafe { ffi::fm_set_dso_local(self.raw(), i32::from(local)) }
    }
    /// The explicit alignment of a function or variable in bytes (0: none, the target's).
    pub fn alignment(self) -> u32 {
        // SAFETY: live global value; LLVM reads the alignment of a global object.
        unsafe { c::LLVMGetAlignment(self.raw()) }
    }
    /// Sets the explicit alignment of a function or variable (0: none, the target's).
    pub fn set_alignment(self, bytes: u32) {
        // SAFETY: live global value; LLVM sets the alignment of a global object.
        unsafe { c::LLVMSetAlignment(self.raw(), bytes) }
    }
    /// Gives `self` the comdat of `from` (or none).
    pub fn copy_comdat_from(self, from: Global<'m>) {
        // SAFETY: live global values of one module.
        unsafe {
            let cd = llvm_sys::comdat::LLVMGetComdat(from.raw());
            llvm_sys::comdat::LLVMSetComdat(self.raw(), cd);
        }
    }
    pub fn clear_comdat(self) {
        // SAFETY: live global value; a null comdat removes it.
        unsafe { llvm_sys::comdat::LLVMSetComdat(self.raw(), std::ptr::null_mut()) }
    }
}

impl<'m> Function<'m> {
    /// Appends a new empty block to this function.
    pub fn append_block(self, name: &str) -> Block<'m> {
        let n = crate::module::c_string(name);
        // SAFETY: live function (the handle's kind); the context is the function's.
        Block::from_raw(unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.raw()));
            c::LLVMAppendBasicBlockInContext(ctx, self.raw(), n.as_ptr())
        })
        .expect("LLVM always returns the new block")
    }

    /// Drops the facts among its parameters' and result's attributes (`dereferenceable`,
    /// `nonnull`, `align`, `noundef` ...), keeping those that change how values are passed
    /// (`sret`, `byval` ...) and the function-level attributes: for a body shared by functions
    /// whose facts differ.
    pub fn keep_abi_param_attrs(self) {
        // SAFETY: live function; the shim rebuilds its attribute list in its context.
        unsafe { ffi::fm_keep_abi_param_attrs(self.raw()) }
    }

    /// Adds an enum function attribute by name (e.g. `noinline`).
    pub fn add_fn_attr(self, name: &str) {
        // SAFETY: live function; attribute made in the function's context.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            assert!(kind != 0, "unknown attribute {name}");
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.raw()));
            let a = c::LLVMCreateEnumAttribute(ctx, kind, 0);
            c::LLVMAddAttributeAtIndex(self.raw(), u32::MAX, a);
        }
    }

    pub fn remove_fn_attr(self, name: &str) {
        // SAFETY: live function.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind != 0 {
                c::LLVMRemoveEnumAttributeAtIndex(self.raw(), u32::MAX, kind);
            }
        }
    }

    /// Keeps only the attributes this function shares with `other`. Returns false, changing
    /// nothing, if they are incompatible.
    pub fn intersect_attrs_with(self, other: Function<'m>) -> bool {
        // SAFETY: two live functions.
        unsafe { ffi::fm_intersect_attrs(self.raw(), other.raw()) != 0 }
    }

    /// Copies attributes, calling convention, GC, section, alignment and personality of `src`
    /// onto this function (not its name, linkage or body).
    pub fn copy_function_attrs_from(self, src: Function<'m>) {
        // SAFETY: two live functions.
        unsafe { ffi::fm_copy_function_attrs(self.raw(), src.raw()) }
    }

    /// Moves this function's body into `dst`, which must have no body and this function's
    /// parameter types as its leading parameters; uses of the parameters and the debug-info
    /// subprogram move along. This function becomes a declaration. Returns false (and changes
    /// nothing) on a signature mismatch.
    pub fn move_body_to(self, dst: Function<'m>) -> bool {
        assert!(self != dst);
        // SAFETY: two distinct live functions of one module (checked); blocks are moved, not
        // destroyed, so no handle dangles. The shim checks the signatures.
        unsafe { ffi::fm_move_body(dst.raw(), self.raw()) != 0 }
    }

    /// Copies this function's body into `dst` (no body yet; this function's parameter types
    /// first, same return type). Returns false (and changes nothing) on a mismatch.
    pub fn clone_body_into(self, dst: Function<'m>) -> bool {
        assert!(self != dst);
        // SAFETY: two distinct live functions of one module (checked); the shim checks the
        // signatures before cloning.
        unsafe { ffi::fm_clone_body_into(dst.raw(), self.raw()) != 0 }
    }

    /// A copy of this function, named `name`, that means the same in every module: each
    /// symbol whose name may mean another definition (or none) in another module (local,
    /// linkonce, weak, common) becomes a trailing `ptr` parameter, in first-use order. Returns
    /// the copy (external linkage, no debug info, verified) and those symbols, or `None` (and
    /// nothing added) if such a symbol cannot be replaced (inside an aggregate constant, a
    /// thread-local global) or there are more than `max` of them.
    pub fn parameterize_locals(
        self,
        name: &str,
        max: usize,
    ) -> Option<(Function<'m>, Vec<Value<'m>>)> {
        assert!(!self.is_declaration());
        let mut locals = vec![std::ptr::null_mut(); max];
        let mut n = 0usize;
        let cname = crate::module::c_string(name);
        // SAFETY: a live function definition (checked); `locals` has room for `max` handles and
        // the shim writes at most that many, reporting the count in `n`.
        let raw = unsafe {
            ffi::fm_parameterize_locals(
                self.raw(),
                cname.as_ptr(),
                locals.as_mut_ptr(),
                max,
                &mut n,
            )
        };
        let copy = Function::from_raw(raw)?;
        let locals = locals[..n].iter().map(|&r| Value::from_raw(r).expect("a symbol")).collect();
        Some((copy, locals))
    }

    /// Gives this body-less function a copy of `src`'s body in which `src`'s parameter `k`
    /// is `values[k]` (this function's parameters, constants or globals of its module). This
    /// function keeps its own attributes, calling convention and personality. Returns false
    /// (and changes nothing) on a count or type mismatch.
    pub fn clone_body_mapped(self, src: Function<'m>, values: &[Value<'m>]) -> bool {
        assert!(self != src);
        let raws: Vec<_> = values.iter().map(|v| v.raw()).collect();
        // SAFETY: two distinct live functions of one module (checked), and live values of it;
        // the shim checks counts and types before cloning.
        unsafe { ffi::fm_clone_body_mapped(self.raw(), src.raw(), raws.as_ptr(), raws.len()) != 0 }
    }

    /// Gives this function, the merged body of `f1` and `f2`, its attribute list: the
    /// intersection of theirs, with `map1[k]`/`map2[k]` naming the parameter of `f1`/`f2` that
    /// parameter `k` carries (`None`: not that function's); return and parameter attributes
    /// that do not intersect are dropped. A parameter with ABI attributes (byval, sret, inreg
    /// ...) keeps them, and must be shared by both at the same position with the same ABI
    /// attributes. On failure nothing changes and the error says why: such a parameter is not
    /// shared that way, or the function attributes do not intersect.
    pub fn set_merged_attrs(
        self,
        f1: Function<'m>,
        f2: Function<'m>,
        map1: &[Option<u32>],
        map2: &[Option<u32>],
    ) -> Result<(), &'static str> {
        let n = self.params().len();
        assert!(map1.len() == n && map2.len() == n, "one map entry per parameter");
        let m1: Vec<i32> = map1.iter().map(|p| p.map_or(-1, |k| k as i32)).collect();
        let m2: Vec<i32> = map2.iter().map(|p| p.map_or(-1, |k| k as i32)).collect();
        assert!(m1.iter().all(|&k| k < f1.params().len() as i32));
        assert!(m2.iter().all(|&k| k < f2.params().len() as i32));
        // SAFETY: three live functions; both maps have one in-range entry per parameter of
        // `self` (checked above).
        let r = unsafe {
            ffi::fm_set_merged_attrs(
                self.raw(),
                f1.raw(),
                f2.raw(),
                m1.as_ptr(),
                m2.as_ptr(),
                n as u32,
            )
        };
        match r {
            1 => Ok(()),
            -1 => Err(
                "a parameter with an ABI attribute (byval, sret, inreg ...) is not shared at the \
                 same position with the same attributes",
            ),
            -2 => Err("function attributes do not intersect"),
            _ => Err("parameter maps do not fit the merged function"),
        }
    }

    /// Demotes values whose uses this function's definitions no longer dominate (after a merged
    /// body was stitched together) and promotes them back to SSA form. Returns how many values
    /// were repaired. Fails when a value cannot be repaired this way (an `invoke` result, an EH
    /// pad, a token), or when the repair would cost too much: more than `max_repairs` (plus one
    /// per 16 instructions) values, or a body that more than doubles; the function must then be
    /// discarded. Only instructions the repair itself created are erased, so handles stay valid.
    pub fn repair_dominance(self, max_repairs: u32) -> Result<usize, &'static str> {
        assert!(!self.is_declaration());
        // SAFETY: a live function definition (checked); see the doc comment for why no handle
        // can dangle.
        let n = unsafe { ffi::fm_repair_dominance(self.raw(), max_repairs) };
        match n {
            -1 => Err("a value defined on one path cannot reach its uses"),
            n if n < 0 => Err("repairing dominance would blow up the merged body"),
            n => Ok(n as usize),
        }
    }

    /// Drops the debug-info attachment and all debug locations of a function.
    pub fn strip_debug_info(self) {
        // SAFETY: live function; only metadata attachments are dropped.
        unsafe { ffi::fm_strip_function_debug_info(self.raw()) }
    }

    /// Sets (or clears) the function's personality.
    pub fn set_personality(self, p: Option<Value<'m>>) {
        // SAFETY: live function, live constant personality.
        unsafe { c::LLVMSetPersonalityFn(self.raw(), p.map_or(std::ptr::null_mut(), |v| v.raw())) }
    }
}

impl<'m> Instruction<'m> {
    pub fn set_operand(self, k: u32, v: Value<'m>) {
        assert!(k < self.num_operands(), "operand index {k} out of range");
        // SAFETY: `k` in range; `v` is a live value of the same module (lifetime `'m`).
        unsafe { c::LLVMSetOperand(self.raw(), k, v.raw()) }
    }

    /// Sets a branch/switch/invoke target operand to a block.
    pub fn set_block_operand(self, k: u32, b: Block<'m>) {
        assert!(k < self.num_operands());
        // SAFETY: `k` in range (checked); the block belongs to this module.
        unsafe { c::LLVMSetOperand(self.raw(), k, c::LLVMBasicBlockAsValue(b.raw())) }
    }

    /// A copy of this instruction, in no block yet, with the same operands (debug records are
    /// not copied).
    pub fn clone_instruction(self) -> Instruction<'m> {
        // SAFETY: live instruction; the clone is owned by the caller's module once inserted
        // with `Builder::insert`.
        Instruction::from_raw(unsafe { c::LLVMInstructionClone(self.raw()) }).expect("clone")
    }

    /// Removes the metadata attachment of `kind`.
    pub fn drop_metadata(self, kind: u32) {
        // SAFETY: live instruction; a null node removes the attachment.
        unsafe { c::LLVMSetMetadata(self.raw(), kind, std::ptr::null_mut()) }
    }

    pub fn phi_add_incoming(self, v: Value<'m>, b: Block<'m>) {
        assert_eq!(self.opcode(), opcode::PHI);
        assert_eq!(self.ty(), v.ty(), "phi incoming of the wrong type");
        let mut vs = [v.raw()];
        let mut bs = [b.raw()];
        // SAFETY: checked to be a phi and the value's type; one incoming pair.
        unsafe { c::LLVMAddIncoming(self.raw(), vs.as_mut_ptr(), bs.as_mut_ptr(), 1) }
    }

    pub fn phi_set_incoming_block(self, k: u32, b: Block<'m>) {
        assert_eq!(self.opcode(), opcode::PHI);
        // SAFETY: checked to be a phi; index range checked by the count below.
        unsafe {
            assert!(k < c::LLVMCountIncoming(self.raw()));
            ffi::fm_phi_set_incoming_block(self.raw(), k, b.raw())
        }
    }

    /// Keeps only the poison/fast-math flags that `other` has too.
    pub fn and_ir_flags(self, other: Instruction<'m>) {
        assert_eq!(self.opcode(), other.opcode());
        // SAFETY: two live instructions of one opcode (checked).
        unsafe { ffi::fm_and_ir_flags(self.raw(), other.raw()) }
    }

    pub fn set_tail_call_kind(self, kind: TailCallKind) {
        assert_eq!(self.opcode(), opcode::CALL);
        // SAFETY: checked to be a call.
        unsafe { c::LLVMSetTailCallKind(self.raw(), kind.to_llvm()) }
    }

    /// Keeps only the attributes this call site shares with call site `other`. Returns false,
    /// changing nothing, if they are incompatible.
    pub fn intersect_attrs_with(self, other: Instruction<'m>) -> bool {
        assert!(self.is_call_like() && other.is_call_like());
        // SAFETY: two live call sites (checked).
        unsafe { ffi::fm_intersect_attrs(self.raw(), other.raw()) != 0 }
    }

    /// Gives this call site the attribute list of call site `from`.
    pub fn copy_call_attrs_from(self, from: Instruction<'m>) {
        let calls = [opcode::CALL, opcode::INVOKE];
        assert!(calls.contains(&self.opcode()) && calls.contains(&from.opcode()));
        // SAFETY: two live call sites (checked).
        unsafe { ffi::fm_copy_call_attrs(self.raw(), from.raw()) }
    }

    /// Gives this instruction the debug location of `from`.
    pub fn copy_debug_loc_from(self, from: Instruction<'m>) {
        // SAFETY: two live instructions; locations are uniqued metadata.
        unsafe {
            use llvm_sys::debuginfo as di;
            di::LLVMInstructionSetDebugLoc(self.raw(), di::LLVMInstructionGetDebugLoc(from.raw()))
        }
    }

    /// Drops the facts among a call site's argument and result attributes, keeping those that
    /// change how values are passed ([`Function::keep_abi_param_attrs`] for a call).
    pub fn keep_abi_call_attrs(self) {
        assert!(matches!(self.opcode(), opcode::CALL | opcode::INVOKE));
        // SAFETY: a live call site (checked); the shim rebuilds its attribute list.
        unsafe { ffi::fm_keep_abi_param_attrs(self.raw()) }
    }

    /// Gives a call site the calling convention and attribute list of function `f`.
    pub fn set_call_like_function(self, f: Function<'m>) {
        assert!(matches!(self.opcode(), opcode::CALL | opcode::INVOKE));
        // SAFETY: a live call site (checked) and a live function.
        unsafe { ffi::fm_call_like_function(self.raw(), f.raw()) }
    }
}
