//! IR handles and read access: values, basic blocks, types.
//!
//! A handle is a pointer to a live LLVM object plus the lifetime `'m` of the module borrow it
//! came from (see the soundness rule in [`crate::module`]). Every `unsafe` block below relies on
//! that invariant: *the object is alive and belongs to a module borrowed for `'m`*; blocks that
//! need more (the right kind of object) check it first with an `LLVMIsA*` query and say so.

use crate::ffi;
use llvm_sys::core as c;
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMTypeRef, LLVMValueRef};
use llvm_sys::{LLVMLinkage, LLVMTypeKind, LLVMUnnamedAddr, LLVMVisibility};
use std::ffi::CStr;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// Any LLVM value: function, global, argument, instruction, constant, inline asm, metadata.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value<'m> {
    raw: NonNull<llvm_sys::LLVMValue>,
    _m: PhantomData<&'m ()>,
}

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block<'m> {
    raw: NonNull<llvm_sys::LLVMBasicBlock>,
    _m: PhantomData<&'m ()>,
}

/// An LLVM type (uniqued per context: equal handles ⇔ equal types).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type<'m> {
    raw: NonNull<llvm_sys::LLVMType>,
    _m: PhantomData<&'m ()>,
}

/// LLVM's fixed metadata kind id of `!dbg`.
const MD_DBG: u32 = 0;

/// Linkage, reduced to what merging decisions need.
pub use llvm_sys::LLVMLinkage as Linkage;

