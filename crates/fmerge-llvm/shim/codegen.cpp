// Code generation: object files and the code-size costs the size estimates start from.
//
// What. The TTI code-size cost of every instruction of a function
// (`fm_function_codesize_costs`), an object file for a module as `llc -filetype=obj` makes it
// (`fm_emit_object`), per-function sections on a target machine, and the first function whose
// "target-cpu" the target does not know (`fm_find_unknown_cpu`).
//
// Why. The C API's emitter omits the TargetLibraryInfo for the module's triple (which changes
// code around library calls), cannot report assembler errors without ending the process, and
// exposes neither TTI costs nor the target machine's options.
//
// How. A legacy pass manager with TargetLibraryInfoWrapperPass, run inside `collectErrors`
// (diagnostics.cpp); TTI from the target machine, built once per function.

#include "shim.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace llvm;
using fmshim::collectErrors;
using fmshim::unwrapTM;

extern "C" {

// TTI code-size cost of every instruction of F, in layout order, written to `out` (capacity n).
// Returns the sum, or -1 if some cost is invalid (the caller then treats F as unmeasurable).
// One TTI object per call: building it is the expensive part.
int64_t fm_function_codesize_costs(LLVMValueRef Fn, LLVMTargetMachineRef TM, int64_t *out,
                                   size_t n) {
  Function *F = unwrap<Function>(Fn);
  TargetTransformInfo TTI = unwrapTM(TM)->getTargetTransformInfo(*F);
  int64_t total = 0;
  size_t k = 0;
  bool invalid = false;
  for (Instruction &I : instructions(*F)) {
    InstructionCost C = TTI.getInstructionCost(&I, TargetTransformInfo::TCK_CodeSize);
    int64_t v = 0;
    if (C.isValid())
      v = C.getValue();
    else
      invalid = true;
    if (k < n && out)
      out[k] = v;
    ++k;
    total += v;
  }
  return invalid ? -1 : total;
}

// Generates an object file for `M` the way `llc -filetype=obj` does, including its
// TargetLibraryInfo for the module's triple (the C API's emitter omits it, which changes code
// generation around library calls). On success returns 1 and a malloc'ed buffer in *Out/*Len;
// on failure returns 0 and a malloc'ed message in *Err. Mutates `M`: callers pass a copy.
int fm_emit_object(LLVMTargetMachineRef TMRef, LLVMModuleRef MRef, char **Out, size_t *Len,
                   char **Err) {
  TargetMachine *TM = unwrapTM(TMRef);
  Module *M = unwrap(MRef);
  *Out = nullptr;
  *Len = 0;
  *Err = nullptr;
  M->setDataLayout(TM->createDataLayout());
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  legacy::PassManager PM;
  TargetLibraryInfoImpl TLII(M->getTargetTriple());
  PM.add(new TargetLibraryInfoWrapperPass(TLII));
  if (TM->addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile)) {
    *Err = strdup("this target cannot emit object files");
    return 0;
  }
  // Errors found while generating code (e.g. inline assembly the target's assembler rejects)
  // would end the process (see `collectErrors`); report them as a failure instead.
  std::string Message = collectErrors(M->getContext(), [&] { PM.run(*M); });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return 0;
  }
  *Out = static_cast<char *>(malloc(Buf.size() ? Buf.size() : 1));
  memcpy(*Out, Buf.data(), Buf.size());
  *Len = Buf.size();
  return 1;
}

// Puts every function in a section of its own (`-ffunction-sections`), which the linker's
// identical code folding needs to fold functions.
void fm_set_function_sections(LLVMTargetMachineRef TM, int On) {
  unwrapTM(TM)->Options.FunctionSections = On != 0;
}

// Finds the first function of `M` whose "target-cpu" or "tune-cpu" attribute names a processor
// `TM`'s target does not know. Code generation for such a function can end in a fatal error
// (e.g. an x86-64 module with an unknown CPU loses its 64-bit feature). Returns 0 when all are
// known; else 1 with malloc'ed copies of the function name and the CPU in *Fn / *Cpu.
int fm_find_unknown_cpu(LLVMTargetMachineRef TMRef, LLVMModuleRef MRef, char **Fn, char **Cpu) {
  TargetMachine *TM = unwrapTM(TMRef);
  const MCSubtargetInfo *STI = TM->getMCSubtargetInfo();
  *Fn = nullptr;
  *Cpu = nullptr;
  if (!STI)
    return 0;
  for (Function &F : *unwrap(MRef)) {
    for (const char *Kind : {"target-cpu", "tune-cpu"}) {
      Attribute A = F.getFnAttribute(Kind);
      if (!A.isValid() || !A.isStringAttribute())
        continue;
      StringRef Name = A.getValueAsString();
      if (Name.empty() || STI->isCPUStringValid(Name))
        continue;
      *Fn = strdup(F.getName().str().c_str());
      *Cpu = strdup(Name.str().c_str());
      return 1;
    }
  }
  return 0;
}

} // extern "C"
