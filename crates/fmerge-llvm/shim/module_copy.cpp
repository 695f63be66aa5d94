// Copies of modules and moving a module's contents into another.
//
// What. An exact copy with the use-list order (`fm_clone_module_exact`);
// a copy read lazily, bodies on demand (`fm_clone_module_lazy`, `fm_materialize_all`);
// a cloner's copy that shares named types (`fm_clone_module_sharing_types`); and moving all of
// one module's contents into another module object (`fm_move_module_contents`); linking one
// module into another, keeping the context's diagnostic handler (`fm_link_modules`). Also the
// helpers module copies share: dropping what nothing uses, reading a lazy body. (A module of a
// few functions, for measuring them, is subset.cpp's.)
//
// Why. The size guard keeps its input to undo merges; the pass plugin must leave its result in
// the module object the host owns. The C API only clones whole modules, losing the use-list
// order that steers code generation.
//
// How. The exact copy round-trips through bitcode with the use-list order kept; moving splices
// LLVM's symbol lists and recreates comdats in the destination.

#include "shim.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstring>
#include <string>

using namespace llvm;
using fmshim::collectErrors;

// Erases the declarations, global variables and aliases of `M` that nothing uses. Unused
// constants can hold the last uses of others, so it repeats until nothing changes.
void fmshim::dropUnreferenced(Module &M) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : llvm::make_early_inc_range(M))
      if (F.isDeclaration() && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &G : llvm::make_early_inc_range(M.globals())) {
      G.removeDeadConstantUsers();
      if (G.use_empty()) {
        G.eraseFromParent();
        Changed = true;
      }
    }
    for (GlobalAlias &A : llvm::make_early_inc_range(M.aliases()))
      if (A.use_empty()) {
        A.eraseFromParent();
        Changed = true;
      }
  }
}

bool fmshim::materialized(Function *F) {
  if (!F->isMaterializable())
    return true;
  if (Error E = F->materialize()) {
    consumeError(std::move(E));
    return false;
  }
  return true;
}

extern "C" {

// An exact copy of `M` in the same context, use-list order included (CloneModule loses it, and
// with it the code `llc` would generate). Returns null and a malloc'ed message on failure.
LLVMModuleRef fm_clone_module_exact(LLVMModuleRef MRef, char **Err) {
  *Err = nullptr;
  Module *M = unwrap(MRef);
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  std::string Message = collectErrors(M->getContext(), [&] {
    WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/true);
  });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return nullptr;
  }
  auto Parsed = parseBitcodeFile(MemoryBufferRef(StringRef(Buf.data(), Buf.size()), "copy"),
                                 M->getContext());
  if (!Parsed) {
    *Err = strdup(toString(Parsed.takeError()).c_str());
    return nullptr;
  }
  return wrap(Parsed->release());
}

// A copy of `M` in the same context whose function bodies are read only when needed: what the
// size guard keeps of its input (a few functions are ever measured or put back). Its named
// struct types are other types than M's, named like them with a suffix (`%T.4` for `%T`). When
// `Source` is not null it is the bitcode `M` was read from, unchanged since (`Len` bytes), read
// again instead of writing M out. Returns null and a malloc'ed message on failure.
LLVMModuleRef fm_clone_module_lazy(LLVMModuleRef MRef, const char *Source, size_t Len,
                                   char **Err) {
  *Err = nullptr;
  Module *M = unwrap(MRef);
  SmallString<0> Buf;
  if (!Source) {
    raw_svector_ostream OS(Buf);
    std::string Message = collectErrors(M->getContext(), [&] { WriteBitcodeToFile(*M, OS); });
    if (!Message.empty()) {
      *Err = strdup(Message.c_str());
      return nullptr;
    }
    Source = Buf.data();
    Len = Buf.size();
  }
  auto Parsed = getOwningLazyBitcodeModule(
      MemoryBuffer::getMemBufferCopy(StringRef(Source, Len), "snapshot"), M->getContext());
  if (!Parsed) {
    *Err = strdup(toString(Parsed.takeError()).c_str());
    return nullptr;
  }
  return wrap(Parsed->release());
}

