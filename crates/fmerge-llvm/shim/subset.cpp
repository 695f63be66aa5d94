// A module of a few functions, for measuring them (`fm_clone_module_subset`).
//
// What. A new module in the same context holding definitions of only the listed functions,
// and of the constants they read; every other global they reach becomes a declaration.
// Nothing they cannot reach is in it.
//
// Why. The size guard and the similar stage measure candidate functions by generating code for
// just them, many times per run. LLVM's CloneModule (with a filter) makes a declaration of every
// global of the module and copies every constant's initializer before the unreached ones can be
// dropped: on a 16 MB Rust module (10,000 constants) that cost 30-60 ms per subset, more than
// generating code for a few small functions.
//
// How. First the globals the kept functions reach: through their instructions' operands,
// metadata (attachments, debug records, metadata arguments) and the initializers of reached
// constants, the way CloneModule's filter would have copied them. Then CloneModule's steps,
// over those globals only and in the module's order, then `dropUnreferenced` (globals reached
// only through metadata have no uses). The result is the module CloneModule with that filter
// followed by `dropUnreferenced` gives, except for ifuncs: CloneModule copies every ifunc with
// a declaration for its resolver, which does not verify; here an ifunc a kept function calls
// becomes a function declaration, and the others are left out.

#include "shim.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <functional>
#include <vector>

using namespace llvm;

namespace {

// The globals a set of kept functions reaches, and which of them keep their definitions.
class Reach {
public:
  explicit Reach(SmallPtrSetImpl<const GlobalValue *> &Keep) : Keep(Keep) {}

  SmallPtrSet<const GlobalValue *, 32> Globals;

  // Whether `GV`'s definition is copied: a kept function, or a constant whose initializer
  // takes the address of no block outside the kept functions (there would be no block to
  // point at). Only constants' contents can shape a function's code (a memcpy from a constant
  // string becomes immediate stores); other globals need not be copied.
  bool copiesDefinition(const GlobalValue *GV) {
    if (Keep.count(GV))
      return true;
    auto *Var = dyn_cast<GlobalVariable>(GV);
    return Var && Var->isConstant() &&
           !(Var->hasInitializer() && foreignBlockAddress(Var->getInitializer()));
  }

  void addFunction(const Function &F) {
    addGlobal(&F);
    drain();
  }

  // Named metadata is copied whole (module flags, the debug compile unit...).
  void addNamedMetadata(const Module &M) {
    for (const NamedMDNode &N : M.named_metadata())
      for (const MDNode *Op : N.operands())
        addMetadata(Op);
    drain();
  }

private:
  SmallPtrSetImpl<const GlobalValue *> &Keep;
  SmallPtrSet<const Constant *, 32> SeenConstants;
  SmallPtrSet<const Metadata *, 32> SeenMetadata;
  std::vector<const GlobalValue *> Pending;
  std::vector<const Constant *> Constants;
  std::vector<const Metadata *> Nodes;
  std::function<bool(const Constant *)> foreignBlockAddress = [&](const Constant *C) {
    if (auto *BA = dyn_cast<BlockAddress>(C))
      return Keep.count(BA->getFunction()) == 0;
    if (isa<GlobalValue>(C))
      return false;
    for (const Use &U : C->operands())
      if (auto *Op = dyn_cast<Constant>(U.get()))
        if (foreignBlockAddress(Op))
          return true;
    return false;
  };

  void addGlobal(const GlobalValue *GV) {
    if (Globals.insert(GV).second)
      Pending.push_back(GV);
  }
  void addConstant(const Constant *C) {
    if (SeenConstants.insert(C).second)
      Constants.push_back(C);
  }
  void addMetadata(const Metadata *MD) {
    if (MD && SeenMetadata.insert(MD).second)
      Nodes.push_back(MD);
  }
  void addValue(const Value *V) {
    if (auto *C = dyn_cast<Constant>(V))
      addConstant(C);
    else if (auto *MV = dyn_cast<MetadataAsValue>(V))
      addMetadata(MV->getMetadata());
  }
  void addAttachments(const GlobalObject &GO) {
    SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
    GO.getAllMetadata(MDs);
    for (auto &MD : MDs)
      addMetadata(MD.second);
  }

