//! The profiling commands: `fmerge instrument`, `fmerge profile merge|show|compare|fit`, and
//! reading a profile file for `fmerge opt --profile`. The work is done in the `profiling`
//! modules of fmerge-passes (instrumenting, applying a profile) and fmerge-core (the files,
//! the cost model); this module parses, reads, writes and prints.

use crate::cli::{
    ClockKind, EmitKind, InstrumentArgs, ModeKind, ProbeKind, ProfileCompareArgs, ProfileFitArgs,
    ProfileMergeArgs, ProfileShowArgs,
};
use crate::input::read_file;
use anyhow::{Context, Result};
use fmerge_core::profiling::costmodel::{self, CostTable, TrainingRun};
use fmerge_core::profiling::files::{self, ProbeMap, ProfileFile, RAW_MAGIC};
use fmerge_llvm::output::{Emit, verified_module_bytes, write_atomically};
use fmerge_llvm::{Llvm, Target};
use fmerge_passes::profiling::instrument::{InstrumentOptions, Probes, Relax};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

fn read_text(path: &Path) -> Result<String> {
    String::from_utf8(read_file(path)?).map_err(|_| {
        files::Error::Format(format!("{} is not a text (JSON) file", path.display())).into()
    })
}

/// Reads a profile file (`fmerge profile merge` output).
pub fn read_profile_file(path: &Path) -> Result<ProfileFile> {
    ProfileFile::from_json(&read_text(path)?).with_context(|| format!("reading {}", path.display()))
}

#[derive(Serialize)]
struct InstrumentSummary {
    functions: usize,
    counters: u64,
    /// Counters one per reachable block would need.
    block_counters: u64,
    fell_back_to_block_counters: usize,
    skipped: usize,
    /// Loops that keep counters in registers (counter promotion), and (loop, counter) pairs.
    promoted_loops: u64,
    promoted_counters: u64,
    map: String,
}

