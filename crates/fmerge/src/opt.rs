//! `fmerge opt`: merge and write.

use crate::cli::{EmitKind, MergeKind, OptArgs, ProfitKind, SearchKind};
use crate::progress::Progress;
use anyhow::{Context, Result};
use fmerge_llvm::output::{Emit, verified_module_bytes, write_atomically};
use fmerge_llvm::target::Outlining;
use fmerge_llvm::{Llvm, Target};
use fmerge_passes::pipeline::Measure;
use fmerge_passes::{Options, ProfitMode, Report, SearchMode, Stages};
use std::io::Write;

pub fn run(args: OptArgs) -> Result<()> {
    if args.outline && args.emit != EmitKind::Obj {
        anyhow::bail!("--outline applies to object files: add --emit obj");
    }
    let progress = Progress::new(args.quiet || args.json);
    progress.step("reading input");
    let llvm = Llvm::new();
    let mut module = crate::input::load(&llvm, &args.inputs)?;
    let target = Target::for_module(&module, args.target.as_deref())?;
    if args.target.is_some() {
        target.retarget(&module);
    }
    let profile_use = match &args.profile {
        Some(path) => {
            let profile = crate::profiling::read_profile_file(path)?;
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
    let opts = Options {
        stages: Stages {
            identical: args.merge.contains(&MergeKind::Identical),
            constants: args.merge.contains(&MergeKind::Constants),
            similar: args.merge.contains(&MergeKind::Similar),
        },
        whole_program: args.whole_program,
        profit: match args.profit {
            ProfitKind::Estimate => ProfitMode::Estimate,
            ProfitKind::Exact => ProfitMode::Exact,
            ProfitKind::Hybrid => ProfitMode::Hybrid,
        },
        search: match args.search {
            SearchKind::Lsh => SearchMode::Lsh,
            SearchKind::Exhaustive => SearchMode::Exhaustive,
        },
        jobs: args.jobs.unwrap_or(Options::default().jobs).max(1),
        measure_budget: args.measure_budget,
        input_verified: true,
        gate: fmerge_passes::options::Gate { limit: args.bisect_limit, ..Default::default() },
        use_profile: !args.ignore_profile,
        max_slowdown: args.max_slowdown / 100.0,
        max_slowdown_per_kb: args.max_slowdown_per_kb / 100.0,
        // 0%: nothing is hot. LLVM counts percentiles in millionths.
        hot_percentile: args
            .hot_percentile
            .filter(|&p| p > 0.0)
            .map(|p| (p * 10_000.0).round() as u32),
        ..Options::default()
    };
    let measure = if args.no_measure {
        Measure::Nothing
    } else if args.measure {
        Measure::Text
    } else {
        Measure::Guard
    };
    let report =
        fmerge_passes::optimize(&mut module, &target, &opts, measure, &|m| progress.step(m))?;
    progress.step("writing output");
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
    // `optimize` verified the module last thing (an error there means nothing is written).
    let bytes = verified_module_bytes(&module, emit, &target)?;
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
    Ok(())
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
        } else if g.reruns > 0 {
            let merges: usize = g.vetoed.iter().map(|u| u.originals.len()).sum();
            writeln!(
                out,
                "  size guard: {merges} merges undone, their code measured larger than what they replaced ({} re-runs{})",
                g.reruns,
                if g.losing_in_output > 0 {
                    format!("; {} groups of merges still lose bytes", g.losing_in_output)
                } else {
                    String::new()
                }
            )?;
        }
    }
    if let Some(p) = &r.profile {
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
