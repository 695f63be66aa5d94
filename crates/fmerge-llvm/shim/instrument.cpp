// fmerge's C++ shim, part 3: edge profiling (seed 001). The analyses and IR surgery behind
// `fmerge instrument` and `fmerge opt --profile`: static edge weights from LLVM's block
// frequency analysis, what each block is (exit, abnormal exit, ...), counter increments at the
// probe sites the Rust side chose, the small runtime that writes the counters at exit, and
// putting a profile back into a module as `!prof` metadata with a profile summary.
//
// Every function is `extern "C"`, takes C API handles and is declared once in `src/ffi.rs`.
// Block indices are positions in the function's block list before any change.

#include "llvm-c/Core.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ProfileSummary.h"
#include "llvm/ProfileData/InstrProf.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

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

// Static weight of every edge (block frequency x branch probability, LLVM's own estimate or
// the profile the function carries), one per successor slot, blocks in order. Returns the
// number of edges.
size_t fm_edge_weights(LLVMValueRef Fn, double *Out, size_t N) {
  Function *F = unwrap<Function>(Fn);
  DominatorTree DT(*F);
  LoopInfo LI(DT);
  PostDominatorTree PDT(*F);
  TargetLibraryInfoImpl TLII(F->getParent()->getTargetTriple());
  TargetLibraryInfo TLI(TLII);
  BranchProbabilityInfo BPI(*F, LI, &TLI, &DT, &PDT);
  BlockFrequencyInfo BFI(*F, BPI, LI);
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    double Freq = static_cast<double>(BFI.getBlockFreq(&BB).getFrequency());
    Instruction *T = BB.getTerminator();
    for (unsigned S = 0, E = T->getNumSuccessors(); S != E; ++S) {
      BranchProbability P = BPI.getEdgeProbability(&BB, S);
      if (K < N)
        Out[K] = Freq * static_cast<double>(P.getNumerator()) /
                 static_cast<double>(P.getDenominator());
      ++K;
    }
  }
  return K;
}

// The profile data of a module: `[H + N x i64]`, internal, named `__fmerge_prof_data`. The
// H header words (`fmerge_core::profdata::RAW_HEADER_WORDS`): magic, module id, N, wall-clock
// nanoseconds (filled at exit), work (the work instrumentation's counter), CPU nanoseconds of
// the process (filled at exit), how the run ended (0: exit, else the signal; filled at exit);
// then the N counters. Returns the global.
LLVMValueRef fm_profile_data_global(LLVMModuleRef MRef, uint64_t Magic, uint64_t ModuleId,
                                    uint64_t H, uint64_t N) {
  Module *M = unwrap(MRef);
  LLVMContext &C = M->getContext();
  Type *I64 = Type::getInt64Ty(C);
  ArrayType *Ty = ArrayType::get(I64, H + N);
  std::vector<Constant *> Words(H + N, ConstantInt::get(I64, 0));
  Words[0] = ConstantInt::get(I64, Magic);
  Words[1] = ConstantInt::get(I64, ModuleId);
  Words[2] = ConstantInt::get(I64, N);
  auto *G = new GlobalVariable(*M, Ty, false, GlobalValue::InternalLinkage,
                               ConstantArray::get(Ty, Words), "__fmerge_prof_data");
  G->setAlignment(Align(8));
  return wrap(G);
}

// Puts counter updates into Fn. Sites are triples (kind, block, successor slot):
// kind 0 = just before the block's terminator (before a musttail call that ends it), 1 = at
// the block's first insertion point, 2 = on the edge (block, slot), in a new block that splits
// it. Site i adds Amount[i] (wrapping) to word Index[i] of Data (a counter, or the header's
// work word). Atomic: `atomicrmw add monotonic` instead of load/add/store. Returns 0, or -1
// if an edge could not be split (Fn may then be partly instrumented: the caller checks
// splittability first).
int fm_instrument_function(LLVMValueRef Fn, const uint32_t *Sites, size_t NSites,
                           LLVMValueRef DataRef, const uint64_t *Index, const int64_t *Amount,
                           int Atomic) {
  Function *F = unwrap<Function>(Fn);
  auto *Data = cast<GlobalVariable>(unwrap(DataRef));
  std::vector<BasicBlock *> Blocks;
  for (BasicBlock &BB : *F)
    Blocks.push_back(&BB);
  // Terminators are read before any edge is split.
  std::vector<std::pair<Instruction *, unsigned>> Edges(NSites, {nullptr, 0});
  for (size_t I = 0; I < NSites; ++I)
    if (Sites[3 * I] == 2)
      Edges[I] = {Blocks[Sites[3 * I + 1]]->getTerminator(), Sites[3 * I + 2]};
  Type *I64 = Type::getInt64Ty(F->getContext());
  Type *DataTy = Data->getValueType();
  for (size_t I = 0; I < NSites; ++I) {
    uint32_t Kind = Sites[3 * I];
    BasicBlock *BB = Blocks[Sites[3 * I + 1]];
    BasicBlock::iterator At;
    if (Kind == 0) {
      // Nothing may come between a musttail call and its ret.
      if (CallInst *MustTail = BB->getTerminatingMustTailCall())
        At = MustTail->getIterator();
      else
        At = BB->getTerminator()->getIterator();
    } else if (Kind == 1) {
      At = BB->getFirstInsertionPt();
    } else {
      // The successor as it is now: an earlier split may have given the edge a new target.
      Instruction *T = Edges[I].first;
      BasicBlock *Dest = T->getSuccessor(Edges[I].second);
      BasicBlock *New = nullptr;
      if (Dest->isLandingPad()) {
        // An unwind edge: the landing pad is split by predecessor, so that this edge gets a
        // landing pad of its own (the rest share another; the original block becomes their
        // common successor).
        SmallVector<BasicBlock *, 2> NewBBs;
        SplitLandingPadPredecessors(Dest, {T->getParent()}, ".fmerge", ".fmerge.rest", NewBBs);
        if (!NewBBs.empty())
          New = NewBBs[0];
      } else {
        CriticalEdgeSplittingOptions Opts;
        New = SplitCriticalEdge(T, Edges[I].second, Opts);
      }
      if (!New)
        return -1;
      At = New->getFirstInsertionPt();
    }
    IRBuilder<> B(At->getParent(), At);
    Value *Ptr = B.CreateInBoundsGEP(DataTy, Data, {B.getInt32(0), B.getInt64(Index[I])});
    Constant *Add = ConstantInt::get(I64, static_cast<uint64_t>(Amount[I]));
    if (Atomic) {
      B.CreateAtomicRMW(AtomicRMWInst::Add, Ptr, Add, Align(8), AtomicOrdering::Monotonic);
    } else {
      Value *Old = B.CreateAlignedLoad(I64, Ptr, Align(8), "fmerge.count");
      B.CreateAlignedStore(B.CreateAdd(Old, Add), Ptr, Align(8));
    }
  }
  return 0;
}

} // extern "C"

