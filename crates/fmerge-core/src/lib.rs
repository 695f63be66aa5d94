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
//! - [`bitcode`]: reads the producer string of a bitcode file without LLVM (version checks).

pub mod bitcode;
pub mod compare;
pub mod hash;
pub mod ir;
