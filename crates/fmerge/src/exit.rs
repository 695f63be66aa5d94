//! Process exit codes: one per kind of failure, so scripts can tell them apart.

use fmerge_llvm::LlvmError;

/// The worker process died from a signal after reading its inputs (see `supervise`).
pub const CRASH: i32 = 10;

pub fn code_for(e: &anyhow::Error) -> i32 {
    if crate::global::is_format_error(e) {
        return 9;
    }
    match e.downcast_ref::<LlvmError>() {
        Some(LlvmError::NotFound { .. } | LlvmError::Io { .. }) => 3,
        Some(LlvmError::Unreadable { .. } | LlvmError::Link { .. }) => 4,
        Some(LlvmError::NewerProducer { .. }) => 5,
        Some(LlvmError::InvalidIr { .. }) => 6,
        Some(LlvmError::UnknownTarget { .. }) => 7,
        Some(LlvmError::Codegen { .. }) => 8,
        None => 1,
    }
}