namespace {

// Counter promotion (fm_promote_counters). Limits as LLVM's own instrprof lowering has them:
// a loop with more exits than this would need a write-back in each, and a loop keeps at most
// this many counters in registers (the hottest by the static estimate).
constexpr unsigned PromoteMaxExits = 10;
constexpr unsigned PromoteMaxCountersPerLoop = 20;

// Register pressure. A counter kept in a register through a loop that already needs every
// register pushes the program's own values to the stack, which costs more than the load and
// store the promotion saves (bzip2's BZ2_decompress: short loops in a function that keeps
// some 50 values live everywhere). So a loop gets only as many counters as it has room for:
// the registers of the target, minus the values live in the loop (RegisterPressure), minus
// the values of the callers the function will be inlined into (inliningPressure).
//
// IR values are not registers: a comparison feeding a branch lives in the flags, address
// arithmetic folds into addressing modes, the register allocator splits the live ranges of
// values a loop does not use around it. So the room is counted against twice the target's
// registers. On the corpus (callgrind, x86-64: 16 registers), loops whose pressure stayed
// under about 32 gained from promotion (zstd's ZSTD_RowFindBestMatch at 17 to 19, bzip2's
// BZ2_compressBlock at 24 to 30) and loops above it lost (zstd's lazy match finders at 43 to
// 51, BZ2_decompress at 52 to 62).
constexpr unsigned ValuesPerRegister = 2;

// Without a target machine (a triple LLVM was built without): x86-64's 16 integer registers,
// fewer than the other 64-bit targets have.
constexpr unsigned FallbackRegisters = 16;

// The most values a loop of F may keep live, counters included: ValuesPerRegister times the
// integer registers of F's target and subtarget, as LLVM's cost model counts them.
unsigned registerBudget(Function &F, TargetMachine *TM) {
  if (!TM)
    return ValuesPerRegister * FallbackRegisters;
  TargetTransformInfo TTI = TM->getTargetTransformInfo(F);
  return ValuesPerRegister * TTI.getNumberOfRegisters(TTI.getRegisterClassForType(false));
}

// Register pressure of a function before promotion, from SSA liveness: the integer and
// pointer values (arguments and instructions; not constants, globals or static allocas, whose
// addresses code generation rematerialises) live at once. A value is live into every block on
// a path from a use back to its definition (a phi's use is at the end of the incoming block);
// unreachable blocks are left out. Kept: the most values live at one point of each block, and
// the values live across each call (besides its operands and result).
class RegisterPressure {
public:
  explicit RegisterPressure(Function &F) {
    DenseMap<const Value *, unsigned> Id;
    SmallVector<Value *, 64> Values;
    auto Add = [&](Value &V) {
      if (inRegister(V)) {
        Id[&V] = Values.size();
        Values.push_back(&V);
      }
    };
    for (Argument &A : F.args())
      Add(A);
    DenseMap<const BasicBlock *, unsigned> Index;
    SmallVector<BasicBlock *, 64> Blocks;
    for (BasicBlock *BB : depth_first(&F.getEntryBlock())) {
      Index[BB] = Blocks.size();
      Blocks.push_back(BB);
      for (Instruction &I : *BB)
        Add(I);
    }
    std::vector<BitVector> LiveIn(Blocks.size(), BitVector(Values.size()));
    std::vector<BitVector> LiveOut = LiveIn;
    for (unsigned K = 0; K < Values.size(); ++K) {
      auto *Def = dyn_cast<Instruction>(Values[K]);
      const BasicBlock *DefBB = Def ? Def->getParent() : nullptr;
      SmallVector<const BasicBlock *, 16> Work;
      for (const Use &U : Values[K]->uses()) {
        auto *User = cast<Instruction>(U.getUser());
        const BasicBlock *BB = User->getParent();
        if (auto *Phi = dyn_cast<PHINode>(User)) {
          BB = Phi->getIncomingBlock(U);
          if (Index.contains(BB))
            LiveOut[Index[BB]].set(K);
        }
        if (BB != DefBB && Index.contains(BB))
          Work.push_back(BB);
      }
      while (!Work.empty()) {
        const BasicBlock *BB = Work.pop_back_val();
        BitVector &In = LiveIn[Index[BB]];
        if (In.test(K))
          continue;
        In.set(K);
        for (const BasicBlock *P : predecessors(BB)) {
          if (!Index.contains(P))
            continue;
          LiveOut[Index[P]].set(K);
          if (P != DefBB)
            Work.push_back(P);
        }
      }
    }
    // Each block backwards from what is live out of it (phis define at its start).
    for (unsigned B = 0; B < Blocks.size(); ++B) {
      BitVector &Live = LiveOut[B];
      unsigned N = Live.count(), Max = N;
      for (Instruction &I : reverse(*Blocks[B])) {
        if (isa<PHINode>(I))
          break;
        if (auto It = Id.find(&I); It != Id.end() && Live.test(It->second)) {
          Live.reset(It->second);
          --N;
        }
        if (auto *CB = dyn_cast<CallBase>(&I))
          Across[CB] = N;
        for (const Value *Op : I.operands())
          if (auto It = Id.find(Op); It != Id.end() && !Live.test(It->second)) {
            Live.set(It->second);
            ++N;
          }
        Max = std::max(Max, N);
      }
      Peak[Blocks[B]] = Max;
    }
  }

  // The most values live at one point of BB (0 for a block made after the analysis).
  unsigned in(const BasicBlock *BB) const { return Peak.lookup(BB); }
  // The values live across call CB.
  unsigned across(const CallBase *CB) const { return Across.lookup(CB); }

private:
  static bool inRegister(const Value &V) {
    if (auto *AI = dyn_cast<AllocaInst>(&V); AI && AI->isStaticAlloca())
      return false;
    return V.getType()->isIntegerTy() || V.getType()->isPointerTy();
  }

