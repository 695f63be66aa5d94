//! `fmerge-irgen`: print generated modules, check one seed, or soak fmerge for a long time.

use clap::{Parser, Subcommand};
use fmerge_irgen::check::{self, Exec, MODES, Plan, Tools};
use fmerge_irgen::{Config, generate, stress};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(name = "fmerge-irgen", about = "Generated-IR differential testing for fmerge")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
struct Gen {
    /// Families of similar functions.
    #[arg(long, default_value_t = 4)]
    families: usize,
    /// Members per family, at most.
    #[arg(long, default_value_t = 4)]
    members: usize,
    /// Inputs per function.
    #[arg(long, default_value_t = 48)]
    inputs: usize,
    /// No invoke/landingpad.
    #[arg(long)]
    no_eh: bool,
    /// No stack slots with lifetime markers.
    #[arg(long)]
    no_slots: bool,
    /// No facts (attributes, metadata, flags, assumes) and no pointer parameters.
    #[arg(long)]
    no_facts: bool,
    /// Rust-style vector instances (RawVec grow paths).
    #[arg(long, default_value_t = 3)]
    alloc: usize,
    /// Emit every declared fact even where it does not hold (a control: the program then has
    /// undefined behaviour that -O2 exposes).
    #[arg(long)]
    unchecked: bool,
    /// Ignore the shape options above and use the shape the soak and tests/generated.rs use
    /// for the seed.
    #[arg(long)]
    shaped: bool,
}

#[derive(clap::Args, Clone)]
struct Run {
    /// The fmerge binary to test.
    #[arg(long, default_value = "target/release/fmerge")]
    fmerge: PathBuf,
    /// How every module runs (comma-separated): lli (lli-22), O2 (clang++-22 -O2, native),
    /// O0 (clang++-22 -O0, native). The original must behave the same in all of them.
    #[arg(long, value_delimiter = ',', default_value = "lli,O2")]
    exec: Vec<String>,
    /// Only these modes (comma-separated names; default all).
    #[arg(long, value_delimiter = ',')]
    modes: Vec<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the module generated from a seed.
    Gen {
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        g: Gen,
        /// Also print how each family member was derived (as comments).
        #[arg(long)]
        notes: bool,
    },
    /// Check one seed: merge in every mode, verify, run, compare.
    Check {
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        g: Gen,
        #[command(flatten)]
        r: Run,
        /// Keep the scratch directory here.
        #[arg(long)]
        keep: Option<PathBuf>,
    },
    /// Check many seeds (and llvm-stress modules); failing inputs are saved in --out.
    Soak {
        /// Number of seeds (generated modules).
        #[arg(long, default_value_t = 1000)]
        seeds: u64,
        /// First seed.
        #[arg(long, default_value_t = 1_000_000)]
        start: u64,
        /// Stop after this many minutes even if seeds remain.
        #[arg(long)]
        minutes: Option<f64>,
        /// Every Nth seed also checks an llvm-stress module (0: never).
        #[arg(long, default_value_t = 4)]
        stress_every: u64,
        #[command(flatten)]
        r: Run,
        /// Where failing inputs go.
        #[arg(long, default_value = "soak-failures")]
        out: PathBuf,
    },
}

fn config(seed: u64, g: &Gen) -> Config {
    let mut c = if g.shaped {
        Config::shaped(seed)
    } else {
        Config {
            seed,
            families: g.families,
            max_members: g.members,
            inputs: g.inputs,
            eh: !g.no_eh,
            slots: !g.no_slots,
            facts: !g.no_facts,
            alloc: g.alloc,
            unchecked: false,
        }
    };
    c.unchecked = g.unchecked;
    c
}

fn tools(r: &Run) -> Tools {
    let mut t = Tools::new(&r.fmerge);
    t.execs = r
        .exec
        .iter()
        .map(|e| Exec::parse(e).unwrap_or_else(|| panic!("unknown --exec {e} (lli, O2, O0)")))
        .collect();
    t
}

fn modes(r: &Run) -> Vec<check::Mode> {
    MODES
        .iter()
        .filter(|m| r.modes.is_empty() || r.modes.iter().any(|n| n == m.name))
        .cloned()
        .collect()
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Gen { seed, g, notes } => {
            let m = generate(&config(seed, &g));
            if notes {
                for n in &m.notes {
                    println!("; {n}");
                }
            }
            print!("{}", m.ll);
            std::process::ExitCode::SUCCESS
        }
        Cmd::Check { seed, g, r, keep } => {
            let m = generate(&config(seed, &g));
            let tmp = tempfile::tempdir().unwrap();
            let dir = keep.unwrap_or_else(|| tmp.path().to_path_buf());
            std::fs::create_dir_all(&dir).unwrap();
            let input = dir.join("in.ll");
            std::fs::write(&input, &m.ll).unwrap();
            let modes = modes(&r);
            let plan = Plan { modes: &modes, execute: true, determinism: true };
            match check::check(&tools(&r), &input, &dir, &plan) {
                Ok(s) => {
                    println!(
                        "seed {seed}: ok, {} functions, merged per mode {:?}",
                        m.functions.len(),
                        s.per_mode
                    );
                    std::process::ExitCode::SUCCESS
                }
                Err(f) => {
                    println!("seed {seed}: FAIL {f}");
                    std::process::ExitCode::FAILURE
                }
            }
        }
        Cmd::Soak { seeds, start, minutes, stress_every, r, out } => {
            soak(seeds, start, minutes, stress_every, &r, &out)
        }
    }
}

