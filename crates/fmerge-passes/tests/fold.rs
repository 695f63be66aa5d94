//! How merged-away functions stay callable, on hand-written IR: MergeFunctions' rules for
//! linkage, `unnamed_addr`, interposability, `llvm.used` and aliases, plus constant
//! parameterization and similar merging end to end at the IR level.

use fmerge_llvm::{Llvm, Target};
use fmerge_passes::pipeline::Measure;
use fmerge_passes::report::Disposal;
use fmerge_passes::{Options, Report, Stages};
use std::path::Path;

const TRIPLE: &str = "target triple = \"x86_64-pc-linux-gnu\"\n";

/// A body big enough that a thunk pays.
fn body(tag: i32) -> String {
    format!(
        "  %a = mul i32 %x, %x\n  %b = xor i32 %a, {tag}\n  %c = add i32 %b, %x\n  %d = mul i32 %c, %a\n  \
         %e = sub i32 %d, %b\n  %f = shl i32 %e, 3\n  %g = or i32 %f, %c\n  ret i32 %g"
    )
}

fn run(ir: &str, stages: Stages, whole_program: bool) -> (String, Report) {
    let llvm = Llvm::new();
    let mut module = llvm.parse(Path::new("t.ll"), format!("{TRIPLE}{ir}").as_bytes()).expect("IR");
    let target = Target::for_module(&module, None).expect("x86-64");
    // No estimate of run-time cost: these small modules are about how merges are made.
    let opts = Options { stages, whole_program, estimate: false, ..Options::default() };
    let report =
        fmerge_passes::optimize(&mut module, &target, &opts, Measure::Nothing, &|_: &str| {})
            .expect("fmerge succeeds");
    module.verify().expect("output verifies");
    (module.to_text(), report)
}

const IDENTICAL: Stages = Stages { identical: true, constants: false, similar: false };

fn disposal(r: &Report, name: &str) -> Option<Disposal> {
    r.merges.iter().flat_map(|m| &m.members).find(|m| m.name == name).map(|m| m.disposal)
}

fn defines(ir: &str, name: &str) -> bool {
    ir.lines().any(|l| l.starts_with("define") && l.contains(&format!("@{name}(")))
}

#[test]
fn local_duplicate_with_insignificant_address_is_erased() {
    let ir = format!(
        "define i32 @f(i32 %x) {{\n{}\n}}\ndefine internal i32 @g(i32 %x) unnamed_addr {{\n{}\n}}\n\
         define i32 @use(i32 %x) {{\n  %r = call i32 @g(i32 %x)\n  ret i32 %r\n}}\n",
        body(5),
        body(5)
    );
    let (out, r) = run(&ir, IDENTICAL, false);
    assert_eq!(disposal(&r, "g"), Some(Disposal::Erased));
    assert!(!defines(&out, "g"));
    assert!(out.contains("call i32 @f(i32 %x)"));
}

#[test]
fn external_duplicate_keeps_its_symbol_as_a_thunk() {
    let ir = format!(
        "define i32 @f(i32 %x) {{\n{}\n}}\ndefine i32 @g(i32 %x) {{\n{}\n}}\n",
        body(5),
        body(5)
    );
    let (out, r) = run(&ir, IDENTICAL, false);
    assert_eq!(disposal(&r, "g"), Some(Disposal::Thunk));
    assert!(defines(&out, "g") && out.contains("tail call i32 @f(i32 %x)"));
}

#[test]
fn weak_functions_stay_overridable() {
    let ir = format!(
        "define weak i32 @f(i32 %x) {{\n{}\n}}\ndefine weak i32 @g(i32 %x) {{\n{}\n}}\n",
        body(5),
        body(5)
    );
    // In a module of a larger program another module may supply either symbol, and a private
    // body shared by both would be repeated in every such module: nothing changes.
    let (out, r) = run(&ir, IDENTICAL, false);
    assert!(r.merges.is_empty());
    assert!(!out.contains("fmerged"));
    // In the whole program the body moves to a private copy and both symbols become thunks, so
    // either can still be replaced by a strong definition at link time.
    let (out, r) = run(&ir, IDENTICAL, true);
    assert_eq!(disposal(&r, "f"), Some(Disposal::Thunk));
    assert_eq!(disposal(&r, "g"), Some(Disposal::Thunk));
    assert!(out.contains("define weak i32 @f(") && out.contains("define weak i32 @g("));
    assert!(out.contains("define private i32 @f.fmerged("));
}

#[test]
fn functions_in_llvm_used_are_never_replaced() {
    let ir = format!(
        "@llvm.used = appending global [1 x ptr] [ptr @g], section \"llvm.metadata\"\n\
         define i32 @f(i32 %x) {{\n{}\n}}\ndefine internal i32 @g(i32 %x) unnamed_addr {{\n{}\n}}\n",
        body(5),
        body(5)
    );
    let (out, r) = run(&ir, IDENTICAL, false);
    assert_eq!(disposal(&r, "g"), Some(Disposal::Thunk));
    assert!(out.contains("@llvm.used = appending global [1 x ptr] [ptr @g]"));
}

