// Function bodies and single instructions: the edits and facts merging needs below the C API.
//
// What. Moving or copying a body from one function into another (`fm_move_body`,
// `fm_clone_body_into`), taking an instruction out of its block without deleting it, setting a
// phi's incoming block, reading and intersecting an instruction's optional flags (nsw, exact,
// fast-math, ...), verifying one function with its message, stripping a body's debug info,
// counting its instructions, and whether a function's or its blocks' addresses are taken.
//
// Why. Merged bodies are stitched from pieces of two functions; the C API can neither splice
// blocks between functions nor reach flags and address-taken facts as LLVM stores them.
//
// How. Thin wrappers over LLVM's own Function, Instruction and cloning utilities; each says
// what it leaves behind when it refuses (nothing changed).

#include "shim.h"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstring>
#include <string>

using namespace llvm;

// The instructions of `F`'s body as Function::getInstructionCount counts them (debug and
// pseudo-probe intrinsics left out), without its filtered iterator, which calls a
// std::function per instruction: on a 300,000-instruction module that was 4% of a run.
size_t fmshim::instructionCount(const Function &F) {
  size_t N = 0;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      N += !isa<DbgInfoIntrinsic>(I) && !isa<PseudoProbeInst>(I);
  return N;
}

extern "C" {

// All poison-generating and fast-math flags of an instruction, as LLVM stores them.
unsigned fm_raw_optional_flags(LLVMValueRef I) {
  return unwrap<Instruction>(I)->getRawSubclassOptionalData();
}

// Keeps only the flags both instructions have (nsw, nuw, exact, inbounds, fast-math ...).
void fm_and_ir_flags(LLVMValueRef Dst, LLVMValueRef Src) {
  unwrap<Instruction>(Dst)->andIRFlags(unwrap(Src));
}

void fm_phi_set_incoming_block(LLVMValueRef Phi, unsigned Idx, LLVMBasicBlockRef BB) {
  unwrap<PHINode>(Phi)->setIncomingBlock(Idx, unwrap(BB));
}

// True if the address of F is used other than as the callee of a direct call.
int fm_has_address_taken(LLVMValueRef Fn) {
  return unwrap<Function>(Fn)->hasAddressTaken(nullptr, /*IgnoreCallbackUses=*/false,
                                                /*IgnoreAssumeLikeCalls=*/true,
                                                /*IngoreLLVMUsed=*/false);
}

// Every instruction of `Fn`'s body, debug and pseudo-probe intrinsics included (what
// `instructions(F)` visits): the length of per-instruction tables such as TTI costs.
size_t fm_instruction_count_all(LLVMValueRef Fn) {
  size_t N = 0;
  for (const BasicBlock &BB : *unwrap<Function>(Fn))
    N += BB.size();
  return N;
}

// The number of instructions in `Fn`'s body (0 for a declaration): one walk in C++ instead of
// one C API call per instruction (callers count whole modules).
size_t fm_instruction_count(LLVMValueRef Fn) {
  return fmshim::instructionCount(*unwrap<Function>(Fn));
}

// Whether some `blockaddress` constant points into `Fn` (its blocks must keep their identity).
int fm_blocks_address_taken(LLVMValueRef Fn) {
  for (BasicBlock &BB : *unwrap<Function>(Fn))
    if (BB.hasAddressTaken())
      return 1;
  return 0;
}

// Takes an instruction without uses out of its block and drops its operands, leaving a
// parentless husk that refers to nothing (so the verifier and module copies never see it);
// the caller deletes it later with LLVMDeleteInstruction.
void fm_detach_instruction(LLVMValueRef I) {
  Instruction *In = unwrap<Instruction>(I);
  In->removeFromParent();
  In->dropAllReferences();
}

// Verifies one function; on failure writes the message (NUL-terminated, truncated) to `msg`.
int fm_verify_function(LLVMValueRef Fn, char *msg, size_t cap) {
  std::string S;
  raw_string_ostream OS(S);
  bool Broken = verifyFunction(*unwrap<Function>(Fn), &OS);
  OS.flush();
  if (cap) {
    size_t n = S.size() < cap - 1 ? S.size() : cap - 1;
    std::memcpy(msg, S.data(), n);
    msg[n] = 0;
  }
  return Broken ? 1 : 0;
}

// Removes a function's debug-info attachment and every debug location and record in it, so a
// body built from two functions never claims to be either one in a debugger.
void fm_strip_function_debug_info(LLVMValueRef Fn) {
  Function *F = unwrap<Function>(Fn);
  F->setSubprogram(nullptr);
  for (Instruction &I : instructions(*F)) {
    I.setDebugLoc(DebugLoc());
    I.dropDbgRecords();
  }
}

// Moves the body of `Src` into `Dst` (which must have no body): blocks, uses of `Src`'s
// parameters (redirected to `Dst`'s first parameters) and the debug-info subprogram the moved
// locations refer to. `Src` is left a declaration. Returns 0 (and moves nothing) if `Dst` has a
// body or its leading parameter types differ from `Src`'s.
int fm_move_body(LLVMValueRef Dst, LLVMValueRef Src) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || D->arg_size() < S->arg_size())
    return 0;
  for (unsigned i = 0; i < S->arg_size(); ++i)
    if (S->getArg(i)->getType() != D->getArg(i)->getType())
      return 0;
  D->splice(D->end(), S);
  for (unsigned i = 0; i < S->arg_size(); ++i)
    S->getArg(i)->replaceAllUsesWith(D->getArg(i));
  D->setSubprogram(S->getSubprogram());
  S->setSubprogram(nullptr);
  return 1;
}

// Copies the body of `Src` into `Dst` (which must have no body and `Src`'s parameter types as
// its leading parameters), mapping parameters in order. Debug info is cloned with the body.
// Returns 0 (and clones nothing) on a signature mismatch.
int fm_clone_body_into(LLVMValueRef Dst, LLVMValueRef Src) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || D->arg_size() < S->arg_size() ||
      D->getReturnType() != S->getReturnType())
    return 0;
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < S->arg_size(); ++i) {
    if (S->getArg(i)->getType() != D->getArg(i)->getType())
      return 0;
    VMap[S->getArg(i)] = D->getArg(i);
  }
  // CloneFunctionInto also copies Src's function attributes and maps parameter attributes
  // through VMap, so Dst's extra parameters get none.
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(D, S, VMap,
                    S->getSubprogram() ? CloneFunctionChangeType::LocalChangesOnly
                                       : CloneFunctionChangeType::GlobalChanges,
                    Returns);
  return 1;
}

} // extern "C"
