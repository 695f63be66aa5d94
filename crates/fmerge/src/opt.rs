//! `fmerge opt`: merge and write.

use crate::cli::{EmitKind, OptArgs};
use crate::progress::Progress;
use anyhow::{Context, Result};
use fmerge_llvm::output::{Emit, module_bytes, verified_module_bytes, write_atomically};
use fmerge_llvm::target::Outlining;
use fmerge_llvm::{Llvm, Target};
use fmerge_passes::pipeline::Measure;
use fmerge_passes::{Options, Report};
use std::io::Write;

pub fn run(args: OptArgs) -> Result<()> {
    if args.outline && args.emit != EmitKind::Obj {
        anyhow::bail!("--outline applies to object files: add --emit obj");
    }
    let progress = Progress::new(args.quiet || args.json);
    progress.step("reading input");
    let llvm = Llvm::new();
    let mut module = crate::input::load_for_merging(&llvm, &args.inputs)?;
    let target = Target::for_module(&module, args.target.as_deref())?;
    if args.target.is_some() {
        target.retarget(&module);
    }
    let profile_use = match &args.profile {
        Some(path) => {
            let profile = crate::profiling::read_profile_file(path)?;
            // Counts go into the module's functions.
            module.forget_source();
            let used = fmerge_passes::profiling::apply::apply_profile(&module, &profile);
            if !used.stale.is_empty() {
                eprintln!(
                    "fmerge: warning: {} functions changed since the profile was taken and get no counts (e.g. {})",
                    used.stale.len(),
                    used.stale[0]
                );
            }
            Some(used)
        }
        None => None,
    };
    let opts = options(&args);
    let measure = if args.no_measure {
        Measure::Nothing
    } else if args.measure {
        Measure::Text
    } else {
        Measure::Guard
    };
    let report = fmerge_passes::optimize(&mut module, &target, &opts, measure, &progress)?;
    progress.step(if opts.output_verified_by_caller {
        "verifying and writing output"
    } else {
        "writing output"
    });
    // Writing needs a copy of the output and LLVM's tables for it.
    fmerge_llvm::memory::release_freed_memory(module.embedding());
    if args.emit == EmitKind::Obj {
        // Only now: merges are priced without the outliner. A function's size in a module
        // subset with the outliner on depends on which other functions are in the subset, and
        // pricing that way came out larger than merging first and outlining after (Lua +5,
        // zstd +319 bytes; bench/fmbench outline compare). Frame helpers go with it: LLVM parses
        // its switches once per process.
        llvm.set_code_generation(&args.codegen.switches(args.outline.then_some(Outlining::Local)));
    }
    let (emit, target) = match args.emit {
        EmitKind::Bc => (Emit::Bitcode, target),
        EmitKind::Ll => (Emit::Text, target),
        // An object users link: position independent if the module asks for it.
        EmitKind::Obj => (Emit::Object, Target::for_object_file(&module, args.target.as_deref())?),
    };
    // Bitcode is verified as it is written (`Options::output_verified_by_caller`); else
    // `optimize` verified the module last thing. An error means nothing is written.
    let bytes = if opts.output_verified_by_caller {
        module_bytes(&module, emit, &target).map_err(fmerge_passes::guard::merged_ir_error)?
    } else {
        verified_module_bytes(&module, emit, &target)?
    };
    if args.output.as_os_str() == "-" {
        std::io::stdout().lock().write_all(&bytes)?;
    } else {
        write_atomically(&args.output, &bytes)?;
    }
    // Reports are deterministic unless timings are asked for.
    let mut shown = report.clone();
    if !args.timings {
        for s in &mut shown.stages {
            s.seconds = None;
            s.breakdown.clear();
        }
    }
    if let Some(path) = &args.report {
        let json = serde_json::to_vec_pretty(&shown)?;
        write_atomically(path, &json)
            .with_context(|| format!("writing the report {}", path.display()))?;
    }
    let steps = progress.step_times();
    progress.finish();
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
    } else if !args.quiet {
        print_summary(&mut out, &report)?;
        if let Some(u) = &profile_use {
            writeln!(
                out,
                "  profile: counts for {} functions, {} changed since it was taken, {} not in it",
                u.applied,
                u.stale.len(),
                u.missing
            )?;
        }
        if args.timings {
            let shown: Vec<String> =
                steps.iter().map(|(m, d)| format!("{m} {:.2}s", d.as_secs_f64())).collect();
            writeln!(out, "  wall time by step: {}", shown.join(", "))?;
        }
    }
    // The process ends after this command: taking LLVM's module apart function by function
    // costs more than the operating system's reclaiming its memory at exit (on a 4,700-function
    // module, 1% of the run).
    std::mem::forget(module);
    std::mem::forget(llvm);
    Ok(())
}