  // Everything the global's copy refers to, as CloneModule copies it.
  void visitGlobal(const GlobalValue *GV) {
    if (auto *F = dyn_cast<Function>(GV)) {
      // Metadata goes with declarations and kept definitions, not with dropped bodies.
      if (!F->isDeclaration() && !Keep.count(F))
        return;
      addAttachments(*F);
      if (F->isDeclaration())
        return;
      if (F->hasPersonalityFn())
        addConstant(F->getPersonalityFn());
      if (F->hasPrefixData())
        addConstant(F->getPrefixData());
      if (F->hasPrologueData())
        addConstant(F->getPrologueData());
      for (const BasicBlock &BB : *F)
        for (const Instruction &I : BB) {
          for (const Use &U : I.operands())
            addValue(U.get());
          SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
          I.getAllMetadata(MDs);
          for (auto &MD : MDs)
            addMetadata(MD.second);
          for (const DbgRecord &R : I.getDbgRecordRange()) {
            addMetadata(R.getDebugLoc().getAsMDNode());
            if (auto *DVR = dyn_cast<DbgVariableRecord>(&R)) {
              addMetadata(DVR->getRawLocation());
              addMetadata(DVR->getRawVariable());
              addMetadata(DVR->getRawExpression());
              if (DVR->isDbgAssign()) {
                addMetadata(DVR->getRawAssignID());
                addMetadata(DVR->getRawAddress());
                addMetadata(DVR->getRawAddressExpression());
              }
            } else if (auto *L = dyn_cast<DbgLabelRecord>(&R)) {
              addMetadata(L->getRawLabel());
            }
          }
        }
    } else if (auto *Var = dyn_cast<GlobalVariable>(GV)) {
      addAttachments(*Var);
      if (!Var->isDeclaration() && copiesDefinition(Var) && Var->hasInitializer())
        addConstant(Var->getInitializer());
    }
    // An alias or ifunc becomes a declaration: nothing it refers to is needed.
  }

  void drain() {
    while (!Pending.empty() || !Constants.empty() || !Nodes.empty()) {
      if (!Pending.empty()) {
        const GlobalValue *GV = Pending.back();
        Pending.pop_back();
        visitGlobal(GV);
      } else if (!Constants.empty()) {
        const Constant *C = Constants.back();
        Constants.pop_back();
        if (auto *GV = dyn_cast<GlobalValue>(C)) {
          addGlobal(GV);
          continue;
        }
        for (const Use &U : C->operands())
          if (auto *Op = dyn_cast<Constant>(U.get()))
            addConstant(Op);
      } else {
        const Metadata *MD = Nodes.back();
        Nodes.pop_back();
        if (auto *CAM = dyn_cast<ConstantAsMetadata>(MD))
          addConstant(CAM->getValue());
        else if (auto *N = dyn_cast<MDNode>(MD))
          for (const MDOperand &Op : N->operands())
            addMetadata(Op.get());
        else if (auto *AL = dyn_cast<DIArgList>(MD))
          for (const ValueAsMetadata *VAM : AL->getArgs())
            addMetadata(VAM);
      }
    }
  }
};

void copyComdat(GlobalObject *Dst, const GlobalObject *Src) {
  if (const Comdat *SC = Src->getComdat()) {
    Comdat *DC = Dst->getParent()->getOrInsertComdat(SC->getName());
    DC->setSelectionKind(SC->getSelectionKind());
    Dst->setComdat(DC);
  }
}

void copyMetadata(GlobalObject *Dst, const GlobalObject &Src, ValueToValueMapTy &VMap) {
  SmallVector<std::pair<unsigned, MDNode *>, 1> MDs;
  Src.getAllMetadata(MDs);
  for (auto &MD : MDs)
    Dst->addMetadata(MD.first, *MapMetadata(MD.second, VMap));
}

} // namespace

