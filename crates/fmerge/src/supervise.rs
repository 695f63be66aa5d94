//! Keeping LLVM at arm's length: every command that touches LLVM runs in a worker process.
//!
//! LLVM's bitcode reader trusts its input more than it should: some corrupt files make it read
//! out of bounds (found by fmerge's fuzz tests; `opt-22` and `llvm-dis-22` do the same, and
//! whether that crashes depends on the memory layout of the process). fmerge must answer bad
//! input with a clear error, never a crash. So the `fmerge` a user starts parses its arguments
//! and then only supervises: it runs itself again as a worker (same arguments, environment
//! variable [`WORKER_ENV`] set) that does the whole job, passes the worker's exit status on,
//! and turns a worker killed by a signal into a clear error:
//! - while the worker was reading an input (it notes each file in a small log before it reads
//!   it and after it has read and verified it; LLVM's verifier too can crash on a corrupt
//!   file): that file is corrupt (exit 4, as for any unreadable bitcode);
//! - after it had read its inputs: a crash inside LLVM or fmerge, a bug (exit 10).
//!
//! Either way no output exists: outputs are written to a temporary file renamed into place,
//! and the supervisor removes a temporary file the worker left behind. The raw input is never
//! parsed in the supervising process. One parse per input, in the worker: reading costs what
//! it costs in `opt-22`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the worker's environment: the path of its reading log.
pub const WORKER_ENV: &str = "FMERGE_WORKER_LOG";

/// True in the worker (or when someone runs fmerge with the variable set by hand: then that
/// process does the job itself, unsupervised).
pub fn is_worker() -> bool {
    std::env::var_os(WORKER_ENV).is_some()
}

/// The worker notes that it starts reading `path` (no-op outside a worker).
pub fn note_reading(path: &Path) {
    note(&format!("reading\t{}\n", path.display()));
}

/// The worker notes that it has read `path`.
pub fn note_read(path: &Path) {
    note(&format!("read\t{}\n", path.display()));
}

fn note(line: &str) {
    let Some(log) = std::env::var_os(WORKER_ENV) else { return };
    // Best effort: without the log a crash while reading is reported as a crash after it.
    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(log) {
        let _ = f.write_all(line.as_bytes());
    }
}

/// How a worker that died from a signal is reported.
#[derive(Debug, PartialEq, Eq)]
pub enum Crash {
    /// It died while reading this input.
    WhileReading(PathBuf),
    /// It died after reading its inputs (or before reading any).
    Later,
}

/// Reads a worker's log: which file it was reading when it stopped, if any.
pub fn crash_from_log(log: &str) -> Crash {
    match log.lines().last().and_then(|l| l.split_once('\t')) {
        Some(("reading", path)) => Crash::WhileReading(PathBuf::from(path)),
        _ => Crash::Later,
    }
}

/// Runs this very command line in a worker and waits for it; returns the exit status to end
/// with. `outputs` are the files the command may write (their temporary files are removed if
/// the worker dies).
pub fn run_worker(outputs: &[PathBuf]) -> i32 {
    match supervise(outputs) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fmerge: error: could not run the worker process: {e:#}");
            1
        }
    }
}

fn supervise(outputs: &[PathBuf]) -> anyhow::Result<i32> {
    let log = tempfile::Builder::new().prefix("fmerge-worker-").suffix(".log").tempfile()?;
    let mut child = Command::new(std::env::current_exe()?)
        .args(std::env::args_os().skip(1))
        .env(WORKER_ENV, log.path())
        .spawn()?;
    let pid = child.id();
    let status = child.wait()?;
    if let Some(code) = status.code() {
        return Ok(code);
    }
    for out in outputs {
        let _ = std::fs::remove_file(fmerge_llvm::output::temporary_path(out, pid));
    }
    let signal = std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0);
    if matches!(signal, 1 | 2 | 15) {
        // SIGHUP, SIGINT, SIGTERM: someone stopped it; end the way it ended.
        return Ok(128 + signal);
    }
    Ok(match crash_from_log(&std::fs::read_to_string(log.path()).unwrap_or_default()) {
        Crash::WhileReading(path) => {
            let e = anyhow::Error::from(fmerge_llvm::LlvmError::Unreadable {
                path,
                message: "LLVM crashed reading or verifying it; the file is corrupt".into(),
            });
            eprintln!("fmerge: error: {e:#}");
            crate::exit::code_for(&e)
        }
        Crash::Later => {
            eprintln!(
                "fmerge: error: fmerge crashed (signal {signal}) after reading its inputs; this is \
                 a bug in fmerge or in LLVM, please report it with the input. Nothing was written."
            );
            crate::exit::CRASH
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_of_the_log_tells_where_the_worker_was() {
        assert_eq!(crash_from_log(""), Crash::Later);
        assert_eq!(
            crash_from_log("reading\ta.bc\nread\ta.bc\nreading\tb c.bc\n"),
            Crash::WhileReading(PathBuf::from("b c.bc"))
        );
        assert_eq!(crash_from_log("reading\ta.bc\nread\ta.bc\n"), Crash::Later);
    }
}
