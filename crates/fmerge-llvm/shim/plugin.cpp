// fmerge as an LLVM 22 pass plugin: the C++ half.
//
// LLVM's new pass manager only talks C++, so this file does the registration and nothing else:
// it defines the `fmerge` module pass, adds it to the pipelines at the places a user expects
// (after the optimizer of a non-LTO compile, at the end of the full-LTO link pipeline, after
// the optimizer of each ThinLTO backend), reads the `-fmerge-*` command-line options, and
// hands the module to a runner written in Rust (`src/plugin.rs`, which the plugin crate
// supplies). The runner never unwinds into this file and never ends the process: inside
// clang, opt or lld an internal error must leave the module as it was.
//
// Options (`-mllvm -fmerge-...` in clang, `-Wl,-mllvm,-fmerge-...` or
// `-Wl,--plugin-opt=-fmerge-...` through the linker, plain flags in opt) are registered when
// the plugin is loaded. Tools that parse `-mllvm` before they load plugins (lld, clang's
// `-fpass-plugin`) would reject them as unknown, so the same options are also read from the
// environment variable FMERGE_PLUGIN_OPTIONS (e.g. "-fmerge-report=r.json -fmerge-profit=exact").
// The merging options have no defaults here (their empty initial values are never passed on):
// the runner gets only those given (null for the others) and builds them with the defaults and
// checks `fmerge opt` uses.

#include "llvm-c/Core.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

#include <cstddef>
#include <string>

using namespace llvm;

namespace {

cl::OptionCategory FmergeCategory("fmerge plugin options");

cl::opt<bool> Enabled("fmerge", cl::init(true), cl::cat(FmergeCategory),
                      cl::desc("run fmerge where the plugin adds it to the pipeline "
                               "(-fmerge=false turns the plugin off)"));
cl::opt<std::string> Merge("fmerge-merge", cl::init(""),
                           cl::cat(FmergeCategory),
                           cl::desc("merge kinds: identical,constants,similar"));
cl::opt<bool> WholeProgram("fmerge-whole-program", cl::init(false), cl::cat(FmergeCategory),
                           cl::desc("nothing outside the module calls in except main (the "
                                    "LTO linker's own internalization is used without it)"));
cl::opt<std::string> Profit("fmerge-profit", cl::init(""), cl::cat(FmergeCategory),
                            cl::desc("estimate|hybrid|exact"));
cl::opt<std::string> Search("fmerge-search", cl::init(""), cl::cat(FmergeCategory),
                            cl::desc("lsh|exhaustive"));
cl::opt<bool> Guard("fmerge-guard", cl::init(true), cl::cat(FmergeCategory),
                    cl::desc("measure merged functions' generated code and undo merges "
                             "that came out larger"));
cl::opt<std::string> HotPercentile("fmerge-hot-percentile", cl::init(""),
                                   cl::cat(FmergeCategory),
                                   cl::desc("with a profile in the module: functions hot at "
                                            "this percentile stay out of merging whatever a "
                                            "merge costs (0: no such cut, the default)"));
cl::opt<std::string> MaxSlowdown("fmerge-max-slowdown", cl::init(""),
                                 cl::cat(FmergeCategory),
                                 cl::desc("with a profile in the module: merges may add at "
                                          "most this percentage of the module's run-time "
                                          "work, estimated from the profile"));
cl::opt<std::string> MaxSlowdownPerKB("fmerge-max-slowdown-per-kb", cl::init(""),
                                      cl::cat(FmergeCategory),
                                      cl::desc("with a profile in the module: one merge may "
                                               "add at most this percentage of the module's "
                                               "work per KB it saves"));
cl::opt<std::string> Report("fmerge-report", cl::init(""), cl::cat(FmergeCategory),
                            cl::desc("write fmerge's JSON report to this file"));
cl::opt<bool> Verbose("fmerge-verbose", cl::init(false), cl::cat(FmergeCategory),
                      cl::desc("print one summary line per module to stderr"));
cl::opt<bool> Timings("fmerge-timings", cl::init(false), cl::cat(FmergeCategory),
                      cl::desc("print the wall time of each step of every run to stderr"));
cl::opt<bool> PerTU("fmerge-compile", cl::init(true), cl::cat(FmergeCategory),
                    cl::desc("also merge in compiles without LTO (clang -fpass-plugin) and "
                             "in ThinLTO backends"));

} // namespace

