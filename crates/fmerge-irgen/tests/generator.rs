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
    let t = tools();
    let mut seeds: Vec<Config> = [3, 17, 29, 101, 555].into_iter().map(Config::new).collect();
    seeds.extend((0..12).map(Config::shaped));
    for cfg in seeds {
        let seed = cfg.seed;
        let p = dir.path().join(format!("s{seed}.ll"));
        std::fs::write(&p, generate(&cfg).ll).unwrap();
        let lli = execute(&t, Exec::Lli, &p, dir.path()).unwrap();
        assert!(!lli.1.is_empty() && lli.0 >= 0, "seed {seed}: {lli:?}");
        let o0 = execute(&t, Exec::ClangO0, &p, dir.path()).unwrap();
        assert_eq!(lli, o0, "seed {seed}: lli-22 and clang -O0 disagree");
        let o2 = execute(&t, Exec::ClangO2, &p, dir.path()).unwrap();
        assert_eq!(lli, o2, "seed {seed}: lli-22 and clang -O2 disagree (undefined behaviour?)");
    }
}

/// The control for the facts: with every declared fact emitted whether it holds or not, -O2
/// changes what some programs print. So the probes see a wrong fact, and a merge that keeps
/// one member's fact for another is seen the same way.
#[test]
fn wrong_facts_change_what_programs_do_after_o2() {
    let dir = tempfile::tempdir().unwrap();
    let t = tools();
    let mut differ = Vec::new();
    for seed in 0..12 {
        let mut cfg = Config::shaped(seed);
        cfg.facts = true;
        cfg.unchecked = true;
        let p = dir.path().join(format!("u{seed}.ll"));
        std::fs::write(&p, generate(&cfg).ll).unwrap();
        let lli = execute(&t, Exec::Lli, &p, dir.path()).unwrap();
        let o2 = execute(&t, Exec::ClangO2, &p, dir.path()).unwrap();
        if lli != o2 {
            differ.push(seed);
        }
        // The same seeds with the facts checked behave the same (see the test above).
    }
    assert!(differ.len() >= 3, "wrong facts changed the output of seeds {differ:?} only");
}

#[test]
fn families_cover_every_drift_and_mutation() {
    let mut seen = BTreeSet::new();
    for seed in 0..80 {
        for n in generate(&Config::new(seed)).notes {
            for kind in ["Identical", "Facts", "Constants", "Similar"] {
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
        "Facts",
        "case value",
        "case values swapped",
        "case order",
        "default destination",
        "scope slot",
        "slot size",
        "scope markers moved",
        "scopes split/joined",
        "fact constants",
        "facts",
        "pointer first use",
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
        // Stack slots with lifetime markers.
        "call void @llvm.lifetime.start.p0(ptr %s",
        "call void @llvm.lifetime.end.p0(ptr %s",
        "call void @fill_",
        // Facts: parameter, return and call-site attributes, metadata, flags, assumes.
        " range(i",
        "= call range(i",
        "!range !{",
        "!nonnull !{}",
        "!align !{i64 16}",
        "!prof !{!\"branch_weights\"",
        "ptr noalias ",
        "nonnull ",
        "align 16 ",
        "dereferenceable(",
        "writable ",
        "captures(none)",
        "captures(address_is_null)",
        "initializes((0, ",
        "noundef ",
        "zeroext ",
        "signext ",
        "add nsw ",
        "shl nuw ",
        "lshr exact ",
        "or disjoint ",
        "zext nneg ",
        "trunc nuw ",
        "icmp samesign ",
        "fdiv nnan ",
        "fdiv ninf ",
        "call void @llvm.assume(i1 %",
        "call void @llvm.assume(i1 true) [ \"",
        // Rust-style allocation paths.
        "@grow_amortized_",
        "@finish_grow_",
        "call ptr @realloc(",
        "call void @free(",
        "sret({ i64, i64, i64 })",
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
