//! Command-line interface definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use fmerge_llvm::target::{CodeGenSwitches, Outlining};
use fmerge_passes::options;
use std::path::PathBuf;

const ABOUT: &str = "Shrinks LLVM programs by merging identical and similar functions.";

const LONG_ABOUT: &str = "\
fmerge reads LLVM 22 bitcode (from clang-22, clang++-22 or a rustc built on LLVM 22), finds
functions that are identical or differ only in constants, merges them into one function, and
writes smaller bitcode, textual IR or an object file. Every module it writes has passed the LLVM
verifier; every merge it keeps was priced with the target's code-size model and, when the call
was close, by generating the code.

Typical uses:
  # whole program, after clang -flto -Os:  merge, then link as usual
  clang-22 -Os -flto -c a.c b.c && llvm-link-22 a.o b.o -o prog.bc
  fmerge opt prog.bc --whole-program -o prog.opt.bc && clang-22 prog.opt.bc -o prog

  # one translation unit
  clang-22 -Os -emit-llvm -c file.c -o file.bc && fmerge opt file.bc --emit obj -o file.o

  # a Rust program (rustc's LLVM must be 22.x)
  cargo rustc --release -- -C lto=fat --emit=llvm-bc   # then fmerge opt target/release/deps/*.bc ...

  # measure: .text bytes, total and per function
  fmerge size prog.bc

Exit status: 0 success, 2 usage error, 3 missing or unreadable file, 4 input is not valid LLVM
IR or bitcode, 5 bitcode from an LLVM newer than 22, 6 input fails the IR verifier or names a
CPU the target does not know, 7 unknown target, 8 code generation failed (an assembler error in
inline asm, or a fatal error inside LLVM), 9 a summary or merge-information file is corrupt or of another format
version, 10 fmerge or LLVM crashed (a bug: nothing was written), 1 anything else.";

#[derive(Parser, Debug)]
#[command(name = "fmerge", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Merge functions and write the smaller module.
    #[command(
        long_about = "Links all inputs into one module in-process, merges functions, verifies the \
result and writes it to OUT atomically (a temporary file renamed into place: never a half-written \
file). Prints a summary with the number of merged functions and the estimated and measured bytes \
saved."
    )]
    Opt(OptArgs),
    /// Generate code and print .text bytes, total and per function.
    #[command(
        long_about = "Compiles the modules in-process (the same defaults as `llc-22 -filetype=obj`) \
and prints the bytes of executable sections and of each function symbol. This is the ruler behind \
every number fmerge reports."
    )]
    Size(SizeArgs),
    /// Show how two functions align, side by side, and whether they could share a body.
    #[command(
        long_about = "Lowers two functions of a module, says whether they are identical, equal up \
to parameterizable constants or only similar, and prints their HyFM block alignment side by side \
(`=` one shared instruction, `<` only in the first, `>` only in the second) with the predicted \
size of a merged body."
    )]
    Explain(ExplainArgs),
    /// Global merging, step 1 (per module): write the module's summary.
    #[command(
        long_about = "Writes a small summary of one module: for every function that could be \
merged across modules, a stable hash of its structure that leaves out the constants a parameter \
could replace (call targets and arguments, load/store operands), its size, and those constants. \
Stable: the same on every machine and run. Run it on every module of the program (in parallel), \
then `fmerge combine`, then `fmerge apply` on every module."
    )]
    Summarize(SummarizeArgs),
    /// Global merging, step 2 (once): combine all summaries into merge information.
    #[command(
        long_about = "Reads the summaries of all modules, groups functions with equal hashes, works \
out the parameters each group needs and keeps the groups whose merge pays (the Benefit > Cost \
model of \"Optimistic Global Function Merger\", Lee, Ren, Hoag, 2023). Writes the merge \
information `fmerge apply` reads. Merge information from an earlier build may be reused: \
applying stale information is always correct, it only finds fewer merges."
    )]
    Combine(CombineArgs),
    /// Global merging, step 3 (per module): apply the merge information.
    #[command(long_about = "For every function of the module whose hash has a group in the merge \
