// Similar functions across modules (global merging): bodies that mean the same in every module.
//
// What. `fm_parameterize_locals` copies a function with its references to module-local symbols
// turned into trailing parameters (what `fmerge summarize` records); `fm_extract_functions`
// puts functions into a module of their own; `fm_clone_body_mapped` clones a body with its
// parameters replaced by given values (what `fmerge apply` rebuilds).
//
// Why. A body shared by several modules may only name symbols that are the same definition in
// every module (external, not thread-local); everything else has to be passed in. The C API
// has no function cloning, no constant-expression expansion, and no filtered module cloning.
//
// How. LLVM's CloneFunctionInto and CloneModule, convertUsersOfConstantsToInstructions so that
// every local symbol is an instruction operand a parameter can replace, and the verifier.

#include "shim.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <unordered_set>

using namespace llvm;

extern "C" {

// Can a reference to `GV` appear in a body shared by every module? Only when the name means the
// same definition in every module: external (or extern_weak) linkage, not thread-local (a
// thread-local address is not a value one could pass around between threads' views). Local,
// linkonce, weak, available_externally and common symbols may be a different definition, or
// none, in another module. So is a local that ThinLTO promoted to an external hidden symbol
// for its imports (`name.llvm.<digits>`, the digits a hash of its module): that name changes
// whenever its module does, and a body shared by other modules must not outlive it.
static bool fmPromotedLocal(const GlobalValue *GV) {
  StringRef Name = GV->getName();
  size_t At = Name.rfind(".llvm.");
  if (At == StringRef::npos || !GV->hasHiddenVisibility())
    return false;
  StringRef Digits = Name.drop_front(At + 6);
  return !Digits.empty() && llvm::all_of(Digits, [](char C) { return C >= '0' && C <= '9'; });
}

static bool fmSharedSymbol(const GlobalValue *GV) {
  if (GV->isThreadLocal() || fmPromotedLocal(GV))
    return false;
  return GV->hasExternalLinkage() || GV->hasExternalWeakLinkage();
}

// Collects, in first-use order, the globals `C` mentions that are not shared symbols. Returns
// false if one sits somewhere an instruction cannot replace it (inside an aggregate constant, a
// block address, a thread-local global).
static bool fmCollectLocals(Constant *C, SmallVectorImpl<GlobalValue *> &Out,
                            SmallPtrSetImpl<Constant *> &Seen) {
  if (!Seen.insert(C).second)
    return true;
  if (auto *GV = dyn_cast<GlobalValue>(C)) {
    if (GV->isThreadLocal())
      return false;
    if (!fmSharedSymbol(GV))
      Out.push_back(GV);
    return true;
  }
  if (isa<BlockAddress>(C) || isa<DSOLocalEquivalent>(C) || isa<NoCFIValue>(C))
    return false;
  if (!isa<ConstantExpr>(C)) {
    // An aggregate or other constant that holds a local symbol cannot become an instruction.
    SmallVector<GlobalValue *, 4> Inner;
    for (const Use &U : C->operands())
      if (auto *Op = dyn_cast<Constant>(U.get()))
        if (!fmCollectLocals(Op, Inner, Seen))
          return false;
    return Inner.empty();
  }
  for (const Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      if (!fmCollectLocals(Op, Out, Seen))
        return false;
  return true;
}

// A copy of `Fn` named `Name` (external linkage, no debug info) whose references to symbols that
// are not the same in every module (see fmSharedSymbol) are trailing `ptr` parameters, one per
// symbol in first-use order; `Locals` receives those symbols (at most `Cap`, *N of them). The
// copy mentions only shared symbols, so its bitcode means the same in every module. Returns
// null (and adds nothing) if a local symbol sits where it cannot be replaced, or on more than
// `Cap` of them.
LLVMValueRef fm_parameterize_locals(LLVMValueRef Fn, const char *Name, LLVMValueRef *Locals,
                                    size_t Cap, size_t *N) {
  Function *F = unwrap<Function>(Fn);
  SmallVector<GlobalValue *, 8> Found;
  SmallPtrSet<Constant *, 32> Seen;
  for (Instruction &I : instructions(*F))
    for (const Use &U : I.operands())
      if (auto *C = dyn_cast<Constant>(U.get()))
        if (!fmCollectLocals(C, Found, Seen))
          return nullptr;
  SmallVector<GlobalValue *, 8> Order;
  SmallPtrSet<GlobalValue *, 8> Unique;
  for (GlobalValue *GV : Found)
    if (Unique.insert(GV).second)
      Order.push_back(GV);
  if (Order.size() > Cap)
    return nullptr;
  SmallVector<Type *, 8> Params(F->getFunctionType()->params());
  for (GlobalValue *GV : Order)
    Params.push_back(GV->getType());
  FunctionType *Ty = FunctionType::get(F->getReturnType(), Params, false);
  Function *New = Function::Create(Ty, GlobalValue::ExternalLinkage, F->getAddressSpace(), Name,
                                   F->getParent());
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < F->arg_size(); ++i)
    VMap[F->getArg(i)] = New->getArg(i);
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(New, F, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  New->setLinkage(GlobalValue::ExternalLinkage);
  New->setVisibility(GlobalValue::DefaultVisibility);
  New->setComdat(nullptr);
  New->setSection("");
  New->clearMetadata();
  fm_strip_function_debug_info(wrap(New));
  if (!Order.empty()) {
    // Constant expressions over a local symbol become instructions, so that the symbol itself
    // is an instruction operand that a parameter can replace.
    SmallVector<Constant *, 8> Consts;
    for (Instruction &I : instructions(*New))
      for (const Use &U : I.operands())
        if (auto *CE = dyn_cast<ConstantExpr>(U.get()))
          Consts.push_back(CE);
    convertUsersOfConstantsToInstructions(Consts, New, /*RemoveDeadConstants=*/false);
    DenseMap<Value *, Value *> Map;
    for (size_t k = 0; k < Order.size(); ++k)
      Map[Order[k]] = New->getArg(F->arg_size() + k);
    for (Instruction &I : instructions(*New))
      for (Use &U : I.operands()) {
        auto It = Map.find(U.get());
        if (It != Map.end())
          U.set(It->second);
      }
    // Whatever still mentions a local symbol (a constant expression the conversion left)
    // would make the copy mean something else elsewhere.
    SmallVector<GlobalValue *, 2> Left;
    SmallPtrSet<Constant *, 32> Seen2;
    for (Instruction &I : instructions(*New))
      for (const Use &U : I.operands())
        if (auto *C = dyn_cast<Constant>(U.get()))
          if (!fmCollectLocals(C, Left, Seen2) || !Left.empty()) {
            New->eraseFromParent();
            return nullptr;
          }
  }
  if (verifyFunction(*New)) {
    New->eraseFromParent();
    return nullptr;
  }
  for (size_t k = 0; k < Order.size(); ++k)
    Locals[k] = wrap(Order[k]);
  *N = Order.size();
  return wrap(New);
}

// A new module with the bodies of the listed functions (external linkage) and declarations of
// what they reference, nothing else. Returns null if they reference a symbol whose meaning is
// not the same in every module (see fmSharedSymbol) other than each other.
LLVMModuleRef fm_extract_functions(LLVMModuleRef M, LLVMValueRef *Fns, size_t N) {
  std::unordered_set<const GlobalValue *> Keep;
  for (size_t i = 0; i < N; ++i)
    Keep.insert(unwrap<GlobalValue>(Fns[i]));
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> New = CloneModule(
      *unwrap(M), VMap, [&](const GlobalValue *GV) { return Keep.count(GV) != 0; });
  fmshim::dropUnreferenced(*New);
  // What is left is used by the kept functions: a special global (llvm.used, ...) or alias
  // among it cannot be carried to another module.
  if (!New->alias_empty() || !New->ifunc_empty())
    return nullptr;
  for (GlobalValue &GV : New->global_values()) {
    if (GV.getName().starts_with("llvm.") && !isa<Function>(GV))
      return nullptr;
    const GlobalValue *Orig = unwrap(M)->getNamedValue(GV.getName());
    if (GV.isDeclaration() && Orig && !Keep.count(Orig) && !fmSharedSymbol(Orig))
      return nullptr;
    if (GV.isDeclaration() && GV.isThreadLocal())
      return nullptr;
  }
  for (Function &F : *New)
    if (!F.isDeclaration()) {
      F.setLinkage(GlobalValue::ExternalLinkage);
      F.setComdat(nullptr);
    }
  New->setModuleInlineAsm("");
  for (NamedMDNode &MD : llvm::make_early_inc_range(New->named_metadata()))
    if (MD.getName() != "llvm.module.flags")
      New->eraseNamedMetadata(&MD);
  return wrap(New.release());
}

// Gives the body-less `Dst` a copy of `Src`'s body, with `Src`'s parameter i replaced by
// Values[i] (N of them: Dst's parameters, constants or globals of Dst's module). Dst keeps its
// own attributes. Returns 0 (and clones nothing) on a count or type mismatch.
int fm_clone_body_mapped(LLVMValueRef Dst, LLVMValueRef Src, LLVMValueRef *Values, size_t N) {
  Function *D = unwrap<Function>(Dst);
  Function *S = unwrap<Function>(Src);
  if (!D->empty() || S->arg_size() != N || D->getReturnType() != S->getReturnType())
    return 0;
  ValueToValueMapTy VMap;
  for (size_t i = 0; i < N; ++i) {
    Value *V = unwrap(Values[i]);
    if (V->getType() != S->getArg(i)->getType())
      return 0;
    VMap[S->getArg(i)] = V;
  }
  AttributeList Attrs = D->getAttributes();
  CallingConv::ID CC = D->getCallingConv();
  bool HasPersonality = D->hasPersonalityFn();
  Constant *Personality = HasPersonality ? D->getPersonalityFn() : nullptr;
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(D, S, VMap, CloneFunctionChangeType::GlobalChanges, Returns);
  D->setAttributes(Attrs);
  D->setCallingConv(CC);
  D->setPersonalityFn(Personality);
  return 1;
}

} // extern "C"