pub fn instrument(args: InstrumentArgs) -> Result<()> {
    let cost_table = match (args.mode, &args.costs) {
        (ModeKind::Counters, None) => None,
        (ModeKind::Counters, Some(_)) => anyhow::bail!("--costs is for --mode work"),
        (ModeKind::Work, _) if args.probes == ProbeKind::Check => {
            anyhow::bail!("--probes check counts blocks: use it with --mode counters")
        }
        (ModeKind::Work, None) => Some(CostTable::builtin()),
        (ModeKind::Work, Some(p)) => Some(
            CostTable::from_json(&read_text(p)?)
                .map_err(files::Error::Format)
                .with_context(|| format!("reading {}", p.display()))?,
        ),
    };
    let relax = match args.relax.as_deref() {
        None => None,
        Some(spec) => {
            if cost_table.is_none() {
                anyhow::bail!("--relax applies to --mode work");
            }
            let (kind, pct) = spec.split_once(':').unwrap_or((spec, ""));
            let pct: f64 =
                pct.parse().ok().filter(|p: &f64| (0.0..=100.0).contains(p)).ok_or_else(|| {
                    anyhow::anyhow!(
                        "--relax {spec}: expected region:PCT or whole:PCT with PCT in 0..100"
                    )
                })?;
            match kind {
                "region" => Some(Relax::Region(pct / 100.0)),
                "whole" => {
                    let Some(p) = &args.profile else {
                        anyhow::bail!(
                            "--relax whole:PCT needs --profile FILE.fprof (a counters profile of this module)"
                        );
                    };
                    Some(Relax::Whole(pct / 100.0, Box::new(read_profile_file(p)?)))
                }
                _ => anyhow::bail!("--relax {spec}: expected region:PCT or whole:PCT"),
            }
        }
    };
    if args.profile.is_some() && !matches!(relax, Some(Relax::Whole(..))) {
        anyhow::bail!("--profile is for --relax whole:PCT");
    }
    let llvm = Llvm::new();
    let mut module = crate::input::load(&llvm, &args.inputs)?;
    let opts = InstrumentOptions {
        relax,
        cost_table,
        probes: match args.probes {
            ProbeKind::Optimal => Probes::Optimal,
            ProbeKind::Blocks => Probes::Blocks,
            ProbeKind::Check => Probes::Check,
        },
        atomic: args.atomic,
        assume_calls_return: args.assume_calls_return,
        promote: !args.no_promote,
        write_on_signal: args.write_on_signal,
    };
    let fmerge_passes::profiling::instrument::Instrumented { map, promotion } =
        fmerge_passes::profiling::instrument::instrument(&mut module, opts)?;
    let (emit, target) = match args.emit {
        EmitKind::Bc => (Emit::Bitcode, Target::for_module(&module, args.target.as_deref())?),
        EmitKind::Ll => (Emit::Text, Target::for_module(&module, args.target.as_deref())?),
        EmitKind::Obj => (Emit::Object, Target::for_object_file(&module, args.target.as_deref())?),
    };
    // Verified before anything is written; the map first, so a module never exists without it.
    let bytes = verified_module_bytes(&module, emit, &target)?;
    let map_path = args.map_path();
    write_atomically(&map_path, map.to_json().as_bytes())?;
    write_atomically(&args.output, &bytes)?;
    let block_counters: u64 = map
        .functions
        .iter()
        .map(|f| {
            let live = f.cfg.reachable();
            live.iter().filter(|&&l| l).count() as u64
        })
        .sum();
    let summary = InstrumentSummary {
        functions: map.functions.len(),
        counters: map.counters,
        block_counters,
        fell_back_to_block_counters: map.functions.iter().filter(|f| f.fallback.is_some()).count(),
        skipped: map.skipped.len(),
        promoted_loops: promotion.loops,
        promoted_counters: promotion.counters,
        map: map_path.display().to_string(),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else if !args.quiet {
        // Cost mode: each probe's counter is weighed by the cost its count stands for when
        // the runs are summed.
        let what = if map.cost_table.is_some() {
            let probes: usize = map.functions.iter().map(|f| f.scheme.counters()).sum();
            format!("work mode: at most {probes} probes count work")
        } else {
            format!("{} counters", summary.counters)
        };
        writeln!(
            out,
            "fmerge instrument: {} functions, {what} (a counter per block would need {}), \
             {} counted per block, {} skipped, {} loops keep counters in registers; probe map {}",
            summary.functions,
            summary.block_counters,
            summary.fell_back_to_block_counters,
            summary.skipped,
            summary.promoted_loops,
            summary.map
        )?;
    }
    Ok(())
}

pub fn profile_merge(args: ProfileMergeArgs) -> Result<()> {
    let mut maps = Vec::new();
    for m in &args.maps {
        maps.push(
            ProbeMap::from_json(&read_text(m)?)
                .with_context(|| format!("reading {}", m.display()))?,
        );
    }
    let mut records = Vec::new();
    let mut damaged_bytes = 0;
    let mut earlier = Vec::new();
    for p in &args.inputs {
        let bytes = read_file(p)?;
        if bytes.len() >= 8 && bytes[..8] == RAW_MAGIC.to_le_bytes() {
            let raw =
                files::read_raw(&bytes).with_context(|| format!("reading {}", p.display()))?;
            records.extend(raw.records);
            damaged_bytes += raw.damaged_bytes;
        } else if bytes.is_empty() {
            // A program that was instrumented but never ran to exit writes nothing.
            continue;
        } else {
            earlier.push(read_profile_file(p)?);
        }
    }
    if !records.is_empty() && maps.is_empty() {
        anyhow::bail!("raw records need the probe map of their module: add --map FILE.fpmap");
    }
    let mut profile = files::sum_records(&maps, &records);
    profile.damaged_bytes += damaged_bytes;
    for e in &earlier {
        profile.add(e);
    }
    write_atomically(&args.output, profile.to_json().as_bytes())?;
    if !args.quiet {
        let executed = profile.functions.iter().filter(|f| f.entries > 0).count();
        writeln!(
            std::io::stdout().lock(),
            "fmerge profile merge: {} runs, {} functions ({} executed), {} inconsistent, {} records of modules without a map",
            profile.runs,
            profile.functions.len(),
            executed,
            profile.inconsistent.len(),
            profile.unknown_records
        )?;
    }
    for (name, why) in profile.inconsistent.iter().take(5) {
        eprintln!("fmerge: warning: {name}: {why}");
    }
    if !profile.inconsistent.is_empty() && maps.iter().any(|m| !m.atomic) {
        eprintln!(
            "fmerge: note: in a program with threads, counters without --atomic lose updates \
             when two threads run the same code at once (xz, for one, compresses with several \
             threads): instrument it with --atomic"
        );
    }
    if profile.unknown_records > 0 {
        eprintln!(
            "fmerge: warning: {} records belong to modules no --map describes (another build?)",
            profile.unknown_records
        );
    }
    if profile.damaged_bytes > 0 {
        eprintln!(
            "fmerge: warning: stepped over {} bytes of records left incomplete (a program killed \
             while writing its record, or a full disk)",
            profile.damaged_bytes
        );
    }
    if !profile.without_signal_runs.is_empty() {
        eprintln!(
            "fmerge: warning: {} of {} runs ended by a signal and stopped inside {} functions; \
             those are counted from the other runs only ({}{})",
            profile.signal_runs,
            profile.runs,
            profile.without_signal_runs.len(),
            profile.without_signal_runs.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
            if profile.without_signal_runs.len() > 5 { ", ..." } else { "" }
        );
    }
    Ok(())
}

#[derive(Serialize)]
struct HotFunction<'a> {
    name: &'a str,
    entries: u64,
    hottest_block: u64,
    blocks_executed: usize,
    blocks: usize,
}