  DenseMap<const BasicBlock *, unsigned> Peak;
  DenseMap<const CallBase *, unsigned> Across;
};

// For each function of M, the most values of a caller live across a call of it that LLVM's
// inliner would inline at -Os (what the corpus is built with; with the cost model of the
// callee's target when TM is given): once inlined, the function's loops run with those
// values live. Whole-program modules inline across what were translation units (bzip2's
// small BZ2_indexIntoF, from bzlib.c, into BZ2_decompress).
DenseMap<const Function *, unsigned>
inliningPressure(Module &M, TargetMachine *TM,
                 const std::map<const Function *, RegisterPressure> &Pressure) {
  TargetLibraryInfoImpl TLII(M.getTargetTriple());
  std::map<const Function *, TargetLibraryInfo> TLIs;
  std::map<const Function *, AssumptionCache> ACs;
  auto GetTLI = [&](Function &F) -> const TargetLibraryInfo & {
    return TLIs.try_emplace(&F, TLII, &F).first->second;
  };
  auto GetAC = [&](Function &F) -> AssumptionCache & {
    return ACs.try_emplace(&F, F).first->second;
  };
  const InlineParams Params = getInlineParams(2, 1);
  DenseMap<const Function *, unsigned> Host;
  for (Function &Caller : M) {
    auto P = Pressure.find(&Caller);
    if (P == Pressure.end())
      continue;
    for (BasicBlock &BB : Caller)
      for (Instruction &I : BB) {
        auto *CB = dyn_cast<CallBase>(&I);
        Function *Callee = CB ? CB->getCalledFunction() : nullptr;
        if (!Callee || Callee->isDeclaration() || Callee == &Caller)
          continue;
        TargetTransformInfo TTI =
            TM ? TM->getTargetTransformInfo(*Callee) : TargetTransformInfo(M.getDataLayout());
        if (!getInlineCost(*CB, Params, TTI, GetAC, GetTLI))
          continue;
        unsigned &H = Host[Callee];
        H = std::max(H, P->second.across(CB));
      }
  }
  return Host;
}

// A call that may sit in a loop whose counters live in registers: it must come back to the
// loop (no exit(), longjmp, unwinding, signal-raising trap), run no code of the program (which
// could update the same counters, fork, or end the process and write the counters) and not
// touch the counters. Only intrinsics qualify, and only those LLVM says return and do not
// unwind (memcpy/memset, lifetime, assume, arithmetic, ...), minus those that call or suspend.
bool harmlessInPromotedLoop(const CallBase &CB) {
  if (isa<DbgInfoIntrinsic>(CB))
    return true;
  const auto *II = dyn_cast<IntrinsicInst>(&CB);
  if (!II)
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::experimental_gc_statepoint:
  case Intrinsic::experimental_patchpoint:
  case Intrinsic::experimental_patchpoint_void:
  case Intrinsic::experimental_stackmap:
    return false;
  default:
    break;
  }
  StringRef Name = II->getCalledFunction()->getName();
  if (Name.starts_with("llvm.coro.") || Name.starts_with("llvm.eh.") ||
      Name.starts_with("llvm.seh.") || Name.starts_with("llvm.objc.") ||
      Name.starts_with("llvm.experimental.gc.") ||
      Name.starts_with("llvm.experimental.deoptimize") ||
      Name.starts_with("llvm.experimental.guard"))
    return false;
  // Code generation may turn a memory or floating-point intrinsic into a call of a library
  // function (llvm.memcpy into memcpy, llvm.sin.f32 into sinf): if the module defines that
  // function, the call runs the program's own code.
  bool MayBeLibCall = Name.starts_with("llvm.mem") || CB.getType()->isFPOrFPVectorTy() ||
                      any_of(CB.args(), [](const Use &U) {
                        return U->getType()->isFPOrFPVectorTy();
                      });
  if (MayBeLibCall) {
    StringRef Base = Name.drop_front(5).split('.').first;
    const Module &M = *CB.getModule();
    for (const std::string &Lib : {Base.str(), (Base + "f").str(), (Base + "l").str()})
      if (const Function *G = M.getFunction(Lib))
        if (!G->isDeclaration())
          return false;
  }
  return CB.willReturn() && CB.doesNotThrow();
}

// How an instruction uses the profile data: not at all, as a plain 8-byte load or store of one
// counter word (`Off` = its byte offset), or some other way (which keeps its loop as it is).
enum class DataUse { None, Counter, Other };

