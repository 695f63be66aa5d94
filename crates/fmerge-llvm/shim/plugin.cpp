// fmerge as an LLVM 22 pass plugin: the C++ half.
//
// LLVM's new pass manager only talks C++, so this file does the registration and nothing else:
// it defines the `fmerge` module pass, adds it to the pipelines at the places a user expects
// (after the optimizer of a non-LTO compile, at the end of the full-LTO link pipeline, when
// each ThinLTO backend's code generation starts), reads the `-fmerge-*` command-line options,
// and hands the module to a runner written in Rust (`src/plugin.rs`, which the plugin crate
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
//
// ThinLTO backends run at the start of code generation, not in the optimizer's pipeline: clang's
// backend for distributed ThinLTO (`clang -fthinlto-index=M.thinlto.bc -x ir M.o -c`) builds
// its optimizer from an LTO configuration that loads no pass plugins (`-fpass-plugin` is
// ignored there), so no pass builder callback of ours ever runs. What does run in every code
// generation pipeline is the global registry of TargetPassConfig callbacks, which a plugin
// loaded with `-Xclang -load` joins when it is loaded. So a ThinLTO backend module gets fmerge
// as the first (legacy) pass of its code generation, in lld's in-process backends (where the
// optimizer callback only marks the thread: "this thread's next code generation is a ThinLTO
// backend's") and in distributed backends (where nothing registered a pass builder callback in
// the process) alike: the same module state, so the same bytes either way. The pass is never
// added to fmerge's own code generation (the size ruler, which compiles scratch modules on
// several threads while fmerge runs), nor in a process that is not the plugin (the fmerge
// command links this file too).

#include "llvm-c/Core.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/RegisterTargetPassConfigCallback.h"

#include <atomic>
#include <cstddef>
#include <fstream>
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
cl::opt<std::string> Estimate("fmerge-estimate", cl::init(""), cl::cat(FmergeCategory),
                              cl::desc("without a profile, price merges by how often code runs "
                                       "as estimated from the code (true, the default); false "
                                       "merges as if merges cost no time"));
cl::opt<std::string> Report("fmerge-report", cl::init(""), cl::cat(FmergeCategory),
                            cl::desc("write fmerge's JSON report to this file"));
cl::opt<std::string> SummaryDir("fmerge-summary-dir", cl::init(""), cl::cat(FmergeCategory),
                                cl::desc("global merging, round 1: write each module's "
                                         "summary into this directory"));
cl::opt<std::string> GlobalInfo("fmerge-global-info", cl::init(""), cl::cat(FmergeCategory),
                                cl::desc("global merging, round 2: apply this merge "
                                         "information (fmerge combine's) to each module"));
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
// (merge to estimate) are null unless given on the command line.
struct FmPluginOptions {
  const char *merge;
  const char *profit;
  const char *search;
  const char *report;
  const char *hot_percentile;
  const char *max_slowdown;
  const char *max_slowdown_per_kb;
  const char *estimate;
  const char *env; // FMERGE_PLUGIN_OPTIONS, or null
  const char *summary_dir; // empty: none
  const char *global_info; // empty: none
  int whole_program;
  int guard;
  int verbose;
  int timings;
  // 0: a pass pipeline named it (opt -passes=fmerge), 1: after a compile's optimizer, 2: full
  // LTO link, 3: a ThinLTO backend (in-process), 4: a distributed ThinLTO backend.
  int where;
  // Whether the host's code generation puts every function in a section of its own (its
  // TargetMachine's -ffunction-sections; lld's LTO backends always do): 1 or 0 where the pass
  // runs in a code generation pipeline (where 3 and 4), -1 elsewhere (unknown).
  int function_sections;
};

// Returns 1 if the module changed, 0 if it is as it was. Must not unwind.
typedef int (*FmPluginRunner)(LLVMModuleRef, const FmPluginOptions *);

} // extern "C"

