//! Errors of the LLVM layer. Each kind maps to its own process exit code in the CLI, so scripts
//! can tell a missing file from corrupt bitcode from a too-new producer.

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum LlvmError {
    #[error("{path}: no such file")]
    NotFound { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: cannot read LLVM IR: {message}")]
    Unreadable { path: PathBuf, message: String },
    #[error(
        "{path}: bitcode was written by {producer}, newer than the LLVM 22 fmerge is built on \
         (bitcode is only backward compatible); rebuild it with clang-22 or a rustc that uses LLVM 22"
    )]
    NewerProducer { path: PathBuf, producer: String },
    #[error("invalid IR: {message}")]
    InvalidIr { message: String },
    #[error("unknown or unsupported target {triple:?}: {message}")]
    UnknownTarget { triple: String, message: String },
    #[error("code generation failed: {message}")]
    Codegen { message: String },
    #[error("cannot link {path}: {message}")]
    Link { path: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, LlvmError>;
