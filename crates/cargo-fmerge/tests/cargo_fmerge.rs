//! `cargo fmerge` end to end on small projects in `tests/fixtures`: a workspace with several
//! binaries and an example, a program whose build script links a C library (built with the
//! `cc` crate, calling back into Rust by name) with `--target` spelled out, and a cdylib.
//!
//! Each test copies its fixture to a temporary directory and runs the built `cargo-fmerge`
//! as cargo would (`cargo-fmerge fmerge ...`), offline (the fixtures' only registry crate is
//! the `cc` version this workspace's own build uses, so it is in cargo's cache). What they
//! check can fail: the binaries are where cargo puts them, run, print what they should, and
//! their `.text` is what the report says and smaller than rustc's fat-LTO link of the same
//! program, which is built separately for one binary; a second run finds them up to date
//! and still merged; the errors a user meets say what to do.
//!
//! They need `fmerge` next to `cargo-fmerge` (`cargo build --release --workspace`, as
//! `make test` does) and LLVM 22's `llc-22`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "target" {
            continue;
        }
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

fn cargo_fmerge_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cargo-fmerge"))
}

/// A command in `dir` with the environment of a user who has fmerge installed.
fn command(program: &Path, dir: &Path) -> Command {
    let fmerge = cargo_fmerge_exe().with_file_name("fmerge");
    assert!(
        fmerge.is_file(),
        "{} is missing: `cargo build --release --workspace` first",
        fmerge.display()
    );
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("RUSTC_WORKSPACE_WRAPPER");
    cmd
}

fn cargo_fmerge(dir: &Path, args: &[&str]) -> Output {
    command(&cargo_fmerge_exe(), dir).arg("fmerge").args(args).output().unwrap()
}

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text_bytes(file: &Path) -> u64 {
    use object::{Object, ObjectSection};
    let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let obj = object::File::parse(&*data).expect("parse binary");
    obj.sections()
        .filter(|s| s.name().is_ok_and(|n| n.starts_with(".text")))
        .map(|s| s.size())
        .sum()
}

fn run(binary: &Path) -> String {
    let out = Command::new(binary).output().unwrap();
    assert!(out.status.success(), "{} failed: {}", binary.display(), out.status);
    String::from_utf8(out.stdout).unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", String::from_utf8_lossy(&out.stdout)))
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The report's binary whose path ends with `suffix`.
fn binary<'a>(report: &'a Value, suffix: &str) -> &'a Value {
    report["binaries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["path"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no binary {suffix} in {report:#}"))
}

/// Checks one merged binary: where cargo puts it, its .text as reported and smaller than
/// rustc's fat-LTO link, and what it prints.
fn check_binary(root: &Path, report: &Value, path: &str, prints: &str) -> u64 {
    let b = binary(report, path);
    let file = root.join(path);
    assert_eq!(Path::new(b["path"].as_str().unwrap()), file, "{b:#}");
    let (before, after) = (b["text_before"].as_u64().unwrap(), b["text_after"].as_u64().unwrap());
    assert_eq!(text_bytes(&file), after, "{path}: .text is not what the report says");
    assert!(after < before, "{path}: merged {after} not smaller than fat LTO {before}");
    assert!(b["merges"].as_u64().unwrap() > 0, "{path}: no merges");
    let crates = b["by_crate"].as_array().unwrap();
    assert!(crates.iter().any(|c| c["crate"] == "core"), "{path}: {crates:?}");
    let output = run(&file);
    assert!(output.starts_with(prints), "{path} printed {output:?}");
    after
}