#[test]
fn address_taken_duplicates_keep_distinct_addresses() {
    let ir = format!(
        "@table = global [2 x ptr] [ptr @f, ptr @g]\n\
         define internal i32 @f(i32 %x) {{\n{}\n}}\ndefine internal i32 @g(i32 %x) {{\n{}\n}}\n",
        body(5),
        body(5)
    );
    let (out, r) = run(&ir, IDENTICAL, false);
    assert_eq!(disposal(&r, "g"), Some(Disposal::Thunk));
    assert!(out.contains("[ptr @f, ptr @g]"), "the table must still hold two addresses");
}

#[test]
fn tiny_functions_are_not_thunked() {
    let ir = "define i32 @f(i32 %x) {\n  ret i32 %x\n}\ndefine i32 @g(i32 %x) {\n  ret i32 %x\n}\n";
    let (out, r) = run(ir, IDENTICAL, false);
    assert!(r.merges.is_empty());
    assert!(!out.contains("tail call"));
}

#[test]
fn whole_program_mode_erases_unreferenced_external_duplicates() {
    let ir = format!(
        "define i32 @f(i32 %x) {{\n{}\n}}\ndefine i32 @g(i32 %x) {{\n{}\n}}\n\
         define i32 @main() {{\n  %r = call i32 @g(i32 3)\n  ret i32 %r\n}}\n",
        body(5),
        body(5)
    );
    let (out, r) = run(&ir, IDENTICAL, true);
    assert_eq!(disposal(&r, "g"), Some(Disposal::Erased));
    assert!(!defines(&out, "g") && defines(&out, "main"));
}

#[test]
fn constants_become_trailing_parameters() {
    let f = |g: &str, h: &str| {
        format!(
            "  %v = load i32, ptr @{g}\n  %a = mul i32 %v, %x\n  %b = call i32 @{h}(i32 %a)\n  \
             %c = add i32 %b, %v\n  %d = call i32 @{h}(i32 %c)\n  %e = xor i32 %d, %a\n  \
             store i32 %e, ptr @{g}\n  ret i32 %e"
        )
    };
    let ir = format!(
        "@a = global i32 0\n@b = global i32 0\ndeclare i32 @h(i32)\ndeclare i32 @k(i32)\n\
         define i32 @f(i32 %x) {{\n{}\n}}\ndefine i32 @g(i32 %x) {{\n{}\n}}\n",
        f("a", "h"),
        f("b", "k")
    );
    let stages = Stages { identical: true, constants: true, similar: false };
    let (out, r) = run(&ir, stages, false);
    let m = r.merges.iter().find(|m| m.stage == "constants").expect("a constants merge");
    assert_eq!(m.params, 2);
    assert!(out.contains("(i32 %x, ptr %const0, ptr %const1)"), "parameters come last:\n{out}");
    assert!(out.contains("tail call i32 @f.fmerged(i32 %x, ptr @a, ptr @h)"), "{out}");
    assert!(out.contains("tail call i32 @f.fmerged(i32 %x, ptr @b, ptr @k)"));
}

/// A long body in which instruction `k` is `op` (the rest the same for every `k`).
fn long_body(k: usize, op: &str) -> String {
    let mut s = String::from("  %v0 = mul i32 %x, %x\n");
    for i in 1..24 {
        let this = if i == k { op } else { ["add", "xor", "mul", "sub"][i % 4] };
        s += &format!("  %v{i} = {this} i32 %v{}, %x\n", i - 1);
    }
    s + "  ret i32 %v23"
}

#[test]
fn a_merged_body_merges_again_with_a_function_not_marked_noinline() {
    // Two of them merge first; their merged body is marked `noinline` (so that no inliner
    // copies it back). The third is not, and differs from each of them by one instruction or
    // one constant: it joins their body (a group of three) instead of staying alone.
    let ir = format!(
        "define i32 @f(i32 %x) {{\n{}\n}}\ndefine i32 @g(i32 %x) {{\n{}\n}}\n\
         define i32 @h(i32 %x) {{\n{}\n}}\n",
        long_body(5, "or"),
        long_body(5, "and"),
        long_body(5, "or").replace("%v9 = add i32 %v8, %x", "%v9 = add i32 %v8, 7"),
    );
    let similar = Stages { identical: false, constants: false, similar: true };
    let (out, r) = run(&ir, similar, false);
    let chained = r.merges.iter().any(|m| m.originals.iter().any(|o| o.ends_with(".fmerged")));
    let merges: Vec<_> = r.merges.iter().map(|m| &m.originals).collect();
    assert!(chained, "no merged body merged again: {merges:?} {:?}", r.skipped);
    for f in ["f", "g", "h"] {
        assert_eq!(disposal(&r, f), Some(Disposal::Thunk), "{f}: {merges:?}");
    }
    assert!(out.contains("noinline"));
}
