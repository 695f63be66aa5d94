// Putting functions back as they were in a snapshot of the module.
//
// What. `fm_type_pairs_new` pairs the named struct types of two modules with the same contents
// (an exact copy and its original); `fm_restore_functions` gives functions of a module the
// definitions they have in such a copy (body, attributes, linkage, comdat), creating those that
// were erased; `fm_restorable` says beforehand whether that is possible;
// `fm_reclaim_struct_names` gives a module read back from bitcode the names of its struct types.
//
// Why. The size guard undoes the merges whose generated code measured larger by putting their
// functions back as they were in the input, instead of running every stage again on a fresh
// copy of the input (which cost two thirds of fmerge's time on large modules). The snapshot
// of the input is an exact copy read back from bitcode in the same context, so its named
// struct types are distinct types (`%T.0` for `%T`); a body cloned from it must use the
// working module's types and globals, never the snapshot's.
//
// How. Types: LLVM's TypeFinder visits a module's types in an order fixed by its contents,
// so the i-th identified struct of the copy is the i-th of the original (checked: same
// count, same shape). A ValueMapper type remapper maps them, and rebuilds the literal
// structs, arrays, vectors and function types made of them. Globals map by name, to a global
// of the same kind and (remapped) value type; the functions being restored map to
// themselves. Everything is checked before anything changes: a function whose body refers to
// a global the working module no longer has (another merge erased it), to another function's
// block address, or to an unnamed global is not restorable, and then nothing is restored.
// Debug info is cloned with the body (CloneFunctionInto, DifferentModule), with the
// snapshot's compile units mapped to the working module's so that no unit is added.

#include "shim.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/TypeFinder.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <cstring>
#include <string>

using namespace llvm;

namespace {

// Maps the snapshot's types to the working module's.
class PairRemapper : public ValueMapTypeRemapper {
public:
  PairRemapper(DenseMap<Type *, Type *> &Map, bool ByName) : Map(Map), ByName(ByName) {}

  Type *remapType(Type *T) override {
    auto It = Map.find(T);
    if (It != Map.end())
      return It->second;
    Type *R = T;
    Map[T] = T; // a recursive struct refers back to itself
    if (auto *ST = dyn_cast<StructType>(T); ST && !ST->isLiteral()) {
      if (ByName)
        if (StructType *W = byName(ST))
          R = W;
    } else if (auto *ST = dyn_cast<StructType>(T); ST && ST->isLiteral()) {
      SmallVector<Type *, 8> Elems;
      bool Changed = false;
      for (Type *E : ST->elements()) {
        Elems.push_back(remapType(E));
        Changed |= Elems.back() != E;
      }
      if (Changed)
        R = StructType::get(T->getContext(), Elems, ST->isPacked());
    } else if (auto *AT = dyn_cast<ArrayType>(T)) {
      Type *E = remapType(AT->getElementType());
      if (E != AT->getElementType())
        R = ArrayType::get(E, AT->getNumElements());
    } else if (auto *VT = dyn_cast<VectorType>(T)) {
      Type *E = remapType(VT->getElementType());
      if (E != VT->getElementType())
        R = VectorType::get(E, VT->getElementCount());
    } else if (auto *FT = dyn_cast<FunctionType>(T)) {
      Type *Ret = remapType(FT->getReturnType());
      bool Changed = Ret != FT->getReturnType();
      SmallVector<Type *, 8> Params;
      for (Type *P : FT->params()) {
        Params.push_back(remapType(P));
        Changed |= Params.back() != P;
      }
      if (Changed)
        R = FunctionType::get(Ret, Params, FT->isVarArg());
    }
    Map[T] = R;
    return R;
  }

private:
  // The type a lazily read copy's `ST` was read from: the bitcode reader names a struct whose
  // name is taken `<name>.<number>`, so the original is the struct named without the last
  // suffix, if it has the same shape (elements that pair, packing, opaqueness).
  StructType *byName(StructType *ST) {
    StringRef Name = ST->getName();
    size_t Dot = Name.rfind('.');
    if (Dot == StringRef::npos || Dot + 1 == Name.size() ||
        !llvm::all_of(Name.substr(Dot + 1), isDigit))
      return nullptr;
    StructType *W = StructType::getTypeByName(ST->getContext(), Name.substr(0, Dot));
    if (!W || W == ST || W->isOpaque() != ST->isOpaque() || W->isPacked() != ST->isPacked() ||
        W->getNumElements() != ST->getNumElements())
      return nullptr;
    Map[ST] = W; // provisionally, for elements that refer back to it
    for (unsigned I = 0; I < ST->getNumElements(); ++I)
      if (remapType(ST->getElementType(I)) != W->getElementType(I)) {
        Map[ST] = ST;
        return nullptr;
      }
    return W;
  }

