//! `fmerge size`: the ruler.

use crate::cli::SizeArgs;
use anyhow::Result;
use fmerge_llvm::{Llvm, Target};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct SizeJson<'a> {
    target: &'a str,
    text_bytes: u64,
    functions: &'a std::collections::BTreeMap<String, u64>,
}

pub fn run(args: SizeArgs) -> Result<()> {
    let llvm = Llvm::new();
    llvm.set_code_generation(
        &args.codegen.switches(args.outline.then_some(fmerge_llvm::target::Outlining::Local)),
    );
    let module = crate::input::load(&llvm, &args.inputs)?;
    let target = Target::for_module(&module, args.target.as_deref())?;
    if args.target.is_some() {
        target.retarget(&module);
    }
    let sizes = target.measure(&module)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let j = SizeJson {
            target: target.triple(),
            text_bytes: sizes.text_bytes,
            functions: &sizes.functions,
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&j)?)?;
        return Ok(());
    }
    writeln!(out, "target      {}", target.triple())?;
    writeln!(out, ".text bytes {}", sizes.text_bytes)?;
    writeln!(out, "functions   {}", sizes.functions.len())?;
    let mut fns: Vec<(&String, &u64)> = sizes.functions.iter().collect();
    fns.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let shown = if args.top == 0 { fns.len() } else { args.top.min(fns.len()) };
    if shown > 0 {
        writeln!(out)?;
        writeln!(out, "{:>10}  function", "bytes")?;
        for (name, bytes) in &fns[..shown] {
            writeln!(out, "{bytes:>10}  {name}")?;
        }
        if shown < fns.len() {
            writeln!(out, "{:>10}  ({} more; --top 0 lists all)", "", fns.len() - shown)?;
        }
    }
    Ok(())
}