namespace {

FmPluginRunner Runner = nullptr;

// A pass builder took our callbacks in this process (opt, lld, clang with -fpass-plugin).
std::atomic<bool> PassBuilderSeen{false};
// The distributed backend's module got the pass (a clang backend compiles one module; every
// later code generation in the process is fmerge's own).
std::atomic<bool> DistributedDone{false};
// The optimizer of a ThinLTO backend ran on this thread: its code generation gets the pass.
thread_local bool ThinBackendPending = false;

// Runs the runner on M (Where and FunctionSections as in FmPluginOptions). Returns whether M
// changed.
bool runOn(Module &M, int Where, int FunctionSections = -1) {
  if (!Runner)
    return false;
  auto Given = [](cl::opt<std::string> &Opt) {
    return Opt.getNumOccurrences() ? Opt.getValue().c_str() : nullptr;
  };
  std::string R = Report, S = SummaryDir, G = GlobalInfo;
  const char *Env = std::getenv("FMERGE_PLUGIN_OPTIONS");
  FmPluginOptions O{Given(Merge), Given(Profit), Given(Search), R.c_str(), Given(HotPercentile),
                    Given(MaxSlowdown), Given(MaxSlowdownPerKB), Given(Estimate),
                    Env, S.c_str(), G.c_str(),
                    WholeProgram ? 1 : 0, Guard ? 1 : 0, Verbose ? 1 : 0, Timings ? 1 : 0,
                    Where, FunctionSections};
  return Runner(wrap(&M), &O) != 0;
}

struct FmergePass : PassInfoMixin<FmergePass> {
  int Where;
  explicit FmergePass(int Where) : Where(Where) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (!runOn(M, Where))
      return PreservedAnalyses::all();
    // Functions were replaced, erased and added: nothing cached about them holds.
    return PreservedAnalyses::none();
  }
  // At -O0 (optnone everywhere) the pass manager may skip it.
  static bool isRequired() { return false; }
};

// The same run as the first pass of a code generation pipeline (the legacy pass manager's),
// told whether that pipeline puts every function in a section of its own, so that fmerge
// measures code as its host will generate it.
struct FmergeCodegenPass : ModulePass {
  static char ID;
  int Where;
  int FunctionSections;
  FmergeCodegenPass(int Where, bool FunctionSections)
      : ModulePass(ID), Where(Where), FunctionSections(FunctionSections ? 1 : 0) {}
  bool runOnModule(Module &M) override { return runOn(M, Where, FunctionSections); }
  StringRef getPassName() const override { return "fmerge"; }
};
char FmergeCodegenPass::ID = 0;

void registerCallbacks(PassBuilder &PB) {
  PassBuilderSeen = true;
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
        // A ThinLTO backend merges when its code generation starts (see the header).
        if (Phase == ThinOrFullLTOPhase::ThinLTOPostLink) {
          ThinBackendPending = true;
          return;
        }
        MPM.addPass(FmergePass(1));
      });
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel Level) {
        if (!Enabled || Level == OptimizationLevel::O0)
          return;
        MPM.addPass(FmergePass(2));
      });
}

// Whether the host's command line asks for a distributed ThinLTO backend (clang's
// -fthinlto-index=FILE, in the driver's command line or the cc1 process's). Linux only: where
// /proc cannot be read, no.
bool distributedBackend() {
  static const bool Answer = [] {
    std::ifstream In("/proc/self/cmdline", std::ios::binary);
    std::string Arg;
    while (std::getline(In, Arg, '\0'))
      if (StringRef(Arg).starts_with("-fthinlto-index="))
        return true;
    return false;
  }();
  return Answer;
}

// Every code generation pipeline of the process (see the header): the pass goes first into a
// ThinLTO backend's. Runs while the pipeline is built, on the thread that will run it.
void onCodegenPipeline(TargetMachine &TM, legacy::PassManagerBase &PM, TargetPassConfig *) {
  // Only inside the plugin library (where the plugin entry point is defined). fmerge's own
  // code generation (on the backend's thread or on threads of its own) never sees a pending
  // backend, and comes after the distributed backend's module took the pass.
  if (&llvmGetPassPluginInfo == nullptr)
    return;
  int Where;
  if (ThinBackendPending) {
    ThinBackendPending = false;
    Where = 3;
  } else if (!PassBuilderSeen && TM.getOptLevel() != CodeGenOptLevel::None &&
             distributedBackend() && !DistributedDone.exchange(true)) {
    // Loaded (-Xclang -load) into clang's distributed ThinLTO backend, whose optimizer took
    // no pass plugin.
    Where = 4;
  } else {
    return;
  }
  if (!Enabled || !PerTU)
    return;
  if (!Runner)
    (void)llvmGetPassPluginInfo(); // sets the runner, as loading the plugin as a pass plugin does
  PM.add(new FmergeCodegenPass(Where, TM.getFunctionSections()));
}

RegisterTargetPassConfigCallback CodegenHook(onCodegenPipeline);

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
