//! Generated-IR differential testing with fixed seeds: families of similar functions from
//! `fmerge-irgen` (constants, callees, operators, statements, blocks, loops, switches, phis,
//! invoke/landingpad, types, linkage, stack slots with lifetime markers, and facts that differ
//! between members: parameter, return and call-site attributes, metadata, poison and
//! fast-math flags, `llvm.assume`, pointer parameters passed misaligned, null or aliased) and
//! Rust-style vector code (`RawVec` grow paths with per-type `range` attributes), merged in
//! every mode (identical, constants, all with estimate and exact pricing, whole-program,
//! exhaustive search, and the default options with measured sizes, whose output must not have
//! more `.text` than the input), checked by `opt-22 -passes=verify`, run with `lli-22` and as native code
//! built by `clang++-22 -O2` (which exploits the facts) and compared byte for byte with the
//! original, which must itself behave the same both ways; plus `llvm-stress-22` modules (merged
//! and verified). The long version is `fmerge-irgen soak` (docs/RELIABILITY.md).

use fmerge_irgen::check::{self, MODES, Plan, Tools};
use fmerge_irgen::{Config, generate, stress};

fn tools() -> Tools {
    Tools::new(env!("CARGO_BIN_EXE_fmerge"))
}

/// The same shapes as the soak uses for a seed (slots, facts and vector code vary with it).
fn config(seed: u64) -> Config {
    Config::shaped(seed)
}

fn check_seeds(seeds: std::ops::Range<u64>) -> (usize, usize, usize) {
    let tools = tools();
    let (mut merged, mut runs, mut execs, mut funcs, mut calls, mut measured) = (0, 0, 0, 0, 0, 0);
    let range = seeds.clone();
    for seed in seeds {
        let m = generate(&config(seed));
        funcs += m.functions.len();
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.ll");
        std::fs::write(&input, &m.ll).unwrap();
        let plan = Plan { modes: MODES, execute: true, determinism: seed.is_multiple_of(4) };
        match check::check(&tools, &input, dir.path(), &plan) {
            Ok(s) => {
                merged += s.merged;
                runs += s.fmerge_runs;
                execs += s.executions;
                calls += s.executions * m.functions.len() * config(seed).inputs;
                measured += s.measured;
            }
            Err(f) => {
                let keep = std::env::temp_dir().join(format!("fmerge-generated-seed-{seed}.ll"));
                std::fs::write(&keep, &m.ll).unwrap();
                panic!(
                    "seed {seed}: {f}\ninput saved as {}\nreproduce: cargo run --release -p \
                     fmerge-irgen -- check --seed {seed} --shaped --fmerge target/release/fmerge\n{}",
                    keep.display(),
                    m.notes.join("\n")
                );
            }
        }
    }
    eprintln!(
        "seeds {range:?}: {funcs} generated functions, {runs} fmerge runs, {execs} executions \
         (lli-22 and clang -O2; {calls} function calls), {merged} functions merged away, \
         0 differences; {measured} measured runs, none larger"
    );
    // The measured mode ran for every seed and its sizes were in the report.
    assert_eq!(measured, range.count() * MODES.iter().filter(|m| m.measure).count());
    (merged, runs, execs)
}

#[test]
fn generated_families_behave_the_same_after_merging_seeds_0_to_9() {
    let (merged, runs, execs) = check_seeds(0..10);
    assert_eq!(runs, 10 * MODES.len() + 3, "every mode ran (and three determinism reruns)");
    // The original and every mode's output, each with lli-22 and native code at -O2.
    assert_eq!(execs, 10 * (MODES.len() + 1) * tools().execs.len());
    assert_eq!(tools().execs, [check::Exec::Lli, check::Exec::ClangO2]);
    // The families are built to be merged: a run that merges nothing tests nothing.
    assert!(merged > 100, "only {merged} functions merged over 10 seeds");
}

#[test]
fn generated_families_behave_the_same_after_merging_seeds_10_to_19() {
    let (merged, _, _) = check_seeds(10..20);
    assert!(merged > 100, "only {merged} functions merged over 10 seeds");
}

#[test]
fn llvm_stress_modules_merge_and_verify() {
    let tools = tools();
    let (mut merged, mut runs) = (0, 0);
    for seed in 0..8u64 {
        let text = stress::module("llvm-stress-22", seed, 60 + 25 * seed as usize, 2).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("stress.ll");
        std::fs::write(&input, &text).unwrap();
        let plan = Plan { modes: MODES, execute: false, determinism: seed == 0 };
        match check::check(&tools, &input, dir.path(), &plan) {
            Ok(s) => {
                merged += s.merged;
                runs += s.fmerge_runs;
            }
            Err(f) => {
                let keep = std::env::temp_dir().join(format!("fmerge-stress-{seed}.ll"));
                std::fs::write(&keep, &text).unwrap();
                panic!("llvm-stress seed {seed}: {f}\ninput saved as {}", keep.display());
            }
        }
    }
    eprintln!(
        "8 llvm-stress modules: {runs} fmerge runs, {merged} functions merged away, all verify"
    );
    assert!(merged > 0, "no llvm-stress copy was merged");
}

/// The similar stage parks a round between batches of close calls, so that the module can be
/// swept of the bodies that lost, and resumes it on the swept module (functions and constants
/// checked against it, merged bodies whose unused instructions the sweep erased lowered
/// again). Parking after every batch that doomed a body (`FMERGE_PARK_AFTER=1`) must change no
/// behaviour in any mode.
#[test]
fn generated_families_behave_the_same_when_the_similar_stage_parks_after_every_batch() {
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("fmerge-parking");
    let script =
        format!("#!/bin/sh\nFMERGE_PARK_AFTER=1 exec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_fmerge"));
    std::fs::write(&wrapper, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut tools = tools();
    tools.fmerge = wrapper.clone();
    let mut parked = 0;
    for seed in 0..6u64 {
        let m = generate(&config(seed));
        let input = dir.path().join(format!("in{seed}.ll"));
        std::fs::write(&input, &m.ll).unwrap();
        // It does park: the similar stage's timings name the time spent resuming.
        let out = std::process::Command::new(&wrapper)
            .arg("opt")
            .arg(&input)
            .args(["--no-estimate", "--timings", "--json", "-o"])
            .arg(dir.path().join("timed.bc"))
            .output()
            .unwrap();
        assert!(out.status.success(), "seed {seed}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let stages = report["stages"].as_array().unwrap();
        let similar = stages.iter().find(|s| s["stage"] == "similar").unwrap();
        parked += usize::from(similar["breakdown"].get("park").is_some());
        let plan = Plan { modes: MODES, execute: true, determinism: seed == 0 };
        if let Err(f) = check::check(&tools, &input, dir.path(), &plan) {
            panic!("seed {seed}, parking after every batch: {f}\n{}", m.notes.join("\n"));
        }
    }
    assert!(parked >= 3, "the similar stage parked on only {parked} of 6 seeds");
}
