//! Profiling in the stages: the passes of fmerge's profiling vertical (see
//! `fmerge_core::profiling` for the whole picture and its glossary).
//!
//! - [`instrument`]: `fmerge instrument`: per function, control flow, probe placement and
//!   counter sites (a counter per block where placement cannot be instrumented), cost mode's
//!   probe costs and their relaxation, and the probe map.
//! - [`apply`]: `fmerge opt --profile`: a profile file's counts put into the module as
//!   `!prof` metadata, so that the module is one built with a profile.
//! - [`pricing`]: the profile a module was built with ([`pricing::ModuleProfile`]: block
//!   counts, hot threshold, the module's work) and the [`pricing::Ledger`] that prices each
//!   merge by the work it adds and keeps the sum within the slowdown budget.

pub mod apply;
pub mod instrument;
pub mod pricing;
