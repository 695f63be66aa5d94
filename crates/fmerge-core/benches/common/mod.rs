//! Shared helpers of the benchmarks and the search_scaling example.

pub mod synth;
