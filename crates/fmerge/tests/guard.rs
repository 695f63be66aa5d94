//! The size guard: when fmerge measures the module before and after, a merge whose generated
//! code is larger than what it replaced is undone, and the output is never larger than the
//! input.

mod common;

use common::*;
use std::path::Path;

/// The case: a merge whose estimate says it saves bytes and whose code grows. Every run uses
/// `--no-estimate`: the case is about bytes, not about its (estimated) run-time cost.
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
            .args(["--no-measure", "--measure-budget", "0", "--no-estimate", "-q"])
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
            .args(["--measure", "--measure-budget", "0", "--no-estimate", "-q"])
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
            .args(["--measure-budget", "0", "--no-estimate", "-q"])
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

#[test]
fn a_losing_merge_with_rewritten_call_sites_is_undone_in_place_and_the_calls_turned_back() {
    let dir = tempfile::tempdir().unwrap();
    let input =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard/rewritten_call_sites_loss.ll");
    let before = text_bytes(&input);

    // Unguarded, the two sorts merge with their call sites rewritten: both functions go.
    let unguarded = dir.path().join("unguarded.bc");
    let report = dir.path().join("u.json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(&input)
            .args(["--no-measure", "--measure-budget", "0", "--no-estimate", "-q"])
            .arg("-o")
            .arg(&unguarded)
            .arg("--report")
            .arg(&report),
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let disposals: Vec<&str> = r["merges"][0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["disposal"].as_str().unwrap())
        .collect();
    assert_eq!(disposals, ["call-sites-rewritten"; 2], "the test lost its case: {r}");
    assert!(
        text_bytes(&unguarded) > before,
        "the merge no longer loses bytes: the test lost its case"
    );

    // Guarded: undone in place; both functions are back and their callers call them again.
    let out = dir.path().join("guarded.bc");
    let report = dir.path().join("g.json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(&input)
            .args(["--measure-budget", "0", "--no-estimate", "-q"])
            .arg("-o")
            .arg(&out)
            .arg("--report")
            .arg(&report),
    );
    verify(&out);
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["guard"]["reruns"], 0, "{}", r["guard"]);
    assert_eq!(r["guard"]["undone_in_place"], 1, "{}", r["guard"]);
    assert_eq!(r["merges"].as_array().unwrap().len(), 0, "{r}");
    let dis = std::process::Command::new("llvm-dis-22").arg(&out).arg("-o").arg("-").output();
    let text = String::from_utf8(dis.unwrap().stdout).unwrap();
    for (caller, callee) in [("lua_codepoint", "codepoint"), ("lua_utflen", "utflen")] {
        assert!(text.contains(&format!("i32 @{callee}(")), "{callee} is back");
        let body = text.split(&format!("@{caller}(")).nth(1).unwrap();
        let body = &body[..body.find("\n}").unwrap()];
        assert!(body.contains(&format!("call i32 @{callee}(")), "{caller} calls {callee}");
    }
    assert!(!text.contains(".fmerged"), "the merged body is gone");
    assert!(text_bytes(&out) <= before);
}