DataUse dataUse(const Instruction &I, const GlobalVariable *Data, const DataLayout &DL,
                int64_t &Off) {
  auto WordOf = [&](const Value *Ptr) {
    APInt A(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
    const Value *Base = Ptr->stripAndAccumulateInBoundsConstantOffsets(DL, A);
    if (Base != Data)
      return false;
    Off = A.getSExtValue();
    return Off >= 0 && Off % 8 == 0;
  };
  auto Touches = [&](const Value *V) {
    return V->getType()->isPointerTy() && V->stripPointerCasts()->stripInBoundsOffsets() == Data;
  };
  if (const auto *L = dyn_cast<LoadInst>(&I)) {
    if (!Touches(L->getPointerOperand()))
      return DataUse::None;
    return L->isSimple() && L->getType()->isIntegerTy(64) && WordOf(L->getPointerOperand())
               ? DataUse::Counter
               : DataUse::Other;
  }
  if (const auto *S = dyn_cast<StoreInst>(&I)) {
    if (Touches(S->getValueOperand()))
      return DataUse::Other;
    if (!Touches(S->getPointerOperand()))
      return DataUse::None;
    return S->isSimple() && S->getValueOperand()->getType()->isIntegerTy(64) &&
                   WordOf(S->getPointerOperand())
               ? DataUse::Counter
               : DataUse::Other;
  }
  for (const Value *Op : I.operands())
    if (Touches(Op))
      return DataUse::Other;
  return DataUse::None;
}

// Keeps one counter word in an SSA value through loop L: one load at the end of the preheader,
// the loop's loads and stores of the word replaced by the values they would read and write,
// one store at the start of every exit block (dedicated exits: every predecessor is in L).
// `Accesses`: every load and store of the word in L.
void promoteWord(BasicBlock *Preheader, ArrayRef<BasicBlock *> Exits,
                 ArrayRef<Instruction *> Accesses) {
  Type *I64 = Type::getInt64Ty(Preheader->getContext());
  Value *Ptr = getLoadStorePointerOperand(Accesses.front());
  auto *Init = new LoadInst(I64, Ptr, "fmerge.count.promoted", false, Align(8),
                            Preheader->getTerminator()->getIterator());
  SSAUpdater SSA;
  SSA.Initialize(I64, "fmerge.count.loop");
  SSA.AddAvailableValue(Preheader, Init);
  DenseSet<Instruction *> Set(Accesses.begin(), Accesses.end());
  // Block by block in instruction order: a load after a store of the same block reads the
  // stored value; a load before any store reads the value live into the block.
  DenseMap<LoadInst *, Value *> Repl;
  SmallVector<LoadInst *, 8> LiveIn;
  DenseSet<BasicBlock *> Seen;
  for (Instruction *A : Accesses) {
    BasicBlock *BB = A->getParent();
    if (!Seen.insert(BB).second)
      continue;
    Value *Cur = nullptr;
    for (Instruction &I : *BB) {
      if (!Set.contains(&I))
        continue;
      if (auto *L = dyn_cast<LoadInst>(&I)) {
        if (Cur)
          Repl[L] = Cur;
        else
          LiveIn.push_back(L);
      } else {
        Cur = cast<StoreInst>(&I)->getValueOperand();
      }
    }
    if (Cur)
      SSA.AddAvailableValue(BB, Cur);
  }
  for (LoadInst *L : LiveIn)
    Repl[L] = SSA.GetValueInMiddleOfBlock(L->getParent());
  SmallVector<Value *, 4> AtExit;
  for (BasicBlock *E : Exits)
    AtExit.push_back(SSA.GetValueInMiddleOfBlock(E));
  // A value may itself be one of the loads going away (a store of a loaded value): follow it
  // to what that load becomes. Chains go backwards through a block or end at a phi, so they
  // are short; the bound only guards against a cycle.
  auto Resolve = [&](Value *V) {
    for (size_t Steps = 0; Steps <= Repl.size(); ++Steps) {
      auto *L = dyn_cast<LoadInst>(V);
      if (!L || !Set.contains(L))
        return V;
      V = Repl.lookup(L);
    }
    return static_cast<Value *>(PoisonValue::get(I64));
  };
  for (auto &[L, V] : Repl)
    V = Resolve(V);
  for (Value *&V : AtExit)
    V = Resolve(V);
  for (auto &[L, V] : Repl)
    L->replaceAllUsesWith(V == L ? static_cast<Value *>(PoisonValue::get(I64)) : V);
  for (size_t K = 0; K < Exits.size(); ++K) {
    auto *St = new StoreInst(AtExit[K], Ptr, false, Align(8),
                             Exits[K]->getFirstInsertionPt());
    (void)St;
  }
  for (Instruction *A : Accesses)
    A->eraseFromParent();
}

// Counter promotion in F (after fm_instrument_function, non-atomic counters of Data): in a
// loop that nothing inside can leave except through its exits, and where nothing can see the
// counters (no calls but harmless intrinsics: see harmlessInPromotedLoop), a counter is loaded
// once before the loop, kept in an SSA value, and stored once at each exit, as LLVM's own
// instrumentation does. Loops are visited innermost first, so a counter ends up in the
// outermost such loop (an inner loop's write-back becomes the outer loop's update). A counter
// moves into a loop only if the static estimate runs its updates more often than the loop is
// entered, and only while the loop has registers for it (hottest first): its values
// (`Pressure`), those of the callers F will be inlined into (`Inlined`) and the counters
// already held through its blocks must stay within registerBudget. Loops without a preheader
// get one, exits are made dedicated; a loop with more than PromoteMaxExits exits, none, or
// exits that cannot be split is left alone. Functions that call setjmp are left alone.
// Returns the number of (loop, counter) promotions and adds the number of loops that got at
// least one to *Loops.
uint64_t promoteInFunction(Function *F, GlobalVariable *Data, const RegisterPressure &Pressure,
                           unsigned Inlined, TargetMachine *TM, uint64_t *Loops) {
  const DataLayout &DL = F->getParent()->getDataLayout();

  // Blocks whose loops cannot be promoted, and the frequency of each counter word's updates.
  DenseSet<BasicBlock *> Bad;
  std::map<int64_t, std::vector<BasicBlock *>> WordBlocks;
  for (BasicBlock &BB : *F)
    for (Instruction &I : BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->hasFnAttr(Attribute::ReturnsTwice))
          return 0;
        if (!harmlessInPromotedLoop(*CB))
          Bad.insert(&BB);
      }
      int64_t Off = 0;
      switch (dataUse(I, Data, DL, Off)) {
      case DataUse::Counter:
        WordBlocks[Off].push_back(&BB);
        break;
      case DataUse::Other:
        Bad.insert(&BB);
        break;
      case DataUse::None:
        break;
      }
    }
  if (WordBlocks.empty())
    return 0;
  DominatorTree DT(*F);
  LoopInfo LI(DT);
  if (LI.empty())
    return 0;
  SmallVector<Loop *, 8> Order = LI.getLoopsInPreorder();
  std::reverse(Order.begin(), Order.end()); // inner loops before the loops around them
  DenseSet<Loop *> Unsafe;
  for (Loop *L : Order)
    for (BasicBlock *BB : L->blocks())
      if (Bad.contains(BB)) {
        Unsafe.insert(L);
        break;
      }
  if (Unsafe.size() == Order.size())
    return 0;
  // Static frequencies, taken before anything changes: how often each loop is entered, and
  // how often each word is updated (after a promotion: as often as that loop is entered).
  DenseMap<Loop *, double> Entered;
  std::map<int64_t, double> WordFreq;
  {
    PostDominatorTree PDT(*F);
    TargetLibraryInfoImpl TLII(F->getParent()->getTargetTriple());
    TargetLibraryInfo TLI(TLII);
    BranchProbabilityInfo BPI(*F, LI, &TLI, &DT, &PDT);
    BlockFrequencyInfo BFI(*F, BPI, LI);
    auto Freq = [&](BasicBlock *BB) {
      return static_cast<double>(BFI.getBlockFreq(BB).getFrequency());
    };
    for (Loop *L : Order) {
      double E = 0;
      for (BasicBlock *P : predecessors(L->getHeader()))
        if (!L->contains(P)) {
          BranchProbability Pr = BPI.getEdgeProbability(P, L->getHeader());
          E += Freq(P) * static_cast<double>(Pr.getNumerator()) /
               static_cast<double>(Pr.getDenominator());
        }
      Entered[L] = E;
    }
    for (auto &[Off, Blocks] : WordBlocks) {
      double Max = 0;
      for (BasicBlock *BB : Blocks)
        Max = std::max(Max, Freq(BB));
      WordFreq[Off] = Max;
    }
  }
  // The words kept in registers through each block by the loops promoted so far (an outer
  // loop's counter is live through its inner loops too).
  const unsigned Budget = registerBudget(*F, TM);
  DenseMap<BasicBlock *, std::set<int64_t>> Held;
  // Whether L's blocks have room for the words of `Take` besides their own values and the
  // words held there already.
  auto Fits = [&](Loop *L, ArrayRef<int64_t> Take) {
    return all_of(L->blocks(), [&](BasicBlock *BB) {
      auto It = Held.find(BB);
      size_t Live = Pressure.in(BB) + Inlined;
      for (int64_t W : Take)
        Live += It == Held.end() || !It->second.count(W);
      if (It != Held.end())
        Live += It->second.size();
      return Live <= Budget;
    });
  };
  uint64_t Promoted = 0;
  for (Loop *L : Order) {
    if (Unsafe.contains(L) || L->getHeader()->isEHPad())
      continue;
    SmallVector<BasicBlock *, 8> Exits;
    L->getUniqueExitBlocks(Exits);
    if (Exits.empty() || Exits.size() > PromoteMaxExits)
      continue;
    if (any_of(Exits, [](BasicBlock *E) { return E->isEHPad(); }))
      continue;
    // The counters worth keeping in registers here: updated more often than the loop is
    // entered, the hottest first.
    auto Gather = [&]() {
      std::map<int64_t, SmallVector<Instruction *, 4>> Acc;
      for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
          int64_t Off = 0;
          if (dataUse(I, Data, DL, Off) == DataUse::Counter)
            Acc[Off].push_back(&I);
        }
      return Acc;
    };
    std::vector<int64_t> Hot;
    for (auto &[Off, Insts] : Gather())
      if (WordFreq[Off] > Entered[L])
        Hot.push_back(Off);
    std::stable_sort(Hot.begin(), Hot.end(),
                     [&](int64_t A, int64_t B) { return WordFreq[A] > WordFreq[B]; });
    // The hottest that the loop has registers for.
    SmallVector<int64_t, 8> Words;
    for (int64_t W : Hot) {
      if (Words.size() == PromoteMaxCountersPerLoop)
        break;
      Words.push_back(W);
      if (!Fits(L, Words))
        Words.pop_back();
    }
    if (Words.empty())
      continue;
    BasicBlock *Preheader = L->getLoopPreheader();
    if (!Preheader)
      Preheader = InsertPreheaderForLoop(L, &DT, &LI, nullptr, false);
    // The load goes just before the preheader's terminator, which must not be a call
    // (asm goto).
    if (!Preheader || isa<CallBase>(Preheader->getTerminator()))
      continue;
    if (!L->hasDedicatedExits())
      formDedicatedExitBlocks(L, &DT, &LI, nullptr, false);
    if (!L->hasDedicatedExits())
      continue;
    Exits.clear();
    L->getUniqueExitBlocks(Exits);
    auto Acc = Gather();
    for (int64_t Off : Words) {
      promoteWord(Preheader, Exits, Acc[Off]);
      WordFreq[Off] = Entered[L];
      for (BasicBlock *BB : L->blocks())
        Held[BB].insert(Off);
      ++Promoted;
    }
    ++*Loops;
  }
  return Promoted;
}

} // namespace

