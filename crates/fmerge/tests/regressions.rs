//! Every failure found by the reliability checks, as a small input that is checked on every
//! test run (`tests/regressions/README.md` lists them).

mod common;

use common::*;
use fmerge_irgen::check::{self, MODES, Plan, Tools};
use std::path::{Path, PathBuf};

fn regressions(ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
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
/// parses inputs in a child process first and rejects them with exit code 4.
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
