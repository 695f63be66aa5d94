// Function identity: hashes and equality of functions.
//
// What. LLVM's coarse structural hash (`fm_structural_hash`: which functions are worth
// comparing) and LLVM's own exact comparison of two functions (`fm_functions_equal`,
// MergeFunctions' FunctionComparator).
//
// Why. None of them is in the C API, and reimplementing the comparator on the Rust side would
// drift from what LLVM's MergeFunctions considers equal.
//
// How. StructuralHash and FunctionComparator as LLVM has them.

#include "shim.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/StructuralHash.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"

#include <cstdint>

using namespace llvm;

extern "C" {

// LLVM's coarse structural hash of a function (opcodes, types and CFG shape in walk order; not
// constants, flags or metadata): functions fmerge may find equal, exactly or up to constants,
// always share it, so it picks out the few functions worth lowering for those comparisons.
uint64_t fm_structural_hash(LLVMValueRef Fn) {
  return StructuralHash(*unwrap<Function>(Fn), /*DetailedHash=*/false);
}

// Whether two functions of one module are equal as LLVM's MergeFunctions decides it (the same
// operations on the same values, types, attributes and flags; names aside).
int fm_functions_equal(LLVMValueRef A, LLVMValueRef B) {
  GlobalNumberState Numbers;
  FunctionComparator Cmp(unwrap<Function>(A), unwrap<Function>(B), &Numbers);
  return Cmp.compare() == 0;
}

} // extern "C"