extern "C" {

// Counter promotion (promoteInFunction) in every function of M that has counters of
// `__fmerge_prof_data`; only for non-atomic counters. TMRef: a target machine for M's triple
// (its registers and inlining costs), or null. Returns the (loop, counter) promotions; *Loops
// gets the number of loops that keep a counter in a register.
uint64_t fm_promote_counters(LLVMModuleRef MRef, LLVMTargetMachineRef TMRef, uint64_t *Loops) {
  Module *M = unwrap(MRef);
  auto *TM = reinterpret_cast<TargetMachine *>(TMRef);
  *Loops = 0;
  GlobalVariable *Data = M->getNamedGlobal("__fmerge_prof_data");
  if (!Data)
    return 0;
  // Liveness of every function before any change: a function's loops share registers with
  // its own values and with those of the callers it will be inlined into.
  std::map<const Function *, RegisterPressure> Pressure;
  for (Function &F : *M)
    if (!F.isDeclaration())
      Pressure.try_emplace(&F, F);
  DenseMap<const Function *, unsigned> Inlined = inliningPressure(*M, TM, Pressure);
  uint64_t Promoted = 0;
  for (Function &F : *M)
    if (!F.isDeclaration())
      Promoted += promoteInFunction(&F, Data, Pressure.at(&F), Inlined.lookup(&F), TM, Loops);
  return Promoted;
}

} // extern "C"

namespace {

// The signals the runtime writes a record on (with OnSignals): those whose default action
// ends the process and that a program may get in normal use (HUP INT QUIT ILL TRAP ABRT FPE PIPE
// ALRM TERM XCPU XFSZ), with Linux's numbers on the architectures below. Not SIGSEGV and
// SIGBUS: language runtimes install their own handlers for those only over the default
// disposition (Rust's report of a stack overflow), which ours would hide from them.
constexpr int WrittenOnSignal[] = {1, 2, 3, 4, 5, 6, 8, 13, 14, 15, 24, 25};

// Whether T's C library lays out `struct sigaction` as {handler, sigset_t (128 bytes), int
// flags, restorer} and numbers signals and SA_* flags as Linux's generic ABI does: glibc and musl
// on these architectures (not Android's bionic, not MIPS, SPARC, PowerPC or s390).
bool genericLinuxSignals(const Triple &T) {
  if (!T.isOSLinux() || T.isAndroid())
    return false;
  switch (T.getArch()) {
  case Triple::x86:
  case Triple::x86_64:
  case Triple::arm:
  case Triple::armeb:
  case Triple::thumb:
  case Triple::thumbeb:
  case Triple::aarch64:
  case Triple::aarch64_be:
  case Triple::riscv32:
  case Triple::riscv64:
  case Triple::loongarch64:
    return true;
  default:
    return false;
  }
}

} // namespace

