//! `fmerge summarize`, `fmerge combine`, `fmerge apply`: global merging across separately
//! compiled modules (each step a pure function of its input files, so any build system can run
//! them in parallel).

use crate::cli::{ApplyArgs, CombineArgs, EmitKind, SummarizeArgs};
use crate::input::read_file;
use anyhow::{Context, Result};
use fmerge_core::global::{CostModel, MergeInfo, ModuleSummary, combine};
use fmerge_llvm::output::{Emit, write_atomically, write_module};
use fmerge_llvm::target::Outlining;
use fmerge_llvm::{Llvm, LlvmError, Target};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn summarize(args: SummarizeArgs) -> Result<()> {
    let llvm = Llvm::new();
    let module = crate::input::load_one(&llvm, &args.input)?;
    let target = Target::for_module(&module, args.target.as_deref())?;
    let name =
        args.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if let Some(path) = &args.outline_data {
        // Round 1 of global outlining: the object as `apply --emit obj --outline` would make
        // it (before apply's changes: the recorded sequences are hints, stale ones harmless),
        // compiled before summarizing, which adds scratch copies of functions to the module.
        llvm.set_code_generation(&args.codegen.switches(Some(Outlining::Record)));
        let mut obj_target = Target::for_object_file(&module, args.target.as_deref())?;
        obj_target.set_function_sections(true);
        write_module(&module, path, Emit::Object, &obj_target)?;
    }
    let summary = fmerge_passes::global::summarize(&module, &target, &name, !args.no_bodies);
    write_atomically(&args.output, &summary.to_bytes())?;
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&summary)?)?;
    }
    Ok(())
}

/// The summary files `inputs` name: files as given, directories as the `.fms` files in them
/// (what the plugin's `-fmerge-summary-dir` writes), in name order.
fn summary_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in inputs {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("reading the directory {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "fms") && p.is_file())
            .collect();
        if found.is_empty() {
            anyhow::bail!("{} holds no summaries (.fms files)", path.display());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

pub fn combine_cmd(args: CombineArgs) -> Result<()> {
    let inputs = summary_files(&args.inputs)?;
    let mut summaries = Vec::with_capacity(inputs.len());
    for path in &inputs {
        let bytes = read_file(path)?;
        summaries.push(
            ModuleSummary::from_bytes(&bytes)
                .with_context(|| format!("reading {}", path.display()))?,
        );
    }
    if !args.outline_data.is_empty() {
        merge_codegen_data(&args.outline_data, &args.output.with_extension("cgdata"))?;
    }
    let mut info = combine(&summaries, &CostModel::default());
    if !args.no_similar && summaries.iter().any(|s| !s.bodies.is_empty()) {
        let llvm = Llvm::new();
        let opts = fmerge_passes::options::Options::default();
        info.similar = fmerge_passes::global::combine_similar(&llvm, &summaries, &info, &opts)?;
    }
    write_atomically(&args.output, &info.to_bytes())?;
    if args.json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&info)?)?;
    } else if !args.quiet {
        let functions: usize = summaries.iter().map(|s| s.functions.len()).sum();
        let members: u32 = info.groups.iter().map(|g| g.members).sum();
        let similar: usize = info.similar.iter().map(|g| g.members.len()).sum();
        writeln!(
            std::io::stdout().lock(),
            "fmerge combine: {} modules, {} candidate functions, {} groups covering {} functions, \
             {} groups of similar functions covering {}",
            summaries.len(),
            functions,
            info.groups.len(),
            members,
            info.similar.len(),
            similar
        )?;
    }
    Ok(())
}

pub fn apply(args: ApplyArgs) -> Result<()> {
    if args.outline && args.emit != EmitKind::Obj {
        anyhow::bail!("--outline applies to object files: add --emit obj");
    }
    let bytes = read_file(&args.info)?;
    let info = MergeInfo::from_bytes(&bytes)
        .with_context(|| format!("reading {}", args.info.display()))?;
    let llvm = Llvm::new();
    let mut module = crate::input::load_one(&llvm, &args.input)?;
    let mut target = Target::for_module(&module, args.target.as_deref())?;
    if args.target.is_some() {
        target.retarget(&module);
    }
    let report = fmerge_passes::global::apply(&mut module, &target, &info)?;
    if target.triple().starts_with("wasm") {
        // The copies `apply` leaves in every module are folded by the linker's identical code
        // folding, which wasm-ld does not have.
        eprintln!(
            "fmerge: warning: wasm-ld has no identical code folding, so every module keeps its \
             copy of what the modules share; for a whole program, merge the module wasm-ld's \
             LTO compiles (-Wl,--save-temps) with `fmerge opt` instead"
        );
    }
    let emit = match args.emit {
        EmitKind::Bc => Emit::Bitcode,
        EmitKind::Ll => Emit::Text,
        EmitKind::Obj => {
            target = Target::for_object_file(&module, args.target.as_deref())?;
            // The linker folds the copies section by section.
            target.set_function_sections(true);
            let outlining = match (&args.outline, &args.outline_data) {
                (false, _) => None,
                (true, None) => Some(Outlining::Local),
                (true, Some(path)) => {
                    check_codegen_data(path)?;
                    Some(Outlining::Global(path.clone()))
                }
            };
            llvm.set_code_generation(&args.codegen.switches(outlining));
            Emit::Object
        }
    };
    write_module(&module, &args.output, emit, &target)?;
    if let Some(path) = &args.report {
        write_atomically(path, &serde_json::to_vec_pretty(&report)?)?;
    }
    Ok(())
}

/// Merges the codegen data (outlined-sequence hash trees) of the modules' round-1 objects with
/// LLVM's own tool, `llvm-cgdata-22 --merge`, into `out`.
fn merge_codegen_data(inputs: &[std::path::PathBuf], out: &Path) -> Result<()> {
    for p in inputs {
        if !p.exists() {
            return Err(LlvmError::NotFound { path: p.clone() }.into());
        }
    }
    let tmp = out.with_extension("cgdata.tmp");
    let result = std::process::Command::new("llvm-cgdata-22")
        .arg("--merge")
        .args(inputs)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| {
            anyhow::anyhow!("cannot run llvm-cgdata-22 (part of LLVM 22: `make setup`): {e}")
        })?;
    if !result.status.success() {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!(
            "llvm-cgdata-22 --merge failed: {}",
            String::from_utf8_lossy(&result.stderr).trim()
        );
    }
    fmerge_llvm::output::put_in_place(&tmp, out)
        .with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

/// LLVM reads a codegen-data file silently, ignoring one it cannot use: fmerge checks that it
/// is one (its magic number) so that a wrong path is an error, not a build without global
/// outlining.
fn check_codegen_data(path: &Path) -> Result<()> {
    let bytes = read_file(path)?;
    if !bytes.starts_with(b"\xffcgdata\x81") {
        return Err(fmerge_core::profiling::files::Error::Format(format!(
            "{} is not LLVM codegen data (write it with `fmerge combine --outline-data`)",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// Format errors of summaries and merge information (exit code 9).
pub fn is_format_error(e: &anyhow::Error) -> bool {
    e.downcast_ref::<fmerge_core::global::FormatError>().is_some()
        || e.downcast_ref::<fmerge_core::profiling::files::Error>().is_some()
}