extern "C" {

// A new module holding definitions of only the listed functions and the constants they read;
// every other global they reach becomes a declaration. Kept private functions become internal
// so that they have symbols to read sizes from. Null if a body of a lazily read module could
// not be read.
LLVMModuleRef fm_clone_module_subset(LLVMModuleRef MRef, LLVMValueRef *Fns, size_t N) {
  const Module &M = *unwrap(MRef);
  SmallPtrSet<const GlobalValue *, 16> Keep;
  for (size_t i = 0; i < N; ++i) {
    Keep.insert(unwrap<GlobalValue>(Fns[i]));
    // From a lazily read module (the size guard's snapshot), the body is read now.
    if (!fmshim::materialized(unwrap<Function>(Fns[i])))
      return nullptr;
  }
  Reach R(Keep);
  for (size_t i = 0; i < N; ++i)
    R.addFunction(*unwrap<Function>(Fns[i]));
  R.addNamedMetadata(M);
  auto Reached = [&](const GlobalValue &GV) { return R.Globals.count(&GV) != 0; };

  auto New = std::make_unique<Module>(M.getModuleIdentifier(), M.getContext());
  New->setSourceFileName(M.getSourceFileName());
  New->setDataLayout(M.getDataLayout());
  New->setTargetTriple(M.getTargetTriple());
  New->setModuleInlineAsm(M.getModuleInlineAsm());

  // The globals first, without initializers or bodies (those may refer to any of them).
  ValueToValueMapTy VMap;
  for (const GlobalVariable &I : M.globals()) {
    if (!Reached(I))
      continue;
    auto *GV = new GlobalVariable(*New, I.getValueType(), I.isConstant(), I.getLinkage(), nullptr,
                                  I.getName(), nullptr, I.getThreadLocalMode(),
                                  I.getType()->getAddressSpace());
    GV->copyAttributesFrom(&I);
    VMap[&I] = GV;
  }
  for (const Function &I : M) {
    if (!Reached(I))
      continue;
    Function *F = Function::Create(cast<FunctionType>(I.getValueType()), I.getLinkage(),
                                   I.getAddressSpace(), I.getName(), New.get());
    F->copyAttributesFrom(&I);
    VMap[&I] = F;
  }
  // An alias or ifunc cannot be a declaration: it becomes a function or a variable declaration
  // (an ifunc's resolver would have to be a definition, and calling it costs what calling a
  // declared function does).
  auto Declare = [&](const GlobalValue &I) {
    if (!Reached(I))
      return;
    GlobalValue *GV;
    if (I.getValueType()->isFunctionTy())
      GV = Function::Create(cast<FunctionType>(I.getValueType()), GlobalValue::ExternalLinkage,
                            I.getAddressSpace(), I.getName(), New.get());
    else
      GV = new GlobalVariable(*New, I.getValueType(), false, GlobalValue::ExternalLinkage, nullptr,
                              I.getName(), nullptr, I.getThreadLocalMode(),
                              I.getType()->getAddressSpace());
    VMap[&I] = GV;
  };
  for (const GlobalAlias &I : M.aliases())
    Declare(I);
  for (const GlobalIFunc &I : M.ifuncs())
    Declare(I);

  for (const GlobalVariable &G : M.globals()) {
    if (!Reached(G))
      continue;
    auto *GV = cast<GlobalVariable>(VMap[&G]);
    copyMetadata(GV, G, VMap);
    if (G.isDeclaration())
      continue;
    if (!R.copiesDefinition(&G)) {
      GV->setLinkage(GlobalValue::ExternalLinkage);
      continue;
    }
    if (G.hasInitializer())
      GV->setInitializer(MapValue(G.getInitializer(), VMap));
    copyComdat(GV, &G);
  }
  for (const Function &I : M) {
    if (!Reached(I))
      continue;
    auto *F = cast<Function>(VMap[&I]);
    if (I.isDeclaration()) {
      copyMetadata(F, I, VMap);
      continue;
    }
    if (!Keep.count(&I)) {
      F->setLinkage(GlobalValue::ExternalLinkage);
      F->setPersonalityFn(nullptr);
      continue;
    }
    auto DestI = F->arg_begin();
    for (const Argument &J : I.args()) {
      DestI->setName(J.getName());
      VMap[&J] = &*DestI++;
    }
    SmallVector<ReturnInst *, 8> Returns;
    CloneFunctionInto(F, &I, VMap, CloneFunctionChangeType::ClonedModule, Returns);
    if (I.hasPersonalityFn())
      F->setPersonalityFn(MapValue(I.getPersonalityFn(), VMap));
    copyComdat(F, &I);
  }
  for (const NamedMDNode &NMD : M.named_metadata()) {
    NamedMDNode *NewNMD = New->getOrInsertNamedMetadata(NMD.getName());
    for (const MDNode *Op : NMD.operands())
      NewNMD->addOperand(MapMetadata(Op, VMap));
  }

  fmshim::dropUnreferenced(*New);
  // Private functions get no symbol table entry, so their size could not be read back.
  for (Function &F : *New)
    if (!F.isDeclaration() && F.hasPrivateLinkage())
      F.setLinkage(GlobalValue::InternalLinkage);
  return wrap(New.release());
}

} // extern "C"
