//! Reading the inputs. This runs in the worker process (see `supervise`): each file is noted
//! in the worker's log before and after LLVM reads and verifies it, so that a crash of LLVM's
//! bitcode reader, or of its verifier (which can crash printing a corrupt attribute), on a
//! corrupt file is reported as that file being corrupt. Every module returned verifies.

use anyhow::Result;
use fmerge_llvm::{Llvm, Module};
use std::path::{Path, PathBuf};

/// Reads and verifies every input and links them into the first (in-process `llvm-link`).
pub fn load<'c>(llvm: &'c Llvm, paths: &[PathBuf]) -> Result<Module<'c>> {
    let Some((first, rest)) = paths.split_first() else {
        return Ok(llvm.load_and_link(paths)?);
    };
    let mut module = load_one(llvm, first)?;
    for p in rest {
        let other = load_one(llvm, p)?;
        module.link(other, p)?;
    }
    // Each input verified on its own; the linked module is verified once more, so that anything
    // wrong with the combination is reported as invalid input, before fmerge changes anything.
    if !rest.is_empty() {
        module.verify()?;
    }
    Ok(module)
}

/// Reads and verifies one input.
pub fn load_one<'c>(llvm: &'c Llvm, path: &Path) -> Result<Module<'c>> {
    read_one(llvm, path, false)
}

/// Reads and verifies the inputs of `fmerge opt`: one bitcode file is kept alongside its module
/// until the module changes ([`Llvm::load_keeping_source`]), so that the size guard's copy of
/// the input reads it again instead of writing the module out.
pub fn load_for_merging<'c>(llvm: &'c Llvm, paths: &[PathBuf]) -> Result<Module<'c>> {
    match paths {
        [one] => read_one(llvm, one, true),
        _ => load(llvm, paths),
    }
}

fn read_one<'c>(llvm: &'c Llvm, path: &Path, keep_source: bool) -> Result<Module<'c>> {
    crate::supervise::note_reading(path);
    let module = if keep_source { llvm.load_keeping_source(path)? } else { llvm.load(path)? };
    module.verify()?;
    crate::supervise::note_read(path);
    Ok(module)
}

/// Reads a file that is not a module (summaries, merge information, profiles, maps): a
/// missing file is `NotFound` (exit 3), other failures `Io`.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            fmerge_llvm::LlvmError::NotFound { path: path.to_path_buf() }.into()
        }
        _ => {
            anyhow::Error::from(fmerge_llvm::LlvmError::Io { path: path.to_path_buf(), source: e })
        }
    })
}