impl<'m> Value<'m> {
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<Value<'m>> {
        NonNull::new(raw).map(|raw| Value { raw, _m: PhantomData })
    }

    pub(crate) fn raw(self) -> LLVMValueRef {
        self.raw.as_ptr()
    }

    /// Pointer identity as an integer: for interning only, never for ordering output.
    pub fn identity(self) -> usize {
        self.raw.as_ptr() as usize
    }

    pub fn ty(self) -> Type<'m> {
        // SAFETY: live value (module invariant); every value has a type.
        Type::from_raw(unsafe { c::LLVMTypeOf(self.raw()) }).expect("value without type")
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        // SAFETY: live value; LLVM returns a pointer to `len` bytes owned by the value.
        let p = unsafe { c::LLVMGetValueName2(self.raw(), &mut len) };
        if p.is_null() || len == 0 {
            return String::new();
        }
        // SAFETY: `p` points at `len` readable bytes (LLVM's contract for LLVMGetValueName2).
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }

    pub fn set_name(self, name: &str) {
        // SAFETY: live value; LLVM copies `len` bytes.
        unsafe { c::LLVMSetValueName2(self.raw(), name.as_ptr() as *const _, name.len()) }
    }

    // ---- kinds -------------------------------------------------------------------------

    pub fn is_function(self) -> bool {
        // SAFETY: live value; LLVMIsA* accept any value.
        unsafe { !c::LLVMIsAFunction(self.raw()).is_null() }
    }
    pub fn is_instruction(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAInstruction(self.raw()).is_null() }
    }
    pub fn is_argument(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAArgument(self.raw()).is_null() }
    }
    pub fn is_constant(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMIsConstant(self.raw()) != 0 }
    }
    pub fn is_poison(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMIsPoison(self.raw()) != 0 }
    }
    pub fn is_global_value(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalValue(self.raw()).is_null() }
    }
    pub fn is_global_variable(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalVariable(self.raw()).is_null() }
    }
    pub fn is_global_alias(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAGlobalAlias(self.raw()).is_null() }
    }
    pub fn is_inline_asm(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAInlineAsm(self.raw()).is_null() }
    }
    pub fn is_metadata(self) -> bool {
        // SAFETY: live value; its type is alive with the context.
        unsafe {
            c::LLVMGetTypeKind(c::LLVMTypeOf(self.raw())) == LLVMTypeKind::LLVMMetadataTypeKind
        }
    }
    pub fn is_block_address(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsABlockAddress(self.raw()).is_null() }
    }
    pub fn is_constant_int(self) -> bool {
        // SAFETY: as above.
        unsafe { !c::LLVMIsAConstantInt(self.raw()).is_null() }
    }
    pub fn is_basic_block(self) -> bool {
        // SAFETY: as above.
        unsafe { c::LLVMValueIsBasicBlock(self.raw()) != 0 }
    }
    /// The block this value stands for, if it is a basic block used as an operand.
    pub fn as_block(self) -> Option<Block<'m>> {
        if !self.is_basic_block() {
            return None;
        }
        // SAFETY: checked to be a basic block just above.
        Block::from_raw(unsafe { c::LLVMValueAsBasicBlock(self.raw()) })
    }

    // ---- operands and uses -------------------------------------------------------------

    pub fn num_operands(self) -> u32 {
        // SAFETY: live value; LLVMGetNumOperands accepts users and returns 0 for
        // non-users except metadata, which the check excludes.
        if self.is_metadata() {
            return 0;
        }
        let n = unsafe { c::LLVMGetNumOperands(self.raw()) };
        n.max(0) as u32
    }

    /// Operand `k` (raw: works for metadata and block operands too, unlike inkwell).
    pub fn operand(self, k: u32) -> Option<Value<'m>> {
        if k >= self.num_operands() {
            return None;
        }
        // SAFETY: `k` is in range for a live user.
        Value::from_raw(unsafe { c::LLVMGetOperand(self.raw(), k) })
    }

    pub fn set_operand(self, k: u32, v: Value<'m>) {
        assert!(k < self.num_operands(), "operand index {k} out of range");
        // SAFETY: `k` in range; `v` is a live value of the same module (lifetime `'m`).
        unsafe { c::LLVMSetOperand(self.raw(), k, v.raw()) }
    }

    /// Every user of this value (with repetitions, one per use), in use-list order.
    pub fn users(self) -> Vec<(Value<'m>, u32)> {
        let mut out = Vec::new();
        // SAFETY: walking the use list of a live value without mutating it.
        unsafe {
            let mut u = c::LLVMGetFirstUse(self.raw());
            while !u.is_null() {
                let user = c::LLVMGetUser(u);
                // Find which operand of `user` this use is.
                let n = c::LLVMGetNumOperands(user).max(0) as u32;
                let mut idx = u32::MAX;
                for k in 0..n {
                    if c::LLVMGetOperandUse(user, k) == u {
                        idx = k;
                        break;
                    }
                }
                if let Some(v) = Value::from_raw(user) {
                    out.push((v, idx));
                }
                u = c::LLVMGetNextUse(u);
            }
        }
        out
    }

    pub fn has_uses(self) -> bool {
        // SAFETY: live value.
        unsafe { !c::LLVMGetFirstUse(self.raw()).is_null() }
    }

    /// Replaces every use of `self` by `new` (including uses inside constants, e.g. tables of
    /// function pointers).
    pub fn replace_all_uses_with(self, new: Value<'m>) {
        assert!(self.ty() == new.ty(), "RAUW with a value of another type");
        // SAFETY: both live values of one module, of the same type (checked).
        unsafe { c::LLVMReplaceAllUsesWith(self.raw(), new.raw()) }
    }

    /// Looks through pointer casts of constants (`bitcast`/`addrspacecast` expressions).
    pub fn strip_pointer_casts(self) -> Value<'m> {
        let mut v = self;
        // SAFETY: live values; the opcode query is only made on constant expressions.
        unsafe {
            while !c::LLVMIsAConstantExpr(v.raw()).is_null() {
                let op = c::LLVMGetConstOpcode(v.raw());
                if op != llvm_sys::LLVMOpcode::LLVMBitCast
                    && op != llvm_sys::LLVMOpcode::LLVMAddrSpaceCast
                {
                    break;
                }
                match v.operand(0) {
                    Some(o) => v = o,
                    None => break,
                }
            }
        }
        v
    }

    // ---- globals and functions ---------------------------------------------------------

    pub fn linkage(self) -> Linkage {
        debug_assert!(self.is_global_value());
        // SAFETY: live global value.
        unsafe { c::LLVMGetLinkage(self.raw()) }
    }
    pub fn set_linkage(self, l: Linkage) {
        // SAFETY: live global value.
        unsafe { c::LLVMSetLinkage(self.raw(), l) }
    }
    pub fn visibility(self) -> LLVMVisibility {
        // SAFETY: live global value.
        unsafe { c::LLVMGetVisibility(self.raw()) }
    }
    pub fn set_visibility(self, v: LLVMVisibility) {
        // SAFETY: live global value.
        unsafe { c::LLVMSetVisibility(self.raw(), v) }
    }
    pub fn unnamed_addr(self) -> LLVMUnnamedAddr {
        // SAFETY: live global value.
        unsafe { c::LLVMGetUnnamedAddress(self.raw()) }
    }
    pub fn set_unnamed_addr(self, u: LLVMUnnamedAddr) {
        // SAFETY: live global value.
        unsafe { c::LLVMSetUnnamedAddress(self.raw(), u) }
    }
    pub fn is_dso_local(self) -> bool {
        // SAFETY: live global value (shim casts to GlobalValue).
        self.is_global_value() && unsafe { ffi::fm_is_dso_local(self.raw()) != 0 }
    }
    pub fn set_dso_local(self, local: bool) {
        assert!(self.is_global_value());
        // SAFETY: live global value.
        unsafe { ffi::fm_set_dso_local(self.raw(), i32::from(local)) }
    }
    /// Whether another definition may replace this one at link or load time.
    pub fn is_interposable(self) -> bool {
        // SAFETY: live global value (checked).
        self.is_global_value() && unsafe { ffi::fm_is_interposable(self.raw()) != 0 }
    }
    pub fn has_comdat(self) -> bool {
        // SAFETY: live global value.
        unsafe { !llvm_sys::comdat::LLVMGetComdat(self.raw()).is_null() }
    }
    /// Gives `self` the comdat of `from` (or none).
    pub fn copy_comdat_from(self, from: Value<'m>) {
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
    pub fn section(self) -> Option<String> {
        // SAFETY: live global value; the string is owned by the value and copied at once.
        unsafe {
            let p = c::LLVMGetSection(self.raw());
            if p.is_null() {
                return None;
            }
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            (!s.is_empty()).then_some(s)
        }
    }
    pub fn is_declaration(self) -> bool {
        // SAFETY: live global value.
        unsafe { c::LLVMIsDeclaration(self.raw()) != 0 }
    }
    /// Whether a global variable is `constant`.
    pub fn is_global_constant(self) -> bool {
        // SAFETY: only queried on global variables (checked).
        self.is_global_variable() && unsafe { c::LLVMIsGlobalConstant(self.raw()) != 0 }
    }
    /// Initializer of a global variable.
    pub fn initializer(self) -> Option<Value<'m>> {
        if !self.is_global_variable() {
            return None;
        }
        // SAFETY: checked to be a global variable.
        Value::from_raw(unsafe { c::LLVMGetInitializer(self.raw()) })
    }
    /// The value type of a global (the function type for functions).
    pub fn global_value_type(self) -> Type<'m> {
        // SAFETY: live global value.
        Type::from_raw(unsafe { c::LLVMGlobalGetValueType(self.raw()) }).expect("global type")
    }

    pub fn params(self) -> Vec<Value<'m>> {
        debug_assert!(self.is_function());
        // SAFETY: live function.
        let n = unsafe { c::LLVMCountParams(self.raw()) };
        (0..n)
            .map(|k| Value::from_raw(unsafe { c::LLVMGetParam(self.raw(), k) }).expect("param"))
            .collect()
    }

    /// The number of instructions in a function's body (0 for a declaration).
    pub fn instruction_count(self) -> usize {
        self.blocks().into_iter().map(Block::instruction_count).sum()
    }

    pub fn blocks(self) -> Vec<Block<'m>> {
        let mut out = Vec::new();
        // SAFETY: live function; iteration does not mutate.
        let mut b = unsafe { c::LLVMGetFirstBasicBlock(self.raw()) };
        while let Some(bb) = Block::from_raw(b) {
            out.push(bb);
            b = unsafe { c::LLVMGetNextBasicBlock(b) };
        }
        out
    }

    pub fn entry_block(self) -> Option<Block<'m>> {
        // SAFETY: live function.
        Block::from_raw(unsafe { c::LLVMGetFirstBasicBlock(self.raw()) })
    }

    pub fn call_conv(self) -> u32 {
        // SAFETY: live function.
        unsafe { c::LLVMGetFunctionCallConv(self.raw()) }
    }
    pub fn gc(self) -> Option<String> {
        // SAFETY: live function; the GC name is copied at once.
        unsafe {
            let p = c::LLVMGetGC(self.raw());
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    }
    pub fn personality(self) -> Option<Value<'m>> {
        // SAFETY: live function.
        unsafe {
            if c::LLVMHasPersonalityFn(self.raw()) == 0 {
                return None;
            }
            Value::from_raw(c::LLVMGetPersonalityFn(self.raw()))
        }
    }
    pub fn has_prefix_or_prologue(self) -> bool {
        // SAFETY: live function.
        unsafe { c::LLVMHasPrefixData(self.raw()) != 0 || c::LLVMHasPrologueData(self.raw()) != 0 }
    }
    pub fn intrinsic_id(self) -> u32 {
        // SAFETY: live value; 0 for non-intrinsics.
        if !self.is_function() {
            return 0;
        }
        unsafe { c::LLVMGetIntrinsicID(self.raw()) }
    }
    /// Identity of the part of this function's (or call site's) attribute list that must be
    /// equal for two of them to share a body; the rest can be intersected
    /// ([`Value::intersect_attrs_with`]).
    pub fn attr_key(self) -> usize {
        let call_like = matches!(
            self.opcode(),
            Some(
                fmerge_core::ir::opcode::CALL
                    | fmerge_core::ir::opcode::INVOKE
                    | fmerge_core::ir::opcode::CALL_BR
            )
        );
        assert!(self.is_function() || call_like);
        // SAFETY: a live function or call site (checked).
        unsafe { ffi::fm_attr_key(self.raw()) as usize }
    }
    /// Stable content hash of what [`Value::attr_key`] identifies (equal across runs and
    /// modules).
    pub fn attr_key_hash(self) -> u64 {
        let _ = self.attr_key(); // checks the kind of value
        // SAFETY: a live function or call site (checked by `attr_key`).
        unsafe { ffi::fm_attr_key_hash(self.raw()) }
    }
    /// Identity of the must-match part of this function's function-level attributes (target
    /// CPU and features, optsize, sanitizers ...), whatever its parameters.
    pub fn fn_attr_key(self) -> usize {
        assert!(self.is_function());
        // SAFETY: a live function (checked).
        unsafe { ffi::fm_fn_attr_key(self.raw()) as usize }
    }
    /// Whether this function's (call site's) attributes intersect with `other`'s.
    pub fn attrs_intersectable(self, other: Value<'m>) -> bool {
        assert_eq!(self.is_function(), other.is_function());
        // SAFETY: both live functions or both live call sites (checked by `attr_key`).
        let _ = (self.attr_key(), other.attr_key());
        unsafe { ffi::fm_attrs_intersectable(self.raw(), other.raw()) != 0 }
    }
    /// Keeps only the attributes this function (call site) shares with `other`. Returns false,
    /// changing nothing, if they are incompatible.
    pub fn intersect_attrs_with(self, other: Value<'m>) -> bool {
        assert_eq!(self.is_function(), other.is_function());
        // SAFETY: both live functions or both live call sites (checked by `attr_key`).
        let _ = (self.attr_key(), other.attr_key());
        unsafe { ffi::fm_intersect_attrs(self.raw(), other.raw()) != 0 }
    }
    /// LLVM's coarse structural hash of a function definition (opcodes, types, CFG shape; not
    /// constants, flags or metadata). Equal functions, and functions equal up to constants,
    /// always share it.
    pub fn structural_hash(self) -> u64 {
        assert!(self.is_function() && !self.is_declaration());
        // SAFETY: a live function definition (checked).
        unsafe { ffi::fm_structural_hash(self.raw()) }
    }

    /// True if a `blockaddress` constant points into this function.
    pub fn blocks_address_taken(self) -> bool {
        assert!(self.is_function());
        // SAFETY: a live function (checked).
        unsafe { ffi::fm_blocks_address_taken(self.raw()) != 0 }
    }
    /// True if the function's address escapes (used other than as a direct callee).
    pub fn has_address_taken(self) -> bool {
        assert!(self.is_function());
        // SAFETY: live function (checked).
        unsafe { ffi::fm_has_address_taken(self.raw()) != 0 }
    }
    /// A hash of everything code generation reads from this function (its IR, its attributes
    /// and its call sites' attributes spelled out): functions with equal hashes compile to
    /// the same bytes.
    pub fn codegen_hash(self) -> u64 {
        assert!(self.is_function());
        // SAFETY: a live function (checked); the shim only reads it.
        unsafe { ffi::fm_function_codegen_hash(self.raw()) }
    }
    /// How often the function was entered in the profile the module was built with
    /// (`!prof` `function_entry_count`), if it has one.
    pub fn entry_count(self) -> Option<u64> {
        assert!(self.is_function());
        // SAFETY: a live function (checked); the shim only reads its metadata.
        u64::try_from(unsafe { ffi::fm_function_entry_count(self.raw()) }).ok()
    }
    /// The largest count the profile gives anything in the function (its entry count, or
    /// the weight of any of its branches), if it has a profile: how hot its hottest block is.
    pub fn max_profile_count(self) -> Option<u64> {
        assert!(self.is_function());
        // SAFETY: a live function (checked); the shim only reads its metadata.
        u64::try_from(unsafe { ffi::fm_function_max_profile_count(self.raw()) }).ok()
    }
    /// How often each block ran in the profile the module was built with, in layout order
    /// (the entry count times the block's frequency, LLVM's `BlockFrequencyInfo` over the
    /// branch weights), if the function has an entry count.
    pub fn block_profile_counts(self) -> Option<Vec<u64>> {
        assert!(self.is_function());
        let n = self.blocks().len();
        let mut out = vec![0u64; n];
        // SAFETY: a live function (checked); the shim writes at most `n` counts into `out`,
        // which holds `n`, and only reads the function.
        let rc = unsafe { ffi::fm_block_profile_counts(self.raw(), out.as_mut_ptr(), n) };
        (rc == 0).then_some(out)
    }
    /// Function attribute (index `~0`) by name, e.g. `noinline`.
    pub fn has_fn_attr(self, name: &str) -> bool {
        // SAFETY: live function; the kind lookup takes a byte slice.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return false;
            }
            !c::LLVMGetEnumAttributeAtIndex(self.raw(), u32::MAX, kind).is_null()
        }
    }
    /// The value of a string function attribute (e.g. `"target-features"`), if it has one.
    pub fn fn_string_attr(self, name: &str) -> Option<String> {
        assert!(self.is_function());
        // SAFETY: live function (checked); LLVM copies nothing, the value is read at once.
        unsafe {
            let a = c::LLVMGetStringAttributeAtIndex(
                self.raw(),
                u32::MAX,
                name.as_ptr() as *const _,
                name.len() as u32,
            );
            if a.is_null() {
                return None;
            }
            let mut len = 0u32;
            let p = c::LLVMGetStringAttributeValue(a, &mut len);
            let bytes = if p.is_null() {
                &[][..]
            } else {
                std::slice::from_raw_parts(p as *const u8, len as usize)
            };
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
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
    /// Whether parameter `k` carries the enum attribute `name` (e.g. `byval`, `inalloca`).
    pub fn param_has_attr(self, k: u32, name: &str) -> bool {
        assert!(self.is_function());
        // SAFETY: live function (checked); attribute index k+1 addresses parameter k.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            kind != 0 && !c::LLVMGetEnumAttributeAtIndex(self.raw(), k + 1, kind).is_null()
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

    // ---- instructions ------------------------------------------------------------------

    /// LLVM C API opcode of an instruction (see `fmerge_core::ir::opcode`).
    pub fn opcode(self) -> Option<u32> {
        if !self.is_instruction() {
            return None;
        }
        // SAFETY: checked to be an instruction.
        Some(unsafe { c::LLVMGetInstructionOpcode(self.raw()) } as u32)
    }

    pub fn parent_block(self) -> Option<Block<'m>> {
        // SAFETY: live instruction.
        Block::from_raw(unsafe { c::LLVMGetInstructionParent(self.raw()) })
    }

    pub fn next_instruction(self) -> Option<Value<'m>> {
        // SAFETY: live instruction.
        Value::from_raw(unsafe { c::LLVMGetNextInstruction(self.raw()) })
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
        assert_eq!(self.opcode(), Some(fmerge_core::ir::opcode::SWITCH), "not a switch");
        // SAFETY: a live switch instruction (checked); successor 0 is the default destination,
        // successors 1..n have a case value each.
        unsafe {
            let n = c::LLVMGetNumSuccessors(self.raw());
            (1..n)
                .filter_map(|k| Value::from_raw(c::LLVMGetSwitchCaseValue(self.raw(), k)))
                .collect()
        }
    }

    pub fn icmp_predicate(self) -> u32 {
        // SAFETY: only called on icmp instructions or constant exprs (caller checks opcode).
        unsafe { c::LLVMGetICmpPredicate(self.raw()) as u32 }
    }
    pub fn fcmp_predicate(self) -> u32 {
        // SAFETY: only called on fcmp instructions (caller checks opcode).
        unsafe { c::LLVMGetFCmpPredicate(self.raw()) as u32 }
    }
    /// Poison-generating and fast-math flags, as LLVM stores them.
    pub fn raw_optional_flags(self) -> u32 {
        // SAFETY: live instruction (caller iterates instructions).
        unsafe { ffi::fm_raw_optional_flags(self.raw()) }
    }
    pub fn alignment(self) -> u32 {
        // SAFETY: only for alloca/load/store/atomics/globals (caller checks opcode).
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
    pub fn instruction_call_conv(self) -> u32 {
        // SAFETY: only for call-like instructions (caller checks opcode).
        unsafe { c::LLVMGetInstructionCallConv(self.raw()) }
    }
    pub fn tail_call_kind(self) -> u32 {
        // SAFETY: only for call instructions (caller checks opcode).
        unsafe { c::LLVMGetTailCallKind(self.raw()) as u32 }
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

    /// Removes the metadata attachment of `kind` from an instruction.
    pub fn drop_metadata(self, kind: u32) {
        assert!(self.is_instruction());
        // SAFETY: live instruction (checked); a null node removes the attachment.
        unsafe { c::LLVMSetMetadata(self.raw(), kind, std::ptr::null_mut()) }
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

    /// Zero-extended value of a constant integer of at most 64 bits.
    pub fn const_int_value(self) -> Option<u64> {
        if !self.is_constant_int() || self.ty().int_width() > 64 {
            return None;
        }
        // SAFETY: checked to be a ConstantInt of at most 64 bits.
        Some(unsafe { c::LLVMConstIntGetZExtValue(self.raw()) })
    }

    /// Textual IR of the value (for messages and `fmerge explain`).
    pub fn print(self) -> String {
        // SAFETY: live value; the returned message is disposed after copying.
        unsafe {
            let p = c::LLVMPrintValueToString(self.raw());
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            c::LLVMDisposeMessage(p);
            s
        }
    }

    /// Verifies one function; returns the verifier's message on failure.
    pub fn verify_function(self) -> Result<(), String> {
        assert!(self.is_function());
        let mut buf = vec![0u8; 4096];
        // SAFETY: live function; the shim writes at most `buf.len()` bytes incl. NUL.
        let broken = unsafe { ffi::fm_verify_function(self.raw(), buf.as_mut_ptr(), buf.len()) };
        if broken == 0 {
            return Ok(());
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Err(String::from_utf8_lossy(&buf[..end]).into_owned())
    }
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        if name.is_empty() { write!(f, "Value({:p})", self.raw) } else { write!(f, "@{name}") }
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

    pub fn instructions(self) -> Vec<Value<'m>> {
        let mut out = Vec::new();
        // SAFETY: live block; iteration does not mutate.
        let mut i = unsafe { c::LLVMGetFirstInstruction(self.raw()) };
        while let Some(v) = Value::from_raw(i) {
            out.push(v);
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
            i = unsafe { c::LLVMGetNextInstruction(i) };
        }
        n
    }

    pub fn first_instruction(self) -> Option<Value<'m>> {
        // SAFETY: live block.
        Value::from_raw(unsafe { c::LLVMGetFirstInstruction(self.raw()) })
    }

    pub fn terminator(self) -> Option<Value<'m>> {
        // SAFETY: live block.
        Value::from_raw(unsafe { c::LLVMGetBasicBlockTerminator(self.raw()) })
    }

    pub fn parent(self) -> Value<'m> {
        // SAFETY: live block inside a function.
        Value::from_raw(unsafe { c::LLVMGetBasicBlockParent(self.raw()) }).expect("block parent")
    }
}

