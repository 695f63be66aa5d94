//! Work profiling, counters mode: `fmerge instrument` with the fewest counters gives the same
//! block counts as a counter in every block, on control flow that leaves functions in every
//! way C and C++ allow (exit() from deep calls, longjmp through frames, setjmp, exceptions
//! through frames with cleanups, computed goto, switches with shared targets, recursion), in
//! forked and threaded programs; instrumented programs behave like the original; and
//! `fmerge opt --profile` uses the counts to keep hot code out of merging.

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/instrument").join(name)
}

/// Runs `exe` with `args`, the raw profile going to `raw`; returns (exit code, stdout).
fn run_with_profile(exe: &Path, args: &[&str], raw: Option<&Path>) -> (i32, Vec<u8>) {
    let mut cmd = Command::new(exe);
    cmd.args(args).env_remove("FMERGE_PROFILE_FILE");
    if let Some(raw) = raw {
        cmd.env("FMERGE_PROFILE_FILE", raw);
    }
    let out = cmd.output().expect("run program");
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// `fmerge profile merge` of one raw file with the map `fmerge instrument` wrote next to
/// `inst`; returns the profile as JSON.
fn merge_profile(raw: &Path, inst: &Path, out: &Path) -> Value {
    merge_with_maps(raw, &[inst.with_extension("fpmap")], out)
}

/// `fmerge profile merge` of one raw file with the probe maps of several modules.
fn merge_with_maps(raw: &Path, maps: &[PathBuf], out: &Path) -> Value {
    let mut cmd = fmerge();
    cmd.args(["profile", "merge", "-q"]).arg(raw);
    for m in maps {
        cmd.arg("--map").arg(m);
    }
    run_ok(cmd.arg("-o").arg(out));
    serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
}

/// The counts of function `name` in a profile.
fn function_in<'p>(p: &'p Value, name: &str) -> &'p Value {
    let functions = p["functions"].as_array().unwrap();
    functions.iter().find(|f| f["name"] == name).unwrap_or_else(|| panic!("{name} in the profile"))
}

/// Instruments `bc` with `extra` options, links it, runs every argument list, merges the
/// records; returns the profile as JSON and the outputs of the runs.
fn profile_of(
    d: &Path,
    bc: &Path,
    tag: &str,
    extra: &[&str],
    runs: &[&[&str]],
    link_args: &[&str],
) -> (Value, Vec<(i32, Vec<u8>)>) {
    let inst = d.join(format!("{tag}.bc"));
    run_ok(fmerge().arg("instrument").arg(bc).arg("-o").arg(&inst).arg("-q").args(extra));
    verify(&inst);
    let exe = d.join(tag);
    run_ok(Command::new("clang++-22").arg(&inst).args(link_args).arg("-o").arg(&exe));
    let raw = d.join(format!("{tag}.profraw"));
    let outputs = runs.iter().map(|a| run_with_profile(&exe, a, Some(&raw))).collect();
    (merge_profile(&raw, &inst, &d.join(format!("{tag}.fprof"))), outputs)
}

fn blocks_by_function(p: &Value) -> BTreeMap<String, Vec<u64>> {
    p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let blocks = f["blocks"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap());
            (f["name"].as_str().unwrap().to_string(), blocks.collect())
        })
        .collect()
}

