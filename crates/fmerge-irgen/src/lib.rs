//! fmerge-irgen: families of similar LLVM IR functions, generated from a seed, with a driver
//! that runs them; and the differential check that merges such modules with fmerge and
//! compares the programs' behaviour.
//!
//! The crate does not link LLVM: it prints textual IR and runs the LLVM 22 tools (`opt-22`,
//! `lli-22`, `clang++-22`, `llvm-stress-22`) and fmerge as processes.
//!
//! - [`ast`]: the small structured language of generated functions (free of undefined
//!   behaviour by construction).
//! - [`family`]: random functions and the mutations that make a family (constants, callees,
//!   globals, operators, operands, statements, blocks, loops, switches, flags, types,
//!   linkage).
//! - [`emit`]: lowering to SSA-form IR with phis, loops, switches and invoke/landingpad.
//! - [`alloc`]: Rust-style vector code (`RawVec` grow paths, `finish_grow`, malloc/realloc,
//!   lifetime-marked scratch slots), instantiated per element type.
//! - [`module`]: a module with helpers (pure, logging, throwing, fact helpers), globals,
//!   fact tables and `main`.
//! - [`stress`]: `llvm-stress-22` modules with perturbed copies of their function.
//! - [`check`]: merge in every mode, verify, execute, compare.

pub mod alloc;
pub mod ast;
pub mod check;
pub mod emit;
pub mod family;
pub mod module;
pub mod rng;
pub mod stress;

pub use module::{Config, Generated, generate};