/// The merging options of the command line, built as the plugin builds its own: clap checked
/// the values (percentages with the builder's own [`fmerge_passes::options::percent`]), the
/// builder maps names and converts.
fn options(args: &OptArgs) -> Options {
    let merge: Vec<String> = args.merge.iter().map(name).collect();
    let mut b = Options::builder();
    b.set("merge", &merge.join(","))
        .and_then(|b| b.set("profit", &name(&args.profit)))
        .and_then(|b| b.set("search", &name(&args.search)))
        .expect("the command line offers only values the options builder knows");
    b.whole_program(args.whole_program)
        // `--no-measure` generates no code at all: close calls too stand on their estimate.
        .measure_budget(if args.no_measure { 0.0 } else { args.measure_budget })
        .input_verified(true)
        // With `--measure` the guard verifies the module before compiling all of it; writing
        // then needs no second verification.
        .output_verified_by_caller(args.emit == EmitKind::Bc && !args.measure)
        .bisect_limit(args.bisect_limit)
        .use_profile(!args.ignore_profile)
        .estimate(!args.no_estimate)
        .max_slowdown(args.max_slowdown)
        .max_slowdown_per_kb(args.max_slowdown_per_kb)
        .hot_percentile(args.hot_percentile.unwrap_or(0.0));
    if let Some(jobs) = args.jobs {
        b.jobs(jobs);
    }
    b.build()
}

/// The name of a value of the command line, as the options builder reads it.
fn name(value: &impl clap::ValueEnum) -> String {
    value.to_possible_value().expect("no value is skipped").get_name().to_string()
}