/// Optimal counters and block counters agree on every block of every function, both
/// programs behave like the original, and nothing is inconsistent.
fn check_exact(src: &str, runs: &[&[&str]], link_args: &[&str], extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source(src), &bc, &["-O2"]);
    let base = d.join("base");
    run_ok(Command::new("clang++-22").arg(&bc).args(link_args).arg("-o").arg(&base));
    let expected: Vec<_> = runs.iter().map(|a| run_with_profile(&base, a, None)).collect();
    let mut optimal_args = vec!["--probes", "optimal"];
    optimal_args.extend(extra);
    let mut blocks_args = vec!["--probes", "blocks"];
    blocks_args.extend(extra);
    let mut check_args = vec!["--probes", "check"];
    check_args.extend(extra);
    let (optimal, out_o) = profile_of(d, &bc, "optimal", &optimal_args, runs, link_args);
    let (blocks, out_b) = profile_of(d, &bc, "blocks", &blocks_args, runs, link_args);
    // Both in one program: every run checked on its own.
    let (checked, out_c) = profile_of(d, &bc, "check", &check_args, runs, link_args);
    assert_eq!(out_o, expected, "{src}: the instrumented program behaves differently");
    assert_eq!(out_b, expected, "{src}: the block-counted program behaves differently");
    assert_eq!(out_c, expected, "{src}: the checking program behaves differently");
    assert_eq!(blocks_by_function(&checked), blocks_by_function(&blocks), "{src}");
    for p in [&optimal, &blocks, &checked] {
        assert_eq!(p["inconsistent"], serde_json::json!([]), "{src}");
        assert_eq!(p["unknown_records"], 0, "{src}");
    }
    assert!(optimal["runs"].as_u64().unwrap() >= runs.len() as u64, "{src}: runs missing");
    let (o, b) = (blocks_by_function(&optimal), blocks_by_function(&blocks));
    assert_eq!(o.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{src}");
    assert_eq!(o, b, "{src}: reconstructed block counts differ from the counted ones");
    assert!(o.values().any(|c| c.iter().any(|&n| n > 1)), "{src}: nothing counted");
}

#[test]
fn optimal_counts_equal_block_counts_through_exit_longjmp_setjmp_and_computed_goto() {
    // Two runs: one returns from main, one calls exit(3) after printing.
    check_exact("flow.c", &[&["12"], &["7", "exit"]], &[], &[]);
}

#[test]
fn optimal_counts_equal_block_counts_through_musttail_unreachable_and_mutual_recursion() {
    check_exact("musttail.c", &[&["50"], &["9"]], &[], &[]);
}

#[test]
fn optimal_counts_equal_block_counts_through_exceptions_and_cleanups() {
    check_exact("exceptions.cpp", &[&["40"], &["13"]], &[], &[]);
}

#[test]
fn forked_children_and_threads_with_atomic_counters_add_up() {
    // The parent and the child each write a record (the child's includes what ran before the
    // fork), so each adds up on its own.
    check_exact("fork_threads.c", &[&[]], &["-pthread"], &["--atomic"]);
}

#[test]
fn assuming_calls_return_needs_fewer_counters_and_is_still_exact_without_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("exceptions.cpp"), &bc, &["-O2"]);
    let counters = |extra: &[&str]| {
        let out = run_ok(
            fmerge()
                .arg("instrument")
                .arg(&bc)
                .arg("-o")
                .arg(d.join("x.bc"))
                .arg("--json")
                .args(extra),
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["counters"].as_u64().unwrap()
    };
    assert!(counters(&["--assume-calls-return"]) < counters(&[]));
    // Exceptions still unwind through modelled edges: exact.
    check_exact("exceptions.cpp", &[&["40"]], &[], &["--assume-calls-return"]);
}

/// Regression: LLVM had marked the recursive `fib` `memory(none)`; with counters in it that
/// claim is false, and the optimizer of the instrumented module kept a counter in a register
/// across the recursive call (the self-loop counted 16 instead of 33). Counts must not depend
/// on how the instrumented module is optimized.
#[test]
fn counts_do_not_depend_on_the_optimization_of_the_instrumented_module() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("pure.bc");
    compile(&source("pure.c"), &bc, &["-O2"]);
    let inst = d.join("inst.bc");
    run_ok(fmerge().arg("instrument").arg(&bc).arg("-o").arg(&inst).arg("-q"));
    let mut profiles = Vec::new();
    for level in ["-O0", "-O2"] {
        let exe = d.join(format!("pure{level}"));
        run_ok(Command::new("clang-22").arg(level).arg(&inst).arg("-o").arg(&exe));
        let raw = d.join(format!("{level}.profraw"));
        assert_eq!(run_with_profile(&exe, &["10"], Some(&raw)).1, b"55\n");
        let p = merge_profile(&raw, &inst, &d.join(format!("{level}.fprof")));
        profiles.push(blocks_by_function(&p));
    }
    assert_eq!(profiles[0], profiles[1]);
    // fib(10) through LLVM's accumulator loop: 89 calls, 88 loop iterations.
    assert_eq!(profiles[1]["fib"], vec![89, 88, 89]);
}