extern "C" {

// The runtime, generated into the module (Linux: the open() flags below are Linux's on every
// architecture LLVM targets there).
//
// A constructor (priority 0, before the program's own) notes the start time and the file
// named by $FMERGE_PROFILE_FILE (default `fmerge.profraw`). A destructor (run by exit() and by
// returning from main, after atexit handlers) appends the whole data block, header and
// counters, to that file with one write(2) on an O_APPEND descriptor, so that the records of
// processes running at the same time do not interleave. A forked child writes its own record,
// which includes what ran before the fork: each record is the whole history of one process,
// so its counts are consistent on their own. A process that calls _exit() writes nothing.
//
// With OnSignals, a process ended by one of the WrittenOnSignal signals writes its record too,
// marked with the signal: the constructor installs a handler for each signal whose disposition
// is still the default (one ignored or handled when the program starts stays so). The handler
// is shared by every instrumented module of the process (`__fmerge_prof_on_signal`, linkonce:
// one copy after linking; each module's constructor registers its writer in a shared table);
// it writes each module's record, then raises the signal again, which the handler's one-shot
// disposition (SA_RESETHAND) turns into the default action: the process ends as it would
// have, with the same status. A record is written once per process (a flag, exchanged
// atomically). The record of a run ended by a signal stops mid-run: the functions on the stack
// did not finish, and counters kept in registers through a loop (counter promotion) miss the
// loop's last pass; `fmerge profile merge` says which functions it had to count without such
// runs. The handlers are visible to the program (a program that asks whether SIGINT is at its
// default, as CPython does before installing its KeyboardInterrupt handler, gets "no"): that
// is why they are an option. Returns 0, or -1 if OnSignals is asked for a target whose signal
// ABI is not one genericLinuxSignals knows (nothing is added then).
int fm_profile_runtime(LLVMModuleRef MRef, LLVMValueRef DataRef, uint64_t EndWord,
                       int OnSignals) {
  Module *M = unwrap(MRef);
  if (OnSignals && !genericLinuxSignals(Triple(M->getTargetTriple())))
    return -1;
  auto *Data = cast<GlobalVariable>(unwrap(DataRef));
  LLVMContext &C = M->getContext();
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  Type *Void = Type::getVoidTy(C);
  const DataLayout &DL = M->getDataLayout();
  uint64_t Size = DL.getTypeAllocSize(Data->getValueType());
  StructType *TimespecTy = StructType::get(C, {I64, I64});
  auto Word = [&](IRBuilder<> &B, uint64_t K) {
    return B.CreateConstInBoundsGEP2_64(Data->getValueType(), Data, 0, K);
  };

  auto *Start = new GlobalVariable(*M, I64, false, GlobalValue::InternalLinkage,
                                   ConstantInt::get(I64, 0), "__fmerge_prof_start");
  auto *Path = new GlobalVariable(*M, Ptr, false, GlobalValue::InternalLinkage,
                                  ConstantPointerNull::get(Ptr), "__fmerge_prof_path");
  auto *Written = new GlobalVariable(*M, I32, false, GlobalValue::InternalLinkage,
                                     ConstantInt::get(I32, 0), "__fmerge_prof_written");
  FunctionCallee ClockGettime =
      M->getOrInsertFunction("clock_gettime", FunctionType::get(I32, {I32, Ptr}, false));
  auto Clock = [&](IRBuilder<> &B, int Id) {
    Value *TS = B.CreateAlloca(TimespecTy);
    B.CreateCall(ClockGettime, {ConstantInt::get(I32, Id), TS});
    Value *Sec = B.CreateLoad(I64, B.CreateStructGEP(TimespecTy, TS, 0));
    Value *Nsec = B.CreateLoad(I64, B.CreateStructGEP(TimespecTy, TS, 1));
    return B.CreateAdd(B.CreateMul(Sec, ConstantInt::get(I64, 1000000000)), Nsec);
  };
  auto Now = [&](IRBuilder<> &B) { return Clock(B, 1 /* CLOCK_MONOTONIC */); };
  auto NewFn = [&](const char *Name, FunctionType *Ty,
                   GlobalValue::LinkageTypes Linkage = GlobalValue::InternalLinkage) {
    Function *Fn = Function::Create(Ty, Linkage, Name, M);
    Fn->addFnAttr(Attribute::NoUnwind);
    Fn->addFnAttr(Attribute::NoInline);
    return Fn;
  };
  FunctionType *VoidFnTy = FunctionType::get(Void, false);

  // __fmerge_prof_write_end(End): the record, written once per process.
  Function *WriteEnd = NewFn("__fmerge_prof_write_end", FunctionType::get(Void, {I64}, false));
  {
    BasicBlock *Entry = BasicBlock::Create(C, "entry", WriteEnd);
    BasicBlock *First = BasicBlock::Create(C, "first", WriteEnd);
    BasicBlock *Write = BasicBlock::Create(C, "write", WriteEnd);
    BasicBlock *Done = BasicBlock::Create(C, "done", WriteEnd);
    IRBuilder<> B(Entry);
    Value *Was = B.CreateAtomicRMW(AtomicRMWInst::Xchg, Written, ConstantInt::get(I32, 1),
                                   Align(4), AtomicOrdering::SequentiallyConsistent);
    B.CreateCondBr(B.CreateIsNull(Was), First, Done);
    B.SetInsertPoint(First);
    B.CreateStore(B.CreateSub(Now(B), B.CreateLoad(I64, Start)), Word(B, 3));
    B.CreateStore(Clock(B, 2 /* CLOCK_PROCESS_CPUTIME_ID */), Word(B, 5));
    B.CreateStore(WriteEnd->getArg(0), Word(B, EndWord));
    FunctionCallee OpenFn =
        M->getOrInsertFunction("open", FunctionType::get(I32, {Ptr, I32}, true));
    // O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode 0644
    Value *Fd = B.CreateCall(OpenFn, {B.CreateLoad(Ptr, Path),
                                      ConstantInt::get(I32, 0x1 | 0x40 | 0x400 | 0x80000),
                                      ConstantInt::get(I32, 0644)});
    B.CreateCondBr(B.CreateICmpSLT(Fd, ConstantInt::get(I32, 0)), Done, Write);
    B.SetInsertPoint(Write);
    FunctionCallee WriteFn =
        M->getOrInsertFunction("write", FunctionType::get(I64, {I32, Ptr, I64}, false));
    B.CreateCall(WriteFn, {Fd, Data, ConstantInt::get(I64, Size)});
    FunctionCallee CloseFn =
        M->getOrInsertFunction("close", FunctionType::get(I32, {I32}, false));
    B.CreateCall(CloseFn, {Fd});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  }

  Function *Ctor = NewFn("__fmerge_prof_init", VoidFnTy);
  {
    BasicBlock *Entry = BasicBlock::Create(C, "entry", Ctor);
    BasicBlock *Default = BasicBlock::Create(C, "default", Ctor);
    BasicBlock *Named = BasicBlock::Create(C, "named", Ctor);
    IRBuilder<> B(Entry);
    B.CreateStore(Now(B), Start);
    FunctionCallee Getenv =
        M->getOrInsertFunction("getenv", FunctionType::get(Ptr, {Ptr}, false));
    Value *Env = B.CreateCall(Getenv, {B.CreateGlobalString("FMERGE_PROFILE_FILE")});
    B.CreateCondBr(B.CreateIsNull(Env), Default, Named);
    B.SetInsertPoint(Default);
    Value *Fallback = B.CreateGlobalString("fmerge.profraw");
    B.CreateBr(Named);
    B.SetInsertPoint(Named);
    PHINode *P = B.CreatePHI(Ptr, 2);
    P->addIncoming(Env, Entry);
    P->addIncoming(Fallback, Default);
    B.CreateStore(P, Path);
    if (OnSignals) {
      // The table every module's writer joins, and the handler that calls them.
      constexpr uint64_t MaxWriters = 64;
      ArrayType *TableTy = ArrayType::get(Ptr, MaxWriters);
      auto Shared = [&](const char *Name, Type *Ty) {
        auto *G = cast<GlobalVariable>(M->getOrInsertGlobal(Name, Ty));
        G->setLinkage(GlobalValue::LinkOnceAnyLinkage);
        G->setInitializer(Constant::getNullValue(Ty));
        return G;
      };
      GlobalVariable *Table = Shared("__fmerge_prof_writers", TableTy);
      GlobalVariable *Count = Shared("__fmerge_prof_nwriters", I32);
      Function *Handler = M->getFunction("__fmerge_prof_on_signal");
      if (!Handler) {
        Handler = NewFn("__fmerge_prof_on_signal", FunctionType::get(Void, {I32}, false),
                        GlobalValue::LinkOnceAnyLinkage);
        BasicBlock *HEntry = BasicBlock::Create(C, "entry", Handler);
        BasicBlock *Loop = BasicBlock::Create(C, "loop", Handler);
        BasicBlock *Call = BasicBlock::Create(C, "call", Handler);
        BasicBlock *Next = BasicBlock::Create(C, "next", Handler);
        BasicBlock *Raise = BasicBlock::Create(C, "raise", Handler);
        IRBuilder<> H(HEntry);
        LoadInst *N = H.CreateAlignedLoad(I32, Count, Align(4));
        N->setAtomic(AtomicOrdering::SequentiallyConsistent);
        Value *Limit = H.CreateZExt(
            H.CreateSelect(H.CreateICmpULT(N, ConstantInt::get(I32, MaxWriters)), N,
                           ConstantInt::get(I32, MaxWriters)),
            I64);
        Value *End = H.CreateZExt(Handler->getArg(0), I64);
        H.CreateBr(Loop);
        H.SetInsertPoint(Loop);
        PHINode *I = H.CreatePHI(I64, 2);
        I->addIncoming(ConstantInt::get(I64, 0), HEntry);
        H.CreateCondBr(H.CreateICmpULT(I, Limit), Call, Raise);
        H.SetInsertPoint(Call);
        Value *Fn = H.CreateLoad(Ptr, H.CreateInBoundsGEP(TableTy, Table,
                                                          {ConstantInt::get(I64, 0), I}));
        BasicBlock *Invoke = BasicBlock::Create(C, "invoke", Handler, Next);
        H.CreateCondBr(H.CreateIsNull(Fn), Next, Invoke);
        H.SetInsertPoint(Invoke);
        H.CreateCall(FunctionType::get(Void, {I64}, false), Fn, {End});
        H.CreateBr(Next);
        H.SetInsertPoint(Next);
        I->addIncoming(H.CreateAdd(I, ConstantInt::get(I64, 1)), Next);
        H.CreateBr(Loop);
        H.SetInsertPoint(Raise);
        FunctionCallee RaiseFn =
            M->getOrInsertFunction("raise", FunctionType::get(I32, {I32}, false));
        H.CreateCall(RaiseFn, {Handler->getArg(0)});
        H.CreateRetVoid();
      }
      // Joins the table.
      Value *Slot = B.CreateAtomicRMW(AtomicRMWInst::Add, Count, ConstantInt::get(I32, 1),
                                      Align(4), AtomicOrdering::SequentiallyConsistent);
      BasicBlock *Join = BasicBlock::Create(C, "join", Ctor);
      BasicBlock *Install = BasicBlock::Create(C, "install", Ctor);
      B.CreateCondBr(B.CreateICmpULT(Slot, ConstantInt::get(I32, MaxWriters)), Join, Install);
      B.SetInsertPoint(Join);
      B.CreateStore(WriteEnd, B.CreateInBoundsGEP(TableTy, Table,
                                                  {ConstantInt::get(I64, 0),
                                                   B.CreateZExt(Slot, I64)}));
      B.CreateBr(Install);
      // struct sigaction {handler, sigset_t mask (empty), int flags, restorer}, one-shot and
      // not blocking the signal, so that raising it again in the handler takes the default
      // action at once.
      B.SetInsertPoint(Install);
      StructType *ActTy = StructType::get(C, {Ptr, ArrayType::get(I32, 32), I32, Ptr});
      constexpr uint32_t SaNodefer = 0x40000000u, SaResethand = 0x80000000u;
      auto *Act = new GlobalVariable(
          *M, ActTy, true, GlobalValue::PrivateLinkage,
          ConstantStruct::get(ActTy, {Handler, Constant::getNullValue(ActTy->getElementType(1)),
                                      ConstantInt::get(I32, SaNodefer | SaResethand),
                                      ConstantPointerNull::get(Ptr)}),
          "__fmerge_prof_sigaction");
      FunctionCallee Sigaction = M->getOrInsertFunction(
          "sigaction", FunctionType::get(I32, {I32, Ptr, Ptr}, false));
      Value *Old = B.CreateAlloca(ArrayType::get(I64, 64)); // larger than any sigaction
      for (int Sig : WrittenOnSignal) {
        BasicBlock *Set = BasicBlock::Create(C, "set", Ctor);
        BasicBlock *After = BasicBlock::Create(C, "after", Ctor);
        B.CreateCall(Sigaction, {ConstantInt::get(I32, Sig), ConstantPointerNull::get(Ptr), Old});
        B.CreateCondBr(B.CreateIsNull(B.CreateLoad(Ptr, Old)), Set, After); // SIG_DFL
        B.SetInsertPoint(Set);
        B.CreateCall(Sigaction, {ConstantInt::get(I32, Sig), Act, ConstantPointerNull::get(Ptr)});
        B.CreateBr(After);
        B.SetInsertPoint(After);
      }
    }
    B.CreateRetVoid();
  }
  Function *Dtor = NewFn("__fmerge_prof_write", VoidFnTy);
  {
    IRBuilder<> B(BasicBlock::Create(C, "entry", Dtor));
    B.CreateCall(WriteEnd, {ConstantInt::get(I64, 0)});
    B.CreateRetVoid();
  }
  appendToGlobalCtors(*M, Ctor, 0);
  appendToGlobalDtors(*M, Dtor, 0);
  return 0;
}

// After counters were added: no function of M may still claim it does not write memory. A
// function that LLVM had found pure (`memory(none)`, `memory(read)`, `speculatable`) now
// writes the counters, and an optimizer trusting the old claim would keep a counter in a
// register across a call of it (and lose counts). Call sites carry the same claims: they go
// too, on every call of a function defined here or of an unknown (indirect) callee.
void fm_forget_memory_effects(LLVMModuleRef MRef) {
  Module *M = unwrap(MRef);
  for (Function &F : *M) {
    if (F.isDeclaration())
      continue;
    F.removeFnAttr(Attribute::Memory);
    F.removeFnAttr(Attribute::Speculatable);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I)) {
          Function *Callee = CB->getCalledFunction();
          if (!Callee || !Callee->isDeclaration()) {
            CB->removeFnAttr(Attribute::Memory);
            CB->removeFnAttr(Attribute::Speculatable);
          }
        }
  }
}

