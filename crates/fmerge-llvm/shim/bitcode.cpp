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
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

using namespace llvm;
using fmshim::collectErrors;

extern "C" {

// Serialises `M` to bitcode, with its use-list order if `UseListOrder` (the written module: the
// use-list order steers some code generation heuristics, so keeping it makes `llc` on the
// written file produce exactly the code fmerge measured; without it, writing is faster, for
// copies that are only read back: the size guard's and the plugin's backup).
//
// The bitcode is written straight into one buffer, which the caller gets as *Out (an owner to
// release with `fm_free_bitcode`), *Data and *Len: no copy of a whole module is made. `Reserve`
// bytes are reserved up front (a large reservation costs address space, not memory, until it
// is written), so that the buffer does not grow by doubling: LLVM's own `WriteBitcodeToFile`
// writes into a buffer of its own and then copies it out, which on a 17 MB module held up to
// three copies at once at the end of a run. Darwin targets get LLVM's wrapper header, which
// only `WriteBitcodeToFile` adds: they keep that path (one copy more).
//
// Returns 1 on success; returns 0 and a malloc'ed message in *Err when the writer reports an
// error (its symbol table parses module-level inline assembly, which may not assemble).
int fm_write_bitcode(LLVMModuleRef MRef, int UseListOrder, size_t Reserve, void **Out,
                     const char **Data, size_t *Len, char **Err) {
  *Out = nullptr;
  *Data = nullptr;
  *Len = 0;
  *Err = nullptr;
  Module *M = unwrap(MRef);
  auto Buffer = std::make_unique<SmallVector<char, 0>>();
  Buffer->reserve(Reserve);
  const Triple &TT = M->getTargetTriple();
  std::string Message = collectErrors(M->getContext(), [&] {
    if (TT.isOSDarwin() || TT.isOSBinFormatMachO()) {
      raw_svector_ostream OS(*Buffer);
      WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/UseListOrder != 0);
      return;
    }
    // What WriteBitcodeToFile does for other targets, into `Buffer` itself.
    BitcodeWriter Writer(*Buffer);
    Writer.writeModule(*M, /*ShouldPreserveUseListOrder=*/UseListOrder != 0);
    Writer.writeSymtab();
    Writer.writeStrtab();
  });
  if (!Message.empty()) {
    *Err = strdup(Message.c_str());
    return 0;
  }
  *Data = Buffer->data();
  *Len = Buffer->size();
  *Out = Buffer.release();
  return 1;
}

// Releases a buffer `fm_write_bitcode` returned.
void fm_free_bitcode(void *Owner) { delete static_cast<SmallVector<char, 0> *>(Owner); }

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
