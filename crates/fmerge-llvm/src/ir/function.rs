//! [`Function`]: parameters, blocks, calling convention, attributes, the keys and hashes
//! merging compares functions by, the profile it was built with, and verification.

use super::{Block, Global, Value, narrower_handle};
use crate::ffi;
use llvm_sys::core as c;
use llvm_sys::prelude::LLVMValueRef;
use std::ffi::CStr;

/// A function (definition or declaration).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Function<'m>(pub(super) Global<'m>);
narrower_handle!(Function => Global);

impl<'m> Function<'m> {
    /// A handle on a pointer the caller knows to be a function.
    pub(crate) fn from_raw(raw: LLVMValueRef) -> Option<Function<'m>> {
        let v = Value::from_raw(raw)?;
        debug_assert!(v.is_function());
        Some(Function(Global(v)))
    }

    pub fn as_global(self) -> Global<'m> {
        self.0
    }

    pub fn params(self) -> Vec<Value<'m>> {
        // SAFETY: live function (the handle's kind).
        let n = unsafe { c::LLVMCountParams(self.raw()) };
        (0..n)
            // SAFETY: `k` is below the parameter count.
            .map(|k| Value::from_raw(unsafe { c::LLVMGetParam(self.raw(), k) }).expect("param"))
            .collect()
    }

    /// The number of instructions in a function's body (0 for a declaration).
    pub fn instruction_count(self) -> usize {
        // SAFETY: a live function (a declaration has no blocks and counts 0); only reads.
        unsafe { ffi::fm_instruction_count(self.raw()) }
    }

    pub fn blocks(self) -> Vec<Block<'m>> {
        let mut out = Vec::new();
        // SAFETY: live function; iteration does not mutate.
        let mut b = unsafe { c::LLVMGetFirstBasicBlock(self.raw()) };
        while let Some(bb) = Block::from_raw(b) {
            out.push(bb);
            // SAFETY: a live block of this function.
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
    /// The intrinsic this function is (0 for an ordinary function).
    pub fn intrinsic_id(self) -> u32 {
        // SAFETY: live function; 0 for non-intrinsics.
        unsafe { c::LLVMGetIntrinsicID(self.raw()) }
    }

    // ---- attributes --------------------------------------------------------------------

    /// Identity of the part of this function's attribute list that must be equal for two
    /// functions to share a body; the rest can be intersected (`Function::intersect_attrs_with`,
    /// in [`crate::edit`]).
    pub fn attr_key(self) -> usize {
        // SAFETY: a live function.
        unsafe { ffi::fm_attr_key(self.raw()) as usize }
    }
    /// Identity of this function's whole attribute list (LLVM uniques lists and keeps them as
    /// long as the context: equal identities have equal [`Function::attr_key`]s).
    pub fn attr_list_identity(self) -> usize {
        // SAFETY: a live function; only reads its attribute list's address.
        unsafe { ffi::fm_attr_list(self.raw()) as usize }
    }
    /// Stable content hash of what [`Function::attr_key`] identifies (equal across runs and
    /// modules).
    pub fn attr_key_hash(self) -> u64 {
        // SAFETY: a live function.
        unsafe { ffi::fm_attr_key_hash(self.raw()) }
    }
    /// Identity of the must-match part of this function's function-level attributes (target
    /// CPU and features, optsize, sanitizers ...), whatever its parameters.
    pub fn fn_attr_key(self) -> usize {
        // SAFETY: a live function.
        unsafe { ffi::fm_fn_attr_key(self.raw()) as usize }
    }
    /// [`Function::fn_attr_key`] as if neither `noinline` nor `alwaysinline` were set: the
    /// same for a function and for the bodies merging makes from it (which it marks
    /// `noinline`).
    pub fn fn_attr_key_but_inlining(self) -> usize {
        // SAFETY: a live function.
        unsafe { ffi::fm_fn_attr_key_but_inlining(self.raw()) as usize }
    }
    /// Whether this function's attributes intersect with `other`'s.
    pub fn attrs_intersectable(self, other: Function<'m>) -> bool {
        // SAFETY: two live functions.
        unsafe { ffi::fm_attrs_intersectable(self.raw(), other.raw()) != 0 }
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
        // SAFETY: live function; LLVM copies nothing, the value is read at once.
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
    /// Whether parameter `k` carries the enum attribute `name` (e.g. `byval`, `inalloca`).
    pub fn param_has_attr(self, k: u32, name: &str) -> bool {
        // SAFETY: live function; attribute index k+1 addresses parameter k.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            kind != 0 && !c::LLVMGetEnumAttributeAtIndex(self.raw(), k + 1, kind).is_null()
        }
    }

    // ---- comparing and hashing ---------------------------------------------------------

    /// LLVM's coarse structural hash of a function definition (opcodes, types, CFG shape; not
    /// constants, flags or metadata). Equal functions, and functions equal up to constants,
    /// always share it.
    pub fn structural_hash(self) -> u64 {
        assert!(!self.is_declaration());
        // SAFETY: a live function definition (checked).
        unsafe { ffi::fm_structural_hash(self.raw()) }
    }
    /// Whether this function and `other` (of the same module) are equal in LLVM
    /// MergeFunctions' sense: same operations on the same values, types, attributes, flags.
    pub fn equals_function(self, other: Function<'m>) -> bool {
        // SAFETY: two live functions; the comparison only reads them.
        unsafe { ffi::fm_functions_equal(self.raw(), other.raw()) != 0 }
    }
    /// True if a `blockaddress` constant points into this function.
    pub fn blocks_address_taken(self) -> bool {
        // SAFETY: a live function.
        unsafe { ffi::fm_blocks_address_taken(self.raw()) != 0 }
    }
    /// True if the function's address escapes (used other than as a direct callee).
    pub fn has_address_taken(self) -> bool {
        // SAFETY: live function.
        unsafe { ffi::fm_has_address_taken(self.raw()) != 0 }
    }

    // ---- the profile the module was built with ------------------------------------------

    /// How often the function was entered in the profile the module was built with
    /// (`!prof` `function_entry_count`), if it has one.
    pub fn entry_count(self) -> Option<u64> {
        // SAFETY: a live function; the shim only reads its metadata.
        u64::try_from(unsafe { ffi::fm_function_entry_count(self.raw()) }).ok()
    }
    /// The largest count the profile gives anything in the function (its entry count, or
    /// the weight of any of its branches), if it has a profile: how hot its hottest block is.
    pub fn max_profile_count(self) -> Option<u64> {
        // SAFETY: a live function; the shim only reads its metadata.
        u64::try_from(unsafe { ffi::fm_function_max_profile_count(self.raw()) }).ok()
    }
    /// How often each block ran in the profile the module was built with, in layout order
    /// (the entry count times the block's frequency, LLVM's `BlockFrequencyInfo` over the
    /// branch weights), if the function has an entry count.
    pub fn block_profile_counts(self) -> Option<Vec<u64>> {
        let n = self.blocks().len();
        let mut out = vec![0u64; n];
        // SAFETY: a live function; the shim writes at most `n` counts into `out`, which
        // holds `n`, and only reads the function.
        let rc = unsafe { ffi::fm_block_profile_counts(self.raw(), out.as_mut_ptr(), n) };
        (rc == 0).then_some(out)
    }

    /// How often each block runs per call of the function, in layout order (the entry block
    /// 1.0): LLVM's `BlockFrequencyInfo` relative to the entry block, from the branch weights
    /// the function carries or, without them, from LLVM's static heuristics (loops, calls that
    /// do not return, cold calls). What merging prices work by when the module has no profile.
    pub fn block_frequencies(self) -> Vec<f64> {
        let n = self.blocks().len();
        if n <= 1 {
            // No analysis needed: a lone entry block runs once per call.
            return vec![1.0; n];
        }
        let mut out = vec![0.0f64; n];
        // SAFETY: a live function definition (it has blocks); the shim builds its own analyses
        // and writes at most `n` values into `out`, which holds `n`.
        let written = unsafe { ffi::fm_block_frequencies(self.raw(), out.as_mut_ptr(), n) };
        debug_assert_eq!(written, n, "blocks counted twice differently");
        out
    }

    /// Verifies one function; returns the verifier's message on failure.
    pub fn verify(self) -> Result<(), String> {
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
