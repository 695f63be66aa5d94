//! Determinism: the same input gives byte-identical output (bitcode and textual IR) and
//! report, run after run, whatever the number of code-generation threads (`--jobs`) and of
//! rayon worker threads (the LSH index).

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// The inputs: the demo program, every test program and a few generated modules.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let demo_bc = demo_module(dir);
    v.push(demo_bc);
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(programs_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
        .collect();
    srcs.sort();
    for src in srcs {
        let bc = dir.join(format!("{}.bc", src.file_name().unwrap().to_string_lossy()));
        compile(&src, &bc, &[]);
        v.push(bc);
    }
    for seed in [11, 12, 13] {
        let ll = dir.join(format!("gen{seed}.ll"));
        let mut cfg = fmerge_irgen::Config::new(seed);
        cfg.families = 6;
        std::fs::write(&ll, fmerge_irgen::generate(&cfg).ll).unwrap();
        v.push(ll);
    }
    v
}

/// Output bytes and report bytes of one run.
fn run(input: &Path, dir: &Path, tag: &str, args: &[&str], rayon: &str) -> (Vec<u8>, Vec<u8>) {
    let out = dir.join(format!("out.{tag}"));
    let rep = dir.join(format!("report.{tag}.json"));
    run_ok(
        fmerge()
            .env("RAYON_NUM_THREADS", rayon)
            .arg("opt")
            .arg(input)
            .arg("-o")
            .arg(&out)
            .arg("--report")
            .arg(&rep)
            .arg("-q")
            .args(args),
    );
    (std::fs::read(&out).unwrap(), std::fs::read(&rep).unwrap())
}

#[test]
fn same_input_same_output_and_report_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = inputs(dir.path());
    let mut compared = 0;
    for input in &inputs {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        for args in [&["--whole-program"][..], &["--emit", "ll", "--profit", "exact"][..]] {
            let first = run(input, dir.path(), "a", &[args, &["--jobs", "1"]].concat(), "1");
            for (jobs, rayon) in [("1", "1"), ("2", "2"), ("4", "3")] {
                let again = run(input, dir.path(), "b", &[args, &["--jobs", jobs]].concat(), rayon);
                assert!(
                    first.0 == again.0,
                    "{name} {args:?}: output differs between --jobs 1 and --jobs {jobs} \
                     (RAYON_NUM_THREADS {rayon})"
                );
                assert!(
                    first.1 == again.1,
                    "{name} {args:?}: report differs between --jobs 1 and --jobs {jobs}:\n{}\n---\n{}",
                    String::from_utf8_lossy(&first.1),
                    String::from_utf8_lossy(&again.1)
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, inputs.len() * 6);
}
