// Function identity: hashes and equality of functions.
//
// What. LLVM's coarse structural hash (`fm_structural_hash`: which functions are worth
// comparing), a hash of everything code generation reads (`fm_function_codegen_hash`: the size
// guard measures each distinct function once), and LLVM's own exact comparison of two functions
// (`fm_functions_equal`, MergeFunctions' FunctionComparator).
//
// Why. None of them is in the C API, and reimplementing the comparator on the Rust side would
// drift from what LLVM's MergeFunctions considers equal.
//
// How. StructuralHash and FunctionComparator as LLVM has them; the codegen hash is xxh3 of the
// printed function with its attribute lists spelled out.

#include "shim.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/StructuralHash.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"

#include <cstdint>
#include <string>

using namespace llvm;

extern "C" {

// LLVM's coarse structural hash of a function (opcodes, types and CFG shape in walk order; not
// constants, flags or metadata): functions fmerge may find equal, exactly or up to constants,
// always share it, so it picks out the few functions worth lowering for those comparisons.
uint64_t fm_structural_hash(LLVMValueRef Fn) {
  return StructuralHash(*unwrap<Function>(Fn), /*DetailedHash=*/false);
}

// A hash of everything in `Fn` that code generation reads: its printed IR (name, linkage,
// section, body, constants) and its attribute lists and those of its call sites spelled out
// (printed IR only refers to attribute groups by module-dependent numbers). Two functions with
// the same hash compile to the same bytes; the size guard uses it to measure a function once
// however often the stages are re-run.
uint64_t fm_function_codegen_hash(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  std::string S;
  raw_string_ostream OS(S);
  F->print(OS);
  auto AddAttrs = [&](AttributeList L) {
    OS << "|fn:" << L.getFnAttrs().getAsString() << "|ret:" << L.getRetAttrs().getAsString();
    for (unsigned I = 0; I < L.getNumAttrSets(); ++I)
      OS << "|" << L.getParamAttrs(I).getAsString();
  };
  AddAttrs(F->getAttributes());
  for (Instruction &I : instructions(*F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      AddAttrs(CB->getAttributes());
  OS.flush();
  return xxh3_64bits(S);
}

// Whether two functions of one module are equal as LLVM's MergeFunctions decides it (the same
// operations on the same values, types, attributes and flags; names aside).
int fm_functions_equal(LLVMValueRef A, LLVMValueRef B) {
  GlobalNumberState Numbers;
  FunctionComparator Cmp(unwrap<Function>(A), unwrap<Function>(B), &Numbers);
  return Cmp.compare() == 0;
}

} // extern "C"
