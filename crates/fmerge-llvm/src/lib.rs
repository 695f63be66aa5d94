//! # fmerge-llvm: the only crate that talks to LLVM
//!
//! LLVM 22 through inkwell 0.11 (contexts, parsing, targets, pass pipelines), llvm-sys 221 (IR
//! walking and surgery the safe wrappers need) and a small C++ shim (`shim/`, one file per job)
//! for what the C API lacks: TTI code-size costs, dso_local, attribute and body moves, phi block
//! updates, dominance queries, flag intersection, module subsets.
//!
//! **Architecture invariant:** every `unsafe` block of fmerge is in this crate, each with a
//! `SAFETY:` comment; everything exported is safe, and nothing exported is an llvm-sys or
//! inkwell type (callers need neither). The soundness rule that makes IR handles
//! safe is stated in [`module`].
//!
//! - [`module`]: contexts and modules — read (`.bc`/`.ll`, producer check), link, verify,
//!   clone, sweep, write — and whose process they live in ([`Embedding`]).
//! - [`ir`]: IR handles by kind ([`Value`], [`Global`], [`Function`], [`GlobalVar`],
//!   [`Instruction`], [`Block`], [`Type`]), read access, and fmerge's own names for the LLVM
//!   enums callers need ([`Linkage`], [`Visibility`], [`UnnamedAddr`], [`TailCallKind`]).
//! - [`edit`]: building IR, and every setter and rewiring of the handles.
//! - [`lower`]: LLVM functions → `fmerge_core::ir` plain data.
//! - [`target`]: targets, code generation, the `.text` size ruler.
//! - [`cost`]: TTI code-size estimates.
//! - [`profiling`]: edge-profiling counters, their runtime, and profiles put back as `!prof`.
//! - [`output`]: writing results atomically.
//! - [`memory`]: handing freed memory back to the system between phases.
//! - [`plugin`]: the pass plugin's registration and the host's module (`shim/plugin.cpp`).

pub mod cost;
pub mod edit;
pub mod error;
mod ffi;
pub mod ir;
pub mod lower;
pub mod memory;
pub mod module;
pub mod output;
pub mod plugin;
pub mod profiling;
pub mod snapshot;
pub mod target;

pub use edit::Builder;
pub use error::{LlvmError, Result};
pub use ir::{
    Block, ContextConstant, Function, Global, GlobalVar, Instruction, Linkage, TailCallKind, Type,
    UnnamedAddr, Value, Visibility,
};
pub use module::{Embedding, Llvm, Module, ModuleBytes};
pub use snapshot::{DeferredSnapshot, Snapshot};
pub use target::{SizeReport, Target};
