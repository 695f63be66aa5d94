//! Command-line interface definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
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
IR or bitcode, 5 bitcode from an LLVM newer than 22, 6 input fails the IR verifier, 7 unknown
target, 8 code generation failed, 1 anything else.";

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
    /// The input is the whole program: functions other than `main` that end up unused may be
    /// deleted, and addresses nobody takes may be merged.
    #[arg(long)]
    pub whole_program: bool,
    /// Which merges to perform (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [MergeKind::Identical, MergeKind::Constants, MergeKind::Similar])]
    pub merge: Vec<MergeKind>,
    /// How merges are priced: TTI estimates, generated code, or estimates with generated code
    /// for close calls.
    #[arg(long, value_enum, default_value_t = ProfitKind::Hybrid)]
    pub profit: ProfitKind,
    /// How similar functions find partners: LSH over MinHash signatures (near-linear), or
    /// scoring every pair by opcode/type fingerprints (quadratic; for comparison).
    #[arg(long, value_enum, default_value_t = SearchKind::Lsh)]
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
    /// from run to run).
    #[arg(long)]
    pub timings: bool,
    /// Do not generate code to measure .text before and after (faster).
    #[arg(long)]
    pub no_measure: bool,
    /// No progress output.
    #[arg(short, long)]
    pub quiet: bool,
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
