//! Global merging across separately compiled modules: summarize each, combine, apply each,
//! link with identical code folding, run, and compare with the unmerged program.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCES: [&str; 3] = ["a.c", "b.c", "c.c"];

fn modules(dir: &Path) -> Vec<PathBuf> {
    SOURCES
        .iter()
        .map(|s| {
            let bc = dir.join(format!("{s}.bc"));
            compile(&programs_dir().join("global").join(s), &bc, &[]);
            bc
        })
        .collect()
}

/// Links objects with ld.lld's identical code folding; returns the executable's .text bytes.
fn link_icf(objs: &[PathBuf], exe: &Path) -> u64 {
    run_ok(
        Command::new("clang-22")
            .arg("-fuse-ld=lld")
            .arg("-Wl,--icf=all")
            .args(objs)
            .arg("-o")
            .arg(exe),
    );
    let out = run_ok(Command::new("llvm-size-22").arg("-A").arg(exe));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with(".text "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .expect(".text in the executable")
}

fn apply_all(dir: &Path, mods: &[PathBuf], info: &Path, tag: &str) -> Vec<PathBuf> {
    mods.iter()
        .map(|m| {
            let o = dir.join(format!("{}.{tag}.o", m.file_name().unwrap().to_string_lossy()));
            run_ok(
                fmerge()
                    .arg("apply")
                    .arg(m)
                    .arg("--info")
                    .arg(info)
                    .args(["--emit", "obj", "-o"])
                    .arg(&o),
            );
            o
        })
        .collect()
}

#[test]
fn modules_merged_separately_fold_at_link_time_and_behave_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mods = modules(d);
    let mut sums = Vec::new();
    for m in &mods {
        let s = m.with_extension("fms");
        run_ok(fmerge().arg("summarize").arg(m).arg("-o").arg(&s));
        sums.push(s);
    }
    let info = d.join("merge.fmi");
    let out = run_ok(fmerge().arg("combine").args(&sums).arg("-o").arg(&info));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 groups covering 3 functions"));
    // A directory of summaries (what the plugin's -fmerge-summary-dir fills) is the same input;
    // other files in it are ignored, an empty one is an error.
    let dir_of = d.join("summaries");
    std::fs::create_dir(&dir_of).unwrap();
    for s in &sums {
        std::fs::copy(s, dir_of.join(s.file_name().unwrap())).unwrap();
    }
    std::fs::write(dir_of.join("notes.txt"), "not a summary").unwrap();
    let from_dir = d.join("from-dir.fmi");
    run_ok(fmerge().arg("combine").arg(&dir_of).arg("-q").arg("-o").arg(&from_dir));
    assert_eq!(std::fs::read(&from_dir).unwrap(), std::fs::read(&info).unwrap());
    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = fmerge().arg("combine").arg(&empty).arg("-o").arg(d.join("x.fmi")).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no summaries"));

    let base: Vec<PathBuf> = mods
        .iter()
        .map(|m| {
            let o = m.with_extension("base.o");
            run_ok(
                Command::new("llc-22")
                    .args(["-filetype=obj", "-function-sections", "-relocation-model=pic"])
                    .arg(m)
                    .arg("-o")
                    .arg(&o),
            );
            o
        })
        .collect();
    let merged = apply_all(d, &mods, &info, "fm");
    let (exe_base, exe_fm) = (d.join("base"), d.join("fm"));
    let (t_base, t_fm) = (link_icf(&base, &exe_base), link_icf(&merged, &exe_fm));
    assert!(t_fm < t_base, ".text {t_base} -> {t_fm}: the three copies should fold into one");
    assert_eq!(execute(&exe_fm), execute(&exe_base));
}

#[test]
fn stale_or_foreign_merge_information_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mods = modules(d);
    // Information from a different program (the computed-goto test) with no group in common,
    // and information from this program's first module alone.
    let other = d.join("other.bc");
    compile(&programs_dir().join("dup_constants.c"), &other, &[]);
    let os = d.join("other.fms");
    run_ok(fmerge().arg("summarize").arg(&other).arg("-o").arg(&os));
    let s0 = d.join("a.fms");
    run_ok(fmerge().arg("summarize").arg(&mods[0]).arg("-o").arg(&s0));
    let foreign = d.join("foreign.fmi");
    run_ok(fmerge().arg("combine").arg(&os).arg(&s0).arg("-o").arg(&foreign));
    let objs = apply_all(d, &mods, &foreign, "stale");
    let exe = d.join("stale");
    link_icf(&objs, &exe);
    let reference = d.join("reference");
    let all: Vec<PathBuf> = mods.clone();
    run_ok(Command::new("clang-22").args(&all).arg("-o").arg(&reference));
    assert_eq!(execute(&exe), execute(&reference));
}

