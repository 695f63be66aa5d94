//! WebAssembly end to end: modules for `wasm32-unknown-unknown` (freestanding, no libc) and
//! `wasm32-wasi` (C programs on wasi-libc) are merged by fmerge, written as wasm objects
//! (`--emit obj`), linked by `wasm-ld-22` and run under Node (`node:wasi` for WASI programs),
//! and must print what the unmerged program prints. Also: the size ruler counts a wasm object's
//! code, function and type sections, and thunks are plain calls unless the module enables
//! tail calls (a wasm without the `tail-call` feature has no tail call to make).
//!
//! Needs node, wasm-ld-22, llvm-objdump-22 and, for the WASI programs, Debian's wasi-libc and
//! libclang-rt-22-dev-wasm32 (all installed by `make setup`); a test whose tools are missing
//! says so and passes.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a WASI program under Node with the README's runner (examples/wasm/wasi.mjs).
fn node_wasi(wasm: &Path) -> (i32, String, String) {
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/wasm/wasi.mjs");
    node(&runner, &[wasm])
}

/// `fmerge opt`'s options for pricing merges by bytes alone, where it also has a policy for
/// code it estimates to be hot without a profile (`--no-estimate`): these tests are about the
/// WebAssembly path, which that policy does not change, on small programs whose merges sit in
/// their loops.
fn by_size() -> Vec<&'static str> {
    vec!["--no-estimate"]
}

fn wasm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wasm")
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Why the wasm tests cannot run here, if they cannot: a missing tool.
fn missing_tools(wasi: bool) -> Option<String> {
    for tool in ["node", "wasm-ld-22", "llvm-objdump-22"] {
        if !have(tool) {
            return Some(format!("{tool} is not installed (`make setup` installs it)"));
        }
    }
    if wasi && !Path::new("/usr/lib/wasm32-wasi/libc.a").exists() {
        return Some("wasi-libc is not installed (`make setup` installs it)".into());
    }
    None
}

