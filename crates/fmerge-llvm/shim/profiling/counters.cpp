// Edge profiling, step 2: the counters and their updates in the module.
//
// What. The module's profile data global (`fm_profile_data_global`: the record header of
// record.h and the counters), counter updates at the sites the Rust side chose
// (`fm_instrument_function`: before a terminator, at a block's start, or on a split edge), and
// two clean-ups once every counter is in: functions lose claims of not writing memory
// (`fm_forget_memory_effects`) and the program's own memory accesses are marked as never
// touching the counters (`fm_isolate_counters`).
//
// Why. Splitting edges (landing pads included), inserting before a musttail call and setting
// alias scopes are beyond the C API; and without the clean-ups an optimizer could lose counts
// (a "pure" function that now writes counters) or keep every counter in memory.
//
// How. LLVM's SplitCriticalEdge / SplitLandingPadPredecessors, IRBuilder for the updates
// (`atomicrmw add monotonic` with --atomic, else load/add/store), MDBuilder for the scopes.

#include "../shim.h"
#include "record.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <cstdint>
#include <utility>
#include <vector>

using namespace llvm;

extern "C" {

// The profile data of a module: `[H + N x i64]`, internal, named `__fmerge_prof_data`. The
// H header words (`fmerge_core::profiling::files::RAW_HEADER_WORDS`): magic, module id, N, wall-clock
// nanoseconds (filled at exit), work (the work instrumentation's counter), CPU nanoseconds of
// the process (filled at exit), how the run ended (0: exit, else the signal; filled at exit);
// then the N counters (record.h; runtime.c writes it). Returns the global.
LLVMValueRef fm_profile_data_global(LLVMModuleRef MRef, uint64_t Magic, uint64_t ModuleId,
                                    uint64_t H, uint64_t N) {
  Module *M = unwrap(MRef);
  LLVMContext &C = M->getContext();
  Type *I64 = Type::getInt64Ty(C);
  ArrayType *Ty = ArrayType::get(I64, H + N);
  std::vector<Constant *> Words(H + N, ConstantInt::get(I64, 0));
  Words[FMERGE_RAW_MAGIC_WORD] = ConstantInt::get(I64, Magic);
  Words[FMERGE_RAW_MODULE_WORD] = ConstantInt::get(I64, ModuleId);
  Words[FMERGE_RAW_COUNTERS_WORD] = ConstantInt::get(I64, N);
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

} // extern "C"
