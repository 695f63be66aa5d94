//! `--outline`: LLVM's machine outliner after merging, in `fmerge opt --emit obj` and in the
//! size ruler, giving the same bytes as `llc-22 -enable-machine-outliner`.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

fn llc(bc: &Path, obj: &Path, args: &[&str]) -> u64 {
    run_ok(
        Command::new("llc-22").args(["-O2", "-filetype=obj"]).args(args).arg(bc).arg("-o").arg(obj),
    );
    binary_text_bytes(obj)
}

#[test]
fn outline_runs_the_machine_outliner_after_merging_exactly_as_llc_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A program where the outliner still finds repeats after merging.
    let bc = d.join("constants.bc");
    compile(&programs_dir().join("dup_constants.c"), &bc, &[]);

    // The size ruler with the outliner: llc-22 -enable-machine-outliner's bytes.
    let out = run_ok(fmerge().arg("size").arg(&bc).args(["--outline", "--json"]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outlined = llc(&bc, &d.join("o.o"), &["-enable-machine-outliner"]);
    assert_eq!(v["text_bytes"].as_u64(), Some(outlined));
    assert!(outlined < text_bytes(&bc), "the outliner found nothing: the test lost its case");

    // opt --outline --emit obj = fmerge opt, then the outliner on its output.
    let merged = d.join("merged.bc");
    run_ok(fmerge().arg("opt").arg(&bc).args(["-q", "-o"]).arg(&merged));
    let obj = d.join("merged.o");
    run_ok(fmerge().arg("opt").arg(&bc).args(["-q", "--outline", "--emit", "obj", "-o"]).arg(&obj));
    let then_outlined =
        llc(&merged, &d.join("m.o"), &["-enable-machine-outliner", "-relocation-model=pic"]);
    assert_eq!(binary_text_bytes(&obj), then_outlined);
    let plain = llc(&merged, &d.join("p.o"), &["-relocation-model=pic"]);
    assert!(then_outlined < plain);
    // And the program still behaves.
    let (exe, reference) = (d.join("exe"), d.join("ref"));
    run_ok(Command::new("clang-22").arg(&obj).arg("-o").arg(&exe));
    link(&bc, &reference);
    assert_eq!(execute(&exe), execute(&reference));

    // Separate compilation: `apply --emit obj --outline` outlines the object it writes.
    let (fms, fmi) = (d.join("m.fms"), d.join("m.fmi"));
    run_ok(fmerge().arg("summarize").arg(&bc).arg("-o").arg(&fms));
    run_ok(fmerge().arg("combine").arg(&fms).arg("-o").arg(&fmi));
    let apply = |extra: &[&str], out: &Path| {
        run_ok(
            fmerge()
                .arg("apply")
                .arg(&bc)
                .arg("--info")
                .arg(&fmi)
                .args(["--emit", "obj"])
                .args(extra)
                .arg("-o")
                .arg(out),
        );
        binary_text_bytes(out)
    };
    let (a, b) = (apply(&[], &d.join("a.o")), apply(&["--outline"], &d.join("b.o")));
    assert!(b < a, "apply --outline: {b} vs {a}");
    let exe = d.join("applied");
    run_ok(Command::new("clang-22").arg(d.join("b.o")).arg("-o").arg(&exe));
    assert_eq!(execute(&exe), execute(&reference));

    // An outlined module makes no sense as bitcode: a clear error.
    let res = fmerge()
        .arg("opt")
        .arg(&bc)
        .args(["-q", "--outline", "-o"])
        .arg(d.join("x.bc"))
        .output()
        .unwrap();
    assert_ne!(res.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&res.stderr).contains("--outline applies to object files"));
}

