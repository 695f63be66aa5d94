// Writing bitcode, and checking that LLVM reads back what it wrote.
//
// What. `fm_write_bitcode` serialises a module with its use-list order; `fm_check_bitcode`
// reads written bitcode back lazily (types, attributes, globals, metadata).
//
// Why. The C API's writer drops the use-list order (so `llc` on the file would not produce the
// code fmerge measured) and ends the process on an error in module-level inline assembly; and a
// corrupt input can hold values LLVM reads but cannot write back readably.
//
// How. LLVM's BitcodeWriter inside `collectErrors` (diagnostics.cpp); the lazy reader for the
// check. Buffers and messages are malloc'ed for the Rust side to free.

#include "shim.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace llvm;
using fmshim::collectErrors;

extern "C" {

// Serialises `M` to bitcode, with its use-list order if `UseListOrder` (the written module: the
// use-list order steers some code generation heuristics, so keeping it makes `llc` on the
// written file produce exactly the code fmerge measured; without it, writing is faster, for
// copies that are only read back: the size guard's and the plugin's backup). On success returns 1 and a malloc'ed buffer in *Out/*Len; returns 0 and a
// malloc'ed message in *Err when the writer reports an error (its symbol table parses
// module-level inline assembly, which may not assemble).
int fm_write_bitcode(LLVMModuleRef MRef, int UseListOrder, char **Out, size_t *Len, char **Err) {
  *Out = nullptr;
  *Len = 0;
  *Err = nullptr;
  SmallString<0> Buf;
  raw_svector_ostream OS(Buf);
  Module *M = unwrap(MRef);
  std::string Message = collectErrors(M->getContext(), [&] {
    WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/UseListOrder != 0);
  });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return 0;
  }
  *Out = static_cast<char *>(malloc(Buf.size() ? Buf.size() : 1));
  memcpy(*Out, Buf.data(), Buf.size());
  *Len = Buf.size();
  return 1;
}

// Whether LLVM's reader accepts `Data` (bitcode LLVM's writer produced), reading the module
// lazily: types, attribute groups, globals and metadata, not function bodies. A corrupt input
// can hold values the reader accepted but whose written form it then rejects (an attribute
// group, found by tests/hostile.rs); fmerge must not write such a file. Returns 1 if it reads,
// else 0 and a malloc'ed message in *Err.
int fm_check_bitcode(const char *Data, size_t Len, char **Err) {
  *Err = nullptr;
  LLVMContext Ctx;
  auto M = getLazyBitcodeModule(MemoryBufferRef(StringRef(Data, Len), "output"), Ctx);
  if (!M) {
    *Err = strdup(toString(M.takeError()).c_str());
    return 0;
  }
  if (Error E = (*M)->materializeMetadata()) {
    *Err = strdup(toString(std::move(E)).c_str());
    return 0;
  }
  return 1;
}

} // extern "C"
