// Errors LLVM reports while generating code or writing bitcode, kept instead of fatal.
//
// What. `collectErrors` runs a piece of LLVM work with a diagnostic handler that keeps the first
// few error messages, passes warnings and notes on to the handler it stands in for, and drops
// remarks; then it restores the previous handler.
//
// Why. LLVM's default handler prints an error and calls exit(1): inline assembly the target's
// assembler rejects does that in code generation and in the bitcode writer's symbol table
// alike. Inside fmerge, and inside a host that loaded the pass plugin, such an error must become
// a failure the caller reports. Used by codegen.cpp, bitcode.cpp, module_copy.cpp and
// profiling/runtime_link.cpp.
//
// How. A DiagnosticHandler subclass installed on the context for the duration of the call.

#include "shim.h"

#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

using namespace llvm;

namespace {

// A diagnostic handler that keeps error messages (first few) and lets LLVM print the rest.
struct ErrorCollector : DiagnosticHandler {
  std::string Message;
  unsigned Count = 0;
  // Measuring and copying print nothing of their own: no optimization remarks, whatever the
  // process asked for (inside a linker that loaded the plugin, AsmPrinter's instruction-count
  // remarks were printed for every measured function). The real code generation reports them.
  bool isAnalysisRemarkEnabled(StringRef) const override { return false; }
  bool isMissedOptRemarkEnabled(StringRef) const override { return false; }
  bool isPassedOptRemarkEnabled(StringRef) const override { return false; }
  bool isAnyRemarkEnabled() const override { return false; }
  // The handler this one stands in for: warnings and notes go to it, as they would have.
  DiagnosticHandler *Previous = nullptr;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Remark)
      return true;
    if (DI.getSeverity() != DS_Error)
      return Previous && Previous->handleDiagnostics(DI);
    if (++Count <= 3) {
      std::string Text;
      raw_string_ostream OS(Text);
      if (auto *SM = dyn_cast<DiagnosticInfoSrcMgr>(&DI)) {
        // Assembler errors: their own print shows nothing useful without a source manager.
        const SMDiagnostic &D = SM->getSMDiag();
        OS << D.getFilename() << ":" << D.getLineNo() << ":" << (D.getColumnNo() + 1) << ": "
           << D.getMessage();
      } else {
        DiagnosticPrinterRawOStream DP(OS);
        DI.print(DP);
      }
      if (!Message.empty())
        Message += "; ";
      Message += Text;
    }
    return true;
  }
};
} // namespace

namespace fmshim {

// Runs `Body` with errors reported to the context collected instead of handled by the
// context's handler (LLVM's default one prints them and calls exit(1): inline assembly the
// target's assembler rejects does that, in code generation and in the bitcode writer's symbol
// table alike). Returns the collected messages (empty: no error) and restores the handler.
std::string collectErrors(LLVMContext &Ctx, function_ref<void()> Body) {
  std::unique_ptr<DiagnosticHandler> Previous = Ctx.getDiagnosticHandler();
  auto Collector = std::make_unique<ErrorCollector>();
  ErrorCollector *Errors = Collector.get();
  Errors->Previous = Previous.get();
  Ctx.setDiagnosticHandler(std::move(Collector));
  Body();
  std::string Message = std::move(Errors->Message);
  // LLVM offers no way to read whether the context filtered diagnostics through the handler's
  // own `is*RemarkEnabled` before calling it (lld's LTO context does; restoring without it made
  // lld print every remark codegen produced). Restore with filtering on: a handler is then
  // only handed what it says it wants, which is all any handler acts on.
  Ctx.setDiagnosticHandler(std::move(Previous), /*RespectFilters=*/true);
  return Message;
}

} // namespace fmshim