/// Work mode: a run's work equals Σ over blocks of cost × count, the same sum the
/// counters of the same runs give (unit costs: IR instructions executed), through exits,
/// longjmp, setjmp, exceptions and computed goto.
#[test]
fn work_mode_adds_up_to_the_cost_of_the_counted_blocks() {
    for (src, runs) in [
        ("flow.c", &[&["12"][..], &["7", "exit"]][..]),
        ("exceptions.cpp", &[&["40"][..], &["13"]]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let bc = d.join("prog.bc");
        compile(&source(src), &bc, &["-O2"]);
        let costs = source("unit-costs.json");
        let (work, out_w) = profile_of(
            d,
            &bc,
            "work",
            &["--mode", "work", "--costs", costs.to_str().unwrap()],
            runs,
            &[],
        );
        let (counts, out_c) = profile_of(d, &bc, "counts", &[], runs, &[]);
        assert_eq!(out_w, out_c, "{src}");
        let per_run: Vec<u64> =
            work["work"].as_array().unwrap().iter().map(|w| w.as_u64().unwrap()).collect();
        assert_eq!(per_run.len(), runs.len(), "{src}");
        let executed: u64 =
            counts["executed"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(per_run.iter().sum::<u64>(), executed, "{src}");
        assert!(per_run.iter().all(|&w| w > 0), "{src}");
    }
}

/// Relaxed work instrumentation drops probes and stays within its error bound: per region
/// for any input, over the whole program for the training runs.
#[test]
fn relaxed_work_loses_at_most_the_allowed_fraction() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("exceptions.cpp"), &bc, &["-O2"]);
    let runs: &[&[&str]] = &[&["40"], &["13"]];
    let total = |p: &Value| -> u64 {
        p["work"].as_array().unwrap().iter().map(|w| w.as_u64().unwrap()).sum()
    };
    let (exact, _) = profile_of(d, &bc, "exact", &["--mode", "work"], runs, &[]);
    let (_, _) = profile_of(d, &bc, "train", &[], runs, &[]);
    let train = d.join("train.fprof");
    for (tag, relax, bound) in [("region", "region:20", 0.20), ("whole", "whole:20", 0.20)] {
        let mut args = vec!["--mode", "work", "--relax", relax];
        if tag == "whole" {
            args.extend(["--profile", train.to_str().unwrap()]);
        }
        let (relaxed, _) = profile_of(d, &bc, tag, &args, runs, &[]);
        let (e, r) = (total(&exact) as f64, total(&relaxed) as f64);
        assert!((e - r).abs() <= bound * e + 1.0, "{tag}: {r} against {e}");
        if tag == "whole" {
            assert!(r != e, "whole-program relaxation dropped nothing");
        }
    }
    // Misuse is refused with a message.
    for (args, msg) in [
        (&["--relax", "region:5"][..], "--mode work"),
        (&["--mode", "work", "--relax", "whole:5"][..], "needs --profile"),
        (&["--mode", "work", "--relax", "sideways:5"][..], "region:PCT or whole:PCT"),
    ] {
        let out = fmerge()
            .arg("instrument")
            .arg(&bc)
            .arg("-o")
            .arg(d.join("x.bc"))
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(msg),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn bad_inputs_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("flow.c"), &bc, &["-O2"]);
    let inst = d.join("inst.bc");
    run_ok(fmerge().arg("instrument").arg(&bc).arg("-o").arg(&inst).arg("-q"));
    // Instrumenting twice is refused.
    let out =
        fmerge().arg("instrument").arg(&inst).arg("-o").arg(d.join("twice.bc")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already instrumented"));
    assert!(!d.join("twice.bc").exists());
    // A raw profile that is not one, a truncated one, a map that is not one: exit 9.
    let junk = d.join("junk.profraw");
    std::fs::write(&junk, b"FMPRAW01 but then nothing sensible").unwrap();
    let merge = |inputs: &[&Path], map: &Path| {
        fmerge()
            .args(["profile", "merge"])
            .args(inputs)
            .arg("--map")
            .arg(map)
            .arg("-o")
            .arg(d.join("out.fprof"))
            .output()
            .unwrap()
    };
    let out = merge(&[&junk], &inst.with_extension("fpmap"));
    assert_eq!(out.status.code(), Some(9), "{}", String::from_utf8_lossy(&out.stderr));
    let out = merge(&[&junk], &bc);
    assert_eq!(out.status.code(), Some(9), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!d.join("out.fprof").exists());
    let out = fmerge()
        .arg("opt")
        .arg(&bc)
        .arg("--profile")
        .arg(&bc)
        .arg("-o")
        .arg(d.join("o.bc"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9), "{}", String::from_utf8_lossy(&out.stderr));
    // A non-Linux module is refused (the runtime is Linux's).
    let mac = d.join("mac.bc");
    let mac_src = d.join("mac.c");
    std::fs::write(&mac_src, "int f(int x) { return x + 1; }\n").unwrap();
    run_ok(
        Command::new("clang-22")
            .args(["--target=arm64-apple-macos", "-O2", "-emit-llvm", "-c"])
            .arg(&mac_src)
            .arg("-o")
            .arg(&mac),
    );
    let out = fmerge().arg("instrument").arg(&mac).arg("-o").arg(d.join("m.bc")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Linux targets only"));
    // Signal handlers only where the runtime knows struct sigaction and the signal numbers.
    let android = d.join("android.bc");
    run_ok(
        Command::new("clang-22")
            .args(["--target=aarch64-linux-android", "-O2", "-emit-llvm", "-c"])
            .arg(&mac_src)
            .arg("-o")
            .arg(&android),
    );
    let out =
        fmerge().arg("instrument").arg(&android).arg("-o").arg(d.join("android-i.bc")).output();
    assert!(out.unwrap().status.success(), "Android is instrumented without the option");
    let out = fmerge()
        .arg("instrument")
        .arg(&android)
        .arg("--write-on-signal")
        .arg("-o")
        .arg(d.join("android-s.bc"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--write-on-signal supports"));
    assert!(!d.join("android-s.bc").exists());
}

#[test]
fn opt_with_fmerge_profile_keeps_the_hot_function_out_like_clang_pgo() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile/hot_cold.c");
    let bc = d.join("hc.bc");
    compile(&src, &bc, &[]);
    let (profile, _) = profile_of(d, &bc, "train", &[], &[&[]], &[]);
    assert_eq!(function_in(&profile, "stats_hot")["entries"], 20000);
    let opt = |args: &[&str], name: &str| opt_with_report(&bc, &d.join(format!("{name}.bc")), args);
    let fprof = d.join("train.fprof");
    let guided = opt(&["--profile", fprof.to_str().unwrap()], "guided");
    let merged = merged_names(&guided);
    assert!(!merged.iter().any(|n| n == "stats_hot"), "the hot function was merged: {merged:?}");
    assert!(merged.iter().any(|n| n == "stats_eu") && merged.iter().any(|n| n == "stats_us"));
    assert!(guided["profile"]["hot_functions"].as_u64().unwrap() >= 1);
    // Without the profile and without an estimate of run-time cost, the hot function merges.
    let plain = opt(&["--no-estimate"], "plain");
    assert!(merged_names(&plain).iter().any(|n| n == "stats_hot"));
    assert!(plain.get("profile").is_none());
    // Code that changed since the profile was taken (here: built at -O0, same names, other
    // control flow) gets no counts, and the user is told.
    let bc0 = d.join("o0.bc");
    compile(&src, &bc0, &["-O0"]);
    let out = run_ok(
        fmerge().arg("opt").arg(&bc0).arg("--profile").arg(&fprof).arg("-o").arg(d.join("c.bc")),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("profile: counts for 0 functions"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed since the profile was taken"));
}

/// Counter promotion (counters kept in registers through loops without calls, written back at
/// the loops' exits) keeps every count exact: loops left by break and goto, nested loops, a
/// loop that calls exit() (from a block outside the loop: the write-back comes first), a loop
/// whose call may exit (left in memory), memcpy in a loop; in every probe kind, against block
/// counters kept in memory.
#[test]
fn promoted_counters_stay_exact_through_breaks_nesting_and_exit() {
    let runs: &[&[&str]] = &[&["60"], &["60", "1"], &["60", "2"]];
    check_exact("loops.c", runs, &[], &[]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("loops.c"), &bc, &["-O2"]);
    // The reference: a counter per block, none promoted.
    let (memory, out_m) =
        profile_of(d, &bc, "memory", &["--probes", "blocks", "--no-promote"], runs, &[]);
    let (promoted, out_p) = profile_of(d, &bc, "promoted", &[], runs, &[]);
    let (work, out_w) = profile_of(d, &bc, "work", &["--mode", "work"], runs, &[]);
    assert_eq!(out_m, out_p);
    assert_eq!(out_m, out_w);
    assert_eq!(out_m[1].0, 4, "the run that exits through maybe_exit");
    assert_eq!(out_m[2].0, 3, "the run that exits inside a loop");
    assert_eq!(blocks_by_function(&promoted), blocks_by_function(&memory));
    assert_eq!(promoted["inconsistent"], serde_json::json!([]));
    assert_eq!(work["inconsistent"], serde_json::json!([]));
    assert_eq!(work["work"].as_array().unwrap().len(), runs.len());
}

/// Which loops are promoted, read off the instrumented IR: every loop without calls gets its
/// counters loaded before it (`fmerge.count.promoted`), the loop that calls a function that
/// may exit does not, nor a loop whose intrinsic may become a call of the program's own
/// function; `--no-promote` and `--atomic` promote nothing.
#[test]
fn only_loops_without_calls_keep_counters_in_registers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("loops.c"), &bc, &["-O2"]);
    let instrument = |extra: &[&str]| -> (Value, String) {
        let ll = d.join("inst.ll");
        let out = run_ok(
            fmerge()
                .arg("instrument")
                .arg(&bc)
                .args(["--emit", "ll", "--json", "-o"])
                .arg(&ll)
                .args(extra),
        );
        (serde_json::from_slice(&out.stdout).unwrap(), std::fs::read_to_string(&ll).unwrap())
    };
    let body = |ll: &str, name: &str| -> String {
        let start = ll.find(&format!("@{name}(")).unwrap_or_else(|| panic!("{name} defined"));
        let start = ll[..start].rfind("define ").unwrap();
        let end = start + ll[start..].find("\n}\n").unwrap();
        ll[start..end].to_string()
    };
    for probes in ["optimal", "blocks", "check"] {
        let (summary, ll) = instrument(&["--probes", probes]);
        assert!(summary["promoted_loops"].as_u64().unwrap() >= 5, "{probes}: {summary}");
        for f in ["search", "nested", "exits_inside", "copies"] {
            assert!(body(&ll, f).contains("%fmerge.count.promoted"), "{probes}: {f} not promoted");
        }
        let with_call = body(&ll, "with_call");
        assert!(!with_call.contains("fmerge.count.promoted"), "{probes}: {with_call}");
    }
    for extra in [&["--no-promote"][..], &["--atomic"]] {
        let (summary, ll) = instrument(extra);
        assert_eq!(summary["promoted_loops"], 0, "{extra:?}");
        assert!(!ll.contains("fmerge.count.promoted"), "{extra:?}");
    }
    // An intrinsic that code generation may turn into a call of the program's own function
    // (llvm.memset, with memset defined here) is a call; llvm.memcpy (libc's) is not.
    compile(&source("own_memset.c"), &bc, &[]);
    let (_, ll) = instrument(&[]);
    assert!(body(&ll, "fill").contains("@llvm.memset"));
    assert!(!body(&ll, "fill").contains("fmerge.count.promoted"));
    assert!(body(&ll, "copy").contains("fmerge.count.promoted"));
    check_exact("own_memset.c", &[&["40"]], &[], &[]);
}

#[test]
fn write_on_signal_keeps_the_records_of_runs_a_signal_ends_and_the_same_exit_status() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two modules instrumented on their own, linked into one program: both write a record.
    let (main_bc, lib_bc) = (d.join("main.bc"), d.join("lib.bc"));
    compile(&source("signals.c"), &main_bc, &["-O2"]);
    compile(&source("signals_lib.c"), &lib_bc, &["-O2", "-fno-inline"]);
    let build = |tag: &str, extra: &[&str]| {
        let mut objs = Vec::new();
        for bc in [&main_bc, &lib_bc] {
            let stem = bc.file_stem().unwrap().to_str().unwrap();
            let out = d.join(format!("{tag}-{stem}.bc"));
            if extra.first() == Some(&"none") {
                std::fs::copy(bc, &out).unwrap();
            } else {
                run_ok(
                    fmerge().arg("instrument").arg(bc).arg("-o").arg(&out).arg("-q").args(extra),
                );
                verify(&out);
            }
            objs.push(out);
        }
        let exe = d.join(tag);
        run_ok(Command::new("clang-22").args(&objs).arg("-o").arg(&exe));
        exe
    };
    let base = build("base", &["none"]);
    let plain = build("plain", &[]);
    let on_signal = build("on-signal", &["--write-on-signal"]);
    // (exit code, signal, stdout) of one run; `sh` makes SIGINT ignored for "int-ignored".
    let run = |exe: &Path, how: &str, raw: &Path| {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("trap '' INT; exec \"$0\" 5 {how}"))
            .arg(exe)
            .env("FMERGE_PROFILE_FILE", raw)
            .output()
            .unwrap();
        (out.status.code(), out.status.signal(), String::from_utf8(out.stdout).unwrap())
    };
    let endings = ["exit", "term", "abort", "pipe", "int-ignored"];
    let (plain_raw, signal_raw) = (d.join("plain.profraw"), d.join("on-signal.profraw"));
    for how in endings {
        let expected = run(&base, how, &d.join("base.profraw"));
        let got = run(&plain, how, &plain_raw);
        assert_eq!(got, expected, "{how}: the instrumented program behaves differently");
        let (code, signal, out) = run(&on_signal, how, &signal_raw);
        assert_eq!((code, signal), (expected.0, expected.1), "{how}: another exit status");
        // SIGINT is ignored when these runs start, and stays so: the same output.
        assert_eq!(out, expected.2, "{how}");
    }
    // The price of the option: a program that asks sees the handler of a signal that was at
    // its default.
    let first_line = |exe: &Path| {
        let out = Command::new(exe).env("FMERGE_PROFILE_FILE", d.join("x.profraw")).output();
        String::from_utf8(out.unwrap().stdout).unwrap().lines().next().unwrap().to_string()
    };
    assert_eq!(first_line(&plain), "SIGINT at its default: yes");
    assert_eq!(first_line(&on_signal), "SIGINT at its default: no");
    assert!(!d.join("base.profraw").exists());
    let merged = |raw: &Path, tag: &str| {
        let maps = ["main", "lib"].map(|m| d.join(format!("{tag}-{m}.fpmap")));
        merge_with_maps(raw, &maps, &d.join(format!("{tag}.fprof")))
    };
    // Without the option only the runs that exit write records (two modules each); with it
    // every run does, and the three ended by a signal are marked.
    let plain_profile = merged(&plain_raw, "plain");
    assert_eq!(
        (plain_profile["runs"].as_u64(), plain_profile["signal_runs"].as_u64()),
        (Some(4), Some(0))
    );
    let p = merged(&signal_raw, "on-signal");
    assert_eq!((p["runs"].as_u64(), p["signal_runs"].as_u64()), (Some(10), Some(6)));
    assert_eq!(p["inconsistent"], serde_json::json!([]));
    assert_eq!(p["damaged_bytes"], 0);
    // count_up finished every call before the signal: 5 calls per run, 5 runs.
    assert_eq!(function_in(&p, "count_up")["entries"], 25);
}

/// Register pressure: a loop that keeps more values live than twice the target's registers
/// (40 on x86-64) keeps its counters in memory, a simple loop next to it still gets them in
/// registers, and the counts of both stay exact.
#[test]
fn crowded_loops_keep_counters_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("prog.bc");
    compile(&source("pressure.c"), &bc, &["-O2"]);
    let ll = d.join("inst.ll");
    run_ok(fmerge().arg("instrument").arg(&bc).args(["--emit", "ll", "-q", "-o"]).arg(&ll));
    let ll = std::fs::read_to_string(&ll).unwrap();
    let body = |name: &str| -> String {
        let start = ll.find(&format!("@{name}(")).unwrap_or_else(|| panic!("{name} defined"));
        let start = ll[..start].rfind("define ").unwrap();
        let end = start + ll[start..].find("\n}\n").unwrap();
        ll[start..end].to_string()
    };
    assert!(body("crowded").contains("%fmerge.count"), "crowded has counters");
    assert!(!body("crowded").contains("fmerge.count.promoted"), "crowded was promoted");
    assert!(body("simple").contains("%fmerge.count.promoted"), "simple was not promoted");
    check_exact("pressure.c", &[&["40"]], &[], &[]);
}

