//! Profiling: fmerge's own edge profiler and the pricing of merges by profile counts.

pub mod costmodel;
pub mod files;
pub mod probes;
pub mod relax;
pub mod work;
