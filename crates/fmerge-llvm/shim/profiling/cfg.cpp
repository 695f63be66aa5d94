// Edge profiling, step 1: the control flow probe placement sees.
//
// What. For `fmerge instrument`: what each block is (`fm_block_facts`: exit, abnormal exit, a
// call terminator, edges that cannot be split, funclet pads, returns-twice calls), the static
// weight of every edge (`fm_edge_weights`: LLVM's block frequency times branch probability)
// and of every block per call (`fm_block_frequencies`, for pricing merges without a profile),
// and the opcode names of instructions (`fm_opcode_name`, for work mode's costs). The placement
// itself is LLVM-free: fmerge_core::profiling::probes.
//
// Why. Which calls may not come back to their caller (exit, longjmp, unwinding, callbacks into
// the program) decides where counters must go for the counts to stay exact; LLVM's
// TargetLibraryInfo and call attributes know, the C API does not expose them, nor block
// frequencies.
//
// How. ComebackAnalysis computes, once per module, which functions may escape (a greatest
// fixpoint over the call graph); the facts and weights are read block by block, blocks
// numbered by their position in the function before any change, edges one per successor slot.

#include "../shim.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

using namespace llvm;

namespace {

// Block facts the Rust side needs to build the CFG (bits of fm_block_facts' output).
enum : uint32_t {
  FACT_EXIT = 1,            // leaves the function: ret, resume, unreachable
  FACT_ABNORMAL = 2,        // holds a call that may not come back (exit, longjmp, unwinding)
  FACT_CALL_TERMINATOR = 4, // the terminator is itself a call (invoke, callbr): no counter
                            // may sit just before it
  FACT_UNSPLITTABLE_OUT = 8, // edges leaving the block cannot be split (indirectbr, callbr)
  FACT_EH_PAD = 16,          // the block is an exception-handling pad other than a landing pad
                             // (funclets): edges into it cannot be split
  FACT_UNSUPPORTED = 32,     // a funclet pad or a terminator fmerge does not instrument
  FACT_RETURNS_TWICE = 64,   // calls setjmp (or another returns_twice function): control can
                             // come back into the middle of the block
};

// Library functions that may end the process, jump out of their caller (longjmp, throw) or
// call back into the program (which may do either). Every other function LLVM's
// TargetLibraryInfo recognises comes back to its caller.
bool libraryMayNotComeBack(StringRef Name) {
  static const char *const Names[] = {
      "exit", "_exit", "_Exit", "quick_exit", "abort", "longjmp", "_longjmp", "siglongjmp",
      "__longjmp_chk", "pthread_exit", "qsort", "qsort_r", "bsearch", "lfind", "lsearch",
      "tsearch", "tfind", "tdelete", "twalk", "twalk_r", "ftw", "nftw", "scandir", "glob",
      "raise", "kill", "execv", "execve", "execvp", "execvpe", "execl", "execlp", "execle",
      "fexecve", "setcontext", "swapcontext", "__cxa_throw", "__cxa_rethrow",
      "_Unwind_Resume", "pthread_once", "dl_iterate_phdr"};
  for (const char *N : Names)
    if (Name == N)
      return true;
  return false;
}

// Which calls may not come back to their caller. A call never comes back if it never returns;
// a plain call may unwind out of its caller unless it is nounwind (an invoke's unwinding is a
// modelled edge). Besides, unless calls are assumed to return, a call may *escape*: end the
// process or longjmp past its caller. Escaping calls: nounwind calls that never return
// (exit, abort, longjmp; a call that never returns but may unwind throws, which is
// unwinding), indirect calls, unknown external functions, the library functions of
// libraryMayNotComeBack, and functions of the module that make an escaping call (a greatest
// fixpoint: recursion alone is harmless).
struct ComebackAnalysis {
  bool AssumeCallsReturn;
  TargetLibraryInfoImpl TLII;
  TargetLibraryInfo TLI;
  DenseSet<const Function *> Escapes;

  ComebackAnalysis(Module &M, bool Assume)
      : AssumeCallsReturn(Assume), TLII(M.getTargetTriple()), TLI(TLII) {
    if (Assume)
      return;
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (Function &F : M) {
        if (F.isDeclaration() || Escapes.contains(&F))
          continue;
        bool Bad = false;
        for (BasicBlock &BB : F)
          for (Instruction &I : BB)
            if (auto *CB = dyn_cast<CallBase>(&I))
              Bad |= mayEscape(*CB);
        if (Bad) {
          Escapes.insert(&F);
          Changed = true;
        }
      }
    }
  }

  bool mayEscape(const CallBase &CB) const {
    if (AssumeCallsReturn || isa<DbgInfoIntrinsic>(CB))
      return false;
    if (CB.doesNotReturn())
      return CB.doesNotThrow();
    if (CB.willReturn() || CB.isInlineAsm())
      return false;
    const Function *Callee = CB.getCalledFunction();
    if (!Callee)
      return true;
    if (Callee->isIntrinsic())
      return false;
    if (!Callee->isDeclaration())
      return Escapes.contains(Callee);
    LibFunc LF;
    if (TLI.getLibFunc(*Callee, LF))
      return libraryMayNotComeBack(Callee->getName());
    return true;
  }

  bool callMayNotComeBack(const CallBase &CB) const {
    if (isa<DbgInfoIntrinsic>(CB))
      return false;
    if (CB.doesNotReturn())
      return true;
    if (!CB.doesNotThrow() && !isa<InvokeInst>(CB))
      return true;
    return mayEscape(CB);
  }
};

} // namespace