/// The runtime is C, compiled for each target fmerge has it for and linked into the module as
/// bitcode: every such target gets it (the module verifies and compiles, the constructor and
/// destructor are there, the C library's functions are called even where the program has a
/// local function of the same name, the signal handler is a weak symbol), and a module whose
/// data layout none of them was built for gets a clear error.
#[test]
fn every_supported_target_gets_the_runtime_and_others_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("f.c");
    std::fs::write(
        &src,
        "__attribute__((noinline)) static int open(int x) { return x * 3; }\n\
         int f(int x) { return x > 3 ? open(x) : x + 1; }\n",
    )
    .unwrap();
    let targets = [
        ("x86_64-linux-gnu", true),
        ("x86_64-linux-gnux32", true),
        ("i686-linux-gnu", true),
        ("aarch64-linux-gnu", true),
        ("aarch64_be-linux-gnu", true),
        ("aarch64-linux-android", false),
        ("armv7-linux-gnueabihf", true),
        ("thumbv7-linux-gnueabihf", true),
        ("riscv64-linux-gnu", true),
        ("riscv32-linux-gnu", true),
        ("aarch64-linux-gnu_ilp32", true),
        ("riscv64-linux-musl", true),
    ];
    for (target, signals) in targets {
        let bc = d.join(format!("{target}.bc"));
        run_ok(
            Command::new("clang-22")
                .arg(format!("--target={target}"))
                .args(["-O2", "-emit-llvm", "-c"])
                .arg(&src)
                .arg("-o")
                .arg(&bc),
        );
        for on_signal in [false, signals].into_iter().collect::<std::collections::BTreeSet<_>>() {
            let inst = d.join(format!("{target}-{on_signal}.bc"));
            let mut cmd = fmerge();
            cmd.arg("instrument").arg(&bc).arg("-q").arg("-o").arg(&inst);
            if on_signal {
                cmd.arg("--write-on-signal");
            }
            run_ok(&mut cmd);
            verify(&inst);
            let obj = inst.with_extension("o");
            run_ok(Command::new("llc-22").args(["-filetype=obj", "-o"]).arg(&obj).arg(&inst));
            let nm = run_ok(Command::new("llvm-nm-22").arg(&obj));
            let symbols = String::from_utf8(nm.stdout).unwrap();
            let has = |kind: &str, name: &str| {
                symbols.lines().any(|l| l.ends_with(&format!(" {kind} {name}")))
            };
            for name in ["__fmerge_prof_init", "__fmerge_prof_write"] {
                assert!(has("t", name), "{target}: no {name} in\n{symbols}");
            }
            for name in ["open", "write", "close", "clock_gettime", "getenv"] {
                assert!(has("U", name), "{target}: {name} is not the C library's in\n{symbols}");
            }
            assert!(symbols.contains(" t open."), "{target}: f's own open, renamed\n{symbols}");
            assert_eq!(has("W", "__fmerge_prof_on_signal"), on_signal, "{target}\n{symbols}");
        }
    }
    // x86-64 with 32-bit pointers and 4-byte aligned i64: neither x86-64's layout nor x32's.
    let odd = d.join("odd.ll");
    std::fs::write(
        &odd,
        "target datalayout = \"e-m:e-p:32:32-i64:32-f80:32-n8:16:32-S128\"\n\
         target triple = \"x86_64-unknown-linux-gnu\"\n\
         define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n",
    )
    .unwrap();
    let odd_bc = d.join("odd.bc");
    run_ok(Command::new("llvm-as-22").arg(&odd).arg("-o").arg(&odd_bc));
    let out =
        fmerge().arg("instrument").arg(&odd_bc).arg("-o").arg(d.join("m.bc")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no profile runtime"));
    assert!(!d.join("m.bc").exists());
}
