//! Profiling: instrumenting a module, putting a profile back into one, and pricing merges by
//! the work they add to a profiled run.

pub mod apply;
pub mod instrument;
pub mod pricing;
