// Counter promotion's register budget (see pressure.h for the why).
//
// What. registerBudget: how many values a loop may keep live; RegisterPressure: the values a
// function keeps live at once, per block and across each call, from SSA liveness;
// inliningPressure: for each function, the values of a caller live around a call that LLVM's
// inliner would inline.
//
// How. IR values are not registers: a comparison feeding a branch lives in the flags, address
// arithmetic folds into addressing modes, the register allocator splits the live ranges of
// values a loop does not use around it. So the room is counted against twice the target's
// registers. On the corpus (callgrind, x86-64: 16 registers), loops whose pressure stayed
// under about 32 gained from promotion (zstd's ZSTD_RowFindBestMatch at 17 to 19, bzip2's
// BZ2_compressBlock at 24 to 30) and loops above it lost (zstd's lazy match finders at 43 to
// 51, BZ2_decompress at 52 to 62).

#include "pressure.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>
#include <vector>

namespace fmshim {

namespace {

// Values a loop may keep live per register of the target (see the file header).
constexpr unsigned ValuesPerRegister = 2;

// Without a target machine (a triple LLVM was built without): x86-64's 16 integer registers,
// fewer than the other 64-bit targets have.
constexpr unsigned FallbackRegisters = 16;

} // namespace

// The most values a loop of F may keep live, counters included: ValuesPerRegister times the
// integer registers of F's target and subtarget, as LLVM's cost model counts them.
unsigned registerBudget(Function &F, TargetMachine *TM) {
  if (!TM)
    return ValuesPerRegister * FallbackRegisters;
  TargetTransformInfo TTI = TM->getTargetTransformInfo(F);
  return ValuesPerRegister * TTI.getNumberOfRegisters(TTI.getRegisterClassForType(false));
}

RegisterPressure::RegisterPressure(Function &F) {
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

bool RegisterPressure::inRegister(const Value &V) {
  if (auto *AI = dyn_cast<AllocaInst>(&V); AI && AI->isStaticAlloca())
    return false;
  return V.getType()->isIntegerTy() || V.getType()->isPointerTy();
}

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

} // namespace fmshim
