//! `fmerge explain F G`: the alignment of two functions, side by side, and whether they could
//! share a body.

use crate::cli::ExplainArgs;
use anyhow::{Result, bail};
use fmerge_core::align::{AlignConfig, AlignEntry, BlockAlignment, align_blocks};
use fmerge_core::compare::{self, Mode, Walk};
use fmerge_core::ir::traits;
use fmerge_core::profit;
use fmerge_llvm::lower::{Hashes, lower_functions};
use fmerge_llvm::{Function, Instruction, Llvm, Target, cost};
use std::io::Write;

const WIDTH: usize = 58;

fn short(v: Instruction<'_>) -> String {
    let text = v.print().split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.as_str();
    let text = text.split(", !").next().unwrap_or(text);
    if text.chars().count() > WIDTH {
        let cut: String = text.chars().take(WIDTH - 1).collect();
        format!("{cut}…")
    } else {
        text.to_string()
    }
}

pub fn run(args: ExplainArgs) -> Result<()> {
    let llvm = Llvm::new();
    let module = crate::input::load(&llvm, &args.inputs)?;
    let target = Target::for_module(&module, args.target.as_deref())?;
    let find = |name: &str| -> Result<Function<'_>> {
        match module.function(name) {
            Some(f) if !f.is_declaration() => Ok(f),
            Some(_) => bail!("@{name} is only declared in this module"),
            None => bail!("no function @{name} in this module"),
        }
    };
    let (f, g) = (find(&args.first)?, find(&args.second)?);
    let lowered = lower_functions(&module, &[f, g], Hashes::Local);
    let (fd, gd) = (&lowered.funcs[0], &lowered.funcs[1]);
    let (hf, hg) = (&lowered.handles[0], &lowered.handles[1]);
    let t = lowered.tables();
    let mut out = std::io::stdout().lock();
    let (wf, wg) = (Walk::new(fd), Walk::new(gd));
    let verdict = if compare::compare(t, fd, &wf, gd, &wg, Mode::Exact).is_some() {
        "identical (up to flags, metadata and inferred attributes)".to_string()
    } else if let Some(d) = compare::compare(t, fd, &wf, gd, &wg, Mode::ModuloParams) {
        format!("equal up to {} parameterizable constant(s)", d.len())
    } else {
        "different: similar merging would need selects and branches".to_string()
    };
    writeln!(out, "@{} and @{}: {verdict}", fd.name, gd.name)?;
    for (d, name) in [(fd, &fd.name), (gd, &gd.name)] {
        if d.traits != 0 {
            writeln!(out, "  @{name}: {}", traits::describe(d.traits))?;
        }
    }
    let align = align_blocks(t, fd, gd, &AlignConfig::default());
    let (cf, cg) = (cost::instruction_costs(&target, f), cost::instruction_costs(&target, g));
    if let (Some(cf), Some(cg)) = (&cf, &cg) {
        let before: i64 = cf.iter().sum::<i64>() + cg.iter().sum::<i64>();
        let thunks = profit::thunk_units(fd.arg_types.len() + 1)
            + profit::thunk_units(gd.arg_types.len() + 1);
        let after = profit::predict_merged_units(fd, gd, &align, cf, cg) + thunks;
        writeln!(
            out,
            "  aligned: {} of {} instructions shared ({:.0}%); TTI units {} -> predicted {} with thunks",
            align.stats.matched * 2,
            align.stats.total,
            100.0 * align.stats.ratio(),
            before,
            after
        )?;
    }
    writeln!(out)?;
    let blank = "";
    for b in &align.blocks {
        match b {
            BlockAlignment::Paired { left, right, insts } => {
                writeln!(out, "block {left} | block {right}")?;
                for e in insts {
                    let (l, r, mark) = match *e {
                        AlignEntry::Match(i, j) => {
                            (short(hf.insts[i as usize]), short(hg.insts[j as usize]), "=")
                        }
                        AlignEntry::OnlyLeft(i) => {
                            (short(hf.insts[i as usize]), String::new(), "<")
                        }
                        AlignEntry::OnlyRight(j) => {
                            (String::new(), short(hg.insts[j as usize]), ">")
                        }
                    };
                    writeln!(out, "  {l:<WIDTH$} {mark} {r}")?;
                }
            }
            BlockAlignment::OnlyLeft(x) => {
                writeln!(out, "block {x} | (only in @{})", fd.name)?;
                for &i in &hf.blocks[*x as usize].instructions() {
                    writeln!(out, "  {:<WIDTH$} <", short(i))?;
                }
            }
            BlockAlignment::OnlyRight(y) => {
                writeln!(out, "(only in @{}) | block {y}", gd.name)?;
                for &i in &hg.blocks[*y as usize].instructions() {
                    writeln!(out, "  {blank:<WIDTH$} > {}", short(i))?;
                }
            }
        }
    }
    Ok(())
}
