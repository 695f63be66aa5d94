//! Declarations of the C++ shim (`shim/`, one file per job: `shim/shim.h` says which). Nothing
//! outside this crate sees them.
//!
//! Each function takes C API handles; the safe wrappers in the other modules uphold the
//! invariants stated there (live objects of the right kind).

use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMValueRef};
use llvm_sys::target_machine::LLVMTargetMachineRef;
use std::ffi::{c_char, c_void};

/// The shim's pairing of two modules' named struct types (`shim/restore.cpp`), owned by
/// [`crate::snapshot::Snapshot`].
#[repr(C)]
pub struct FmTypePairs {
    _opaque: [u8; 0],
}

unsafe extern "C" {
    /// The C library's `free`, for buffers the shim allocates with `malloc`/`strdup`.
    pub fn free(p: *mut c_void);
    /// The C library's `_exit`: ends the process without running exit handlers.
    pub fn _exit(code: i32) -> !;
    pub fn fm_function_codesize_costs(
        f: LLVMValueRef,
        tm: LLVMTargetMachineRef,
        out: *mut i64,
        n: usize,
    ) -> i64;
    pub fn fm_move_module_contents(dst: LLVMModuleRef, src: LLVMModuleRef);
    pub fn fm_clone_module_sharing_types(m: LLVMModuleRef) -> LLVMModuleRef;
    pub fn fm_function_entry_count(f: LLVMValueRef) -> i64;
    pub fn fm_function_max_profile_count(f: LLVMValueRef) -> i64;
    pub fn fm_block_profile_counts(f: LLVMValueRef, out: *mut u64, n: usize) -> i64;
    pub fn fm_profile_hot_threshold(m: LLVMModuleRef, percentile: u64) -> i64;
    // shim/profiling/
    pub fn fm_comeback_analysis_new(m: LLVMModuleRef, assume_calls_return: i32) -> *mut c_void;
    pub fn fm_comeback_analysis_free(a: *mut c_void);
    pub fn fm_block_facts(f: LLVMValueRef, analysis: *const c_void, out: *mut u32, n: usize);
    pub fn fm_edge_weights(f: LLVMValueRef, out: *mut f64, n: usize) -> usize;
    pub fn fm_block_frequencies(f: LLVMValueRef, out: *mut f64, n: usize) -> usize;
    pub fn fm_profile_data_global(
        m: LLVMModuleRef,
        magic: u64,
        module_id: u64,
        header_words: u64,
        n: u64,
    ) -> LLVMValueRef;
    pub fn fm_instrument_function(
        f: LLVMValueRef,
        sites: *const u32,
        n_sites: usize,
        data: LLVMValueRef,
        index: *const u64,
        amount: *const i64,
        atomic: i32,
    ) -> i32;
    pub fn fm_promote_counters(m: LLVMModuleRef, tm: LLVMTargetMachineRef, loops: *mut u64) -> u64;
    pub fn fm_profile_runtime(
        m: LLVMModuleRef,
        data: LLVMValueRef,
        end_word: u64,
        on_signals: i32,
        err: *mut *mut c_char,
    ) -> i32;
    pub fn fm_opcode_name(i: LLVMValueRef) -> *const c_char;
    pub fn fm_forget_memory_effects(m: LLVMModuleRef);
    pub fn fm_isolate_counters(m: LLVMModuleRef, data: LLVMValueRef);
    pub fn fm_set_function_profile(f: LLVMValueRef, entry: u64, edges: *const u64, n: usize);
    pub fn fm_set_profile_summary(
        m: LLVMModuleRef,
        entries: *const u64,
        n_entries: usize,
        counts: *const u64,
        n_counts: usize,
    );
    pub fn fm_plugin_set_runner(
        runner: Option<
            unsafe extern "C" fn(LLVMModuleRef, *const crate::plugin::FmPluginOptions) -> i32,
        >,
    );
    pub fn fm_plugin_register_callbacks(pass_builder: *mut c_void);
    pub fn fm_plugin_api_version() -> u32;
    pub fn fm_plugin_info_size() -> usize;
    pub fn fm_is_dso_local(gv: LLVMValueRef) -> i32;
    pub fn fm_set_dso_local(gv: LLVMValueRef, local: i32);
    pub fn fm_is_interposable(gv: LLVMValueRef) -> i32;
    pub fn fm_copy_function_attrs(dst: LLVMValueRef, src: LLVMValueRef);
    pub fn fm_attr_list(v: LLVMValueRef) -> *const c_void;
    pub fn fm_attr_key(v: LLVMValueRef) -> *const c_void;
    pub fn fm_attr_key_hash(v: LLVMValueRef) -> u64;
    pub fn fm_attrs_intersectable(a: LLVMValueRef, b: LLVMValueRef) -> i32;
    pub fn fm_intersect_attrs(keep: LLVMValueRef, other: LLVMValueRef) -> i32;
    pub fn fm_copy_call_attrs(call: LLVMValueRef, from: LLVMValueRef);
    pub fn fm_call_arg_is_immarg(call: LLVMValueRef, arg: u32) -> i32;
    pub fn fm_raw_optional_flags(i: LLVMValueRef) -> u32;
    pub fn fm_and_ir_flags(dst: LLVMValueRef, src: LLVMValueRef);
    pub fn fm_phi_set_incoming_block(phi: LLVMValueRef, idx: u32, bb: LLVMBasicBlockRef);
    pub fn fm_has_address_taken(f: LLVMValueRef) -> i32;
    // profiling/vtables.cpp
    #[allow(clippy::too_many_arguments)]
    pub fn fm_vtable_read(
        gv: LLVMValueRef,
        entry_offsets: *mut u64,
        entry_fns: *mut LLVMValueRef,
        cap: usize,
        n_entries: *mut usize,
        points: *mut u64,
        point_cap: usize,
        n_points: *mut usize,
    ) -> i32;
    pub fn fm_vtable_confined(f: LLVMValueRef, tables: *const LLVMValueRef, n: usize) -> i32;
    pub fn fm_gep_constant_offset(gep: LLVMValueRef, out: *mut i64) -> i32;
    pub fn fm_clone_module_subset(
        m: LLVMModuleRef,
        fns: *const LLVMValueRef,
        n: usize,
    ) -> LLVMModuleRef;
    pub fn fm_emit_object(
        tm: LLVMTargetMachineRef,
        m: LLVMModuleRef,
        out: *mut *mut u8,
        len: *mut usize,
        err: *mut *mut c_char,
    ) -> i32;
    pub fn fm_write_bitcode(
        m: LLVMModuleRef,
        use_list_order: i32,
        reserve: usize,
        owner: *mut *mut c_void,
        data: *mut *const u8,
        len: *mut usize,
        err: *mut *mut c_char,
    ) -> i32;
    pub fn fm_free_bitcode(owner: *mut c_void);
    pub fn fm_check_bitcode(data: *const c_char, len: usize, err: *mut *mut c_char) -> i32;
    pub fn fm_clone_module_exact(m: LLVMModuleRef, err: *mut *mut c_char) -> LLVMModuleRef;
    pub fn fm_clone_module_lazy(
        m: LLVMModuleRef,
        source: *const c_char,
        len: usize,
        err: *mut *mut c_char,
    ) -> LLVMModuleRef;
    pub fn fm_materialize_all(m: LLVMModuleRef, err: *mut *mut c_char) -> i32;
    pub fn fm_link_modules(dst: LLVMModuleRef, src: LLVMModuleRef, err: *mut *mut c_char) -> i32;
    pub fn fm_type_pairs_new(from: LLVMModuleRef, to: LLVMModuleRef) -> *mut FmTypePairs;
    pub fn fm_type_pairs_free(p: *mut FmTypePairs);
    pub fn fm_type_pairs_by_name() -> *mut FmTypePairs;
    pub fn fm_reclaim_struct_names(m: LLVMModuleRef);
    pub fn fm_materialize_functions(fns: *const LLVMValueRef, n: usize) -> i32;
    pub fn fm_type_pairs_set_replaced(
        p: *mut FmTypePairs,
        names: *const *const c_char,
        fns: *const LLVMValueRef,
        n: usize,
    );
    pub fn fm_erase_functions(fns: *const LLVMValueRef, n: usize) -> i32;
    pub fn fm_restorable(
        dst: LLVMModuleRef,
        p: *mut FmTypePairs,
        fns: *const LLVMValueRef,
        n: usize,
        why: *mut *mut c_char,
    ) -> i32;
    pub fn fm_restore_functions(
        dst: LLVMModuleRef,
        src: LLVMModuleRef,
        p: *mut FmTypePairs,
        fns: *const LLVMValueRef,
        n: usize,
    );
    pub fn fm_fn_attr_key(f: LLVMValueRef) -> *const c_void;
    pub fn fm_fn_attr_key_but_inlining(f: LLVMValueRef) -> *const c_void;
    pub fn fm_set_merged_attrs(
        m: LLVMValueRef,
        f1: LLVMValueRef,
        f2: LLVMValueRef,
        map1: *const i32,
        map2: *const i32,
        n: u32,
    ) -> i32;
    pub fn fm_repair_dominance(f: LLVMValueRef, max_repairs: u32) -> i32;
    pub fn fm_blocks_address_taken(f: LLVMValueRef) -> i32;
    pub fn fm_instruction_count(f: LLVMValueRef) -> usize;
    pub fn fm_instruction_count_all(f: LLVMValueRef) -> usize;
    pub fn fm_structural_hash(f: LLVMValueRef) -> u64;
    pub fn fm_set_function_sections(tm: LLVMTargetMachineRef, on: i32);
    pub fn fm_find_unknown_cpu(
        tm: LLVMTargetMachineRef,
        m: LLVMModuleRef,
        func: *mut *mut c_char,
        cpu: *mut *mut c_char,
    ) -> i32;
    pub fn fm_verify_function(f: LLVMValueRef, msg: *mut u8, cap: usize) -> i32;
    pub fn fm_strip_function_debug_info(f: LLVMValueRef);
    pub fn fm_move_body(dst: LLVMValueRef, src: LLVMValueRef) -> i32;
    pub fn fm_clone_body_into(dst: LLVMValueRef, src: LLVMValueRef) -> i32;
    pub fn fm_call_like_function(call: LLVMValueRef, f: LLVMValueRef);
    pub fn fm_keep_abi_param_attrs(f: LLVMValueRef);
    pub fn fm_detach_instruction(inst: LLVMValueRef);
    pub fn fm_parameterize_locals(
        f: LLVMValueRef,
        name: *const c_char,
        locals: *mut LLVMValueRef,
        cap: usize,
        n: *mut usize,
    ) -> LLVMValueRef;
    pub fn fm_extract_functions(
        m: LLVMModuleRef,
        fns: *const LLVMValueRef,
        n: usize,
    ) -> LLVMModuleRef;
    pub fn fm_clone_body_mapped(
        dst: LLVMValueRef,
        src: LLVMValueRef,
        values: *const LLVMValueRef,
        n: usize,
    ) -> i32;
    pub fn fm_functions_equal(a: LLVMValueRef, b: LLVMValueRef) -> i32;
}

/// Copies and frees a message the shim allocated (`strdup`) for an error.
///
/// # Safety
/// `err` is a NUL-terminated string from `malloc`/`strdup` that nothing else frees.
pub unsafe fn take_message(err: *mut c_char) -> String {
    // SAFETY: as the caller promises.
    unsafe {
        let message = std::ffi::CStr::from_ptr(err).to_string_lossy().into_owned();
        free(err.cast());
        message
    }
}

/// Copies and frees a buffer of `len` bytes the shim allocated with `malloc`.
///
/// # Safety
/// `out` points to `len` readable bytes from `malloc` that nothing else frees.
pub unsafe fn take_bytes(out: *mut u8, len: usize) -> Vec<u8> {
    // SAFETY: as the caller promises.
    unsafe {
        let bytes = std::slice::from_raw_parts(out, len).to_vec();
        free(out.cast());
        bytes
    }
}