information, makes a parameterized copy of the function's own body (`<name>.Tgm`) and turns the \
function into a thunk that passes its own constants. Link the objects with identical code \
folding (`ld.lld --icf=all`, objects built with function sections: `--emit obj` does that, and \
bitcode outputs must be compiled with `-ffunction-sections`) so the copies from different \
modules fold into one.")]
    Apply(ApplyArgs),
    /// Find the first merge that breaks a build: binary search over `opt --bisect-limit`.
    #[command(
        long_about = "Runs `fmerge opt` on the inputs with --bisect-limit N (and --no-measure, plus any options after `--`) for the N a binary search picks, runs the test command on each merged module, and prints the first merge whose presence makes the test fail: its number, stage, the functions it merged, the modules with and without it, and the merged body's IR. The test command runs with `sh -c`; `{}` in it, or the environment variable FMERGE_BISECT_MODULE, names the module to test. Exit 0 = good, 125 = cannot test (bisecting stops), anything else = bad.

Example (a Rust program linked from a merged fat-LTO module; check.sh builds and runs it):
  fmerge bisect demo.bc --test './check.sh {}' -- --whole-program"
    )]
    Bisect(BisectArgs),
    /// Instrument a module for edge profiling with the fewest counters (Knuth; Ball and Larus).
    #[command(long_about = "Adds counters to every function of the module so that, after the \
program runs, every block and edge count and every function's entry count can be rebuilt: the \
counters sit on the edges outside a maximum spanning tree of each function's control flow \
(Knuth; Ball and Larus), weighted by LLVM's static frequency estimate, so they land on cold \
edges. Writes the instrumented module and a probe map (`--map`, default: OUT with the extension \
.fpmap). The program appends one record per run to the file named by FMERGE_PROFILE_FILE \
(default fmerge.profraw) when it exits; `fmerge profile merge` turns records into a profile \
for `fmerge opt --profile`.

Example:
  fmerge instrument prog.bc -o prog.inst.bc && clang-22 prog.inst.bc -o prog.inst
  FMERGE_PROFILE_FILE=train.profraw ./prog.inst < training-input
  fmerge profile merge train.profraw --map prog.inst.fpmap -o train.fprof
  fmerge opt prog.bc --profile train.fprof -o prog.opt.bc")]
    Instrument(InstrumentArgs),
    /// Merge and inspect profiles written by instrumented programs.
    #[command(subcommand)]
    Profile(ProfileCommand),
}

#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// Merge raw records (and earlier profiles) into one profile.
    #[command(long_about = "Reads raw profile files written by programs built from `fmerge \
