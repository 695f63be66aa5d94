//! Every failure found by the reliability checks, as a small input that is checked on every
//! test run (`tests/regressions/README.md` lists them).

mod common;

use common::*;
use fmerge_irgen::check::{self, MODES, Plan, Tools};
use std::path::{Path, PathBuf};
use std::process::Command;

fn regressions(ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    files_in(&dir, ext)
}

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn ir_regressions_merge_verify_and_behave_the_same() {
    let tools = Tools::new(env!("CARGO_BIN_EXE_fmerge"));
    for ll in regressions("ll") {
        let runnable = std::fs::read_to_string(&ll).unwrap().contains("@main(");
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan { modes: MODES, execute: runnable, determinism: true };
        if let Err(f) = check::check(&tools, &ll, dir.path(), &plan) {
            panic!("{}: {f}", ll.display());
        }
    }
}

/// LLVM 22's bitcode reader crashes on these files (so do `opt-22` and `llvm-dis-22`); fmerge
/// runs LLVM in a worker process it supervises and rejects them with exit code 4.
#[test]
fn bitcode_that_crashes_llvms_reader_is_rejected_with_exit_4() {
    let files = regressions("bc");
    assert!(!files.is_empty());
    for bc in files {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bc");
        let res = fmerge().arg("opt").arg(&bc).arg("-o").arg(&out).arg("-q").output().unwrap();
        assert_eq!(res.status.code(), Some(4), "{}: {}", bc.display(), res.status);
        assert!(!out.exists());
    }
}

#[test]
fn the_reader_crash_regressions_still_crash_llvm_itself() {
    // If LLVM's reader stops crashing on them, they have become ordinary garbage input and
    // fmerge must reject them cleanly (exit 4, no output) like any other.
    for bc in regressions("bc") {
        let dis = std::process::Command::new("llvm-dis-22")
            .arg(&bc)
            .arg("-o")
            .arg("/dev/null")
            .output()
            .unwrap();
        if dis.status.code().is_some() {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out.bc");
            let res = fmerge().arg("opt").arg(&bc).arg("-o").arg(&out).arg("-q").output().unwrap();
            assert_eq!(res.status.code(), Some(4), "{}", bc.display());
        }
    }
}

/// LLVM 22's reader reads out of bounds on these files (valgrind shows it in `llvm-dis-22`),
/// and whether that crashes depends on the process's memory layout: the same binary crashed
/// with one set of options and not with another. fmerge runs LLVM only in a worker process it
/// supervises: it must answer with merged output that verifies or exit 4, never die by a signal.
#[test]
fn bitcode_that_makes_llvms_reader_read_out_of_bounds_never_crashes_fmerge() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/oob");
    let files = files_in(&dir, "bc");
    assert!(!files.is_empty());
    for bc in files {
        for extra in [&[][..], &["--profit", "estimate"][..], &["--merge", "identical"][..]] {
            let tmp = tempfile::tempdir().unwrap();
            let out = tmp.path().join("out.bc");
            let res = fmerge()
                .arg("opt")
                .arg(&bc)
                .arg("-o")
                .arg(&out)
                .args(["-q", "--no-measure"])
                .args(extra)
                .output()
                .unwrap();
            match res.status.code() {
                Some(0) => verify(&out),
                Some(4) => assert!(!out.exists()),
                other => panic!("{} {extra:?}: fmerge ended with {other:?}", bc.display()),
            }
        }
    }
}

/// Runs `fmerge opt` on `input` and checks it is rejected with `code`, a message containing
/// `says`, and no output file.
fn assert_rejected(input: &Path, code: i32, says: &str) {
    assert_rejected_with(input, &[], code, says);
}

fn assert_rejected_with(input: &Path, args: &[&str], code: i32, says: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bc");
    let res =
        fmerge().arg("opt").arg(input).arg("-o").arg(&out).arg("-q").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&res.stderr);
    assert_eq!(res.status.code(), Some(code), "{}: {err}", input.display());
    assert!(err.contains(says), "{}: message lacks {says:?}: {err}", input.display());
    assert!(!out.exists(), "{}: output written", input.display());
}

/// A function whose `target-cpu` was corrupted to a name the target does not know: LLVM only
/// warns, then stops the process with a fatal error while generating code. fmerge rejects the
/// module before any code generation (invalid IR, exit 6).
#[test]
fn an_unknown_target_cpu_is_invalid_input() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/rejected");
    assert_rejected(&dir.join("unknown_target_cpu.bc"), 6, "does not know");
}

/// Inline assembly the target's assembler rejects: LLVM's default diagnostic handler would
/// print the error and exit(1) from inside code generation. Whenever fmerge generates code
/// (measuring the whole module, or writing an object file) it reports it as a code generation
/// failure (exit 8) and writes nothing. By default it compiles only merged functions (here:
/// none), and passes the assembly through as `opt` would.
#[test]
fn assembler_errors_during_measurement_are_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("bad_asm.ll");
    let body = "  call void asm sideeffect \"bogus_mnemonic %eax\", \"\"()\n  ret void\n}\n";
    let text = format!(
        "target triple = \"x86_64-pc-linux-gnu\"\ndefine void @f() {{\n{body}\
         define void @g() {{\n{body}"
    );
    std::fs::write(&ll, text).unwrap();
    for args in [&["--measure"][..], &["--emit", "obj"][..]] {
        assert_rejected_with(&ll, args, 8, "invalid instruction mnemonic");
    }
}

/// Module-level inline assembly that does not assemble: LLVM's bitcode writer parses it for
/// the symbol table and its default diagnostic handler would exit(1) (found by `fuzz/`, the
/// saved input). fmerge reports it as exit 8 and writes nothing. Assembly that parses but
/// names no instruction the target has is found when fmerge generates code (`--measure`,
/// `--emit obj`).
#[test]
fn module_asm_that_does_not_assemble_is_a_clear_error() {
    let saved = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/rejected/module_asm_does_not_assemble.bc");
    assert_rejected(&saved, 8, "invalid character in input");
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("bad_module_asm.ll");
    std::fs::write(
        &ll,
        "target triple = \"x86_64-pc-linux-gnu\"\nmodule asm \"bogus_mnemonic %eax\"\n\
         define i32 @f() {\n  ret i32 1\n}\n",
    )
    .unwrap();
    let bc = dir.path().join("bad_module_asm.bc");
    run_ok(Command::new("llvm-as-22").arg(&ll).arg("-o").arg(&bc));
    for input in [&ll, &bc] {
        for args in [&["--measure"][..], &["--emit", "obj"][..]] {
            assert_rejected_with(input, args, 8, "bogus_mnemonic");
        }
    }
}

/// A merge that rewrote a function's call sites and queued it for erasure, then a body built
/// earlier (another class of the constants stage) that refers to it: the function used to
/// stay alive with its whole body, and the next round merged it a second time (zstd's
/// Huffman decoders: a second 5.6 KB copy). Now it stays as a thunk, and no function is the
/// original of two merges.
#[test]
fn a_function_whose_call_sites_were_rewritten_is_not_merged_again() {
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions/rewritten_member_kept_alive.ll");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.bc");
    let report = opt_with_report(&input, &out, &["--no-estimate"]);
    let names = merged_names(&report);
    assert!(names.contains(&"f1".to_string()), "f1 and f2 should merge: {names:?}");
    let mut seen = std::collections::BTreeSet::new();
    for n in &names {
        assert!(seen.insert(n), "{n} is the original of two merges: {report}");
    }
}