#[test]
fn a_workspace_with_several_binaries() {
    let dir = fixture("workspace");
    let root = dir.path();
    let args = ["build", "--release", "--workspace", "--bins", "--example", "demo", "--json"];
    let out = ok(cargo_fmerge(root, &args), "cargo fmerge build");
    let report = json(&out);
    assert_eq!(report["binaries"].as_array().unwrap().len(), 4, "{report:#}");
    let hello = check_binary(root, &report, "target/release/hello", "hello u32 ");
    check_binary(root, &report, "target/release/tally", "tally {");
    check_binary(root, &report, "target/release/tally-words", "tally-words [(\"brown\", 1)");
    check_binary(root, &report, "target/release/examples/demo", "demo ");

    // cargo's own fat-LTO build of the same program: larger, same output.
    let plain = ok(
        command(Path::new(&std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())), root)
            .args(["build", "--release", "-p", "hello", "--target-dir", "target/plain"])
            .env("CARGO_PROFILE_RELEASE_LTO", "fat")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .output()
            .unwrap(),
        "cargo build with fat LTO",
    );
    drop(plain);
    let reference = root.join("target/plain/release/hello");
    assert!(hello < text_bytes(&reference), "merged {hello} vs {}", text_bytes(&reference));
    assert_eq!(run(&root.join("target/release/hello")), run(&reference));

    // Again: cargo finds everything up to date, and the binaries are still the merged ones.
    let again = json(&ok(cargo_fmerge(root, &args), "cargo fmerge build, again"));
    let h = binary(&again, "target/release/hello");
    assert_eq!(h["fresh"], true, "{h:#}");
    assert_eq!(h["text_after"].as_u64().unwrap(), hello);
    assert_eq!(text_bytes(&root.join("target/release/hello")), hello);

    // The library's test harness, merged and run.
    let test = ok(cargo_fmerge(root, &["test", "--release", "-p", "shapes"]), "cargo fmerge test");
    let stderr = String::from_utf8_lossy(&test.stderr);
    let stdout = String::from_utf8_lossy(&test.stdout);
    assert!(stderr.contains("fmerge: target/release/deps/shapes-"), "{stderr}");
    assert!(stdout.contains("test tests::keeps_order ... ok"), "{stdout}");
}

#[test]
fn a_build_script_linking_c_with_the_target_spelled_out() {
    let dir = fixture("clib");
    let root = dir.path();
    let target = "x86_64-unknown-linux-gnu";
    // Every merge, priced or not (the program is small and everything in it runs in loops, so
    // by default fmerge would leave clib_weight's merge out for its run-time cost).
    let args = ["build", "--release", "--target", target, "--json", "--fmerge-arg=--no-estimate"];
    let report = json(&ok(cargo_fmerge(root, &args), "cargo fmerge build --target"));
    let path = format!("target/{target}/release/clib");
    check_binary(
        root,
        &report,
        &path,
        "clib {\"alpha\": 2471027129, \"beta\": 1407315362, \"delta\": 167271022, \
         \"gamma\": 3641980864}\nclib {4: 1407315362, 5: 167271022} 2486672152\n",
    );

    // fmerge merged `clib_weight`, which the C library calls by name, and it still links:
    // the merged program keeps every function the program exports.
    let deps = root.join(format!("target/{target}/release/deps"));
    let merged_weight = std::fs::read_dir(&deps).unwrap().flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with("clib-")
            && name.ends_with(".fmerge.report.json")
            && json_file(&e.path())["merges"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["originals"].as_array().unwrap().iter().any(|o| o == "clib_weight"))
    });
    assert!(merged_weight, "no merge of clib_weight in {}", deps.display());

    // A failure after rustc's own link names what failed and shows rustc's link command.
    std::fs::write(root.join("src/extra.rs"), "").unwrap();
    let main = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
    std::fs::write(root.join("src/main.rs"), format!("mod extra;\n{main}")).unwrap();
    let out = command(&cargo_fmerge_exe(), root)
        .args(["fmerge", "build", "--release", "--target", target])
        .env("FMERGE_LLC", "false")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("merging `clib` failed"), "{stderr}");
    assert!(stderr.contains("rustc's link command was:"), "{stderr}");
    assert!(stderr.contains("libchecksum.a") || stderr.contains("-lchecksum"), "{stderr}");
}

#[test]
fn a_cdylib_is_refused_with_advice() {
    let dir = fixture("cdylib");
    let out = cargo_fmerge(dir.path(), &["build", "--release"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("`plugin` is a cdylib, not a program"), "{stderr}");
    assert!(stderr.contains("pass plugin"), "{stderr}");
}

#[test]
fn bad_input_gets_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let out = cargo_fmerge(root, &["bild"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand"));

    let out = cargo_fmerge(root, &["build", "--message-format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use --json"));

    let out = cargo_fmerge(root, &["build", "--profile-data", "missing.fprof"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.fprof: no such file"));

    // A rustc on another LLVM.
    let rustc = root.join("old-rustc");
    std::fs::write(&rustc, "#!/bin/sh\necho 'release: 1.80.0'\necho 'LLVM version: 18.1.7'\n")
        .unwrap();
    let mut perms = std::fs::metadata(&rustc).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&rustc, perms).unwrap();
    let out = command(&cargo_fmerge_exe(), root)
        .args(["fmerge", "build", "--release"])
        .env("RUSTC", &rustc)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("rustc 1.80.0 is built on LLVM 18.1.7"), "{stderr}");
    assert!(stderr.contains("LLVM version: 22"), "{stderr}");
}
