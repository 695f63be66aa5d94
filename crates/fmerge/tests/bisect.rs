//! `fmerge bisect` finds the merge that breaks a build. The build here is broken on purpose:
//! its test fails whenever the merged module holds the body of one chosen merge (standing for
//! a miscompile that merge would cause), on top of running the program and comparing its
//! output. The bisector must name exactly that merge.

mod common;

use common::*;
use std::path::Path;

#[test]
fn bisect_finds_the_merge_that_breaks_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let input = demo_module(dir.path());

    // Every merge, as bisecting makes them (no measuring, so no size guard).
    let all = dir.path().join("all.ll");
    let report = dir.path().join("all.json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(&input)
            .args(["--whole-program", "--no-measure", "--no-estimate", "--emit", "ll", "-q", "-o"])
            .arg(&all)
            .arg("--report")
            .arg(&report),
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let merges = r["merges"].as_array().unwrap();
    assert!(merges.len() >= 4, "the demo should give several merges");
    let ir = std::fs::read_to_string(&all).unwrap();
    // A merge whose body is still defined at the end (so every later limit contains it too).
    let defined = |body: &str| {
        ir.lines().any(|l| l.starts_with("define") && l.contains(&format!("@{body}(")))
    };
    let candidates: Vec<&serde_json::Value> = merges
        .iter()
        .filter(|m| m["seq"].as_u64() > Some(1))
        .filter(|m| m["body"].as_str().is_some_and(|b| b.ends_with(".fmerged") && defined(b)))
        .collect();
    let culprit = candidates[candidates.len() / 2];
    let seq = culprit["seq"].as_u64().unwrap();
    let body = culprit["body"].as_str().unwrap();

    // The build: link, run, compare with the unmerged program; and fail if the culprit's body
    // is there.
    let expected = dir.path().join("expected.out");
    let exe = dir.path().join("ref");
    link(&input, &exe);
    std::fs::write(&expected, execute(&exe).1).unwrap();
    let script = dir.path().join("check.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\nd=$(mktemp -d)\nclang++-22 -O2 \"$1\" -o \"$d/p\"\n\"$d/p\" > \"$d/out\"\n\
             cmp -s \"$d/out\" {}\n! llvm-nm-22 --defined-only \"$1\" | grep -q ' {}$'\n",
            expected.display(),
            body.replace('.', "\\.")
        ),
    )
    .unwrap();
    let keep = dir.path().join("bisect");
    let out = run_ok(
        fmerge()
            .arg("bisect")
            .arg(&input)
            .arg("--test")
            .arg(format!("sh {} {{}}", script.display()))
            .arg("--keep")
            .arg(&keep)
            .arg("--json")
            .args(["--", "--whole-program", "--no-estimate"]),
    );
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["first_bad"].as_u64(), Some(seq), "{found}");
    assert_eq!(found["merge"]["originals"], culprit["originals"]);
    assert!(
        found["tests_run"].as_u64().unwrap() <= 2 + (merges.len() as f64).log2().ceil() as u64 + 1
    );
    let body_ir = std::fs::read_to_string(found["body_ir"].as_str().unwrap()).unwrap();
    assert!(body_ir.starts_with("define") && body_ir.contains(body), "{body_ir}");
    assert!(Path::new(found["good_module"].as_str().unwrap()).exists());
}

#[test]
fn bisect_refuses_a_failure_no_merge_causes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bc");
    compile(&programs_dir().join("dup_similar.c"), &input, &[]);
    let res = fmerge().arg("bisect").arg(&input).args(["--test", "false"]).output().unwrap();
    assert!(!res.status.success());
    assert!(String::from_utf8_lossy(&res.stderr).contains("not caused by a merge"), "{res:?}");
}
