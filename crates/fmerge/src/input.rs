//! Reading the inputs, with LLVM's bitcode reader kept at arm's length.
//!
//! LLVM's bitcode reader trusts its input more than it should: some corrupt files crash it
//! (found by fmerge's fuzz tests; `opt-22` and `llvm-dis-22` crash on them too). fmerge must
//! answer bad input with a clear error, so every bitcode input is first parsed by a child
//! process (`fmerge` itself, hidden subcommand `read-check`). If the child dies from a signal,
//! the file is reported as corrupt; only files the child could parse are read in-process.

use anyhow::Result;
use fmerge_llvm::{Llvm, LlvmError, Module};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The hidden subcommand the child runs.
pub const READ_CHECK: &str = "read-check";

/// Parses `path` and exits: 0 when it parsed, 1 when LLVM reported an error.
pub fn read_check(path: &Path) -> Result<()> {
    Llvm::new().load(path)?;
    Ok(())
}

/// Fails with `LlvmError::Unreadable` if LLVM's reader crashes on one of `paths`.
fn check_in_child(paths: &[PathBuf]) -> Result<()> {
    let me = std::env::current_exe()?;
    for path in paths {
        let looks_like_bitcode = std::fs::File::open(path)
            .ok()
            .and_then(|mut f| {
                let mut head = [0u8; 4];
                std::io::Read::read_exact(&mut f, &mut head).ok().map(|()| head)
            })
            .is_some_and(|h| fmerge_core::bitcode::looks_like_bitcode(&h));
        if !looks_like_bitcode {
            continue;
        }
        let status = Command::new(&me)
            .arg(READ_CHECK)
            .arg(path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()?;
        if status.code().is_none() {
            return Err(LlvmError::Unreadable {
                path: path.clone(),
                message: "LLVM's bitcode reader crashed on it; the file is corrupt".into(),
            }
            .into());
        }
    }
    Ok(())
}

/// Reads every input (checked first, see the module documentation) and links them into one.
pub fn load<'c>(llvm: &'c Llvm, paths: &[PathBuf]) -> Result<Module<'c>> {
    check_in_child(paths)?;
    Ok(llvm.load_and_link(paths)?)
}

/// Reads one input (checked first).
pub fn load_one<'c>(llvm: &'c Llvm, path: &Path) -> Result<Module<'c>> {
    check_in_child(&[path.to_path_buf()])?;
    Ok(llvm.load(path)?)
}
