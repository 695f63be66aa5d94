// Edge profiling, step 3: counter promotion, counters kept in registers through loops.
//
// What. `fm_promote_counters`: in every loop that nothing inside can leave except through its
// exits and where nothing can see the counters, the hottest counters (as many as the loop has
// registers for: pressure.h) are loaded once before the loop, kept in SSA values and stored at
// each exit, as LLVM's own instrumentation does.
//
// Why. A counter updated in memory on every pass of a hot loop is the largest part of the
// instrumentation's overhead; kept in a register it costs next to nothing, and the counts stay
// exact because the counters are written only at exit() or the return from main, which cannot
// happen inside such a loop (only calls of harmless intrinsics are allowed in it).
//
// How. Loops innermost first (a counter ends up in the outermost such loop); LLVM's
// LoopInfo, preheader and dedicated-exit utilities and SSAUpdater; the static block frequency
// estimate decides which counters are worth it.

#include "../shim.h"
#include "pressure.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace llvm;
using fmshim::inliningPressure;
using fmshim::registerBudget;
using fmshim::RegisterPressure;

namespace {

// Counter promotion (fm_promote_counters). Limits as LLVM's own instrprof lowering has them:
// a loop with more exits than this would need a write-back in each, and a loop keeps at most
// this many counters in registers (the hottest by the static estimate).
constexpr unsigned PromoteMaxExits = 10;
constexpr unsigned PromoteMaxCountersPerLoop = 20;

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