extern "C" {

// The analysis behind FACT_ABNORMAL for every function of M (freed by
// fm_comeback_analysis_free). `AssumeCallsReturn`: only calls that may unwind or never return
// may not come back.
void *fm_comeback_analysis_new(LLVMModuleRef M, int AssumeCallsReturn) {
  return new ComebackAnalysis(*unwrap(M), AssumeCallsReturn != 0);
}

void fm_comeback_analysis_free(void *A) { delete static_cast<ComebackAnalysis *>(A); }

// Facts about each block of Fn (see the FACT_ bits), n = number of blocks, with an analysis of
// Fn's module.
void fm_block_facts(LLVMValueRef Fn, const void *Analysis, uint32_t *Out, size_t N) {
  Function *F = unwrap<Function>(Fn);
  const auto &A = *static_cast<const ComebackAnalysis *>(Analysis);
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    uint32_t Facts = 0;
    Instruction *T = BB.getTerminator();
    if (isa<ReturnInst>(T) || isa<ResumeInst>(T) || isa<UnreachableInst>(T))
      Facts |= FACT_EXIT;
    if (isa<InvokeInst>(T) || isa<CallBrInst>(T))
      Facts |= FACT_CALL_TERMINATOR;
    if (isa<IndirectBrInst>(T) || isa<CallBrInst>(T))
      Facts |= FACT_UNSPLITTABLE_OUT;
    if (BB.isEHPad() && !BB.isLandingPad())
      Facts |= FACT_EH_PAD;
    if (isa<CleanupReturnInst>(T) || isa<CatchReturnInst>(T) || isa<CatchSwitchInst>(T) ||
        isa<CleanupPadInst>(BB.getFirstNonPHIIt()) || isa<CatchPadInst>(BB.getFirstNonPHIIt()))
      Facts |= FACT_UNSUPPORTED;
    // A musttail call ends the function's own work: the counter of the exit goes before it
    // (fm_instrument_function), so it is the exit, not a call that may not come back.
    CallInst *MustTail = BB.getTerminatingMustTailCall();
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB != MustTail) {
          if (A.callMayNotComeBack(*CB))
            Facts |= FACT_ABNORMAL;
          if (CB->hasFnAttr(Attribute::ReturnsTwice))
            Facts |= FACT_RETURNS_TWICE;
        }
    if (K < N)
      Out[K] = Facts;
    ++K;
  }
}

// LLVM's branch probabilities and block frequencies of one function, from its profile if it
// carries one, else from LLVM's static heuristics (loops, calls that do not return, cold
// calls, comparisons), which need the target library info and both dominator trees.
namespace {
// The library info of the last triple asked for on this thread: building it is the costliest
// part for small functions, and every function of a module has the same triple.
const TargetLibraryInfoImpl &libraryInfo(const Module &M) {
  thread_local std::unique_ptr<TargetLibraryInfoImpl> Cached;
  thread_local std::string CachedTriple;
  const std::string &Triple = M.getTargetTriple().str();
  if (!Cached || CachedTriple != Triple) {
    Cached = std::make_unique<TargetLibraryInfoImpl>(M.getTargetTriple());
    CachedTriple = Triple;
  }
  return *Cached;
}

struct Frequencies {
  DominatorTree DT;
  LoopInfo LI;
  PostDominatorTree PDT;
  TargetLibraryInfo TLI;
  BranchProbabilityInfo BPI;
  BlockFrequencyInfo BFI;
  explicit Frequencies(Function &F)
      : DT(F), LI(DT), PDT(F), TLI(libraryInfo(*F.getParent())), BPI(F, LI, &TLI, &DT, &PDT),
        BFI(F, BPI, LI) {}
};
} // namespace

// Static weight of every edge (block frequency x branch probability, LLVM's own estimate or
// the profile the function carries), one per successor slot, blocks in order. Returns the
// number of edges.
size_t fm_edge_weights(LLVMValueRef Fn, double *Out, size_t N) {
  Function *F = unwrap<Function>(Fn);
  Frequencies A(*F);
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    double Freq = static_cast<double>(A.BFI.getBlockFreq(&BB).getFrequency());
    Instruction *T = BB.getTerminator();
    for (unsigned S = 0, E = T->getNumSuccessors(); S != E; ++S) {
      BranchProbability P = A.BPI.getEdgeProbability(&BB, S);
      if (K < N)
        Out[K] = Freq * static_cast<double>(P.getNumerator()) /
                 static_cast<double>(P.getDenominator());
      ++K;
    }
  }
  return K;
}

// How often each block runs per call of the function, blocks in order (the entry block 1.0):
// LLVM's block frequency relative to the entry's, from the same estimate as fm_edge_weights.
// Returns the number of blocks (nothing is written past N).
size_t fm_block_frequencies(LLVMValueRef Fn, double *Out, size_t N) {
  Function *F = unwrap<Function>(Fn);
  Frequencies A(*F);
  double Entry = static_cast<double>(A.BFI.getEntryFreq().getFrequency());
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    if (K < N)
      Out[K] = Entry > 0 ? static_cast<double>(A.BFI.getBlockFreq(&BB).getFrequency()) / Entry
                         : 1.0;
    ++K;
  }
  return K;
}

// LLVM's name of an instruction's opcode ("add", "load", ...): a static string.
const char *fm_opcode_name(LLVMValueRef I) { return unwrap<Instruction>(I)->getOpcodeName(); }


} // extern "C"