#[test]
fn corrupt_merge_information_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mods = modules(d);
    let s = d.join("a.fms");
    run_ok(fmerge().arg("summarize").arg(&mods[0]).arg("-o").arg(&s));
    let mut bytes = std::fs::read(&s).unwrap();
    let k = bytes.len() / 2;
    bytes[k] ^= 0x40;
    std::fs::write(&s, &bytes).unwrap();
    let out = fmerge().arg("combine").arg(&s).arg("-o").arg(d.join("m.fmi")).output().unwrap();
    assert_eq!(out.status.code(), Some(9));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
    assert!(!d.join("m.fmi").exists());
    let out = fmerge()
        .arg("apply")
        .arg(&mods[0])
        .arg("--info")
        .arg(&mods[0])
        .arg("-o")
        .arg(d.join("x.o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Bitcode of the similar-functions program (`tests/programs/global-similar`); `stale_y`
/// builds module y as an older version (another constant in its checksum routine).
fn similar_modules(dir: &Path, stale_y: bool) -> Vec<PathBuf> {
    ["x.c", "y.c", "main.c"]
        .iter()
        .map(|s| {
            let tag = if stale_y && *s == "y.c" { "old" } else { "new" };
            let bc = dir.join(format!("{s}.{tag}.bc"));
            let extra: &[&str] = if tag == "old" { &["-DY_BIAS=7"] } else { &[] };
            compile(&programs_dir().join("global-similar").join(s), &bc, extra);
            bc
        })
        .collect()
}

fn summarize_and_combine(dir: &Path, mods: &[PathBuf], name: &str, extra: &[&str]) -> PathBuf {
    let sums: Vec<PathBuf> = mods
        .iter()
        .map(|m| {
            let s = m.with_extension("fms");
            run_ok(fmerge().arg("summarize").arg(m).arg("-o").arg(&s));
            s
        })
        .collect();
    let info = dir.join(name);
    run_ok(fmerge().arg("combine").args(&sums).arg("-o").arg(&info).args(extra));
    info
}

#[test]
fn similar_functions_of_different_modules_share_one_body_and_behave_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mods = similar_modules(d, false);
    let info = summarize_and_combine(d, &mods, "merge.fmi", &[]);
    let plain = summarize_and_combine(d, &mods, "plain.fmi", &["--no-similar"]);
    let out = run_ok(
        fmerge()
            .arg("combine")
            .arg("--json")
            .arg(d.join("x.c.new.fms"))
            .arg(d.join("y.c.new.fms"))
            .arg("-o")
            .arg(d.join("j.fmi")),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = json["similar"][0]["members"]
        .as_array()
        .expect("one similar group")
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(members.len(), 2, "{json}");
    assert!(members.contains(&"checksum_x") && members.contains(&"checksum_y"), "{members:?}");

    let (exe_sim, exe_plain) = (d.join("sim"), d.join("plain"));
    let t_sim = link_icf(&apply_all(d, &mods, &info, "sim"), &exe_sim);
    let t_plain = link_icf(&apply_all(d, &mods, &plain, "plain"), &exe_plain);
    assert!(t_sim < t_plain, ".text {t_plain} -> {t_sim}: the two checksum routines share a body");
    let reference = d.join("reference");
    run_ok(Command::new("clang-22").args(&mods).arg("-o").arg(&reference));
    assert_eq!(execute(&exe_sim), execute(&reference));
    // Each object defines the shared body (a comdat); the executable has it once.
    let nm = run_ok(Command::new("llvm-nm-22").arg(&exe_sim));
    let shared = String::from_utf8_lossy(&nm.stdout).matches("__fmerge.s.").count();
    assert_eq!(shared, 1, "{}", String::from_utf8_lossy(&nm.stdout));
}

#[test]
fn stale_similar_information_merges_only_what_still_matches() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = similar_modules(d, true);
    let info = summarize_and_combine(d, &old, "old.fmi", &[]);
    let new = similar_modules(d, false);
    let objs = apply_all(d, &new, &info, "stale");
    // checksum_x still matches its summary and becomes a thunk; checksum_y changed and stays.
    let merges = |m: &Path, tag: &str| {
        let report = d.join(format!("{tag}.json"));
        run_ok(
            fmerge()
                .arg("apply")
                .arg(m)
                .arg("--info")
                .arg(&info)
                .arg("-o")
                .arg(d.join(format!("{tag}.bc")))
                .arg("--report")
                .arg(&report),
        );
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        r["merges"].as_array().unwrap().len()
    };
    assert_eq!(merges(&new[0], "x"), 1);
    assert_eq!(merges(&new[1], "y"), 0);
    let exe = d.join("stale");
    link_icf(&objs, &exe);
    let reference = d.join("reference");
    run_ok(Command::new("clang-22").args(&new).arg("-o").arg(&reference));
    assert_eq!(execute(&exe), execute(&reference));
}
