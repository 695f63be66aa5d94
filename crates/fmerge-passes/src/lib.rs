//! # fmerge-passes: the merging stages
//!
//! Each stage reads a module through `fmerge-llvm`, decides on plain data with `fmerge-core`,
//! and commits through the safe IR API. Data flows one way:
//! module → function summaries → candidate classes/pairs → merged function → profit check →
//! commit or roll back.
//!
//! - [`pipeline`]: reads the profile, runs the stages in order under the size guard,
//!   verifies, assembles the report.
//! - [`session`]: one run of the stages: the module, target, options, profile, slowdown
//!   ledger, gate and the report being built.
//! - [`stage`]: what a stage is (rounds over the module), and the loop that drives it.
//! - [`identical`]: exactly equal functions (LLVM MergeFunctions semantics).
//! - [`constants`]: functions equal up to constants that can become parameters.
//! - [`similar`]: similar functions: MinHash/LSH search, HyFM alignment, SalSSA-style merged
//!   bodies with a function identifier.
//! - [`global`]: global merging under separate compilation: module summaries and applying
//!   the combined merge information.
//! - [`fold`]: how merged-away functions stay callable (replace, redirect, thunk).
//! - [`intersect`]: flags and metadata a shared body may keep.
//! - [`proposal`]: a merge waiting for its verdict: pricing, settling close calls by
//!   generating code, committing.
//! - [`measure`]: sizes of functions compiled on their own.
//! - [`guard`]: the size guard: merges whose generated code measured larger are undone (its
//!   re-run loop), and the gate of merges that may be committed.
//! - [`profiling`]: edge-profiling counters (`fmerge instrument`), profiles put back into a
//!   module (`fmerge opt --profile`), and merges priced by the work they add to a profiled run.
//! - [`options`], [`report`]: what was asked (built once, by the builder the CLI and the
//!   plugin share), what was done.
//!
//! **Architecture invariant:** nothing here calls LLVM except through `fmerge-llvm`'s safe API,
//! and nothing reaches the output unless the whole module verifies.

pub mod constants;
pub mod fold;
pub mod global;
pub mod guard;
pub mod identical;
pub mod intersect;
pub mod measure;
pub mod options;
pub mod pipeline;
pub mod profiling;
pub mod proposal;
pub mod report;
pub mod session;
pub mod similar;
pub mod stage;
pub mod undo;

pub use options::{Options, OptionsBuilder, ProfitMode, SearchMode, Stages};
pub use pipeline::optimize;
pub use report::Report;
pub use session::Progress;