/// Runs `node SCRIPT ARGS`; returns (exit code, stdout, stderr).
fn node(script: &Path, args: &[&Path]) -> (i32, String, String) {
    let out = Command::new("node")
        .arg("--no-warnings")
        .arg(script)
        .args(args)
        .output()
        .expect("run node");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Bytes of a wasm object's sections by the names the `object` crate gives them.
fn wasm_sections(obj: &Path) -> std::collections::BTreeMap<String, u64> {
    use object::{Object, ObjectSection};
    let data = std::fs::read(obj).unwrap();
    let file = object::File::parse(&*data).expect("parse wasm object");
    assert_eq!(file.format(), object::BinaryFormat::Wasm);
    file.sections().map(|s| (s.name().unwrap().to_string(), s.size())).collect()
}

fn disassembly(obj: &Path) -> String {
    let out = run_ok(Command::new("llvm-objdump-22").arg("-d").arg(obj));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_ruler_counts_code_function_and_type_sections_of_wasm_objects() {
    if let Some(why) = missing_tools(false) {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (bc, obj) = (dir.path().join("bare.bc"), dir.path().join("bare.o"));
    compile(&wasm_dir().join("bare.c"), &bc, &["--target=wasm32-unknown-unknown", "-Oz"]);
    run_ok(Command::new("llc-22").arg("-filetype=obj").arg(&bc).arg("-o").arg(&obj));
    let sections = wasm_sections(&obj);
    let expected = sections["<code>"] + sections["<function>"] + sections["<type>"];
    let out = run_ok(fmerge().arg("size").arg(&bc).arg("--json").args(["--top", "0"]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["text_bytes"].as_u64(), Some(expected), "{v}");
    let functions = v["functions"].as_object().expect("functions");
    for f in ["mix_a", "mix_b", "sum_sq", "reduce"] {
        assert!(functions.get(f).and_then(|b| b.as_u64()).is_some_and(|b| b > 4), "{f}: {v}");
    }
    let body_bytes: u64 = functions.values().map(|b| b.as_u64().unwrap()).sum();
    assert!(body_bytes <= sections["<code>"], "{body_bytes} bytes of bodies in a smaller section");
}

/// Merges the freestanding module compiled with `flags`, links and runs it next to the
/// unmerged one; returns the merged object's disassembly.
fn freestanding_round_trip(flags: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let mut args = vec!["--target=wasm32-unknown-unknown", "-Oz"];
    args.extend_from_slice(flags);
    compile(&wasm_dir().join("bare.c"), &p("in.bc"), &args);
    run_ok(Command::new("llc-22").arg("-filetype=obj").arg(p("in.bc")).arg("-o").arg(p("in.o")));
    let report = opt_with_report(&p("in.bc"), &p("out.bc"), &by_size());
    assert!(report["merges"].as_array().is_some_and(|m| m.len() >= 2), "{report}");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(p("in.bc"))
            .args(by_size())
            .args(["-q", "--emit", "obj", "-o"])
            .arg(p("out.o")),
    );
    let (before, after) = (text_bytes(&p("in.bc")), text_bytes(&p("out.bc")));
    assert!(after < before, "wasm code {before} -> {after}, expected a reduction");
    for (o, w) in [("in.o", "in.wasm"), ("out.o", "out.wasm")] {
        run_ok(Command::new("wasm-ld-22").arg("--no-entry").arg(p(o)).arg("-o").arg(p(w)));
    }
    let (expected, got) = (
        node(&wasm_dir().join("run_bare.mjs"), &[&p("in.wasm")]),
        node(&wasm_dir().join("run_bare.mjs"), &[&p("out.wasm")]),
    );
    if expected.0 != 0 && flags.contains(&"-mtail-call") && expected.2.contains("CompileError") {
        // Node before 20 (Debian 12's is 18) has no wasm tail calls: neither module can run.
        eprintln!("skipped running the tail-call modules: this Node cannot compile tail calls");
        return disassembly(&p("out.o"));
    }
    assert_eq!(expected.0, 0, "the unmerged module failed: {}", expected.2);
    assert!(expected.1.split(' ').count() > 40, "too little output: {}", expected.1);
    assert_eq!(got, expected, "the merged module behaves differently ({flags:?})");
    disassembly(&p("out.o"))
}

#[test]
fn freestanding_wasm_merges_links_and_runs_the_same_with_plain_call_thunks() {
    if let Some(why) = missing_tools(false) {
        eprintln!("skipped: {why}");
        return;
    }
    // Without the tail-call feature a thunk calls and returns: a `musttail` would not compile.
    let asm = freestanding_round_trip(&[]);
    assert!(asm.contains("\tcall\t") && !asm.contains("return_call"), "{asm}");
}

#[test]
fn with_the_tail_call_feature_thunks_are_tail_calls() {
    if let Some(why) = missing_tools(false) {
        eprintln!("skipped: {why}");
        return;
    }
    let asm = freestanding_round_trip(&["-mtail-call"]);
    assert!(asm.contains("return_call"), "{asm}");
}

/// Links a wasm object or bitcode file against wasi-libc with clang-22 (`wasm-ld-22`).
fn link_wasi(input: &Path, out: &Path) {
    run_ok(
        Command::new("clang-22")
            .args(["--target=wasm32-wasi", "-Wno-deprecated", "-Oz"])
            .arg(input)
            .arg("-o")
            .arg(out),
    );
}

#[test]
fn wasi_c_programs_merge_link_and_run_the_same() {
    if let Some(why) = missing_tools(true) {
        eprintln!("skipped: {why}");
        return;
    }
    let mut shrunk = 0;
    for entry in std::fs::read_dir(programs_dir()).unwrap() {
        let src = entry.unwrap().path();
        if src.extension().is_none_or(|e| e != "c") {
            continue;
        }
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        compile(&src, &p("in.bc"), &["--target=wasm32-wasi", "-Wno-deprecated", "-Oz"]);
        let opt = || {
            let mut c = fmerge();
            c.arg("opt").arg(p("in.bc")).args(by_size()).arg("-q");
            c
        };
        run_ok(opt().args(["--emit", "obj", "-o"]).arg(p("out.o")));
        run_ok(opt().arg("-o").arg(p("out.bc")));
        verify(&p("out.bc"));
        if text_bytes(&p("out.bc")) < text_bytes(&p("in.bc")) {
            shrunk += 1;
        }
        link_wasi(&p("in.bc"), &p("in.wasm"));
        link_wasi(&p("out.o"), &p("out.wasm"));
        let expected = node_wasi(&p("in.wasm"));
        assert_eq!(expected.0, 0, "{name}: the unmerged program failed: {}", expected.2);
        assert!(!expected.1.is_empty(), "{name}: the program printed nothing");
        assert_eq!(node_wasi(&p("out.wasm")), expected, "{name} behaves differently");
    }
    assert!(shrunk >= 5, "only {shrunk} programs shrank");
}

#[test]
fn whole_program_mode_keeps_the_wasi_entry_point() {
    if let Some(why) = missing_tools(true) {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    compile(
        &wasm_dir().join("entry_twin.c"),
        &p("in.bc"),
        &["--target=wasm32-wasi", "-Wno-deprecated", "-Oz"],
    );
    let mut args = by_size();
    args.push("--whole-program");
    let report = opt_with_report(&p("in.bc"), &p("out.bc"), &args);
    assert!(merged_names(&report).iter().any(|n| n == "__main_argc_argv"), "{report}");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(p("in.bc"))
            .args(&args)
            .args(["-q", "--emit", "obj", "-o"])
            .arg(p("out.o")),
    );
    link_wasi(&p("in.bc"), &p("in.wasm"));
    link_wasi(&p("out.o"), &p("out.wasm"));
    let expected = node_wasi(&p("in.wasm"));
    assert!(expected.1.lines().count() == 40, "{expected:?}");
    assert_eq!(node_wasi(&p("out.wasm")), expected);
}

#[test]
fn apply_warns_that_wasm_ld_does_not_fold_copies() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    compile(&wasm_dir().join("bare.c"), &p("in.bc"), &["--target=wasm32-unknown-unknown", "-Oz"]);
    run_ok(fmerge().arg("summarize").arg(p("in.bc")).arg("-o").arg(p("in.fms")));
    run_ok(fmerge().arg("combine").arg(p("in.fms")).arg("-o").arg(p("merge.fmi")));
    let out = run_ok(
        fmerge()
            .arg("apply")
            .arg(p("in.bc"))
            .arg("--info")
            .arg(p("merge.fmi"))
            .args(["--emit", "obj", "-o"])
            .arg(p("out.o")),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("wasm-ld has no identical code folding"), "{stderr}");
    assert!(!wasm_sections(&p("out.o")).is_empty());
}