// After counters were added: tells alias analysis that the program's own loads, stores and
// memory intrinsics never touch the counters (the program cannot name the internal counters
// global), so that the optimizer may keep a counter in a register through a loop that makes no
// call, as LLVM's own instrumentation arranges for its counters. Counter accesses get
// `!alias.scope` of one scope, every other load, store and memory intrinsic `!noalias` of it.
// Calls get nothing: a call can run instrumented code.
void fm_isolate_counters(LLVMModuleRef MRef, LLVMValueRef DataRef) {
  Module *M = unwrap(MRef);
  auto *Data = cast<GlobalVariable>(unwrap(DataRef));
  MDBuilder MDB(M->getContext());
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("fmerge counters");
  MDNode *Scope = MDB.createAnonymousAliasScope(Domain, "fmerge counters");
  MDNode *List = MDNode::get(M->getContext(), {Scope});
  auto IsCounter = [&](Value *Ptr) {
    return Ptr->stripInBoundsConstantOffsets() == Data;
  };
  for (Function &F : *M) {
    if (F.isDeclaration())
      continue;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        Value *Ptr = nullptr;
        if (auto *L = dyn_cast<LoadInst>(&I))
          Ptr = L->getPointerOperand();
        else if (auto *St = dyn_cast<StoreInst>(&I))
          Ptr = St->getPointerOperand();
        else if (auto *A = dyn_cast<AtomicRMWInst>(&I))
          Ptr = A->getPointerOperand();
        else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
          Ptr = X->getPointerOperand();
        else if (!isa<MemIntrinsic>(&I))
          continue;
        if (Ptr && IsCounter(Ptr)) {
          I.setMetadata(LLVMContext::MD_alias_scope, List);
        } else {
          MDNode *Old = I.getMetadata(LLVMContext::MD_noalias);
          I.setMetadata(LLVMContext::MD_noalias, Old ? MDNode::concatenate(Old, List) : List);
        }
      }
  }
}