// Links `Src` into `Dst` (taking `Src`, freed either way); 0 on failure (a message in `Err`).
// The C API's linker reports through the context's diagnostic handler, and wrappers of it
// replace that handler for good: in a host that loaded the plugin the host's would be gone
// (lld then printed every code generation remark). Errors are collected here instead, and the
// host's handler is put back.
int fm_link_modules(LLVMModuleRef DstRef, LLVMModuleRef SrcRef, char **Err) {
  *Err = nullptr;
  Module &Dst = *unwrap(DstRef);
  std::unique_ptr<Module> Src(unwrap(SrcRef));
  bool Failed = false;
  std::string Message = collectErrors(Dst.getContext(), [&] {
    Failed = Linker::linkModules(Dst, std::move(Src));
  });
  if (!Failed && Message.empty())
    return 1;
  *Err = strdup(Message.empty() ? "the modules could not be linked" : Message.c_str());
  return 0;
}

// Reads every function body of a lazily read module; 0 on failure (a message in `Err`).
int fm_materialize_all(LLVMModuleRef MRef, char **Err) {
  *Err = nullptr;
  if (Error E = unwrap(MRef)->materializeAll()) {
    *Err = strdup(toString(std::move(E)).c_str());
    return 0;
  }
  return 1;
}

// A copy of `M` made by LLVM's cloner: it shares M's named types (a copy read back from
// bitcode gets renamed ones, `%struct.T.0`) but not its use-list order. What a pass plugin
// keeps to restore the host's module with `fm_move_module_contents` if merging fails.
LLVMModuleRef fm_clone_module_sharing_types(LLVMModuleRef MRef) {
  return wrap(CloneModule(*unwrap(MRef)).release());
}

// Replaces everything in `Dst` with the contents of `Src` (same context), leaving `Src` empty:
// functions, global variables, aliases and ifuncs are moved (not copied), comdats recreated in
// `Dst`, named metadata (module flags included), inline assembly, triple, data layout and
// source file name taken over. A pass inside someone else's process must keep working on the
// module object the host owns; this is how a result computed in another module object
// (the size guard's re-run, the backup taken before a failed run) gets back into it.
void fm_move_module_contents(LLVMModuleRef DstRef, LLVMModuleRef SrcRef) {
  Module *Dst = unwrap(DstRef);
  Module *Src = unwrap(SrcRef);
  // Empty Dst: first every reference between its globals, then the globals themselves.
  Dst->dropAllReferences();
  while (!Dst->ifunc_empty())
    Dst->ifunc_begin()->eraseFromParent();
  while (!Dst->alias_empty())
    Dst->alias_begin()->eraseFromParent();
  while (!Dst->empty())
    Dst->begin()->eraseFromParent();
  while (!Dst->global_empty())
    Dst->global_begin()->eraseFromParent();
  while (!Dst->named_metadata_empty())
    Dst->eraseNamedMetadata(&*Dst->named_metadata_begin());
  Dst->getComdatSymbolTable().clear();
  // Comdats live in their module's table: give each moved object Dst's comdat of that name.
  auto Recomdat = [&](GlobalObject &GO) {
    if (const Comdat *C = GO.getComdat()) {
      Comdat *D = Dst->getOrInsertComdat(C->getName());
      D->setSelectionKind(C->getSelectionKind());
      GO.setComdat(D);
    }
  };
  for (Function &F : *Src)
    Recomdat(F);
  for (GlobalVariable &G : Src->globals())
    Recomdat(G);
  Dst->getFunctionList().splice(Dst->end(), Src->getFunctionList());
  while (!Src->global_empty()) {
    GlobalVariable *G = &*Src->global_begin();
    Src->removeGlobalVariable(G);
    Dst->insertGlobalVariable(G);
  }
  while (!Src->alias_empty()) {
    GlobalAlias *A = &*Src->alias_begin();
    Src->removeAlias(A);
    Dst->insertAlias(A);
  }
  while (!Src->ifunc_empty()) {
    GlobalIFunc *I = &*Src->ifunc_begin();
    Src->removeIFunc(I);
    Dst->insertIFunc(I);
  }
  for (NamedMDNode &N : Src->named_metadata()) {
    NamedMDNode *D = Dst->getOrInsertNamedMetadata(N.getName());
    for (MDNode *Op : N.operands())
      D->addOperand(Op);
  }
  while (!Src->named_metadata_empty())
    Src->eraseNamedMetadata(&*Src->named_metadata_begin());
  Dst->setModuleInlineAsm(Src->getModuleInlineAsm());
  Dst->setTargetTriple(Src->getTargetTriple());
  Dst->setDataLayout(Src->getDataLayout());
  Dst->setSourceFileName(Src->getSourceFileName());
}

} // extern "C"
