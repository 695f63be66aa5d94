// fmerge's C++ shim: what its files share. Private to the shim.
//
// What. The shim is the few LLVM 22 facilities the C API does not expose, one file per job
// (attributes.cpp, bodies.cpp, module_copy.cpp, subset.cpp, restore.cpp, bitcode.cpp, codegen.cpp,
// dominance.cpp, global_merge.cpp, hashing.cpp, diagnostics.cpp, plugin.cpp, and profiling/
// for `fmerge instrument` and profiles). This header holds the helpers more than one of them uses.
//
// Why. Every function the Rust side calls is `extern "C"`, takes and returns C API handles and
// is declared once in `src/ffi.rs`; nothing here is visible to Rust. Keep the shim small:
// anything the C API can do belongs on the Rust side.
//
// How. Helpers live in namespace `fmshim`, defined in the file of the job they belong to.

#pragma once

#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Attributes.h"

#include <string>

namespace llvm {
class Function;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace fmshim {

// The C API's target machine handle is a TargetMachine (as LLVM's own TargetMachineC.cpp has it).
inline llvm::TargetMachine *unwrapTM(LLVMTargetMachineRef TM) {
  return reinterpret_cast<llvm::TargetMachine *>(TM);
}

// attributes.cpp: the part of an attribute set that must match exactly for two functions or
// call sites to share one body (string attributes and those LLVM must not intersect away).
llvm::AttributeSet mustMatchPart(llvm::LLVMContext &C, llvm::AttributeSet S);

// module_copy.cpp: makes sure `F`'s body is in memory (a function of a lazily read module is
// read when first needed); false if reading it failed.
bool materialized(llvm::Function *F);

// module_copy.cpp: erases the declarations, global variables and aliases of `M` that nothing
// uses, until nothing changes.
void dropUnreferenced(llvm::Module &M);

// bodies.cpp: the instructions of `F` as Function::getInstructionCount counts them, faster.
size_t instructionCount(const llvm::Function &F);

// diagnostics.cpp: runs `Body` with the context's errors collected instead of handled (LLVM's
// default handler prints them and calls exit(1)); returns the messages, empty if none.
std::string collectErrors(llvm::LLVMContext &Ctx, llvm::function_ref<void()> Body);

} // namespace fmshim

// bodies.cpp (also used by global_merge.cpp).
extern "C" void fm_strip_function_debug_info(LLVMValueRef Fn);