// LLVM's name of an instruction's opcode ("add", "load", ...): a static string.
const char *fm_opcode_name(LLVMValueRef I) { return unwrap<Instruction>(I)->getOpcodeName(); }

// Attaches a profile to Fn: its entry count and, on every terminator with two or more
// successors, branch weights (one per successor slot, blocks in order, `EdgeCounts` has one
// count per slot of every block). Weights are clamped to 32 bits as LLVM's PGO does, scaled
// together so their ratios survive.
void fm_set_function_profile(LLVMValueRef Fn, uint64_t Entry, const uint64_t *EdgeCounts,
                             size_t NEdges) {
  Function *F = unwrap<Function>(Fn);
  F->setEntryCount(Function::ProfileCount(Entry, Function::PCT_Real));
  MDBuilder MDB(F->getContext());
  size_t K = 0;
  for (BasicBlock &BB : *F) {
    Instruction *T = BB.getTerminator();
    unsigned N = T->getNumSuccessors();
    if (K + N > NEdges)
      return;
    if (N >= 2 && !isa<CallBrInst>(T)) {
      uint64_t Max = 0;
      for (unsigned S = 0; S < N; ++S)
        Max = std::max(Max, EdgeCounts[K + S]);
      uint64_t Scale = Max > UINT32_MAX ? Max / UINT32_MAX + 1 : 1;
      SmallVector<uint32_t, 4> W;
      for (unsigned S = 0; S < N; ++S)
        W.push_back(static_cast<uint32_t>(EdgeCounts[K + S] / Scale));
      if (Max > 0)
        T->setMetadata(LLVMContext::MD_prof, MDB.createBranchWeights(W));
    }
    K += N;
  }
}

// Sets the module's profile summary from all counts a profile gave (entry counts and block
// counts), as LLVM's instrumentation PGO computes it, so that LLVM (and fmerge's hot cut) can
// tell hot from cold.
void fm_set_profile_summary(LLVMModuleRef MRef, const uint64_t *Entries, size_t NEntries,
                            const uint64_t *Counts, size_t NCounts) {
  Module *M = unwrap(MRef);
  InstrProfSummaryBuilder Builder(ProfileSummaryBuilder::DefaultCutoffs);
  for (size_t I = 0; I < NEntries; ++I)
    Builder.addEntryCount(Entries[I]);
  for (size_t I = 0; I < NCounts; ++I)
    Builder.addInternalCount(Counts[I]);
  std::unique_ptr<ProfileSummary> PS = Builder.getSummary();
  M->setProfileSummary(PS->getMD(M->getContext()), ProfileSummary::PSK_Instr);
}

} // extern "C"
