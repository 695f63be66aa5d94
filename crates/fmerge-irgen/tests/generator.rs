//! The generator itself: deterministic, always valid IR, free of undefined behaviour (the same
//! output from lli-22, clang -O0 and clang -O2, which would exploit UB), and varied.

use fmerge_irgen::check::{Exec, Tools, execute, verify};
use fmerge_irgen::{Config, generate, stress};
use std::collections::BTreeSet;

fn tools() -> Tools {
    Tools::new("fmerge-not-needed")
}

#[test]
fn same_seed_same_module_different_seed_different_module() {
    for seed in 0..20 {
        assert_eq!(generate(&Config::new(seed)).ll, generate(&Config::new(seed)).ll);
        assert_ne!(generate(&Config::new(seed)).ll, generate(&Config::new(seed + 1)).ll);
    }
}

#[test]
fn generated_modules_verify() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..60 {
        let mut cfg = Config::new(seed * 7919);
        cfg.families = 2 + (seed % 5) as usize;
        cfg.eh = seed % 2 == 0;
        let p = dir.path().join(format!("s{seed}.ll"));
        std::fs::write(&p, generate(&cfg).ll).unwrap();
        verify(&tools(), &p).unwrap_or_else(|e| panic!("seed {}: {e}", seed * 7919));
    }
}

#[test]
fn generated_programs_have_no_undefined_behaviour_that_clang_o2_could_exploit() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = tools();
    for seed in [3, 17, 29, 101, 555] {
        let p = dir.path().join(format!("s{seed}.ll"));
        std::fs::write(&p, generate(&Config::new(seed)).ll).unwrap();
        t.exec = Exec::Lli;
        let lli = execute(&t, &p, dir.path()).unwrap();
        assert!(!lli.1.is_empty() && lli.0 >= 0, "seed {seed}: {lli:?}");
        t.exec = Exec::Clang;
        t.clang = "clang++-22".into();
        let o0 = execute(&t, &p, dir.path()).unwrap();
        assert_eq!(lli, o0, "seed {seed}: lli-22 and clang -O0 disagree");
        let o2 = {
            let exe = dir.path().join(format!("s{seed}.o2"));
            let st = std::process::Command::new("clang++-22")
                .args(["-O2", "-w"])
                .arg(&p)
                .arg("-o")
                .arg(&exe)
                .status()
                .unwrap();
            assert!(st.success());
            let out = std::process::Command::new(&exe).output().unwrap();
            (out.status.code().unwrap(), out.stdout, out.stderr)
        };
        assert_eq!(lli, o2, "seed {seed}: lli-22 and clang -O2 disagree (undefined behaviour?)");
    }
}

#[test]
fn families_cover_every_drift_and_mutation() {
    let mut seen = BTreeSet::new();
    for seed in 0..80 {
        for n in generate(&Config::new(seed)).notes {
            for kind in ["Identical", "Constants", "Similar"] {
                if n.contains(kind) {
                    seen.insert(kind.to_string());
                }
            }
            if let Some(list) = n.split('[').nth(1) {
                for m in list.trim_end_matches(']').split(", ").filter(|m| !m.is_empty()) {
                    seen.insert(m.to_string());
                }
            }
        }
    }
    for want in [
        "Identical",
        "Constants",
        "Similar",
        "constant",
        "callee/global",
        "cell/tag",
        "operator",
        "operand order",
        "subexpression",
        "insert statement",
        "delete statement",
        "wrap in if",
        "loop/switch/if arms",
        "poison flags",
        "parameter type",
        "work type",
        "linkage",
        "add loop",
        "add local",
    ] {
        assert!(seen.contains(want), "no family member made by {want:?} in 80 seeds: {seen:?}");
    }
}

#[test]
fn generated_ir_has_the_constructs_it_promises() {
    let mut text = String::new();
    for seed in 0..30 {
        text.push_str(&generate(&Config::new(seed)).ll);
    }
    for needle in [
        " = phi ",
        "switch ",
        " = invoke ",
        "landingpad",
        "personality ptr @__gxx_personality_v0",
        "add nuw nsw",
        "call void @log_",
        "@llvm.smax",
        "alloca [8 x",
        "linkonce_odr ",
        "weak ",
        "unnamed_addr",
        "@fptrs",
        "addr ",
    ] {
        assert!(text.contains(needle), "no {needle:?} in 30 generated modules");
    }
    // Generated functions call generated functions of earlier families (not only `main`).
    assert!(
        text.lines().any(|l| l.starts_with("  %t") && l.contains(" = call ") && l.contains("@fam")),
        "no call between generated functions in 30 modules"
    );
}

#[test]
fn llvm_stress_modules_with_copies_verify() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..6 {
        let text = stress::module("llvm-stress-22", seed, 80, 2).unwrap();
        assert!(text.contains("_copy1("), "{text}");
        let p = dir.path().join(format!("st{seed}.ll"));
        std::fs::write(&p, text).unwrap();
        verify(&tools(), &p).unwrap();
    }
}