fn print_summary(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    writeln!(
        out,
        "fmerge: {} functions merged in {} merges ({} → {} function definitions)",
        r.functions_merged(),
        r.merges.len(),
        r.functions_before,
        r.functions_after
    )?;
    for s in &r.stages {
        writeln!(
            out,
            "  {:<10} {:>5} merges  {:>6} functions  {:>4} rejected as unprofitable  {:>7.2}s",
            s.stage,
            s.merges,
            s.functions_removed_or_thunked,
            s.rejected_unprofitable,
            s.seconds.unwrap_or(0.0)
        )?;
    }
    writeln!(
        out,
        "  expected saving: {} bytes (measured where fmerge compiled a merge, estimated elsewhere)",
        r.expected_saving()
    )?;
    if let (Some(b), Some(a)) = (r.text_bytes_before, r.text_bytes_after) {
        let d = b as i64 - a as i64;
        let pct = if b > 0 { 100.0 * d as f64 / b as f64 } else { 0.0 };
        writeln!(
            out,
            "  measured .text:   {b} → {a} bytes ({d:+} saved, {pct:.2}%) on {}",
            r.target
        )?;
    }
    if let Some(g) = &r.guard {
        if g.kept_input {
            writeln!(
                out,
                "  size guard: the merged module was larger than the input; wrote the input unchanged"
            )?;
        } else if !g.vetoed.is_empty() {
            let merges: usize = g.vetoed.iter().map(|u| u.originals.len()).sum();
            writeln!(
                out,
                "  size guard: {merges} merges undone, their code measured larger than what they replaced ({}{})",
                match g.reruns {
                    0 => "in place".to_string(),
                    1 => "1 re-run".to_string(),
                    n => format!("{n} re-runs"),
                },
                if g.losing_in_output > 0 {
                    format!("; {} groups of merges still lose bytes", g.losing_in_output)
                } else {
                    String::new()
                }
            )?;
        }
    }
    if let Some(p) = r.profile.as_ref().filter(|p| p.estimated) {
        writeln!(
            out,
            "  no profile: run-time cost estimated from the code, {} merges left out for it (--no-estimate merges them)",
            p.merges_over_budget
        )?;
    } else if let Some(p) = &r.profile {
        let hot_skipped = r
            .skipped
            .iter()
            .filter(|s| s.reason.starts_with("hot in the profile"))
            .map(|s| &s.function)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let cut = if p.hot_cut {
            format!(", {hot_skipped} hot at {}% kept out of merging", p.hot_percentile)
        } else {
            String::new()
        };
        writeln!(
            out,
            "  profile: merges add ~{:.3}% of the run ({} of {} executed instructions; at most {}%, {}% per KB saved){}, {} merges left out for their cost; {} merged functions never ran",
            p.added_fraction * 100.0,
            p.added_work,
            p.total_work,
            p.max_slowdown_percent,
            p.max_slowdown_per_kb_percent,
            cut,
            p.merges_over_budget,
            p.merged_never_executed
        )?;
    }
    if !r.skipped.is_empty() {
        writeln!(
            out,
            "  {} functions skipped by some stage (see --report for why)",
            r.skipped.len()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command, MergeKind, ProfitKind, SearchKind};
    use clap::{Parser, ValueEnum};

    fn options_of(extra: &[&str]) -> Options {
        let argv = ["fmerge", "opt", "in.bc", "-o", "out.bc"].iter().chain(extra);
        match Cli::try_parse_from(argv).expect("valid command line").command {
            Command::Opt(args) => options(&args),
            _ => unreachable!("an opt command"),
        }
    }

    #[test]
    fn the_command_line_builds_the_default_options_and_knows_only_their_names() {
        let (cli, defaults) = (options_of(&[]), Options::default());
        assert_eq!(cli.stages, defaults.stages);
        assert_eq!((cli.profit, cli.search), (defaults.profit, defaults.search));
        assert_eq!(cli.measure_budget, defaults.measure_budget);
        assert_eq!(cli.max_slowdown, defaults.max_slowdown);
        assert_eq!(cli.max_slowdown_per_kb, defaults.max_slowdown_per_kb);
        assert_eq!(cli.hot_percentile, defaults.hot_percentile);
        assert!(cli.use_profile && cli.input_verified && !cli.whole_program);
        // Every value clap offers is one the builder maps (`options` would panic otherwise),
        // each to a different setting.
        let merges: Vec<_> = MergeKind::value_variants()
            .iter()
            .map(|k| options_of(&["--merge", &name(k)]).stages)
            .collect();
        assert_eq!(merges.len(), 3);
        assert!(merges.iter().all(|s| s.names().len() == 1) && merges[0] != merges[1]);
        for k in ProfitKind::value_variants() {
            assert_eq!(options_of(&["--profit", &name(k)]).profit.name(), name(k));
        }
        for k in SearchKind::value_variants() {
            assert_eq!(options_of(&["--search", &name(k)]).search.name(), name(k));
        }
        let set = options_of(&["--hot-percentile", "99", "--max-slowdown", "2", "--jobs", "0"]);
        assert_eq!((set.hot_percentile, set.max_slowdown, set.jobs), (Some(990_000), 0.02, 1));
        assert_eq!(options_of(&["--hot-percentile", "0"]).hot_percentile, None);
    }
}
