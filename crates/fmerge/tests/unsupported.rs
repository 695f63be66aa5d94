//! Constructs fmerge does not merge (inline asm, callbr, musttail, varargs, swifterror,
//! blockaddress users, GC strategies, mismatched personalities, token values, prefix data),
//! huge functions and odd modules: fmerge succeeds in every mode, its output verifies, the
//! program behaves the same (run with `lli-22`), the report says why a function was skipped,
//! and functions that must stay apart do.
//!
//! Each `tests/unsupported/*.ll` states its expectations in its header comments:
//! `; runnable` (it has a `main` to run), `; skip: FUNC REASON` (the report skips FUNC with a
//! reason containing REASON), `; apart: A B` (never in one merge), `; merge: A B` (merged
//! together by the default run).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const MODES: &[&[&str]] = &[
    &[],
    &["--whole-program"],
    &["--profit", "exact"],
    &["--merge", "identical,constants", "--profit", "estimate"],
    &["--merge", "identical"],
];

fn lli(m: &Path) -> (i32, Vec<u8>, Vec<u8>) {
    let out = Command::new("lli-22").arg(m).output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Sets of function names merged together (body and members).
fn merge_groups(r: &serde_json::Value) -> Vec<Vec<String>> {
    r["merges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mut g: Vec<String> = m["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["name"].as_str().unwrap().to_string())
                .collect();
            g.push(m["body"].as_str().unwrap().to_string());
            g
        })
        .collect()
}

fn check_file(ll: &Path) {
    let text = std::fs::read_to_string(ll).unwrap();
    let name = ll.file_name().unwrap().to_string_lossy().into_owned();
    let directives: Vec<(&str, Vec<&str>)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("; "))
        .filter_map(|l| {
            let (k, v) = l.split_once(':').unwrap_or((l, ""));
            ["runnable", "skip", "apart", "merge"]
                .contains(&k)
                .then(|| (k, v.split_whitespace().collect()))
        })
        .collect();
    let runnable = directives.iter().any(|(k, _)| *k == "runnable");
    let dir = tempfile::tempdir().unwrap();
    let expected = runnable.then(|| lli(ll));
    if let Some(e) = &expected {
        assert_eq!(e.0, 0, "{name}: the original does not run: {e:?}");
    }
    for (m, args) in MODES.iter().enumerate() {
        let out = dir.path().join(format!("out{m}.bc"));
        let rep = dir.path().join(format!("report{m}.json"));
        let res = fmerge()
            .arg("opt")
            .arg(ll)
            .arg("-o")
            .arg(&out)
            .arg("--report")
            .arg(&rep)
            .args(["-q", "--no-measure"])
            .args(*args)
            .output()
            .unwrap();
        assert!(
            res.status.success(),
            "{name} {args:?}: fmerge failed ({}): {}",
            res.status,
            String::from_utf8_lossy(&res.stderr)
        );
        verify(&out);
        if let Some(e) = &expected {
            assert_eq!(&lli(&out), e, "{name} {args:?}: the merged program behaves differently");
        }
        let r = report(&rep);
        let groups = merge_groups(&r);
        for (k, v) in &directives {
            match *k {
                "apart" => assert!(
                    !groups
                        .iter()
                        .any(|g| g.iter().any(|x| x == v[0]) && g.iter().any(|x| x == v[1])),
                    "{name} {args:?}: {} and {} were merged: {groups:?}",
                    v[0],
                    v[1]
                ),
                "skip" if m == 0 => {
                    let reason = v[1..].join(" ");
                    let skipped = r["skipped"].as_array().unwrap();
                    assert!(
                        skipped.iter().any(|s| s["function"] == v[0]
                            && s["reason"].as_str().unwrap().contains(&reason)),
                        "{name}: the report does not skip {} because of {reason:?}: {skipped:?}",
                        v[0]
                    );
                }
                "merge" if m == 0 => assert!(
                    groups
                        .iter()
                        .any(|g| g.iter().any(|x| x == v[0]) && g.iter().any(|x| x == v[1])),
                    "{name}: {} and {} were not merged: {groups:?}",
                    v[0],
                    v[1]
                ),
                _ => {}
            }
        }
    }
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unsupported");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    v.sort();
    v
}