#[derive(Default)]
struct Totals {
    modules: u64,
    stress_modules: u64,
    functions: u64,
    fmerge_runs: u64,
    executions: u64,
    calls: u64,
    merged: u64,
    skipped: u64,
    /// Runs fmerge measured and found no larger than their input.
    measured: u64,
    input_rejects: u64,
    /// Originals that behave differently under lli and -O2 (generator bugs).
    input_ub: u64,
    failures: u64,
}

fn soak(
    seeds: u64,
    start: u64,
    minutes: Option<f64>,
    stress_every: u64,
    r: &Run,
    out: &std::path::Path,
) -> std::process::ExitCode {
    let tools = tools(r);
    let modes = modes(r);
    let t0 = Instant::now();
    let limit = minutes.map(|m| Duration::from_secs_f64(m * 60.0));
    let mut t = Totals::default();
    let mut last = Instant::now();
    for seed in start..start + seeds {
        if limit.is_some_and(|l| t0.elapsed() > l) {
            break;
        }
        // Vary the shape with the seed.
        let cfg = Config::shaped(seed);
        let m = generate(&cfg);
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.ll");
        std::fs::write(&input, &m.ll).unwrap();
        let plan = Plan { modes: &modes, execute: true, determinism: seed.is_multiple_of(10) };
        t.modules += 1;
        t.functions += m.functions.len() as u64;
        match check::check(&tools, &input, dir.path(), &plan) {
            Ok(s) => {
                t.fmerge_runs += s.fmerge_runs as u64;
                t.executions += s.executions as u64;
                t.calls += (s.executions * m.functions.len() * cfg.inputs) as u64;
                t.merged += s.merged as u64;
                t.skipped += s.skipped as u64;
                t.measured += s.measured as u64;
            }
            Err(f) => {
                match f.kind {
                    check::Kind::Input => t.input_rejects += 1,
                    check::Kind::InputUb => t.input_ub += 1,
                    _ => t.failures += 1,
                }
                let keep = out.join(format!("seed-{seed}"));
                std::fs::create_dir_all(&keep).unwrap();
                std::fs::write(keep.join("in.ll"), &m.ll).unwrap();
                std::fs::write(
                    keep.join("failure.txt"),
                    format!("{f}\n\n{}\n", m.notes.join("\n")),
                )
                .unwrap();
                println!(
                    "seed {seed}: FAIL {:?} in mode {}: {} (saved in {})",
                    f.kind,
                    f.mode,
                    f.detail.lines().next().unwrap_or(""),
                    keep.display()
                );
            }
        }
        if stress_every > 0 && seed % stress_every == 0 {
            let size = 40 + (seed % 7) as usize * 30;
            match stress::module("llvm-stress-22", seed, size, 1 + (seed % 3) as usize) {
                Ok(text) => {
                    let sdir = tempfile::tempdir().unwrap();
                    let input = sdir.path().join("stress.ll");
                    std::fs::write(&input, &text).unwrap();
                    let plan = Plan { modes: &modes, execute: false, determinism: false };
                    t.stress_modules += 1;
                    match check::check(&tools, &input, sdir.path(), &plan) {
                        Ok(s) => {
                            t.fmerge_runs += s.fmerge_runs as u64;
                            t.merged += s.merged as u64;
                            t.measured += s.measured as u64;
                        }
                        Err(f) if f.kind == check::Kind::Input => t.input_rejects += 1,
                        Err(f) => {
                            t.failures += 1;
                            let keep = out.join(format!("stress-{seed}"));
                            std::fs::create_dir_all(&keep).unwrap();
                            std::fs::write(keep.join("in.ll"), &text).unwrap();
                            std::fs::write(keep.join("failure.txt"), format!("{f}\n")).unwrap();
                            println!(
                                "stress {seed}: FAIL {:?} in mode {} (saved in {})",
                                f.kind,
                                f.mode,
                                keep.display()
                            );
                        }
                    }
                }
                Err(e) => println!("stress {seed}: llvm-stress failed: {e}"),
            }
        }
        if last.elapsed() > Duration::from_secs(60) {
            last = Instant::now();
            summary(&t, t0, false);
        }
    }
    summary(&t, t0, true);
    if t.failures == 0 && t.input_ub == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

fn summary(t: &Totals, t0: Instant, last: bool) {
    println!(
        "{}{} generated modules ({} functions), {} llvm-stress modules, {} fmerge runs, {} executions \
         ({} function calls), {} functions merged away, {} skip reasons, {} measured runs \
         (none larger), {} inputs rejected, {} inputs with undefined behaviour, {} failures, {:.0} s",
        if last { "total: " } else { "so far: " },
        t.modules,
        t.functions,
        t.stress_modules,
        t.fmerge_runs,
        t.executions,
        t.calls,
        t.merged,
        t.skipped,
        t.measured,
        t.input_rejects,
        t.input_ub,
        t.failures,
        t0.elapsed().as_secs_f64()
    );
}
