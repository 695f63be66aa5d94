//! # fmerge-core: the algorithms, free of LLVM
//!
//! Every stage of fmerge that can be expressed over plain data lives here, so it builds in
//! seconds, tests in milliseconds and can be property-tested. `fmerge-llvm` lowers LLVM functions
//! into [`ir::FuncData`]; the stages below only read that data.
//!
//! **Architecture invariant:** this crate never depends on LLVM (no llvm-sys, no inkwell).
//!
//! Stages, in the order data flows through them:
//! - [`ir`]: the plain-data picture of a module.
//! - [`hash`]: the stable hash function used for everything that must not change between runs.
//! - [`compare`]: exact structural equality (identical functions) and equality up to
//!   parameterizable constants (constant-parameterized merging).
//! - [`profit`]: the profit model Δ = Σ c(fi) − (c(merged) + ε) and when to confirm it by
//!   generating code.
//! - [`global`]: global merging across modules: stable per-function summaries, the combine
//!   step and the summary / merge-information file formats.
//! - [`bitcode`]: reads the producer string of a bitcode file without LLVM (version checks).
//! - [`encode`]: one stable 32-bit integer per instruction (opcode, types, operand shape), equal
//!   across modules; the alphabet of MinHash shingles.
//! - [`fingerprint`]: Rocha's opcode/type-frequency fingerprint, its upper-bound similarity and
//!   the SalSSA pruning filter.
//! - [`minhash`]: positional MinHash signatures over shingles of encoded instructions (F3M).
//! - [`lsh`]: the LSH index over MinHash signatures, with bucket cap and F3M's adaptive threshold
//!   and band count.
//! - [`rank`]: exhaustive fingerprint ranking, the `CandidateSearch` interface it shares with
//!   LSH, and the greedy worklist (largest first, merged functions next).
//! - [`align`]: the instruction-merging legality predicate, Needleman–Wunsch, HyFM block pairing
//!   and SalSSA whole-function alignment.
//! - [`profiling`]: fmerge's own edge profiler (optimal probe placement, its files, the cost
//!   model) and the work merges add to a profiled run; its header has the glossary of
//!   profile, count, work, cost, budget.

pub mod align;
pub mod bitcode;
pub mod compare;
pub mod encode;
pub mod fingerprint;
pub mod global;
pub mod hash;
pub mod ir;
pub mod lsh;
pub mod minhash;
pub mod profiling;
pub mod profit;
pub mod rank;

#[cfg(test)]
mod testkit;
