// C++ virtual tables as the run-time estimate reads them (`src/profiling/vtables.rs`).
//
// What. A virtual table's function entries by byte offset and the offsets at which pointers
// into it may point (its address points); whether every use of a function's address is an
// entry of such a table; the constant byte offset of a `getelementptr`.
//
// Why. The estimate narrows a virtual call (`obj->vptr[slot]`) to the functions at its slot.
// That needs byte offsets in initializers and constant expressions (the DataLayout's struct
// layouts, GEPOperator's offsets) and use lists through constant aggregates, which the C API
// reaches only one call per operand.
//
// How. Every function answers "cannot tell" (0) when the IR is not in the shape it reads;
// the Rust side then keeps the wider, type-based set of targets.

#include "../shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace llvm;

namespace {

// Every function in `C` (at byte offset `Base`) with its offset; false if `C` holds an
// aggregate this does not read (then a function in it might be missed).
bool flatten(const DataLayout &DL, const Constant *C, uint64_t Base,
             std::vector<std::pair<uint64_t, const Function *>> &Out) {
  if (const auto *F = dyn_cast<Function>(C)) {
    Out.push_back({Base, F});
    return true;
  }
  if (const auto *S = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(S->getType());
    for (unsigned I = 0, N = S->getNumOperands(); I != N; ++I)
      if (!flatten(DL, S->getOperand(I), Base + SL->getElementOffset(I), Out))
        return false;
    return true;
  }
  if (const auto *A = dyn_cast<ConstantArray>(C)) {
    uint64_t Size = DL.getTypeAllocSize(A->getType()->getElementType());
    for (unsigned I = 0, N = A->getNumOperands(); I != N; ++I)
      if (!flatten(DL, A->getOperand(I), Base + I * Size, Out))
        return false;
    return true;
  }
  // Other aggregates (vectors) are not read; every other leaf (null, a pointer made of an
  // integer, a type-info global, a constant expression) is no function entry. A function
  // inside a constant expression is used by that expression, so `fm_vtable_confined` says
  // it escapes.
  return !isa<ConstantAggregate>(C);
}

// Collects the byte offsets at which `V`, a pointer at offset `Off` into a table, is used as
// a pointer value: stored, in another constant's initializer, compared. False on any other
// use (a load from the table, a call argument, arithmetic that is not a constant
// getelementptr, a phi or select): pointers into the table may then point anywhere.
bool addressPoints(const DataLayout &DL, const Value *V, int64_t Off,
                   std::vector<uint64_t> &Out) {
  if (Off < 0)
    return false;
  for (const Use &U : V->uses()) {
    const User *Us = U.getUser();
    if (const auto *GEP = dyn_cast<GEPOperator>(Us)) {
      APInt Delta(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
      if (GEP->getPointerOperand() != V || !GEP->accumulateConstantOffset(DL, Delta) ||
          !addressPoints(DL, GEP, Off + Delta.getSExtValue(), Out))
        return false;
      continue;
    }
    if (const auto *S = dyn_cast<StoreInst>(Us)) {
      if (S->getValueOperand() != V || S->getPointerOperand() == V)
        return false;
    } else if (!isa<ConstantAggregate>(Us) && !isa<GlobalVariable>(Us) && !isa<ICmpInst>(Us)) {
      return false;
    }
    Out.push_back(uint64_t(Off));
  }
  return true;
}

// Whether `U`, a user of a function's address, is (through constant aggregates) only in the
// initializers of the tables in `Tables` (sorted).
bool inTables(const User *U, const std::vector<const Value *> &Tables,
              SmallPtrSet<const User *, 8> &Seen) {
  if (!Seen.insert(U).second)
    return true;
  if (isa<GlobalVariable>(U))
    return std::binary_search(Tables.begin(), Tables.end(), static_cast<const Value *>(U));
  if (!isa<ConstantArray>(U) && !isa<ConstantStruct>(U))
    return false;
  for (const User *Up : U->users())
    if (!inTables(Up, Tables, Seen))
      return false;
  return true;
}

} // namespace

extern "C" {

// Reads `GV` as a virtual table: its function entries (byte offset, function) and its
// address points (the offsets at which the module uses it, and each top-level element's
// first function entry). Fills up to `Cap` entries and `PointCap` points and sets `*NEntries`
// and `*NPoints` to how many there are (the caller calls again with more room if they did
// not fit). 0 if the table cannot be read: no definitive initializer, an aggregate `flatten`
// does not read, a use `addressPoints` does not read.
int fm_vtable_read(LLVMValueRef GV, uint64_t *EntryOffsets, LLVMValueRef *EntryFns, size_t Cap,
                   size_t *NEntries, uint64_t *Points, size_t PointCap, size_t *NPoints) {
  const auto *G = dyn_cast<GlobalVariable>(unwrap(GV));
  if (!G || !G->hasDefinitiveInitializer())
    return 0;
  const DataLayout &DL = G->getParent()->getDataLayout();
  const Constant *Init = G->getInitializer();
  std::vector<std::pair<uint64_t, const Function *>> Entries;
  if (!flatten(DL, Init, 0, Entries))
    return 0;
  std::vector<uint64_t> Pts;
  if (!addressPoints(DL, G, 0, Pts))
    return 0;
  // The Itanium layout: each vtable of the group (a top-level element) has its address point
  // just before its first virtual function.
  std::vector<std::pair<uint64_t, uint64_t>> Parts;
  if (const auto *S = dyn_cast<ConstantStruct>(Init)) {
    const StructLayout *SL = DL.getStructLayout(S->getType());
    for (unsigned I = 0, N = S->getNumOperands(); I != N; ++I)
      Parts.push_back({SL->getElementOffset(I),
                       SL->getElementOffset(I) + DL.getTypeAllocSize(S->getOperand(I)->getType())});
  } else {
    Parts.push_back({0, DL.getTypeAllocSize(Init->getType())});
  }
  for (auto [Begin, End] : Parts) {
    uint64_t First = UINT64_MAX;
    for (auto [Off, F] : Entries)
      if (Off >= Begin && Off < End)
        First = std::min(First, Off);
    if (First != UINT64_MAX)
      Pts.push_back(First);
  }
  std::sort(Pts.begin(), Pts.end());
  Pts.erase(std::unique(Pts.begin(), Pts.end()), Pts.end());
  *NEntries = Entries.size();
  *NPoints = Pts.size();
  for (size_t I = 0; I < Entries.size() && I < Cap; ++I) {
    EntryOffsets[I] = Entries[I].first;
    EntryFns[I] = wrap(Entries[I].second);
  }
  for (size_t I = 0; I < Pts.size() && I < PointCap; ++I)
    Points[I] = Pts[I];
  return 1;
}

// 1 if every use of `Fn`'s address (every use but as the callee of a call) is as an entry
// of one of the `N` tables in `Tables` (sorted by address), directly or through constant
// arrays and structs.
int fm_vtable_confined(LLVMValueRef Fn, const LLVMValueRef *Tables, size_t N) {
  std::vector<const Value *> Sorted;
  Sorted.reserve(N);
  for (size_t I = 0; I < N; ++I)
    Sorted.push_back(unwrap(Tables[I]));
  SmallPtrSet<const User *, 8> Seen;
  for (const Use &U : unwrap<Function>(Fn)->uses()) {
    const auto *CB = dyn_cast<CallBase>(U.getUser());
    if (CB && CB->isCallee(&U))
      continue;
    if (!inTables(U.getUser(), Sorted, Seen))
      return 0;
  }
  return 1;
}

// The constant byte offset a `getelementptr` instruction adds to its pointer; 0 if an index
// is not constant.
int fm_gep_constant_offset(LLVMValueRef GEP, int64_t *Out) {
  const auto *I = dyn_cast<GetElementPtrInst>(unwrap(GEP));
  if (!I)
    return 0;
  const DataLayout &DL = I->getModule()->getDataLayout();
  APInt Delta(DL.getIndexTypeSizeInBits(I->getType()), 0);
  if (!cast<GEPOperator>(I)->accumulateConstantOffset(DL, Delta))
    return 0;
  *Out = Delta.getSExtValue();
  return 1;
}

} // extern "C"
