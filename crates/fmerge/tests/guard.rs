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
    let r = opt_with_report(
        &input(),
        &guarded,
        &["--measure", "--measure-budget", "0", "--no-estimate"],
    );
    assert!(text_bytes(&guarded) <= before);
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
    let r = opt_with_report(&input(), &out, &["--measure-budget", "0", "--no-estimate"]);
    assert!(text_bytes(&out) <= before);
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
    let r = opt_with_report(
        &input,
        &unguarded,
        &["--no-measure", "--measure-budget", "0", "--no-estimate"],
    );
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
    let r = opt_with_report(&input, &out, &["--measure-budget", "0", "--no-estimate"]);
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

#[test]
fn a_merge_whose_body_calls_a_losing_body_is_undone_with_it_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard/undo_along.ll");
    let before = text_bytes(&input);
    let merges = |r: &serde_json::Value| -> Vec<(String, Vec<String>)> {
        r["merges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let originals = m["originals"].as_array().unwrap();
                (
                    m["body"].as_str().unwrap().to_string(),
                    originals.iter().map(|o| o.as_str().unwrap().to_string()).collect(),
                )
            })
            .collect()
    };

    // Unguarded: the codepoint/utflen pair merges with its call sites rewritten, and the two
    // callers merge in the next round into a body that calls the pair's body.
    let unguarded = dir.path().join("unguarded.bc");
    let r = opt_with_report(
        &input,
        &unguarded,
        &["--no-measure", "--profit", "estimate", "--no-estimate"],
    );
    let all = merges(&r);
    let has = |body: &str| all.iter().any(|(b, _)| b == body);
    assert!(has("codepoint.fmerged") && has("c1.fmerged"), "the test lost its case: {all:?}");

    // Guarded, with every merge decided on its estimate (`--profit estimate`: the pair commits
    // at once, so its callers are merged after it): the codepoint/utflen merge loses, and the
    // call in the merged c1/c2 body (an argument chosen by that body's function id) can only
    // go with that merge: both are undone in place, no re-run of the stages.
    let out = dir.path().join("guarded.bc");
    let args = ["--profit", "estimate", "--no-estimate", "--jobs", "1"];
    let r = opt_with_report(&input, &out, &args);
    let guard = &r["guard"];
    assert_eq!(guard["reruns"], 0, "{guard}");
    assert_eq!(guard["undone_in_place"], 1, "{guard}");
    assert_eq!(guard["undone_along"], 1, "{guard}");
    let vetoed = guard["vetoed"].as_array().unwrap();
    assert_eq!(vetoed.len(), 1, "{guard}");
    assert!(vetoed[0]["bytes_after"].as_u64() > vetoed[0]["bytes_before"].as_u64());
    let kept = merges(&r);
    assert!(
        kept.iter().all(|(_, o)| !o.iter().any(|f| f == "codepoint" || f == "utflen")),
        "the losing merge is gone: {kept:?}"
    );
    let dis = std::process::Command::new("llvm-dis-22").arg(&out).arg("-o").arg("-").output();
    let text = String::from_utf8(dis.unwrap().stdout).unwrap();
    for f in ["codepoint", "utflen"] {
        assert!(text.contains(&format!("@{f}(ptr noundef %0)")), "{f} is back");
    }
    assert!(!text.contains("codepoint.fmerged"), "the losing body is gone");
    assert!(text_bytes(&out) <= before);

    // The same output whatever the thread count.
    let out2 = dir.path().join("guarded2.bc");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(&input)
            .args(["--profit", "estimate", "--no-estimate", "-q", "--jobs", "2"])
            .arg("-o")
            .arg(&out2),
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
}

/// `--no-measure` generates no code at all: the close call the stages confirm by compiling
/// it by default is decided on its estimate.
#[test]
fn no_measure_compiles_no_close_call_either() {
    let dir = tempfile::tempdir().unwrap();
    let measured = |r: &serde_json::Value| -> u64 {
        let stages = r["stages"].as_array().unwrap();
        stages.iter().map(|s| s["measured_decisions"].as_u64().unwrap()).sum()
    };
    let by_default = opt_with_report(&input(), &dir.path().join("d.bc"), &["--no-estimate"]);
    assert!(measured(&by_default) > 0, "no close call measured: the test lost its case");
    let fast =
        opt_with_report(&input(), &dir.path().join("n.bc"), &["--no-measure", "--no-estimate"]);
    assert_eq!(measured(&fast), 0, "{}", fast["stages"]);
}
