//! Reading the inputs. This runs in the worker process (see `supervise`): each file is noted
//! in the worker's log before and after LLVM reads it, so that a crash of LLVM's bitcode
//! reader on a corrupt file is reported as that file being corrupt.

use anyhow::Result;
use fmerge_llvm::{Llvm, Module};
use std::path::{Path, PathBuf};

/// Reads every input and links them into the first (in-process `llvm-link`).
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

/// Reads one input.
pub fn load_one<'c>(llvm: &'c Llvm, path: &Path) -> Result<Module<'c>> {
    crate::supervise::note_reading(path);
    let module = llvm.load(path)?;
    crate::supervise::note_read(path);
    Ok(module)
}
