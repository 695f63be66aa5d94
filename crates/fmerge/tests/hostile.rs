//! Hostile input: real bitcode files (the test programs and generated modules) with bits
//! flipped, bytes overwritten, chunks deleted or duplicated, and truncated, given to the whole
//! pipeline. fmerge must never crash (signal or panic): it either rejects the input with its
//! documented exit code and writes nothing, or succeeds with output that passes the LLVM
//! verifier. The seed is fixed; `FMERGE_FUZZ_CASES=N` runs more cases and
//! `FMERGE_FUZZ_SEED=N` other ones (a soak).
//!
//! This is the deterministic stand-in for the `cargo fuzz` target in `fuzz/`, which needs a
//! nightly toolchain and runs outside CI.

mod common;

use common::*;
use fmerge_irgen::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The base files: every test program, plus two generated modules (as bitcode).
fn base_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(programs_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    names.sort();
    for src in names {
        let bc = dir.join(format!("{}.bc", src.file_name().unwrap().to_string_lossy()));
        // Compiled by file name from its own directory, so the bitcode (which records the
        // source path) and hence every case are the same in any checkout.
        let cc =
            if src.extension().is_some_and(|e| e == "cpp") { "clang++-22" } else { "clang-22" };
        run_ok(
            Command::new(cc)
                .current_dir(programs_dir())
                .args(["-Os", "-emit-llvm", "-c"])
                .arg(src.file_name().unwrap())
                .arg("-o")
                .arg(&bc),
        );
        out.push((
            src.file_name().unwrap().to_string_lossy().into_owned(),
            std::fs::read(&bc).unwrap(),
        ));
    }
    for seed in [7, 8] {
        let ll = dir.join(format!("gen{seed}.ll"));
        let bc = dir.join(format!("gen{seed}.bc"));
        std::fs::write(&ll, fmerge_irgen::generate(&fmerge_irgen::Config::new(seed)).ll).unwrap();
        run_ok(Command::new("llvm-as-22").arg(&ll).arg("-o").arg(&bc));
        out.push((format!("generated seed {seed}"), std::fs::read(&bc).unwrap()));
    }
    out
}

/// One mutation of `data`; returns a description.
fn mutate(rng: &mut Rng, data: &mut Vec<u8>) -> String {
    let n = data.len();
    match rng.below(7) {
        0 | 1 => {
            let k = 1 + rng.below(8);
            for _ in 0..k {
                let pos = rng.below(n);
                data[pos] ^= 1 << rng.below(8);
            }
            format!("{k} bit flips")
        }
        2 => {
            let cut = rng.below(n);
            data.truncate(cut);
            format!("truncated to {cut}")
        }
        3 => {
            let pos = rng.below(n);
            let len = (1 + rng.below(16)).min(n - pos);
            for b in &mut data[pos..pos + len] {
                *b = rng.next_u64() as u8;
            }
            format!("{len} random bytes at {pos}")
        }
        4 => {
            let pos = rng.below(n);
            let len = (1 + rng.below(64)).min(n - pos);
            data.drain(pos..pos + len);
            format!("{len} bytes deleted at {pos}")
        }
        5 => {
            let pos = rng.below(n);
            let len = (1 + rng.below(64)).min(n - pos);
            let chunk: Vec<u8> = data[pos..pos + len].to_vec();
            let at = rng.below(n);
            data.splice(at..at, chunk);
            format!("{len} bytes from {pos} duplicated at {at}")
        }
        _ => {
            // Past the wrapper/magic, where the parser gets furthest.
            let pos = 8 + rng.below(n - 8);
            data[pos] = *rng.pick(&[0x00, 0xff, 0x7f, 0x80]);
            format!("byte {pos} set to {:#x}", data[pos])
        }
    }
}

/// Whether LLVM's own reader (`llvm-dis-22`) dies by a signal on `input`.
fn llvm_dis_crashes(input: &Path) -> bool {
    let out = Command::new("llvm-dis-22").arg(input).arg("-o").arg("/dev/null").output().unwrap();
    out.status.code().is_none()
}

