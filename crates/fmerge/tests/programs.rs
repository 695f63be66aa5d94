//! End-to-end: real C and C++ programs, compiled by clang-22, merged by fmerge, checked by the
//! LLVM verifier, linked, run, and compared byte for byte with the unmerged program.

mod common;

use common::*;

struct Case {
    file: &'static str,
    /// Must `.text` shrink (true) or stay exactly the same (false)?
    shrinks: bool,
}

const CASES: &[Case] = &[
    Case { file: "dup_linkage.c", shrinks: true },
    Case { file: "dup_constants.c", shrinks: true },
    Case { file: "dup_recursion.c", shrinks: true },
    Case { file: "dup_templates.cpp", shrinks: true },
    Case { file: "dup_similar.c", shrinks: true },
    Case { file: "dup_computed_goto.c", shrinks: true },
    Case { file: "dup_structs.c", shrinks: true },
    Case { file: "no_duplicates.c", shrinks: false },
];

fn check_program(case: &Case, opt_args: &[&str], clang_args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let src = programs_dir().join(case.file);
    let input = dir.path().join("in.bc");
    let output = dir.path().join("out.bc");
    compile(&src, &input, clang_args);
    run_ok(fmerge().arg("opt").arg(&input).arg("-o").arg(&output).args(opt_args).arg("-q"));
    verify(&output);
    let (before, after) = (text_bytes(&input), text_bytes(&output));
    if !opt_args.contains(&"--no-estimate") {
        // Merges priced by their estimated run-time cost: these small programs run everything
        // in loops, so some merges may be left out, but the output never grows.
        assert!(after <= before, "{}: .text {before} -> {after}, grew", case.file);
    } else if case.shrinks {
        assert!(after < before, "{}: .text {before} -> {after}, expected a reduction", case.file);
    } else {
        assert_eq!(after, before, "{}: nothing to merge, yet .text changed", case.file);
    }
    let (exe_in, exe_out) = (dir.path().join("in"), dir.path().join("out"));
    link(&input, &exe_in);
    link(&output, &exe_out);
    let expected = execute(&exe_in);
    let got = execute(&exe_out);
    assert_eq!(
        got, expected,
        "{}: the merged program behaves differently ({opt_args:?})",
        case.file
    );
    assert!(!expected.1.is_empty(), "{}: the program printed nothing", case.file);
}

// The programs are small and run everything in loops: without `--no-estimate` the default
// would leave some of their merges out for their estimated run-time cost, and these tests are
// about merging itself.

#[test]
fn merged_programs_behave_the_same_and_shrink() {
    for case in CASES {
        check_program(case, &["--no-estimate"], &[]);
    }
}

#[test]
fn the_default_pricing_keeps_behaviour_and_never_grows() {
    for case in CASES {
        check_program(case, &[], &[]);
    }
}

#[test]
fn whole_program_mode_behaves_the_same_and_shrinks() {
    for case in CASES {
        check_program(case, &["--whole-program", "--no-estimate"], &[]);
    }
}

#[test]
fn programs_with_debug_info_merge_and_verify() {
    for case in CASES {
        check_program(case, &["--no-estimate"], &["-g"]);
    }
}

#[test]
fn exact_profit_mode_behaves_the_same() {
    for case in CASES {
        check_program(case, &["--profit", "exact", "--no-estimate"], &[]);
    }
}

#[test]
fn fmerge_removes_at_least_as_much_as_llvm_mergefunc() {
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.bc");
        compile(&programs_dir().join(case.file), &input, &[]);
        let ours = dir.path().join("fmerge.bc");
        let theirs = dir.path().join("mergefunc.bc");
        run_ok(fmerge().arg("opt").arg(&input).arg("-o").arg(&ours).arg("-q"));
        run_ok(
            std::process::Command::new("opt-22")
                .arg("-passes=mergefunc")
                .arg(&input)
                .arg("-o")
                .arg(&theirs),
        );
        let (a, b) = (text_bytes(&ours), text_bytes(&theirs));
        assert!(a <= b, "{}: fmerge {a} bytes, mergefunc {b} bytes", case.file);
    }
}

#[test]
fn demo_example_shrinks_more_than_mergefunc_and_runs_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let input = demo_module(dir.path());
    let output = dir.path().join("demo.opt.bc");
    run_ok(fmerge().arg("opt").arg(&input).arg("--whole-program").arg("-o").arg(&output).arg("-q"));
    verify(&output);
    let mf = dir.path().join("demo.mf.bc");
    run_ok(
        std::process::Command::new("opt-22")
            .arg("-passes=mergefunc")
            .arg(&input)
            .arg("-o")
            .arg(&mf),
    );
    assert!(text_bytes(&output) < text_bytes(&mf));
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    link(&input, &a);
    link(&output, &b);
    assert_eq!(execute(&a), execute(&b));
}

/// `--search exhaustive` widens the search (LSH's partners first, the fingerprint ranking's
/// after everything LSH found): it never ends with more bytes than the default search, on the
/// test programs and on generated modules of similar-function families.
#[test]
fn the_exhaustive_search_never_saves_fewer_bytes_than_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for case in CASES {
        let bc = dir.path().join(format!("{}.bc", case.file));
        compile(&programs_dir().join(case.file), &bc, &[]);
        inputs.push(bc);
    }
    for seed in [21, 22, 23] {
        let ll = dir.path().join(format!("gen{seed}.ll"));
        let mut cfg = fmerge_irgen::Config::new(seed);
        cfg.families = 8;
        std::fs::write(&ll, fmerge_irgen::generate(&cfg).ll).unwrap();
        inputs.push(ll);
    }
    for input in &inputs {
        let size = |search: &str| {
            let out = dir.path().join(format!("out.{search}.bc"));
            run_ok(
                fmerge()
                    .arg("opt")
                    .arg(input)
                    .args(["--search", search, "--no-estimate", "-q", "-o"])
                    .arg(&out),
            );
            verify(&out);
            text_bytes(&out)
        };
        let (lsh, exhaustive) = (size("lsh"), size("exhaustive"));
        assert!(exhaustive <= lsh, "{}: exhaustive {exhaustive} > lsh {lsh}", input.display());
    }
}
