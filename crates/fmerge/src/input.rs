//! Reading the inputs, with LLVM's bitcode reader kept at arm's length.
//!
//! LLVM's bitcode reader trusts its input more than it should: some corrupt files make it
//! read out of bounds (found by fmerge's fuzz tests; `opt-22` and `llvm-dis-22` do the same,
//! and whether that crashes depends on the memory layout of the process). fmerge must answer
//! bad input with a clear error, so every bitcode input is parsed by a child process
//! (`fmerge` itself, hidden subcommand `read-check`) that writes the module back as bitcode
//! on its stdout. If the child dies from a signal, the file is reported as corrupt; if LLVM
//! reports an error, the child passes it on (one line on stderr) and fmerge reports it.
//! Otherwise fmerge parses the child's bitcode, which LLVM's own writer produced. The raw
//! file is never parsed in fmerge's own process.

use anyhow::Result;
use fmerge_llvm::{Llvm, LlvmError, Module};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The hidden subcommand the child runs.
pub const READ_CHECK: &str = "read-check";

/// The child: parses `path` and writes it back as bitcode to stdout; returns its exit status:
/// 0 when it parsed, 1 when LLVM reported an error (`newer<TAB>producer` or
/// `unreadable<TAB>message` on stderr).
pub fn read_check_main(path: &Path) -> i32 {
    match read_check(path) {
        Ok(()) => 0,
        Err(e) => {
            let line = match e.downcast_ref::<LlvmError>() {
                Some(LlvmError::NewerProducer { producer, .. }) => format!("newer\t{producer}"),
                Some(LlvmError::Unreadable { message, .. }) => format!("unreadable\t{message}"),
                Some(LlvmError::Codegen { message }) => format!("codegen\t{message}"),
                _ => format!("unreadable\t{e}"),
            };
            eprintln!("{}", line.replace('\n', " "));
            1
        }
    }
}

fn read_check(path: &Path) -> Result<()> {
    let llvm = Llvm::new();
    let module = llvm.load(path)?;
    std::io::Write::write_all(&mut std::io::stdout().lock(), &module.to_bitcode()?)?;
    Ok(())
}

/// The module in `path` as bitcode LLVM's writer produced (`None`: not bitcode; the caller
/// then reads the file itself). Fails with LLVM's error, or with `LlvmError::Unreadable` if
/// LLVM's reader crashes on it.
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
        .stderr(Stdio::piped())
        .output()?;
    let path = path.to_path_buf();
    match out.status.code() {
        None => Err(LlvmError::Unreadable {
            path,
            message: "LLVM's bitcode reader crashed on it; the file is corrupt".into(),
        }
        .into()),
        Some(0) => Ok(Some(out.stdout)),
        Some(_) => {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err.lines().last().unwrap_or_default();
            Err(match line.split_once('\t') {
                Some(("newer", producer)) => {
                    LlvmError::NewerProducer { path, producer: producer.to_string() }
                }
                Some(("codegen", message)) => LlvmError::Codegen { message: message.to_string() },
                Some((_, message)) => LlvmError::Unreadable { path, message: message.to_string() },
                None => LlvmError::Unreadable {
                    path,
                    message: "LLVM's bitcode reader failed on it".into(),
                },
            }
            .into())
        }
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
