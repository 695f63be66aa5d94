//! Helpers shared by the end-to-end tests: compile with clang-22, run fmerge and LLVM tools,
//! run programs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fmerge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fmerge"))
}

pub fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// Runs a command, panicking with its output if it fails.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Compiles one C or C++ source to bitcode with clang-22.
pub fn compile(src: &Path, out: &Path, extra: &[&str]) {
    let cxx = src.extension().is_some_and(|e| e == "cpp");
    let mut cmd = Command::new(if cxx { "clang++-22" } else { "clang-22" });
    cmd.args(["-Os", "-emit-llvm", "-c"]).args(extra).arg(src).arg("-o").arg(out);
    run_ok(&mut cmd);
}

/// The demo program (`examples/demo`) compiled at -Os and linked into DIR/demo.bc.
pub fn demo_module(dir: &Path) -> PathBuf {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo");
    let mut parts = Vec::new();
    for f in ["main.c", "handlers.c", "containers.cpp"] {
        let out = dir.join(format!("{f}.bc"));
        compile(&demo.join(f), &out, &[]);
        parts.push(out);
    }
    let module = dir.join("demo.bc");
    run_ok(Command::new("llvm-link-22").args(&parts).arg("-o").arg(&module));
    module
}

/// Links a bitcode module into an executable, optimized and compiled at -O2 (where code
/// generation exploits lifetime markers, attributes and flags that -O0 ignores).
pub fn link(bc: &Path, exe: &Path) {
    run_ok(Command::new("clang++-22").arg("-O2").arg(bc).arg("-o").arg(exe));
}

/// Runs an executable; returns (exit code, stdout, stderr).
pub fn execute(exe: &Path) -> (i32, Vec<u8>, Vec<u8>) {
    let out = Command::new(exe).output().expect("run program");
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

/// Checks a module with LLVM's own verifier (an independent second opinion).
pub fn verify(bc: &Path) {
    run_ok(Command::new("opt-22").args(["-passes=verify", "-disable-output"]).arg(bc));
}

/// `.text` bytes of a module as fmerge measures it.
pub fn text_bytes(bc: &Path) -> u64 {
    let out = run_ok(fmerge().arg("size").arg(bc).arg("--json"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("size JSON");
    v["text_bytes"].as_u64().expect("text_bytes")
}

/// `.text` bytes of an object file or executable: its sections named `.text*` (as
/// `llvm-size-22 -A` lists them and the size ruler counts them).
pub fn binary_text_bytes(file: &Path) -> u64 {
    use object::{Object, ObjectSection};
    let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let obj = object::File::parse(&*data).expect("parse binary");
    obj.sections()
        .filter(|s| s.name().is_ok_and(|n| n.starts_with(".text")))
        .map(|s| s.size())
        .sum()
}

/// The names of every function a report's merges merged away or into a shared body.
pub fn merged_names(report: &serde_json::Value) -> Vec<String> {
    report["merges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["originals"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

/// `fmerge opt IN -o OUT --report OUT.json ARGS`, the output checked by LLVM's verifier;
/// returns the report.
pub fn opt_with_report(input: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    let rep = out.with_extension("json");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(input)
            .args(["-q", "-o"])
            .arg(out)
            .arg("--report")
            .arg(&rep)
            .args(args),
    );
    verify(out);
    serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap()
}
