//! Reading the inputs, with LLVM's bitcode reader kept at arm's length.
//!
//! LLVM's bitcode reader trusts its input more than it should: some corrupt files make it
//! read out of bounds (found by fmerge's fuzz tests; `opt-22` and `llvm-dis-22` do the same,
//! and whether that crashes depends on the memory layout of the process). fmerge must answer
//! bad input with a clear error, so every bitcode input is parsed by a child process
//! (`fmerge` itself, hidden subcommand `read-check`) that writes the module back as bitcode
//! on its stdout. If the child dies from a signal, the file is reported as corrupt. Otherwise
//! fmerge parses the child's bitcode, which LLVM's own writer produced, never the raw file;
//! when the child reports an error, the raw file is parsed in-process for the message.

use anyhow::Result;
use fmerge_llvm::{Llvm, LlvmError, Module};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The hidden subcommand the child runs.
pub const READ_CHECK: &str = "read-check";

/// The child: parses `path` and writes it back as bitcode to stdout. Exits 0 when it parsed,
/// 1 when LLVM reported an error.
pub fn read_check(path: &Path) -> Result<()> {
    let llvm = Llvm::new();
    let module = llvm.load(path)?;
    std::io::Write::write_all(&mut std::io::stdout().lock(), &module.to_bitcode())?;
    Ok(())
}

/// The module in `path` as bitcode LLVM's writer produced (`None`: not bitcode, or LLVM
/// reported an error; the caller then reads the file itself). Fails with
/// `LlvmError::Unreadable` if LLVM's reader crashes on it.
fn read_in_child(path: &Path) -> Result<Option<Vec<u8>>> {
    let looks_like_bitcode = std::fs::File::open(path)
        .ok()
        .and_then(|mut f| {
            let mut head = [0u8; 4];
            std::io::Read::read_exact(&mut f, &mut head).ok().map(|()| head)
        })
        .is_some_and(|h| fmerge_core::bitcode::looks_like_bitcode(&h));
    if !looks_like_bitcode {
        return Ok(None);
    }
    let out = Command::new(std::env::current_exe()?)
        .arg(READ_CHECK)
        .arg(path)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()?;
    match out.status.code() {
        None => Err(LlvmError::Unreadable {
            path: path.to_path_buf(),
            message: "LLVM's bitcode reader crashed on it; the file is corrupt".into(),
        }
        .into()),
        Some(0) => Ok(Some(out.stdout)),
        Some(_) => Ok(None),
    }
}

/// Reads every input (through the child, see the module documentation) and links them into
/// the first (in-process `llvm-link`).
pub fn load<'c>(llvm: &'c Llvm, paths: &[PathBuf]) -> Result<Module<'c>> {
    let Some((first, rest)) = paths.split_first() else {
        return Ok(llvm.load_and_link(paths)?);
    };
    let mut module = load_one(llvm, first)?;
    for p in rest {
        let other = load_one(llvm, p)?;
        module.link(other, p)?;
    }
    Ok(module)
}

/// Reads one input (through the child).
pub fn load_one<'c>(llvm: &'c Llvm, path: &Path) -> Result<Module<'c>> {
    Ok(match read_in_child(path)? {
        Some(clean) => llvm.parse(path, &clean)?,
        None => llvm.load(path)?,
    })
}