#[derive(Serialize)]
struct Shown<'a> {
    runs: u64,
    wall_seconds_total: f64,
    functions: usize,
    functions_executed: usize,
    blocks: usize,
    blocks_executed: usize,
    inconsistent: usize,
    hottest: Vec<HotFunction<'a>>,
}

pub fn profile_show(args: ProfileShowArgs) -> Result<()> {
    let p = read_profile_file(&args.input)?;
    let mut fns: Vec<_> = p.functions.iter().collect();
    fns.sort_by(|a, b| b.max_count().cmp(&a.max_count()).then(a.name.cmp(&b.name)));
    let top = if args.top == 0 { fns.len() } else { args.top.min(fns.len()) };
    let shown = Shown {
        runs: p.runs,
        wall_seconds_total: p.wall_ns.iter().map(|&n| n as f64 * 1e-9).sum(),
        functions: p.functions.len(),
        functions_executed: p.functions.iter().filter(|f| f.entries > 0).count(),
        blocks: p.functions.iter().map(|f| f.blocks.len()).sum(),
        blocks_executed: p
            .functions
            .iter()
            .map(|f| f.blocks.iter().filter(|&&c| c > 0).count())
            .sum(),
        inconsistent: p.inconsistent.len(),
        hottest: fns[..top]
            .iter()
            .map(|f| HotFunction {
                name: &f.name,
                entries: f.entries,
                hottest_block: f.blocks.iter().copied().max().unwrap_or(0),
                blocks_executed: f.blocks.iter().filter(|&&c| c > 0).count(),
                blocks: f.blocks.len(),
            })
            .collect(),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
        return Ok(());
    }
    if p.cost.iter().any(|&cost| cost > 0) {
        for (k, ((cost, wall), cpu)) in p.cost.iter().zip(&p.wall_ns).zip(&p.cpu_ns).enumerate() {
            // A run's cost is what the command line calls its work.
            writeln!(
                out,
                "run {k}: work {cost}, wall {:.3} s, CPU {:.3} s, work per CPU second {:.4e}",
                *wall as f64 * 1e-9,
                *cpu as f64 * 1e-9,
                *cost as f64 / (*cpu as f64 * 1e-9).max(1e-9)
            )?;
        }
    }
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    writeln!(out, "runs: {}   wall time: {:.3} s in total", shown.runs, shown.wall_seconds_total)?;
    writeln!(
        out,
        "coverage: {} of {} functions executed ({:.1}%), {} of {} blocks ({:.1}%)",
        shown.functions_executed,
        shown.functions,
        pct(shown.functions_executed, shown.functions),
        shown.blocks_executed,
        shown.blocks,
        pct(shown.blocks_executed, shown.blocks)
    )?;
    if shown.inconsistent > 0 {
        writeln!(out, "inconsistent (left out): {} functions", shown.inconsistent)?;
    }
    writeln!(out, "{:>14} {:>14} {:>9}  function", "entries", "hottest block", "blocks")?;
    for h in &shown.hottest {
        writeln!(
            out,
            "{:>14} {:>14} {:>4}/{:<4}  {}",
            h.entries, h.hottest_block, h.blocks_executed, h.blocks, h.name
        )?;
    }
    Ok(())
}

