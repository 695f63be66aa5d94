//! Profiling in LLVM IR: the IR side of fmerge's profiling vertical (see
//! `fmerge_core::profiling` for the whole picture and its glossary).
//!
//! - [`instrument`]: what probe placement needs of a function's control flow (blocks, one
//!   edge per successor slot, static weights, which blocks may leave without coming back),
//!   counter updates at the chosen sites, counter promotion, the module's counter data and
//!   the runtime that appends it as a raw record at exit, and a profile's counts written back
//!   as `!prof` metadata (entry counts, branch weights, the profile summary). The other half
//!   is `shim/profiling/`: the IR surgery in C++, and the runtime itself in C.
//!
//! - [`vtables`]: C++ virtual tables and virtual calls, for the estimate of a module without
//!   a profile (which functions a virtual call may reach: those at its slot).
//!
//! Reading the profile a module was built with is part of the IR handles it reads:
//! `Function::entry_count`, `Function::max_profile_count` and
//! `Function::block_profile_counts` (block counts by LLVM's `BlockFrequencyInfo`, in
//! `ir/function.rs`), and `Module::profile_hot_threshold` (`module.rs`).

pub mod instrument;
pub mod vtables;