  DenseMap<Type *, Type *> &Map;
  bool ByName;
};

// The global of `Dst` that stands for `G` of the snapshot: same name (or, for a function `Dst`
// no longer has, the function that replaced it everywhere), same kind, same value type
// (remapped); null if there is none.
GlobalValue *counterpart(Module &Dst, const GlobalValue *G, PairRemapper &Types,
                         const StringMap<GlobalValue *> &Replaced) {
  if (!G->hasName())
    return nullptr;
  GlobalValue *D = Dst.getNamedValue(G->getName());
  if (!D)
    D = Replaced.lookup(G->getName());
  if (!D || D->getValueID() != G->getValueID() ||
      D->getValueType() != Types.remapType(G->getValueType()))
    return nullptr;
  return D;
}

// Whether every global `C` refers to has a counterpart in `Dst` (or is one of `Restoring`, by
// name), and no block address in it points into another function than `Self`.
// On failure, `Why` says what does not map.
bool constantMaps(const Constant *C, const Function *Self, Module &Dst, PairRemapper &Types,
                  const StringSet<> &Restoring, const StringMap<GlobalValue *> &Replaced,
                  SmallPtrSetImpl<const Constant *> &Seen, std::string &Why) {
  if (!Seen.insert(C).second)
    return true;
  if (auto *BA = dyn_cast<BlockAddress>(C)) {
    if (BA->getFunction() == Self)
      return true;
    Why = "a block address of another function";
    return false;
  }
  if (auto *G = dyn_cast<GlobalValue>(C)) {
    if ((G->hasName() && Restoring.contains(G->getName())) ||
        counterpart(Dst, G, Types, Replaced))
      return true;
    Why = ("no counterpart of @" + G->getName()).str();
    return false;
  }
  for (const Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      if (!constantMaps(Op, Self, Dst, Types, Restoring, Replaced, Seen, Why))
        return false;
  return true;
}

} // namespace

// The snapshot's named struct types paired with the working module's, and the functions that
// replaced erased ones there (set before each restore).
struct FmTypePairs {
  DenseMap<Type *, Type *> Map;
  // Pair what `Map` does not hold by name (a lazily read copy: `fm_type_pairs_by_name`).
  bool ByName = false;
  StringMap<GlobalValue *> Replaced;
};

extern "C" {

// Pairs the identified struct types of `From` (a copy) with those of `To` (what it was copied
// from, or a copy of it): the map restoring uses. Null if the two modules' types do not line
// up (their contents differ).
FmTypePairs *fm_type_pairs_new(LLVMModuleRef From, LLVMModuleRef To) {
  TypeFinder A, B;
  A.run(*unwrap(From), /*onlyNamed=*/false);
  B.run(*unwrap(To), /*onlyNamed=*/false);
  if (A.size() != B.size())
    return nullptr;
  auto *P = new FmTypePairs;
  for (size_t I = 0; I < A.size(); ++I) {
    StructType *X = A[I], *Y = B[I];
    if (X->isOpaque() != Y->isOpaque() || X->isPacked() != Y->isPacked() ||
        X->getNumElements() != Y->getNumElements()) {
      delete P;
      return nullptr;
    }
    if (X != Y)
      P->Map[X] = Y;
  }
  return P;
}

// Pairs the types of a lazily read copy of a module (`fm_clone_module_lazy`) with those of the
// module it was copied from, by name as they are met (a lazy copy's bodies, and the types only
// they use, are not all there to be paired in order).
FmTypePairs *fm_type_pairs_by_name() {
  auto *P = new FmTypePairs;
  P->ByName = true;
  return P;
}

// Reads the bodies of the N functions `Fns` of a lazily read module; 0 if one cannot be read.
int fm_materialize_functions(LLVMValueRef *Fns, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (!fmshim::materialized(unwrap<Function>(Fns[I])))
      return 0;
  return 1;
}

void fm_type_pairs_free(FmTypePairs *P) { delete P; }

// The functions of the working module that replaced erased ones (N names, N functions): a
// restored body that refers to `Names[i]` refers to `Fns[i]` instead.
void fm_type_pairs_set_replaced(FmTypePairs *P, const char **Names, LLVMValueRef *Fns,
                                size_t N) {
  P->Replaced.clear();
  for (size_t I = 0; I < N; ++I)
    P->Replaced[Names[I]] = unwrap<GlobalValue>(Fns[I]);
}

// Erases the N functions `Fns` (of one module) if every use of each is an instruction in one
// of their bodies (bodies are dropped before anything is erased); returns 0 and changes
// nothing otherwise.
int fm_erase_functions(LLVMValueRef *Fns, size_t N) {
  SmallPtrSet<Function *, 16> Set;
  for (size_t I = 0; I < N; ++I)
    Set.insert(unwrap<Function>(Fns[I]));
  for (Function *F : Set)
    for (User *U : F->users()) {
      auto *Inst = dyn_cast<Instruction>(U);
      if (!Inst || !Inst->getParent() || !Set.count(Inst->getFunction()))
        return 0;
    }
  for (Function *F : Set)
    F->dropAllReferences();
  for (Function *F : Set)
    F->eraseFromParent();
  return 1;
}

// Whether `fm_restore_functions` can give `Dst` the snapshot's definitions of `Fns` (N
// functions of the snapshot module): every global their bodies, personalities and prefix or
// prologue data refer to has a counterpart in `Dst` or is one of `Fns`; no block address of
// another function; each of `Fns` either has a function of the same type and name in `Dst` or
// its name is free there. Changes nothing.
int fm_restorable(LLVMModuleRef DstRef, FmTypePairs *P, LLVMValueRef *Fns, size_t N,
                  char **WhyOut) {
  Module &Dst = *unwrap(DstRef);
  PairRemapper Types(P->Map, P->ByName);
  StringSet<> Restoring;
  for (size_t I = 0; I < N; ++I)
    Restoring.insert(unwrap<Function>(Fns[I])->getName());
  std::string Why;
  auto Refuse = [&](const Function *F) {
    *WhyOut = strdup(("@" + F->getName() + ": " + Why).str().c_str());
    return 0;
  };
  for (size_t I = 0; I < N; ++I) {
    Function *F = unwrap<Function>(Fns[I]);
    if (!fmshim::materialized(F)) {
      Why = "its body could not be read";
      return Refuse(F);
    }
    if (F->isDeclaration() || !F->hasName()) {
      Why = "no definition";
      return Refuse(F);
    }
    if (GlobalValue *D = Dst.getNamedValue(F->getName()))
      if (!isa<Function>(D) || D->getValueType() != Types.remapType(F->getValueType())) {
        Why = "its name is taken by another kind of global or type";
        return Refuse(F);
      }
    SmallPtrSet<const Constant *, 32> Seen;
    for (Constant *C : {F->hasPersonalityFn() ? F->getPersonalityFn() : nullptr,
                        F->hasPrefixData() ? F->getPrefixData() : nullptr,
                        F->hasPrologueData() ? F->getPrologueData() : nullptr})
      if (C && !constantMaps(C, F, Dst, Types, Restoring, P->Replaced, Seen, Why))
        return Refuse(F);
    for (Instruction &Inst : instructions(*F))
      for (const Use &U : Inst.operands())
        if (auto *C = dyn_cast<Constant>(U.get()))
          if (!constantMaps(C, F, Dst, Types, Restoring, P->Replaced, Seen, Why))
            return Refuse(F);
  }
  return 1;
}

// Gives each of `Fns` (N functions of the snapshot `SrcRef`) its snapshot definition in `Dst`:
// the function of that name loses its body and gets a copy of the snapshot's, with its
// attributes, linkage, visibility and comdat; a missing one is created. Call only after
// `fm_restorable` said yes. Debug records that would refer to a global `Dst` lacks lose their
// location (as LLVM does for values optimized away).
void fm_restore_functions(LLVMModuleRef DstRef, LLVMModuleRef SrcRef, FmTypePairs *P,
                          LLVMValueRef *Fns, size_t N) {
  Module &Dst = *unwrap(DstRef);
  Module &Src = *unwrap(SrcRef);
  PairRemapper Types(P->Map, P->ByName);
  ValueToValueMapTy VMap;
  // Every global of the snapshot with a counterpart maps to it (the check above made sure the
  // bodies need nothing else); then the functions being restored, created where missing.
  for (GlobalValue &G : Src.global_values())
    if (GlobalValue *D = counterpart(Dst, &G, Types, P->Replaced))
      VMap[&G] = D;
  SmallVector<std::pair<Function *, Function *>, 8> Work;
  for (size_t I = 0; I < N; ++I) {
    Function *F = unwrap<Function>(Fns[I]);
    Function *D = Dst.getFunction(F->getName());
    if (!D)
      D = Function::Create(cast<FunctionType>(Types.remapType(F->getFunctionType())),
                           F->getLinkage(), F->getAddressSpace(), F->getName(), &Dst);
    VMap[F] = D;
    Work.push_back({F, D});
  }
  // The snapshot's compile units are the working module's: map them so none is added.
  NamedMDNode *SrcCUs = Src.getNamedMetadata("llvm.dbg.cu");
  NamedMDNode *DstCUs = Dst.getNamedMetadata("llvm.dbg.cu");
  bool HadCUs = DstCUs != nullptr;
  if (SrcCUs && DstCUs && SrcCUs->getNumOperands() == DstCUs->getNumOperands())
    for (unsigned I = 0; I < SrcCUs->getNumOperands(); ++I)
      VMap.MD()[SrcCUs->getOperand(I)].reset(DstCUs->getOperand(I));
  for (auto [F, D] : Work) {
    D->deleteBody();
    D->setLinkage(F->getLinkage());
    D->setComdat(nullptr);
    D->setPersonalityFn(nullptr);
    D->setPrefixData(nullptr);
    D->setPrologueData(nullptr);
    D->clearMetadata();
    auto SrcArg = F->arg_begin();
    for (Argument &A : D->args()) {
      A.setName(SrcArg->getName());
      VMap[&*SrcArg++] = &A;
    }
    SmallVector<ReturnInst *, 8> Returns;
    // Copies the attributes, visibility, section, alignment, personality and prefix and
    // prologue data (mapped), and the metadata.
    CloneFunctionInto(D, F, VMap, CloneFunctionChangeType::DifferentModule, Returns, "", nullptr,
                      &Types);
    if (const Comdat *C = F->getComdat()) {
      Comdat *DC = Dst.getOrInsertComdat(C->getName());
      DC->setSelectionKind(C->getSelectionKind());
      D->setComdat(DC);
    }
    // Debug records may name globals the bodies' instructions do not (a variable's location).
    for (Instruction &Inst : instructions(*D))
      for (DbgVariableRecord &R : filterDbgVars(Inst.getDbgRecordRange()))
        for (Value *V : R.location_ops())
          if (auto *G = dyn_cast_or_null<GlobalValue>(V); G && G->getParent() != &Dst) {
            R.setKillLocation();
            break;
          }
  }
  if (!HadCUs)
    if (NamedMDNode *Added = Dst.getNamedMetadata("llvm.dbg.cu");
        Added && Added->getNumOperands() == 0)
      Dst.eraseNamedMetadata(Added);
}

// Gives the identified struct types of `MRef`, a module just read from bitcode into a context
// that still has the types it was written with, the names it was written with: the reader
// named each such type `X.N`, `X` being taken by the type it was written from (same name but
// the suffix, same shape: `PairRemapper`'s pairing by name). That type, which nothing of
// `MRef` uses, gives its name up. The module then prints exactly as the one that was written
// (the pass plugin's backup, put back into the host's module after a failed run).
void fm_reclaim_struct_names(LLVMModuleRef MRef) {
  Module &M = *unwrap(MRef);
  TypeFinder Types;
  Types.run(M, /*onlyNamed=*/true);
  DenseMap<Type *, Type *> Map;
  PairRemapper Pairs(Map, /*ByName=*/true);
  SmallVector<std::pair<StructType *, StructType *>, 16> Renames;
  for (StructType *ST : Types)
    if (auto *W = dyn_cast<StructType>(Pairs.remapType(ST)); W && W != ST)
      Renames.push_back({ST, W});
  for (auto [ST, W] : Renames) {
    std::string Name = W->getName().str();
    W->setName("");
    ST->setName(Name);
  }
}

} // extern "C"