#[test]
fn mutated_bitcode_is_rejected_cleanly_or_merged_into_valid_ir() {
    let cases: usize =
        std::env::var("FMERGE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(600);
    let dir = tempfile::tempdir().unwrap();
    let bases = base_files(dir.path());
    let work = tempfile::tempdir().unwrap();
    let seed = std::env::var("FMERGE_FUZZ_SEED").ok().and_then(|v| v.parse().ok());
    let mut rng = Rng::new(seed.unwrap_or(0xF022));
    let (mut accepted, mut rejected) = (0usize, std::collections::BTreeMap::<i32, usize>::new());
    let mut reader_crashes = Vec::new();
    for case in 0..cases {
        let (name, base) = &bases[case % bases.len()];
        let mut data = base.clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(3) {
            if data.len() > 16 {
                what.push(mutate(&mut rng, &mut data));
            }
        }
        let input = work.path().join("in.bc");
        let output = work.path().join("out.bc");
        std::fs::write(&input, &data).unwrap();
        // Most cases price with estimates only (fast); every 8th runs the default pipeline,
        // which generates code for close calls.
        let mut cmd = fmerge();
        cmd.arg("opt").arg(&input).arg("-o").arg(&output).args(["-q", "--no-measure"]);
        if !case.is_multiple_of(8) {
            cmd.args(["--profit", "estimate"]);
        }
        let out = cmd.output().unwrap();
        let code = out.status.code();
        let err = String::from_utf8_lossy(&out.stderr);
        let repro = || {
            let keep = std::env::temp_dir().join(format!("fmerge-hostile-case-{case}.bc"));
            std::fs::write(&keep, &data).unwrap();
            format!("case {case} ({name}: {}), input saved as {}", what.join("; "), keep.display())
        };
        assert!(!err.contains("panicked"), "fmerge panicked: {}\n{err}", repro());
        let Some(code) = code else {
            // LLVM 22's own bitcode reader crashes on some malformed files (opt-22 and
            // llvm-dis-22 too); fmerge's supervisor turns that into exit 4, so a signal here
            // means the supervisor itself failed. Those are counted
            // (docs/RELIABILITY.md, tests/regressions.rs); any other crash fails the test.
            assert!(
                llvm_dis_crashes(&input),
                "fmerge died by a signal ({}) on input that llvm-dis-22 reads: {}\n{err}",
                out.status,
                repro()
            );
            reader_crashes.push(repro());
            let _ = std::fs::remove_file(&output);
            continue;
        };
        if code == 0 {
            accepted += 1;
            let v = Command::new("opt-22")
                .args(["-passes=verify", "-disable-output"])
                .arg(&output)
                .output()
                .unwrap();
            assert!(
                v.status.success(),
                "fmerge accepted the input but wrote invalid IR: {}\n{}",
                repro(),
                String::from_utf8_lossy(&v.stderr)
            );
            std::fs::remove_file(&output).unwrap();
        } else {
            assert!(
                [4, 5, 6, 7, 8].contains(&code),
                "unexpected exit code {code} (want 0, 4, 5, 6, 7 or 8): {}\n{err}",
                repro()
            );
            assert!(!err.trim().is_empty(), "rejected without a message: {}", repro());
            *rejected.entry(code).or_default() += 1;
        }
        let left: Vec<_> = std::fs::read_dir(work.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "in.bc")
            .collect();
        assert!(left.is_empty(), "files left behind {left:?}: {}", repro());
    }
    eprintln!(
        "{cases} mutated inputs: {accepted} merged and verified, rejected by exit code \
         {rejected:?}, {} crashed LLVM 22's bitcode reader (llvm-dis-22 crashes on them too)",
        reader_crashes.len()
    );
    for r in &reader_crashes {
        eprintln!("  LLVM reader crash: {r}");
    }
    assert!(accepted > 0 && !rejected.is_empty(), "the mutations should give both outcomes");
}