instrument` output and profiles written by earlier merges, sums the runs of each module the \
given probe maps describe, rebuilds every function's block and edge counts, and writes one \
profile. Functions whose counts do not fit their control flow (another build, or lost updates \
of non-atomic counters in threads) are reported and left out.")]
    Merge(ProfileMergeArgs),
    /// Print a profile's runs, coverage and hottest functions.
    Show(ProfileShowArgs),
    /// Which of two builds is faster, from runs on different inputs (work per second).
    #[command(long_about = "Compares two builds of a program from profiles of work-mode \
instrumented runs (`fmerge instrument --mode work` on the same unoptimized module, then each \
build made from it), where every run may have had a different input: a run's performance is \
its work per second, P = W/t (as in Rocha et al., \"Online Iterative Compilation Guided by \
Low Overhead Profiling\"), which does not depend on how much work the input \
asked for. Prints each build's mean P, the ratio B/A with a 95% bootstrap confidence \
interval, and which build is faster once the interval excludes 1.")]
    Compare(ProfileCompareArgs),
    /// Fit the work metric's cost table to timed runs.
    #[command(long_about = "Reads training runs (JSON lines: {\"label\", \"executed\": \
{class: instructions executed}, \"seconds\"}, as bench/fmbench profiling costmodel writes them from \
counters profiles and timings of unoptimized builds) and fits the cost of each instruction \
class by non-negative least squares with an intercept on relative errors, optionally pulled \
towards the mean cost (--ridge). Writes the cost table for \
`fmerge instrument --mode work --costs`.")]
    Fit(ProfileFitArgs),
}

#[derive(Args, Debug)]
pub struct ProfileCompareArgs {
    /// Profile of build A (work mode).
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Profile of build B (work mode).
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The time of a run: the CPU time of its process (robust to other programs sharing the
    /// machine; for a multi-threaded program, the sum over threads) or wall-clock time.
    #[arg(long, value_enum, default_value_t = ClockKind::Cpu)]
    pub clock: ClockKind,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ProfileFitArgs {
    /// Training runs, JSON lines.
    #[arg(value_name = "RUNS.jsonl")]
    pub runs: PathBuf,
    /// The cost table to write.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// What to call the fit in the table's `source`.
    #[arg(long, default_value = "fitted")]
    pub source: String,
    /// How strongly costs are pulled towards the mean cost of an instruction (0: plain
    /// non-negative least squares).
    #[arg(long, default_value_t = 0.0)]
    pub ridge: f64,
}

#[derive(Args, Debug)]
pub struct InstrumentArgs {
    /// Input modules (.bc or .ll); several are linked into one.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// The instrumented module to write.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// The probe map to write (default: OUT with the extension .fpmap).
    #[arg(long, value_name = "MAP")]
    pub map: Option<PathBuf>,
    /// Where counters go: on the fewest edges (optimal), one in every block (the naive
    /// reference), or both in one program (check: `fmerge profile merge` then checks, run by
    /// run, that the optimal counters rebuild every block count exactly).
    #[arg(long, value_enum, default_value_t = ProbeKind::Optimal)]
    pub probes: ProbeKind,
    /// What the program records: a count for every block and edge (counters), or its work
    /// (Rocha et al.'s work metric: Σ over blocks of the block's cost × its count, costs from
    /// `--costs`): the same probes, only those whose count stands for some work, each weighed
    /// by that work when the profile is merged, so a run's work is one number. Work compares
    /// builds run on different inputs (`fmerge profile compare`); instrument the unoptimized
    /// module so that the work of an input is the same in every build made from it.
    #[arg(long, value_enum, default_value_t = ModeKind::Counters)]
    pub mode: ModeKind,
    /// Work mode: the cost table (`fmerge profile fit` writes one; default: the table fitted
    /// for x86-64 that fmerge ships).
    #[arg(long, value_name = "COSTS.json")]
    pub costs: Option<PathBuf>,
    /// Work mode: drop probes that add little work, losing at most PCT percent of it:
    /// `region:PCT` bounds the loss in every pass through every loop and function body (for
    /// any input); `whole:PCT` bounds it over the runs of a training profile of this module
    /// (`--profile`), dropping more.
    #[arg(long, value_name = "region:PCT|whole:PCT")]
    pub relax: Option<String>,
    /// A counters profile of this module (`fmerge profile merge`), for `--relax whole:PCT`.
    #[arg(long, value_name = "FILE.fprof")]
    pub profile: Option<PathBuf>,
    /// Atomic counter updates: exact counts in multi-threaded programs, at a higher cost per
    /// update. Without it, as with clang's default (-fprofile-update=single), threads running
    /// the same code at once can lose updates.
    #[arg(long)]
    pub atomic: bool,
    /// Treat a call as able to leave its caller only if it may unwind or never returns, not
    /// every call that might reach exit() or longjmp: fewer counters, and counts that are off
    /// by the frames on the stack when such a call ends the program.
    #[arg(long)]
    pub assume_calls_return: bool,
    /// Keep every counter update in memory. By default a counter updated inside a loop that
    /// makes no call (only harmless intrinsics such as memcpy) is kept in a register through
    /// the loop and written back at the loop's exits, as LLVM's own instrumentation does;
    /// counts stay exact (nothing inside such a loop can end the process). Atomic counters are
    /// never kept in registers.
    #[arg(long)]
    pub no_promote: bool,
    /// Also write the record of a run that a signal ends (SIGINT, SIGTERM, SIGHUP, SIGPIPE,
    /// SIGABRT, SIGQUIT, SIGALRM, SIGILL, SIGTRAP, SIGFPE, SIGXCPU, SIGXFSZ; not SIGSEGV or
    /// SIGBUS, nor SIGKILL or _exit()). The program gets handlers for those of them still at
    /// their default when it starts; it ends with the same status. A program that asks for a
    /// signal's disposition sees the handler (CPython then leaves out its KeyboardInterrupt):
    /// that is why this is an option. Such a run stops inside the functions on its stack;
    /// `profile merge` counts any whose counts no longer fit from the other runs only.
    #[arg(long)]
    pub write_on_signal: bool,
    /// What to write.
    #[arg(long, value_enum, default_value_t = EmitKind::Bc)]
    pub emit: EmitKind,
    /// Target triple (default: the module's, else the host's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// No summary.
    #[arg(short, long)]
    pub quiet: bool,
}

impl InstrumentArgs {
    /// The probe map's path.
    pub fn map_path(&self) -> PathBuf {
        self.map.clone().unwrap_or_else(|| self.output.with_extension("fpmap"))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockKind {
    Cpu,
    Wall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeKind {
    Counters,
    Work,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProbeKind {
    Optimal,
    Blocks,
    Check,
}

#[derive(Args, Debug)]
pub struct ProfileMergeArgs {
    /// Raw profiles (written by instrumented programs) and profiles (from earlier merges).
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// Probe maps of the instrumented modules the raw records come from.
    #[arg(long = "map", value_name = "MAP")]
    pub maps: Vec<PathBuf>,
    /// The profile to write.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// No summary line.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ProfileShowArgs {
    /// A profile written by `fmerge profile merge`.
    #[arg(value_name = "PROFILE")]
    pub input: PathBuf,
    /// How many of the hottest functions to list (0 = all).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl Command {
    /// For a command that runs LLVM, the files it may write (a worker runs it, see
    /// `supervise`); `None` for one that never touches LLVM.
    pub fn worker_outputs(&self) -> Option<Vec<PathBuf>> {
        match self {
            Command::Opt(a) => Some(a.report.iter().cloned().chain([a.output.clone()]).collect()),
            Command::Apply(a) => Some(a.report.iter().cloned().chain([a.output.clone()]).collect()),
            Command::Summarize(a) => {
                Some(a.outline_data.iter().cloned().chain([a.output.clone()]).collect())
            }
            Command::Size(_) | Command::Explain(_) => Some(Vec::new()),
            Command::Instrument(a) => Some(vec![a.output.clone(), a.map_path()]),
            Command::Combine(_) | Command::Bisect(_) | Command::Profile(_) => None,
        }
    }
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Input modules (.bc or .ll); several are linked into one.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// The first function (its name in the IR, without `@`).
    #[arg(long = "fn", value_name = "F")]
    pub first: String,
    /// The second function.
    #[arg(long = "with", value_name = "G")]
    pub second: String,
    /// Target triple for code-size costs (default: the module's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
}

#[derive(Args, Debug)]
pub struct SummarizeArgs {
    /// The module (.bc or .ll).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The summary to write (conventionally IN.fms).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Target triple for code-size costs (default: the module's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Also print the summary as JSON (for inspection).
    #[arg(long)]
    pub json: bool,
    /// Leave out the functions' bodies: the summary is smaller, but `combine` can then only
    /// merge functions equal up to constants, not similar ones, across modules.
    #[arg(long)]
    pub no_bodies: bool,
    /// Global outlining, round 1: also compile the module with LLVM's machine outliner and
    /// write the object file, whose `__llvm_outline` section records the sequences it outlined
    /// (LLVM's codegen data); give these files to `combine --outline-data`.
    #[arg(long, value_name = "FILE.o")]
    pub outline_data: Option<PathBuf>,
    #[command(flatten)]
    pub codegen: CodeGenArgs,
}

#[derive(Args, Debug)]
pub struct CombineArgs {
    /// Summaries written by `fmerge summarize`, or directories of them (every `.fms` file
    /// inside, as the plugin's `-fmerge-summary-dir` writes them).
    #[arg(required = true, value_name = "IN.fms|DIR")]
    pub inputs: Vec<PathBuf>,
    /// The merge information to write (conventionally merge.fmi).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// No summary line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the merge information as JSON instead of the summary line.
    #[arg(long)]
    pub json: bool,
    /// Do not merge similar functions across modules (only functions equal up to constants).
    #[arg(long)]
    pub no_similar: bool,
    /// Global outlining: the files `summarize --outline-data` wrote, merged (with
    /// `llvm-cgdata-22 --merge`) into OUT with the extension .cgdata for `apply --outline-data`.
    #[arg(long, value_name = "FILE.o", num_args = 1..)]
    pub outline_data: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The module (.bc or .ll).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Merge information written by `fmerge combine`.
    #[arg(long, value_name = "merge.fmi")]
    pub info: PathBuf,
    /// Output file.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// What to write (objects get one section per function, for the linker's folding).
    #[arg(long, value_enum, default_value_t = EmitKind::Bc)]
    pub emit: EmitKind,
    /// Target triple (default: the module's, else the host's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Write a JSON report of the functions changed.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Run LLVM's machine outliner on the object file (`--emit obj`), after applying, as
    /// `llc-22 -enable-machine-outliner` does (within this module only, unless
    /// `--outline-data`).
    #[arg(long)]
    pub outline: bool,
    /// Global outlining, round 2 (with `--outline`): outline the sequences recorded in every
    /// module (`combine --outline-data` wrote the file), naming outlined functions by their
    /// contents so that `ld.lld --icf=all` keeps one copy of those several modules emit.
    /// Stale data is harmless: it can only make outlining find less or more.
    #[arg(long, value_name = "merge.cgdata", requires = "outline")]
    pub outline_data: Option<PathBuf>,
    #[command(flatten)]
    pub codegen: CodeGenArgs,
}

#[derive(Args, Debug)]
pub struct OptArgs {
    /// Input modules (.bc or .ll); several are linked into one.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// Output file (`-`: standard output).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// What to write.
    #[arg(long, value_enum, default_value_t = EmitKind::Bc)]
    pub emit: EmitKind,
    /// Target triple for code generation and costs (default: the module's, else the host's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// The input is the whole program: functions other than `main` (on WebAssembly also
    /// `__main_argc_argv`, clang's name for a `main` with parameters) that end up unused may
    /// be deleted, and addresses nobody takes may be merged.
    #[arg(long)]
    pub whole_program: bool,
    /// Which merges to perform (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values = options::DEFAULT_STAGES.names())]
    pub merge: Vec<MergeKind>,
    /// How merges are priced: TTI estimates, generated code, or estimates with generated code
    /// for close calls.
    #[arg(long, value_enum, default_value = options::DEFAULT_PROFIT.name())]
    pub profit: ProfitKind,
    /// Hybrid pricing: how much code each stage may generate to confirm close calls, as a
    /// fraction of the module's instructions (0 = estimates only, like `--profit estimate`
    /// for close calls). Code generation costs about as much per instruction as `opt -Oz`,
    /// so this bounds the time confirming adds. Close calls past the budget are decided on
    /// their estimate (counted as `over_budget` in the report).
    #[arg(long, value_name = "FRACTION", default_value_t = options::DEFAULT_MEASURE_BUDGET)]
    pub measure_budget: f64,
    /// How similar functions find partners: LSH over MinHash signatures (near-linear), or
    /// exhaustive: LSH's partners, then the best of every pair scored by opcode/type
    /// fingerprints (quadratic; a wider search).
    #[arg(long, value_enum, default_value = options::DEFAULT_SEARCH.name())]
    pub search: SearchKind,
    /// Threads that may generate code at once to confirm close merge decisions (default: the
    /// number of CPUs). The output never depends on it.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Write the full report (every merge, every skipped function and why) as JSON.
    #[arg(long, value_name = "FILE.json")]
    pub report: Option<PathBuf>,
    /// Print the report as JSON on stdout instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Include each stage's wall time in the JSON report (reports are otherwise identical
    /// from run to run), and print the wall time of each step (reading, each stage,
    /// verifying, writing) after the summary.
    #[arg(long)]
    pub timings: bool,
    /// Generate code for the whole module before and after: the summary and the report then
    /// give the module's measured .text, and an output larger than the input as a whole is
    /// replaced by the input. Without it only the functions that merges touched are compiled
    /// (the size guard), which costs a fraction of the time.
    #[arg(long, conflicts_with = "no_measure")]
    pub measure: bool,
    /// Generate no code at all, neither for the size guard nor to confirm close calls
    /// (`--measure-budget` is then 0): decisions taken on estimates stand (fastest). With
    /// `--profit exact` the stages still compile every decision.
    #[arg(long)]
    pub no_measure: bool,
    /// Merges with constants and of similar functions may add at most this percentage of the
    /// module's run-time work together. fmerge counts the work from the profile in the module
    /// (built with `clang -fprofile-use` or another LLVM PGO), or without one from counts it
    /// estimates from the code, where it also keeps merges from making likely hot functions
    /// more than 3% slower (see --no-estimate). The work is executed IR instructions (each
    /// block's count times its instructions); for each
    /// merge, the work it adds (thunk jumps and extra arguments per call, parameterized
    /// constants, `select`s and branches on the function id times how often their original
    /// blocks ran); merges that save the most bytes per unit of added work go first. Code that
    /// never ran is free. 0 allows only merges that add no work by the profile.
    #[arg(long, value_name = "PERCENT", default_value_t = options::DEFAULT_MAX_SLOWDOWN_PERCENT, value_parser = options::percent)]
    pub max_slowdown: f64,
    /// One merge may add at most this percentage of the module's run-time work (by the
    /// profile, or estimated without one) per KB it saves (the price of a byte: 0.1 lets a merge that
    /// saves 100 bytes add 0.01%); merges that add no work are not limited.
    #[arg(long, value_name = "PERCENT", default_value_t = options::DEFAULT_MAX_SLOWDOWN_PER_KB_PERCENT, value_parser = options::percent)]
    pub max_slowdown_per_kb: f64,
    /// With a profile in the module: also keep functions hot at this percentile out of merging
    /// with constants and similar merging whatever a merge would cost (the coarser rule before
    /// --max-slowdown; 99 is LLVM's own definition of hot: an entry count or branch weight
    /// among the largest counts that make up 99% of all counts). Off by default; 0 is off.
    #[arg(long, value_name = "PERCENT", value_parser = options::percent)]
    pub hot_percentile: Option<f64>,
    /// Ignore the module's profile: price merges as for a module without one (by counts
    /// estimated from the code, unless --no-estimate).
    #[arg(long, conflicts_with = "profile")]
    pub ignore_profile: bool,
    /// Without a profile, merge as if no merge cost time: no estimate of how often code runs,
    /// so --max-slowdown and --max-slowdown-per-kb have no effect. The most bytes, for code
    /// whose speed does not matter; hot loops may run slower.
    #[arg(long)]
    pub no_estimate: bool,
    /// Use this profile (from `fmerge profile merge`) instead of the one the module carries:
    /// every function whose name and control flow match gets its counts (functions whose code
    /// changed since are left without), then hot functions stay out of merges as with a clang
    /// PGO profile.
    #[arg(long, value_name = "FILE.fprof")]
    pub profile: Option<PathBuf>,
    /// Run LLVM's machine outliner on the object file (`--emit obj`), as `llc-22
    /// -enable-machine-outliner` does: merging first, then outlining. Merges are priced without
    /// it (sizes measured with the outliner in module subsets predicted the outlined module
    /// worse).
    #[arg(long)]
    pub outline: bool,
    #[command(flatten)]
    pub codegen: CodeGenArgs,
    /// Commit only the first N merges (numbered 1, 2, ... in the deterministic order the
    /// stages commit them; `--report` lists each merge's `seq`), like LLVM's
    /// `-opt-bisect-limit`. 0 commits none. `fmerge bisect` searches over it.
    #[arg(long, value_name = "N")]
    pub bisect_limit: Option<usize>,
    /// No progress output.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct BisectArgs {
    /// Input modules (.bc or .ll), as for `fmerge opt`.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// The build-and-test command (`sh -c`); `{}` is replaced by the merged module's path.
    #[arg(long, value_name = "CMD")]
    pub test: String,
    /// Keep the merged modules, reports and the first bad merge's body in DIR (default: a
    /// temporary directory, also kept).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The fmerge binary whose merges to bisect (default: this one).
    #[arg(long, value_name = "PATH")]
    pub fmerge: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Options for `fmerge opt` (after `--`), e.g. `-- --whole-program --merge identical`.
    #[arg(last = true, value_name = "OPT-ARGS")]
    pub opt_args: Vec<String>,
}