pub fn profile_compare(args: ProfileCompareArgs) -> Result<()> {
    let (a, b) = (read_profile_file(&args.a)?, read_profile_file(&args.b)?);
    let runs = |p: &ProfileFile| -> Vec<(u64, u64)> {
        let time = match args.clock {
            ClockKind::Cpu => &p.cpu_ns,
            ClockKind::Wall => &p.wall_ns,
        };
        p.cost.iter().copied().zip(time.iter().copied()).collect()
    };
    let Some(c) = costmodel::compare_builds(&runs(&a), &runs(&b)) else {
        anyhow::bail!(
            "both profiles need runs with work and time: profiles of `fmerge instrument --mode work` builds"
        );
    };
    let verdict = if c.ci.0 > 1.0 {
        format!("B is faster: {:.1}% more work per second", 100.0 * (c.ratio - 1.0))
    } else if c.ci.1 < 1.0 {
        format!("A is faster: B does {:.1}% less work per second", 100.0 * (1.0 - c.ratio))
    } else {
        "undecided: the interval includes 1 (more runs, or no difference)".to_string()
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = serde_json::json!({ "comparison": c, "verdict": verdict });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(
            out,
            "A: {} runs, {:.4e} work/s   B: {} runs, {:.4e} work/s",
            c.runs_a, c.mean_a, c.runs_b, c.mean_b
        )?;
        writeln!(out, "B/A = {:.4} [95% CI {:.4}, {:.4}]: {verdict}", c.ratio, c.ci.0, c.ci.1)?;
    }
    Ok(())
}

pub fn profile_fit(args: ProfileFitArgs) -> Result<()> {
    let text = read_text(&args.runs)?;
    let mut runs = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let r: TrainingRun = serde_json::from_str(line).map_err(|e| {
            files::Error::Format(format!("{} line {}: {e}", args.runs.display(), k + 1))
        })?;
        runs.push(r);
    }
    let table = costmodel::fit(&runs, &args.source, args.ridge).map_err(anyhow::Error::msg)?;
    write_atomically(&args.output, serde_json::to_string_pretty(&table)?.as_bytes())?;
    let s = table.fit.as_ref().expect("a fitted table has statistics");
    writeln!(
        std::io::stdout().lock(),
        "fmerge profile fit: {} runs, intercept {:.4} s, MAE {:.4} s ({:.1}% of a run on average), R^2 {:.4}",
        s.runs,
        s.intercept_seconds,
        s.mae_seconds,
        100.0 * s.mean_relative_error,
        s.r_squared
    )?;
    Ok(())
}
