//! # Profiling: what runs how often, and what a merge adds to it
//!
//! fmerge shrinks code, and every merge it makes adds a little work at run time (a thunk's
//! jump, an extra argument, a `select` on the function id). Profiling is how fmerge knows
//! where that matters. It is a vertical of its own, with a `profiling` module in each layer:
//!
//! - here, the LLVM-free algorithms and file formats;
//! - `fmerge_llvm::profiling`: counters, the runtime that writes them and `!prof` metadata in
//!   IR (the C++ half is in the shim);
//! - `fmerge_passes::profiling`: the `instrument` pass, putting a profile back into a module,
//!   and pricing merges by the work they add;
//! - the `fmerge` binary's `profiling` module: the `instrument` and `profile ...` commands.
//!
//! A profile reaches the merging stages in one of two ways. A module built with clang's PGO
//! (`-fprofile-use`) already carries one. Or fmerge profiles the program itself: `fmerge
//! instrument` places counters with [`probes`] and writes a probe map; each run of the
//! instrumented program appends a raw record; `fmerge profile merge` sums the records into a
//! profile file ([`files`]); `fmerge opt --profile` puts its counts into the module as `!prof`
//! metadata, after which it is a module built with a profile like any other. Either way, the
//! stages price each merge by the [`work`] it adds and keep the sum within `--max-slowdown`.
//!
//! Modules:
//! - [`probes`]: optimal placement of edge-profiling probes (Knuth; Ball and Larus: probes on
//!   the chords of a maximum spanning tree) and reconstruction of every edge and block count
//!   from them, numerically and symbolically.
//! - [`files`]: the probe map, the raw records programs append, and the profile file they are
//!   summed into (counts rebuilt per function, keyed by name and control-flow hash).
//! - [`costmodel`]: the cost of each instruction class in picoseconds, fitted to timed runs,
//!   and comparing two builds by cost per second (`fmerge profile compare`).
//! - [`relax`]: cost instrumentation with fewer probes, within a bound on the error (per
//!   region, for every input; or over the whole program, for runs like the training ones).
//! - [`work`]: the work of a profiled run and the work a merge adds, the slowdown budget that
//!   limits it, and the order in which merges spend it.
//! - [`estimate`]: counts estimated from the code alone (calls per run propagated over the
//!   call graph), so that merges are priced even in a module built without a profile.
//!
//! ## Glossary
//!
//! Each word has one meaning in the code. Where the command line or a file format (which do
//! not change) uses another word for the same thing, the entry says so.
//!
//! - **profile**: the counts of a program's runs. It has two shapes: a *profile file*
//!   ([`files::ProfileFile`], `.fprof`: fmerge's own format, written by `fmerge profile merge`)
//!   and a *module profile* (the `!prof` metadata a module carries, from clang's PGO or from
//!   `fmerge opt --profile`; `fmerge_passes::profiling::pricing::ModuleProfile` is what the
//!   stages read of it). *Profiling* is the whole vertical: instrumenting, running, summing,
//!   applying, pricing.
//! - **count**: how many times something ran: a block, an edge, a function's entries. Counts
//!   come from profiles. A **counter** is the `u64` word an instrumented program increments;
//!   a **probe** is a place chosen to carry a counter (an edge, an exit, or the entry).
//! - **estimate**: counts a module would have, guessed from its code when it has no profile
//!   ([`estimate`]: LLVM's block frequencies per call, calls per run from the call graph).
//!   Pricing treats them like a profile's counts, with its own default budget.
//! - **weight**: a *static estimate* of how often an edge runs (LLVM's block frequency times
//!   branch probability), used to put probes where they run least. (LLVM's "branch weights"
//!   in `!prof` metadata are counts.)
//! - **work**: executed IR instructions. The work of a block is its count times its
//!   instructions, the work of a run the sum over its blocks. A merge *adds* work;
//!   `--max-slowdown` bounds the work merges add as a share of the module's work. The report's
//!   `total_work`, `added_work` and `work_budget` are work.
//! - **cost**: the cost model's price of executing code, in picoseconds per instruction class
//!   ([`costmodel::CostTable`]); a block's cost is the sum over its instructions, a run's cost
//!   Σ block cost × count, a modelled time. *Cost mode* instruments a program so that each run
//!   records its cost. The command line and the files call a run's cost its *work*, after the
//!   paper that defined it (`--mode work`, "work per second", the `work` fields of probe maps,
//!   profile files and raw records); with the unit table (every instruction costs 1) the two
//!   agree. (Outside profiling, the size model speaks of LLVM's code-size cost, in TTI units:
//!   `fmerge_llvm::cost`, `fmerge_core::profit`. Profiling code never uses the word for size.)
//! - **time**: measured time only: wall-clock and CPU nanoseconds of a run.
//! - **budget**: an amount spent step by step, always named by what it limits. The *slowdown
//!   budget* ([`work::SlowdownBudget`], `--max-slowdown`) is the work merges may add. The
//!   *measure budget* (`fmerge_passes::proposal::MeasureBudget`, `--measure-budget`) is the
//!   instructions the stages may compile to settle close calls. Relaxation has an error
//!   *bound*, not a budget.
//! - **price**: to price a merge is to estimate the work it adds; the `Ledger` keeps the
//!   prices within the slowdown budget.
//! - **hot**, **cold**: a function is hot when one of its counts reaches the profile's hot
//!   threshold (`--hot-percentile`), cold when it never ran or has no counts in a module that
//!   has a profile.
//! - **merge**: always functions merged into one body. Runs are *summed* (the command that
//!   sums them is `fmerge profile merge`: [`files::sum_records`]).
//! - **record**: one run of one instrumented module in a raw profile file
//!   ([`files::RawRecord`]). (The report's `*Record` types are sections of the report.)
//! - **relax**: drop probes whose cost is small, within an error bound ([`relax`]).

pub mod costmodel;
pub mod estimate;
pub mod files;
pub mod probes;
pub mod relax;
pub mod work;