extern "C" {

// What the runner gets: the options as plain C data (valid for the call). The merging options
// (merge to max_slowdown_per_kb) are null unless given on the command line.
struct FmPluginOptions {
  const char *merge;
  const char *profit;
  const char *search;
  const char *report;
  const char *hot_percentile;
  const char *max_slowdown;
  const char *max_slowdown_per_kb;
  const char *env; // FMERGE_PLUGIN_OPTIONS, or null
  int whole_program;
  int guard;
  int verbose;
  int timings;
  // 0: a pass pipeline named it (opt -passes=fmerge), 1: after a compile's optimizer, 2: full
  // LTO link, 3: a ThinLTO backend.
  int where;
};

// Returns 1 if the module changed, 0 if it is as it was. Must not unwind.
typedef int (*FmPluginRunner)(LLVMModuleRef, const FmPluginOptions *);

} // extern "C"

namespace {

FmPluginRunner Runner = nullptr;

struct FmergePass : PassInfoMixin<FmergePass> {
  int Where;
  explicit FmergePass(int Where) : Where(Where) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (!Runner)
      return PreservedAnalyses::all();
    auto Given = [](cl::opt<std::string> &Opt) {
      return Opt.getNumOccurrences() ? Opt.getValue().c_str() : nullptr;
    };
    std::string R = Report;
    const char *Env = std::getenv("FMERGE_PLUGIN_OPTIONS");
    FmPluginOptions O{Given(Merge), Given(Profit), Given(Search), R.c_str(), Given(HotPercentile),
                      Given(MaxSlowdown), Given(MaxSlowdownPerKB),
                      Env,
                      WholeProgram ? 1 : 0, Guard ? 1 : 0, Verbose ? 1 : 0, Timings ? 1 : 0,
                      Where};
    if (Runner(wrap(&M), &O) == 0)
      return PreservedAnalyses::all();
    // Functions were replaced, erased and added: nothing cached about them holds.
    return PreservedAnalyses::none();
  }
  // At -O0 (optnone everywhere) the pass manager may skip it.
  static bool isRequired() { return false; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "fmerge")
          return false;
        MPM.addPass(FmergePass(0));
        return true;
      });
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase Phase) {
        if (!Enabled || !PerTU || Level == OptimizationLevel::O0)
          return;
        // Before an LTO link the module is not the program yet: merge in the link instead.
        if (Phase == ThinOrFullLTOPhase::FullLTOPreLink ||
            Phase == ThinOrFullLTOPhase::ThinLTOPreLink)
          return;
        MPM.addPass(FmergePass(Phase == ThinOrFullLTOPhase::ThinLTOPostLink ? 3 : 1));
      });
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level) {
        if (!Enabled || Level == OptimizationLevel::O0)
          return;
        MPM.addPass(FmergePass(2));
      });
}

} // namespace

extern "C" {

// Called once, from the Rust side of `llvmGetPassPluginInfo`.
void fm_plugin_set_runner(FmPluginRunner R) { Runner = R; }

// The `RegisterPassBuilderCallbacks` of the plugin's PassPluginLibraryInfo.
void fm_plugin_register_callbacks(void *PB) {
  registerCallbacks(*static_cast<PassBuilder *>(PB));
}

// The plugin API version this shim was compiled for (LLVM_PLUGIN_API_VERSION).
uint32_t fm_plugin_api_version() { return LLVM_PLUGIN_API_VERSION; }

// The layout the Rust mirror of PassPluginLibraryInfo must match.
size_t fm_plugin_info_size() { return sizeof(PassPluginLibraryInfo); }

} // extern "C"

static_assert(offsetof(PassPluginLibraryInfo, APIVersion) == 0, "layout");
static_assert(offsetof(PassPluginLibraryInfo, PluginName) == 8, "layout");
static_assert(offsetof(PassPluginLibraryInfo, PluginVersion) == 16, "layout");
static_assert(offsetof(PassPluginLibraryInfo, RegisterPassBuilderCallbacks) == 24, "layout");
static_assert(offsetof(PassPluginLibraryInfo, PreCodeGenCallback) == 32, "layout");
static_assert(sizeof(PassPluginLibraryInfo) == 40, "layout");
