//! Lowering + structural comparison on hand-written IR: what must be equal for two functions
//! to be merged, and what may differ.

use fmerge_core::compare::{self, Mode, Walk};
use fmerge_llvm::Llvm;
use fmerge_llvm::lower::{Hashes, lower_module};
use std::path::Path;

/// Lowers `ir` and compares functions `@f` and `@g` in `mode`.
fn equal(ir: &str, mode: Mode) -> bool {
    let llvm = Llvm::new();
    let module = llvm.parse(Path::new("test.ll"), ir.as_bytes()).expect("valid IR");
    module.verify().expect("test IR verifies");
    let lowered = lower_module(&module, Hashes::Stable);
    let find = |name: &str| lowered.funcs.iter().position(|f| f.name == name).expect("function");
    let (f, g) = (&lowered.funcs[find("f")], &lowered.funcs[find("g")]);
    let (wf, wg) = (Walk::new(f), Walk::new(g));
    let same = compare::compare(lowered.tables(), f, &wf, g, &wg, mode).is_some();
    if same {
        let (hf, hg) = (
            compare::structural_hash(lowered.tables(), f, &wf, mode),
            compare::structural_hash(lowered.tables(), g, &wg, mode),
        );
        assert_eq!(hf, hg, "equal functions must hash equally");
    }
    same
}

fn pair(f_body: &str, g_body: &str, decls: &str) -> String {
    format!(
        "{decls}\ndefine i32 @f(ptr %p, i32 %x) {{\n{f_body}\n}}\ndefine i32 @g(ptr %p, i32 %x) {{\n{g_body}\n}}\n"
    )
}

const DECLS: &str = "@a = global i32 0\n@b = global i32 0\n%S = type { i32, i32 }\ndeclare i32 @h(i32)\ndeclare i32 @k(i32)";

#[test]
fn identical_bodies_are_equal() {
    let body = "  %y = add i32 %x, 1\n  %z = call i32 @h(i32 %y)\n  ret i32 %z";
    assert!(equal(&pair(body, body, DECLS), Mode::Exact));
}

#[test]
fn poison_flags_and_metadata_may_differ() {
    let f = "  %y = add nsw i32 %x, 1\n  %v = load i32, ptr %p, !range !0\n  %z = add i32 %y, %v\n  ret i32 %z";
    let g = "  %y = add i32 %x, 1\n  %v = load i32, ptr %p\n  %z = add i32 %y, %v\n  ret i32 %z";
    let ir = pair(f, g, DECLS) + "!0 = !{i32 0, i32 10}\n";
    assert!(equal(&ir, Mode::Exact));
}

#[test]
fn immediates_must_match_in_every_mode() {
    let f = "  %y = add i32 %x, 1\n  ret i32 %y";
    let g = "  %y = add i32 %x, 2\n  ret i32 %y";
    assert!(!equal(&pair(f, g, DECLS), Mode::Exact));
    assert!(!equal(&pair(f, g, DECLS), Mode::ModuloParams));
}

#[test]
fn callees_and_addresses_may_differ_only_up_to_params() {
    let f = "  %v = load i32, ptr @a\n  %z = call i32 @h(i32 %v)\n  ret i32 %z";
    let g = "  %v = load i32, ptr @b\n  %z = call i32 @k(i32 %v)\n  ret i32 %z";
    assert!(!equal(&pair(f, g, DECLS), Mode::Exact));
    assert!(equal(&pair(f, g, DECLS), Mode::ModuloParams));
}

#[test]
fn struct_field_indices_must_match() {
    let f = "  %q = getelementptr %S, ptr %p, i64 0, i32 0\n  %v = load i32, ptr %q\n  ret i32 %v";
    let g = "  %q = getelementptr %S, ptr %p, i64 0, i32 1\n  %v = load i32, ptr %q\n  ret i32 %v";
    assert!(!equal(&pair(f, g, DECLS), Mode::ModuloParams));
}

#[test]
fn predicates_alignment_and_volatility_must_match() {
    let cmp = |pred: &str| {
        format!("  %c = icmp {pred} i32 %x, 0\n  %r = zext i1 %c to i32\n  ret i32 %r")
    };
    assert!(!equal(&pair(&cmp("slt"), &cmp("sgt"), DECLS), Mode::ModuloParams));
    let ld = |attrs: &str| format!("  %v = load {attrs}\n  ret i32 %v");
    assert!(!equal(
        &pair(&ld("i32, ptr %p, align 4"), &ld("i32, ptr %p, align 1"), DECLS),
        Mode::Exact
    ));
    assert!(!equal(&pair(&ld("i32, ptr %p"), &ld("volatile i32, ptr %p"), DECLS), Mode::Exact));
}

#[test]
fn inferred_parameter_attributes_may_differ_but_target_attributes_may_not() {
    let body = "  ret i32 %x";
    let ir = format!(
        "define i32 @f(ptr %p, i32 range(i32 0, 10) %x) {{\n{body}\n}}\n\
         define i32 @g(ptr %p, i32 range(i32 0, 99) %x) {{\n{body}\n}}\n"
    );
    assert!(equal(&ir, Mode::Exact));
    let ir = format!(
        "define i32 @f(ptr %p, i32 %x) #0 {{\n{body}\n}}\ndefine i32 @g(ptr %p, i32 %x) #1 {{\n{body}\n}}\n\
         attributes #0 = {{ \"target-features\"=\"+avx2\" }}\nattributes #1 = {{ \"target-features\"=\"+sse2\" }}\n"
    );
    assert!(!equal(&ir, Mode::Exact));
}

#[test]
fn self_recursion_is_equal_exactly_but_not_up_to_params() {
    let rec = |name: &str| {
        format!(
            "define i32 @{name}(ptr %p, i32 %x) {{\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %done, label %more\n\
             more:\n  %y = sub i32 %x, 1\n  %r = call i32 @{name}(ptr %p, i32 %y)\n  ret i32 %r\n\
             done:\n  ret i32 0\n}}\n"
        )
    };
    let ir = rec("f") + &rec("g");
    assert!(equal(&ir, Mode::Exact));
    // A shared body with a parameter would call only one of them.
    assert!(!equal(&ir, Mode::ModuloParams));
}

#[test]
fn block_order_does_not_matter_but_the_cfg_does() {
    let f = "entry:\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %a, label %b\na:\n  ret i32 1\nb:\n  ret i32 2";
    let g = "entry:\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %a, label %b\nb:\n  ret i32 2\na:\n  ret i32 1";
    assert!(equal(&pair(f, g, DECLS), Mode::Exact));
    let swapped = "entry:\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %b, label %a\na:\n  ret i32 1\nb:\n  ret i32 2";
    assert!(!equal(&pair(f, swapped, DECLS), Mode::Exact));
}

#[test]
fn unreachable_blocks_are_ignored() {
    let f = "entry:\n  ret i32 %x\ndead:\n  %y = add i32 %x, 7\n  ret i32 %y";
    let g = "entry:\n  ret i32 %x";
    assert!(equal(&pair(f, g, DECLS), Mode::Exact));
}