#[test]
fn unsupported_constructs_are_skipped_with_a_reason_and_behave_the_same() {
    let files = files();
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        check_file(&f);
    }
}

/// Two functions of `n` instructions each that differ in one constant (a call argument), and a
/// `main`.
fn huge_module(n: usize) -> String {
    let mut s = String::from(
        "@fmt = private unnamed_addr constant [6 x i8] c\"%lld\\0A\\00\"\ndeclare i32 @printf(ptr, ...)\n\
         define internal i64 @twist(i64 %a, i64 %b) noinline {\n  %m = mul i64 %a, %b\n  \
         %r = xor i64 %m, 12345\n  ret i64 %r\n}\n",
    );
    for (name, k) in [("huge_a", 3), ("huge_b", 5)] {
        // The constant is a call argument, which the constants stage turns into a parameter.
        s.push_str(&format!(
            "define internal i64 @{name}(i64 %x) noinline {{\n  %v0 = call i64 @twist(i64 %x, i64 {k})\n"
        ));
        for i in 1..n {
            let op = ["add", "xor", "mul", "sub"][i % 4];
            let c = (i * 7919) % 1000 + 1;
            s.push_str(&format!("  %v{i} = {op} i64 %v{}, {c}\n", i - 1));
        }
        s.push_str(&format!("  ret i64 %v{}\n}}\n", n - 1));
    }
    s.push_str(
        "define i32 @main() {\n  %a = call i64 @huge_a(i64 7)\n  \
         call i32 (ptr, ...) @printf(ptr @fmt, i64 %a)\n  %b = call i64 @huge_b(i64 7)\n  \
         call i32 (ptr, ...) @printf(ptr @fmt, i64 %b)\n  ret i32 0\n}\n",
    );
    s
}

#[test]
fn huge_functions_merge_verify_and_behave_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("huge.ll");
    std::fs::write(&ll, huge_module(20_000)).unwrap();
    let expected = lli(&ll);
    for args in [&[][..], &["--merge", "identical,constants"][..]] {
        let out = dir.path().join("huge.out.bc");
        let rep = dir.path().join("huge.json");
        let start = std::time::Instant::now();
        run_ok(
            fmerge()
                .arg("opt")
                .arg(&ll)
                .arg("-o")
                .arg(&out)
                .arg("--report")
                .arg(&rep)
                .args(["-q", "--no-measure"])
                .args(args),
        );
        let secs = start.elapsed().as_secs_f64();
        assert!(secs < 120.0, "{args:?}: {secs:.0} s for two 20,000-instruction functions");
        verify(&out);
        assert_eq!(lli(&out), expected, "{args:?}");
        let groups = merge_groups(&report(&rep));
        assert!(
            groups
                .iter()
                .any(|g| g.contains(&"huge_a".to_string()) && g.contains(&"huge_b".to_string())),
            "{args:?}: the two huge functions differ in one constant and should merge: {groups:?}"
        );
    }
}

#[test]
fn odd_modules_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("declarations_only", "declare i32 @puts(ptr)\ndeclare void @abort()\n"),
        ("globals_only", "@g = global i32 5\n@h = internal constant [3 x i8] c\"abc\"\n"),
        ("one_function", "define i32 @f(i32 %x) {\n  ret i32 %x\n}\n"),
        (
            "available_externally",
            "define available_externally i32 @f(i32 %x) {\n  ret i32 %x\n}\n\
             define available_externally i32 @g(i32 %x) {\n  ret i32 %x\n}\n",
        ),
        (
            "aliases_and_ifuncs",
            "define internal i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n\
             define internal i32 @g(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n\
             @a = alias i32 (i32), ptr @f\n@b = alias i32 (i32), ptr @g\n\
             define internal ptr @resolver() {\n  ret ptr @g\n}\n\
             @i = ifunc i32 (i32), ptr @resolver\n",
        ),
    ];
    for (name, text) in cases {
        let ll = dir.path().join(format!("{name}.ll"));
        std::fs::write(&ll, text).unwrap();
        for args in MODES {
            let out = dir.path().join(format!("{name}.out.bc"));
            run_ok(
                fmerge()
                    .arg("opt")
                    .arg(&ll)
                    .arg("-o")
                    .arg(&out)
                    .args(["-q", "--no-measure"])
                    .args(*args),
            );
            verify(&out);
        }
    }
}
