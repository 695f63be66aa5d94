//! Code-size estimates from LLVM's target cost model (TTI `TCK_CodeSize`), through the shim.
//!
//! TTI ranks whole functions well (93–94% of random pairs, `../shared/notes/cost-model-facts.md`)
//! but not two things of nearly equal size; callers confirm close decisions by generating code.

use crate::ffi;
use crate::ir::Function;
use crate::target::Target;

/// TTI code-size cost of every instruction of `f` in layout order, or `None` if TTI calls some
/// instruction's cost invalid.
pub fn instruction_costs(target: &Target, f: Function<'_>) -> Option<Vec<i64>> {
    // SAFETY: `f` is a live function.
    let n = unsafe { ffi::fm_instruction_count_all(f.raw()) };
    let mut out = vec![0i64; n];
    // SAFETY: `f` is a live function, the target machine is alive, and `out` has room for
    // every instruction of `f` (counted just above).
    let total =
        unsafe { ffi::fm_function_codesize_costs(f.raw(), target.raw(), out.as_mut_ptr(), n) };
    (total >= 0).then_some(out)
}

/// TTI code-size cost of the whole function.
pub fn function_cost(target: &Target, f: Function<'_>) -> Option<i64> {
    // SAFETY: live function and target machine; no output buffer is written (n = 0).
    let total =
        unsafe { ffi::fm_function_codesize_costs(f.raw(), target.raw(), std::ptr::null_mut(), 0) };
    (total >= 0).then_some(total)
}
