//! Profiling: fmerge's edge-profiling counters in IR, their runtime, and profiles put back as
//! `!prof` metadata.

pub mod instrument;
