//! Profile-guided merging: with the profile clang's PGO leaves in the module, hot functions
//! stay out of the merges that add work to them, the report gives the counts it saw, and the
//! program behaves the same either way.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

fn merged_names(report: &serde_json::Value) -> Vec<String> {
    report["merges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["originals"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_hot_function_is_kept_out_of_merging_and_cold_ones_still_merge() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile/hot_cold.c");
    // clang's IR PGO: instrument, train, merge the raw profile, compile with it.
    let instrumented = d.join("gen");
    run_ok(
        Command::new("clang-22")
            .arg("-Os")
            .arg(format!("-fprofile-generate={}", d.join("raw").display()))
            .arg(&src)
            .arg("-o")
            .arg(&instrumented),
    );
    run_ok(&mut Command::new(&instrumented));
    let raws: Vec<_> =
        std::fs::read_dir(d.join("raw")).unwrap().map(|e| e.unwrap().path()).collect();
    let profdata = d.join("p.profdata");
    run_ok(Command::new("llvm-profdata-22").arg("merge").args(&raws).arg("-o").arg(&profdata));
    let bc = d.join("hc.bc");
    compile(&src, &bc, &[&format!("-fprofile-use={}", profdata.display())]);

    let unmerged_exe = d.join("unmerged");
    link(&bc, &unmerged_exe);
    let expected = execute(&unmerged_exe);

    let opt = |args: &[&str], name: &str| {
        let (out, rep) = (d.join(format!("{name}.bc")), d.join(format!("{name}.json")));
        run_ok(
            fmerge()
                .arg("opt")
                .arg(&bc)
                .args(["-q", "-o"])
                .arg(&out)
                .arg("--report")
                .arg(&rep)
                .args(args),
        );
        verify(&out);
        let exe = d.join(name);
        link(&out, &exe);
        assert_eq!(execute(&exe), expected, "{name}: the program behaves differently");
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(&rep).unwrap()).unwrap()
    };

    let guided = opt(&[], "guided");
    let merged = merged_names(&guided);
    assert!(!merged.iter().any(|n| n == "stats_hot"), "the hot function was merged: {merged:?}");
    assert!(merged.iter().any(|n| n == "stats_eu") && merged.iter().any(|n| n == "stats_us"));
    let hot_skip = guided["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["function"] == "stats_hot")
        .expect("the hot function is reported as skipped");
    assert!(
        hot_skip["reason"].as_str().unwrap().starts_with("hot in the profile: entered 20000 times")
    );
    let profile = &guided["profile"];
    assert_eq!(profile["hot_percentile"], 99.0);
    assert!(profile["hot_functions"].as_u64().unwrap() >= 1);
    // Each merge carries the entry counts of what it merged (each cold function ran once).
    let counts: Vec<_> =
        guided["merges"].as_array().unwrap().iter().map(|m| &m["entry_counts"]).collect();
    assert!(
        counts.iter().all(|c| c.as_array().is_some_and(|c| c.iter().all(|n| n == 1))),
        "{counts:?}"
    );

    // Separate compilation: the hot function gets no parameterized copy either (the module
    // and a copy of it stand for two modules that share these functions).
    let copy = d.join("copy.bc");
    std::fs::copy(&bc, &copy).unwrap();
    for m in [&bc, &copy] {
        run_ok(fmerge().arg("summarize").arg(m).arg("-o").arg(m.with_extension("fms")));
    }
    let info = d.join("m.fmi");
    run_ok(
        fmerge()
            .arg("combine")
            .arg(bc.with_extension("fms"))
            .arg(copy.with_extension("fms"))
            .arg("-o")
            .arg(&info),
    );
    let applied = d.join("applied.json");
    run_ok(
        fmerge()
            .arg("apply")
            .arg(&bc)
            .arg("--info")
            .arg(&info)
            .arg("-o")
            .arg(d.join("applied.bc"))
            .arg("--report")
            .arg(&applied),
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&applied).unwrap()).unwrap();
    let names = merged_names(&r);
    assert!(names.iter().any(|n| n == "stats_eu") && !names.iter().any(|n| n == "stats_hot"));
    assert!(r["skipped"].as_array().unwrap().iter().any(|s| s["function"] == "stats_hot"
        && s["reason"].as_str().unwrap().starts_with("hot in the profile")));

    // Without the profile (ignored, or a 0% threshold) the hot function merges like any other.
    for (args, name) in
        [(&["--ignore-profile"][..], "ignored"), (&["--hot-percentile", "0"][..], "zero")]
    {
        let r = opt(args, name);
        assert!(merged_names(&r).iter().any(|n| n == "stats_hot"), "{name}");
        assert!(r.get("profile").is_none(), "{name}");
    }
}