#[derive(Args, Debug)]
pub struct SizeArgs {
    /// Input modules (.bc or .ll); several are linked into one.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// Target triple (default: the module's, else the host's).
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// How many of the largest functions to list (0 = all).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Generate code with LLVM's machine outliner on every function (as `llc-22
    /// -enable-machine-outliner`).
    #[arg(long)]
    pub outline: bool,
    #[command(flatten)]
    pub codegen: CodeGenArgs,
}

/// The code generation switches of every command that generates code (objects, the round-1
/// object of global outlining, `size`'s measurements).
#[derive(Args, Debug)]
pub struct CodeGenArgs {
    /// No AArch64 frame helpers. By default the callee-saved register saves and restores of
    /// `minsize` functions (clang -Oz) become calls of shared helpers (LLVM's
    /// `-homogeneous-prolog-epilog`); other targets and functions are unaffected. Give it to
    /// `summarize --outline-data` and `apply` alike: both rounds of global outlining must agree.
    #[arg(long)]
    pub no_frame_helpers: bool,
    /// Check the machine code LLVM generates after every pass (`-verify-machineinstrs`),
    /// outlined functions and frame helpers included. A failed check ends fmerge with LLVM's
    /// "Bad machine code" report and exit status 8, and nothing is written. Slower.
    #[arg(long)]
    pub verify_machine_code: bool,
}

impl CodeGenArgs {
    /// LLVM's process-wide switches for these options, with the machine outliner as given.
    pub fn switches(&self, outlining: Option<Outlining>) -> CodeGenSwitches {
        CodeGenSwitches {
            outlining,
            frame_helpers: !self.no_frame_helpers,
            verify_machine_code: self.verify_machine_code,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// LLVM bitcode.
    Bc,
    /// Textual LLVM IR.
    Ll,
    /// An object file for the target.
    Obj,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MergeKind {
    /// Exactly equal functions.
    Identical,
    /// Functions equal up to constants that can become parameters.
    Constants,
    /// Similar functions: one body with a function identifier, selects and branches where
    /// they differ.
    Similar,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfitKind {
    Estimate,
    Exact,
    Hybrid,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SearchKind {
    Lsh,
    Exhaustive,
}