/// Global outlining in the separate-compilation flow gives exactly the objects of LLVM's own
/// two-round flow on the same modules (llc-22 -codegen-data-generate, llvm-cgdata-22
/// --merge, llc-22 -codegen-data-use-path -append-content-hash-outlined-name), the program
/// behaves the same, and codegen data that is not is refused.
#[test]
fn global_outlining_matches_llvms_two_round_flow_and_refuses_bad_data() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let srcs = ["dup_constants.c", "dup_similar.c"];
    let mut bcs = Vec::new();
    for s in srcs {
        let bc = d.join(s).with_extension("bc");
        compile(&programs_dir().join(s), &bc, &[]);
        bcs.push(bc);
    }
    // fmerge's flow.
    let mut cgos = Vec::new();
    for bc in &bcs {
        let cgo = bc.with_extension("cgo");
        run_ok(
            fmerge()
                .arg("summarize")
                .arg(bc)
                .arg("-o")
                .arg(bc.with_extension("fms"))
                .arg("--outline-data")
                .arg(&cgo),
        );
        cgos.push(cgo);
    }
    let info = d.join("m.fmi");
    run_ok(
        fmerge()
            .arg("combine")
            .args(bcs.iter().map(|b| b.with_extension("fms")))
            .arg("-o")
            .arg(&info)
            .arg("--no-similar")
            .arg("--outline-data")
            .args(&cgos),
    );
    let cgdata = info.with_extension("cgdata");
    assert!(cgdata.exists());
    // LLVM's flow.
    let llc_flags = ["-relocation-model=pic", "-function-sections", "-enable-machine-outliner"];
    let mut r1 = Vec::new();
    for bc in &bcs {
        let o = bc.with_extension("r1.o");
        llc(bc, &o, &[&llc_flags[..], &["-codegen-data-generate"]].concat());
        r1.push(o);
    }
    let merged = d.join("llvm.cgdata");
    run_ok(Command::new("llvm-cgdata-22").arg("--merge").args(&r1).arg("-o").arg(&merged));
    for bc in &bcs {
        // Round 2 on the module as apply left it.
        let applied = bc.with_extension("applied.bc");
        run_ok(fmerge().arg("apply").arg(bc).arg("--info").arg(&info).arg("-o").arg(&applied));
        let use_path = format!("-codegen-data-use-path={}", merged.display());
        let theirs = llc(
            &applied,
            &bc.with_extension("r2.o"),
            &[&llc_flags[..], &[use_path.as_str(), "-append-content-hash-outlined-name"]].concat(),
        );
        let ours = bc.with_extension("glob.o");
        run_ok(
            fmerge()
                .arg("apply")
                .arg(bc)
                .arg("--info")
                .arg(&info)
                .args(["--emit", "obj", "--outline", "--outline-data"])
                .arg(&cgdata)
                .arg("-o")
                .arg(&ours),
        );
        assert_eq!(binary_text_bytes(&ours), theirs, "{}", bc.display());
    }
    // Not codegen data: exit 9, nothing written.
    let bad = d.join("bad.cgdata");
    std::fs::write(&bad, b"not codegen data").unwrap();
    let out = fmerge()
        .arg("apply")
        .arg(&bcs[0])
        .arg("--info")
        .arg(&info)
        .args(["--emit", "obj", "--outline", "--outline-data"])
        .arg(&bad)
        .arg("-o")
        .arg(d.join("bad.o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!d.join("bad.o").exists());
}

/// The names of the symbols an object file defines.
fn defined_symbols(obj: &Path) -> Vec<String> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(obj).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.symbols()
        .filter(|s| s.is_definition())
        .filter_map(|s| s.name().ok().map(String::from))
        .collect()
}

#[test]
fn frame_helpers_are_on_by_default_for_aarch64_minsize_code_as_llc_makes_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // -Oz: LLVM gives frame helpers to minsize functions only. Freestanding: no AArch64 C
    // library needed.
    let bc = d.join("frames.bc");
    run_ok(
        Command::new("clang-22")
            .args(["--target=aarch64-linux-gnu", "-Oz", "-ffreestanding", "-emit-llvm", "-c"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/outline/frames.c"))
            .arg("-o")
            .arg(&bc),
    );
    let size = |extra: &[&str]| {
        let out = run_ok(fmerge().arg("size").arg(&bc).arg("--json").args(extra));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["text_bytes"].as_u64().unwrap()
    };
    let helped = llc(&bc, &d.join("h.o"), &["-homogeneous-prolog-epilog"]);
    let plain = llc(&bc, &d.join("p.o"), &[]);
    assert!(helped < plain, "frame helpers saved nothing: the test lost its case");
    assert_eq!(size(&[]), helped);
    assert_eq!(size(&["--no-frame-helpers"]), plain);

    // Objects: the helpers are there by default (checked by LLVM's machine verifier too),
    // and not with --no-frame-helpers.
    let opt = |extra: &[&str], out: &Path| {
        run_ok(
            fmerge().arg("opt").arg(&bc).args(["-q", "--emit", "obj", "-o"]).arg(out).args(extra),
        );
        defined_symbols(out).iter().any(|s| s.starts_with("OUTLINED_FUNCTION_PROLOG"))
    };
    assert!(opt(&["--outline", "--verify-machine-code"], &d.join("a.o")));
    assert!(!opt(&["--no-frame-helpers"], &d.join("b.o")));
    // Other targets are untouched by the switch.
    let x86 = d.join("x86.bc");
    compile(&programs_dir().join("dup_constants.c"), &x86, &[]);
    let x86_size = |extra: &[&str]| {
        let out = run_ok(fmerge().arg("size").arg(&x86).arg("--json").args(extra));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["text_bytes"].as_u64()
    };
    assert_eq!(x86_size(&[]), x86_size(&["--no-frame-helpers"]));
}

#[test]
fn verify_machine_code_reports_bad_machine_code_as_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = d.join("c.bc");
    compile(&programs_dir().join("dup_constants.c"), &bc, &[]);
    // Clean code passes the checks.
    let good = d.join("good.o");
    run_ok(
        fmerge()
            .arg("opt")
            .arg(&bc)
            .args(["-q", "--emit", "obj", "--outline", "--verify-machine-code", "-o"])
            .arg(&good),
    );
    assert!(binary_text_bytes(&good) > 0);
    // LLVM 22's AArch64 outliner makes code its own verifier rejects (it saves LR, which the
    // liveness flags call dead, around an outlined call: harmless at run time), reduced from
    // Lua's whole-program module: a clear error, no output, no crash.
    let bad = d.join("bad.o");
    let out = fmerge()
        .arg("opt")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/outline/aarch64_outliner_lr.ll"))
        .args([
            "-q",
            "--merge",
            "identical",
            "--emit",
            "obj",
            "--outline",
            "--verify-machine-code",
            "-o",
        ])
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(8), "{err}");
    assert!(err.contains("Bad machine code") && err.contains("machine code errors"), "{err}");
    assert!(!bad.exists());
    // Without the checks the same module compiles.
    run_ok(
        fmerge()
            .arg("opt")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/outline/aarch64_outliner_lr.ll"))
            .args(["-q", "--merge", "identical", "--emit", "obj", "--outline", "-o"])
            .arg(&bad),
    );
}
