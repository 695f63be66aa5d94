//! Other people's test suites under fmerge, the quick subset (`python3 bench/fmbench testsuites
//! --quick`): serde_json 1.0.154's `tests/regression.rs` (which fmerge c783127 broke),
//! itoa's tests, and issue 13's reproducer (`bench/testsuites/programs/regex_json`: regex and
//! serde_json, which c783127 made abort), fetched from crates.io, built as fat-LTO modules,
//! merged by this fmerge in the default mode and with `--whole-program`, relinked with rustc's
//! own link line, and run: every test must have the outcome it has in the unmerged build, no
//! merged build may have more `.text`, and every distinct merged build runs once under
//! valgrind memcheck with no new error. The full run (31 crates, four
//! modes) is `make reliability`; its last result is in docs/RELIABILITY.md.
//!
//! The C side (`python3 bench/fmbench csuites`): expat's own test suite, compiled as C and as
//! C++, merged the same two ways.

use std::path::Path;
use std::process::Command;

/// Runs `fmbench STUDY ARGS --modes default,whole-program` with this build's fmerge in a
/// work directory of its own, requires it to succeed, and returns its JSON results and stdout.
fn fmbench(study: &str, args: &[&str]) -> (Vec<serde_json::Value>, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(study);
    let json = work.join("quick.json");
    let out = Command::new("python3")
        .arg(root.join("bench/fmbench"))
        .arg(study)
        .args(args)
        .args(["--modes", "default,whole-program", "--fmerge"])
        .arg(env!("CARGO_BIN_EXE_fmerge"))
        .arg("--json")
        .arg(&json)
        .env("FMERGE_TESTSUITES_WORK", &work)
        .output()
        .expect("python3 runs bench/fmbench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{study}: tests differ after merging:\n{stdout}\n{stderr}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (r["results"].as_array().unwrap().clone(), stdout)
}

/// Both modes merged something, passed the tests the unmerged build passed, grew no `.text`,
/// and the merged binaries are memcheck-clean.
fn merged_the_same(t: &serde_json::Value, name: &str) {
    for mode in ["default", "whole-program"] {
        let m = &t["modes"][mode];
        assert!(m["merges"].as_u64().unwrap() > 0, "{name} {mode}: nothing merged");
        assert_eq!(m["passed"], t["baseline"]["passed"], "{name} {mode}");
        assert!(m["text_after"].as_u64() <= t["text_before"].as_u64(), "{name} {mode}");
    }
    assert_eq!(t["valgrind"]["result"], "clean", "{name}: {}", t["valgrind"]);
}

#[test]
fn crates_own_tests_pass_after_merging() {
    let (results, stdout) = fmbench("testsuites", &["--quick"]);
    // The run did what it says: both targets built, ran tests, merged something, and compared.
    assert_eq!(results.len(), 3, "{stdout}");
    for t in &results {
        let name = format!("{}/{}", t["crate"], t["target"]);
        // A program's one outcome is its stdout (hashed) and exit status.
        let least = if t["target"].as_str().unwrap().starts_with("bin:") { 1 } else { 5 };
        assert!(t["baseline"]["passed"].as_u64().unwrap() >= least, "{name}: too few tests ran");
        assert_eq!(t["cargo_build_differs"].as_array().unwrap().len(), 0, "{name}");
        merged_the_same(t, &name);
    }
}

#[test]
fn c_and_cxx_test_suites_pass_after_merging() {
    let (results, stdout) = fmbench("csuites", &["expat"]);
    assert_eq!(results.len(), 2, "{stdout}");
    for t in &results {
        let name = format!("expat/{}", t["target"]);
        assert!(t["baseline"]["passed"].as_u64().unwrap() >= 40, "{name}: too few checks ran");
        merged_the_same(t, &name);
    }
}
