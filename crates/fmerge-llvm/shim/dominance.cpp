// Dominance repair of merged bodies.
//
// What. `fm_repair_dominance` makes every use in a function dominated by its definition again
// after a merged body was stitched together from two functions' paths.
//
// Why. A value defined on one function's path and used after the paths join is not dominated
// by its definition; the verifier rejects such a body. LLVM has no single utility for it.
//
// How. Demote each such value to a stack slot and promote the slots back to SSA form
// (PromoteMemToReg inserts the phis the joins need), after predicting the number of phis from
// the iterated dominance frontier so that a repair that would blow the body up is refused
// before anything changes.

#include "shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/IteratedDominanceFrontier.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <cstddef>

using namespace llvm;

// How many phis promoting `I` would place once it is demoted to a stack slot: the blocks of the
// iterated dominance frontier of its definition where it is live on entry (what
// `PromoteMemToReg` computes for the slot, which is stored in `I`'s block only).
static size_t predictedPhis(DominatorTree &DT, Instruction *I) {
  BasicBlock *DefBB = I->getParent();
  SmallPtrSet<BasicBlock *, 32> LiveIn;
  SmallVector<BasicBlock *, 32> Work;
  for (Use &U : I->uses()) {
    auto *User = cast<Instruction>(U.getUser());
    BasicBlock *B = User->getParent();
    if (auto *Phi = dyn_cast<PHINode>(User))
      B = Phi->getIncomingBlock(U);
    else if (B == DefBB && I->comesBefore(User))
      continue; // reads the value stored just before it in the same block
    if (B == DefBB && isa<PHINode>(User))
      continue; // the incoming value leaves the block after the store
    Work.push_back(B);
  }
  while (!Work.empty()) {
    BasicBlock *B = Work.pop_back_val();
    if (!LiveIn.insert(B).second)
      continue;
    for (BasicBlock *P : predecessors(B))
      if (P != DefBB && !LiveIn.count(P))
        Work.push_back(P);
  }
  SmallPtrSet<BasicBlock *, 1> Defs;
  Defs.insert(DefBB);
  ForwardIDFCalculator IDF(DT);
  IDF.setDefiningBlocks(Defs);
  IDF.setLiveInBlocks(LiveIn);
  SmallVector<BasicBlock *, 32> PhiBlocks;
  IDF.calculate(PhiBlocks);
  return PhiBlocks.size();
}

extern "C" {

// Makes every use in `Fn` dominated by its definition again, after a merged body was stitched
// together: a value defined on one function's path and used after the paths join is demoted
// to a stack slot (stored where it is defined, loaded where it is used) and the slots are
// promoted back to SSA form, which inserts the phis the join needs. On the other function's
// path such a value is undefined, but only ever reaches a `select` on the function identifier
// that picks the other operand. Returns the number of values repaired, or -1 when a value
// cannot be repaired this way (an `invoke` result, whose uses in its own normal destination's
// phis would read the slot before the store), -2 when the repair would be too costly (more than
// MaxRepairs + size/16 values, more phis predicted than the body has instructions plus 64, or
// a body more than twice as large). Erases only instructions
// it created itself; on -2 the body may be left half repaired (callers discard it).
int fm_repair_dominance(LLVMValueRef FnRef, unsigned MaxRepairs) {
  Function *F = unwrap<Function>(FnRef);
  DominatorTree DT(*F);
  SmallVector<Instruction *, 16> Bad;
  for (BasicBlock &BB : *F) {
    if (!DT.isReachableFromEntry(&BB))
      continue;
    for (Instruction &I : BB) {
      for (Use &U : I.uses()) {
        auto *User = dyn_cast<Instruction>(U.getUser());
        if (!User)
          continue;
        BasicBlock *UseBB = User->getParent();
        if (auto *Phi = dyn_cast<PHINode>(User))
          UseBB = Phi->getIncomingBlock(U);
        if (!DT.isReachableFromEntry(UseBB))
          continue;
        if (!DT.dominates(&I, U)) {
          Bad.push_back(&I);
          break;
        }
      }
    }
  }
  for (Instruction *I : Bad)
    if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || I->isEHPad() || I->getType()->isTokenTy())
      return -1;
  // Every repaired value becomes a web of phis across the joins between its definition and its
  // uses. Past a point that costs more code (and far more compile time) than merging saves:
  // give up early when many values need it, or when the phis more than double the body.
  size_t Before = fmshim::instructionCount(*F);
  if (Bad.size() > MaxRepairs + Before / 16)
    return -2;
  // Predict the phis before changing anything: demoting and promoting is the expensive part
  // (tokei: 47 bodies grew 2-20 times, 0.6 s of promotion thrown away), and the prediction
  // matched the real count on every body measured (560 of them on tokei).
  // Only the verdict (more than Limit phis or not) matters, so the prediction stops as soon as
  // it is known: when the phis so far exceed the limit, or when the values left could not
  // exceed it even if each put a phi in every join (a phi only ever goes in a block with two
  // or more predecessors). Most repairs concern a few values and never predict at all.
  const size_t Limit = Before + 64;
  size_t Joins = 0;
  for (BasicBlock &BB : *F)
    if (BB.hasNPredecessorsOrMore(2))
      ++Joins;
  size_t Phis = 0;
  for (size_t K = 0; K < Bad.size(); ++K) {
    if (Phis + (Bad.size() - K) * Joins <= Limit)
      break;
    Phis += predictedPhis(DT, Bad[K]);
    if (Phis > Limit)
      return -2;
  }
  SmallVector<AllocaInst *, 16> Slots;
  BasicBlock::iterator Where = F->getEntryBlock().getFirstInsertionPt();
  for (Instruction *I : Bad)
    Slots.push_back(DemoteRegToStack(*I, false, Where));
  SmallVector<AllocaInst *, 16> Promotable;
  for (AllocaInst *A : Slots)
    if (A && isAllocaPromotable(A))
      Promotable.push_back(A);
  if (Promotable.size() != Slots.size())
    return -1;
  if (!Promotable.empty()) {
    DominatorTree DT2(*F);
    PromoteMemToReg(Promotable, DT2);
  }
  if (fmshim::instructionCount(*F) > 2 * Before + 64)
    return -2;
  return (int)Bad.size();
}

} // extern "C"