impl fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Block({:p})", self.raw)
    }
}

/// Coarse kind of a type.
pub use fmerge_core::ir::TypeKind;

impl<'m> Type<'m> {
    pub(crate) fn from_raw(raw: LLVMTypeRef) -> Option<Type<'m>> {
        NonNull::new(raw).map(|raw| Type { raw, _m: PhantomData })
    }

    pub(crate) fn raw(self) -> LLVMTypeRef {
        self.raw.as_ptr()
    }

    pub fn identity(self) -> usize {
        self.raw.as_ptr() as usize
    }

    pub fn kind(self) -> TypeKind {
        use LLVMTypeKind::*;
        // SAFETY: live type (types live as long as the context).
        match unsafe { c::LLVMGetTypeKind(self.raw()) } {
            LLVMVoidTypeKind => TypeKind::Void,
            LLVMIntegerTypeKind => TypeKind::Int,
            LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind => TypeKind::Float,
            LLVMPointerTypeKind => TypeKind::Pointer,
            LLVMVectorTypeKind | LLVMScalableVectorTypeKind => TypeKind::Vector,
            LLVMArrayTypeKind => TypeKind::Array,
            LLVMStructTypeKind => TypeKind::Struct,
            LLVMFunctionTypeKind => TypeKind::Function,
            LLVMLabelTypeKind => TypeKind::Label,
            LLVMTokenTypeKind => TypeKind::Token,
            LLVMMetadataTypeKind => TypeKind::Metadata,
            _ => TypeKind::Other,
        }
    }

    /// Raw LLVM type kind number (for hashing: distinguishes `float` from `double`).
    pub fn raw_kind(self) -> u32 {
        // SAFETY: live type.
        unsafe { c::LLVMGetTypeKind(self.raw()) as u32 }
    }

    pub fn int_width(self) -> u32 {
        if self.kind() != TypeKind::Int {
            return 0;
        }
        // SAFETY: checked to be an integer type.
        unsafe { c::LLVMGetIntTypeWidth(self.raw()) }
    }

    pub fn pointer_address_space(self) -> u32 {
        if self.kind() != TypeKind::Pointer {
            return 0;
        }
        // SAFETY: checked to be a pointer type.
        unsafe { c::LLVMGetPointerAddressSpace(self.raw()) }
    }

    /// Element types of a struct, or the one element type of an array/vector.
    pub fn element_types(self) -> Vec<Type<'m>> {
        // SAFETY: live type; each query is made only for the matching kind.
        unsafe {
            match self.kind() {
                TypeKind::Struct => {
                    let n = c::LLVMCountStructElementTypes(self.raw());
                    (0..n)
                        .filter_map(|k| Type::from_raw(c::LLVMStructGetTypeAtIndex(self.raw(), k)))
                        .collect()
                }
                TypeKind::Array | TypeKind::Vector => {
                    Type::from_raw(c::LLVMGetElementType(self.raw())).into_iter().collect()
                }
                _ => Vec::new(),
            }
        }
    }

    /// Number of elements of an array or fixed vector.
    pub fn length(self) -> u64 {
        // SAFETY: live type; each query is made only for the matching kind.
        unsafe {
            match c::LLVMGetTypeKind(self.raw()) {
                LLVMTypeKind::LLVMArrayTypeKind => c::LLVMGetArrayLength2(self.raw()),
                LLVMTypeKind::LLVMVectorTypeKind | LLVMTypeKind::LLVMScalableVectorTypeKind => {
                    u64::from(c::LLVMGetVectorSize(self.raw()))
                }
                _ => 0,
            }
        }
    }

    pub fn struct_name(self) -> Option<String> {
        if self.kind() != TypeKind::Struct {
            return None;
        }
        // SAFETY: checked to be a struct type; the name is copied at once.
        unsafe {
            let p = c::LLVMGetStructName(self.raw());
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        }
    }

    pub fn is_packed_struct(self) -> bool {
        // SAFETY: only queried on struct types.
        self.kind() == TypeKind::Struct && unsafe { c::LLVMIsPackedStruct(self.raw()) != 0 }
    }

    pub fn is_opaque_struct(self) -> bool {
        // SAFETY: only queried on struct types.
        self.kind() == TypeKind::Struct && unsafe { c::LLVMIsOpaqueStruct(self.raw()) != 0 }
    }

    /// Return type of a function type.
    pub fn return_type(self) -> Type<'m> {
        assert_eq!(self.kind(), TypeKind::Function);
        // SAFETY: checked to be a function type.
        Type::from_raw(unsafe { c::LLVMGetReturnType(self.raw()) }).expect("return type")
    }

    /// Parameter types of a function type.
    pub fn param_types(self) -> Vec<Type<'m>> {
        assert_eq!(self.kind(), TypeKind::Function);
        // SAFETY: checked to be a function type; the buffer has room for `n` types.
        unsafe {
            let n = c::LLVMCountParamTypes(self.raw()) as usize;
            let mut v = vec![std::ptr::null_mut(); n];
            c::LLVMGetParamTypes(self.raw(), v.as_mut_ptr());
            v.into_iter().filter_map(Type::from_raw).collect()
        }
    }

    pub fn is_vararg(self) -> bool {
        // SAFETY: only queried on function types.
        self.kind() == TypeKind::Function && unsafe { c::LLVMIsFunctionVarArg(self.raw()) != 0 }
    }

    /// Textual form, e.g. `i32`, `{ ptr, i64 }`.
    pub fn print(self) -> String {
        // SAFETY: live type; the message is disposed after copying.
        unsafe {
            let p = c::LLVMPrintTypeToString(self.raw());
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            c::LLVMDisposeMessage(p);
            s
        }
    }

    /// The all-zero / null constant of this type.
    pub fn const_null(self) -> Value<'m> {
        // SAFETY: live first-class type.
        Value::from_raw(unsafe { c::LLVMConstNull(self.raw()) }).expect("null constant")
    }

    /// `poison` of this type.
    pub fn poison(self) -> Value<'m> {
        // SAFETY: live type.
        Value::from_raw(unsafe { c::LLVMGetPoison(self.raw()) }).expect("poison")
    }

    /// An integer constant of this integer type.
    pub fn const_int(self, v: u64) -> Value<'m> {
        assert_eq!(self.kind(), TypeKind::Int);
        // SAFETY: checked to be an integer type.
        Value::from_raw(unsafe { c::LLVMConstInt(self.raw(), v, 0) }).expect("int constant")
    }
}

impl fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.print())
    }
}

/// Is this linkage local to the module (internal or private)?
pub fn is_local_linkage(l: Linkage) -> bool {
    matches!(l, LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage)
}

/// May the definition be dropped when unused (local, linkonce, available_externally)?
pub fn is_discardable_if_unused(l: Linkage) -> bool {
    use LLVMLinkage::*;
    matches!(
        l,
        LLVMInternalLinkage
            | LLVMPrivateLinkage
            | LLVMLinkOnceAnyLinkage
            | LLVMLinkOnceODRLinkage
            | LLVMAvailableExternallyLinkage
    )
}

/// ODR linkages: every definition of the symbol is known to be equivalent.
pub fn is_odr_linkage(l: Linkage) -> bool {
    matches!(l, LLVMLinkage::LLVMLinkOnceODRLinkage | LLVMLinkage::LLVMWeakODRLinkage)
}
