//! The size guard: when fmerge measures the module before and after, a merge whose generated
//! code is larger than what it replaced is undone, and the output is never larger than the
//! input.

mod common;

use common::*;
use std::path::Path;

fn input() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard/estimate_trusted_loss.ll")
}

#[test]
fn an_estimate_trusted_merge_that_loses_bytes_is_undone() {
    let dir = tempfile::tempdir().unwrap();
    let before = text_bytes(&input());

    // Without measuring, the merge stands on its estimate: the case is real, the code grows.
    let unguarded = dir.path().join("unguarded.bc");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(input())
            .args(["--no-measure", "--measure-budget", "0", "-q"])
            .arg("-o")
            .arg(&unguarded),
    );
    verify(&unguarded);
    assert!(
        text_bytes(&unguarded) > before,
        "the estimate-trusted merge no longer loses bytes: the test lost its case"
    );

    // Measured: the guard finds the loss, undoes it in place (the functions are put back as
    // they were in the input), and writes no larger code.
    let guarded = dir.path().join("guarded.bc");
    let report = dir.path().join("r.json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(input())
            .args(["--measure", "--measure-budget", "0", "-q"])
            .arg("-o")
            .arg(&guarded)
            .arg("--report")
            .arg(&report),
    );
    verify(&guarded);
    assert!(text_bytes(&guarded) <= before);
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let guard = &r["guard"];
    assert_eq!(guard["reruns"], 0, "{guard}");
    assert_eq!(guard["undone_in_place"], 1, "{guard}");
    let vetoed = guard["vetoed"].as_array().unwrap();
    assert_eq!(vetoed.len(), 1, "{guard}");
    assert!(vetoed[0]["bytes_after"].as_u64() > vetoed[0]["bytes_before"].as_u64());
    assert_eq!(r["merges"].as_array().unwrap().len(), 0);
    assert_eq!(r["text_bytes_after"].as_u64(), Some(before));
}

#[test]
fn the_default_guard_measures_only_merged_functions_and_still_undoes_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let before = text_bytes(&input());
    let out = dir.path().join("default.bc");
    let report = dir.path().join("r.json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(input())
            .args(["--measure-budget", "0", "-q"])
            .arg("-o")
            .arg(&out)
            .arg("--report")
            .arg(&report),
    );
    verify(&out);
    assert!(text_bytes(&out) <= before);
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["guard"]["reruns"], 0, "{}", r["guard"]);
    assert_eq!(r["guard"]["undone_in_place"], 1, "{}", r["guard"]);
    assert_eq!(r["merges"].as_array().unwrap().len(), 0);
    // Undone in place, the functions are the input's again: the same code.
    assert_eq!(text_bytes(&out), before);
    // No whole-module measurement by default: the report has no module totals.
    assert!(r["text_bytes_before"].is_null() && r["text_bytes_after"].is_null(), "{r}");
}
