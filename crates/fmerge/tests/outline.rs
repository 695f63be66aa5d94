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
