//! Module subsets (what fmerge compiles to measure a few functions): exactly the globals the
//! kept functions reach, constants with their contents, everything else a declaration, and a
//! module that verifies, whether the source is read eagerly or lazily; and measuring subsets
//! while they are being made.

use fmerge_llvm::{Llvm, Module};
use std::path::Path;

const IR: &str = r#"
target triple = "x86_64-unknown-linux-gnu"

@inner = private unnamed_addr constant [4 x i8] c"abc\00"
@table = internal constant [2 x ptr] [ptr @inner, ptr @helper]
@counter = global i32 7
@unused = internal constant [3 x i8] c"no\00"
@only_in_metadata = global i32 1
@labels = internal constant [1 x ptr] [ptr blockaddress(@other, %target)]
@rel = private unnamed_addr constant [1 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @unused to i64), i64 ptrtoint (ptr @rel to i64)) to i32)]
@alias = alias i32, ptr @counter
@resolved = ifunc void (), ptr @resolver

declare void @external()

define internal void @helper() {
  ret void
}

define ptr @resolver() {
  ret ptr @helper
}

define private i32 @kept(i32 %x) {
  %p = load ptr, ptr @table
  %c = load i32, ptr @counter
  %a = load i32, ptr @alias
  %l = load ptr, ptr @labels
  call void @resolved()
  call void @external(), !callees !0
  %s = add i32 %c, %a
  ret i32 %s
}

define void @other() {
  br label %target
target:
  call void @helper()
  ret void
}

!0 = !{ptr @only_in_metadata}
"#;

fn parse(llvm: &Llvm) -> Module<'_> {
    llvm.parse(Path::new("subset.ll"), IR.as_bytes()).expect("valid IR")
}

fn defines(m: &Module<'_>, name: &str) -> bool {
    m.function(name).is_some_and(|f| !f.is_declaration())
}

fn check(source: &Module<'_>) {
    let subset = source.subset(&[source.function("kept").unwrap()]).expect("a subset");
    subset.verify().expect("the subset verifies");
    let text = subset.to_text();
    // The kept function is defined, and internal rather than private (it needs a symbol).
    assert!(defines(&subset, "kept"));
    assert!(text.contains("define internal i32 @kept"), "{text}");
    // Constants it reads keep their contents, transitively; what they point to that is code
    // becomes a declaration.
    assert!(text.contains("@table = internal constant"), "{text}");
    assert!(
        text.contains("@inner = private unnamed_addr constant [4 x i8] c\"abc\\00\""),
        "{text}"
    );
    assert!(subset.function("helper").is_some_and(|f| f.is_declaration()), "{text}");
    // A variable is only declared; an alias becomes a declaration of its kind.
    assert!(text.contains("@counter = external global i32"), "{text}");
    assert!(text.contains("@alias = external global i32"), "{text}");
    // So does an ifunc (its resolver would have to be defined).
    assert!(subset.function("resolved").is_some_and(|f| f.is_declaration()), "{text}");
    assert!(!text.contains("ifunc"), "{text}");
    // A constant holding the address of a block of a function that is not kept cannot be
    // copied: it is declared, and that function is not reached.
    assert!(text.contains("@labels = external dso_local constant"), "{text}");
    assert!(subset.function("other").is_none(), "{text}");
    // A global named only by metadata stays named (the metadata must not point into the
    // source module); the verifier above would catch a reference to another module.
    assert!(text.contains("!callees"), "{text}");
    // Nothing the function does not reach, nor what only metadata names (it has no uses), nor
    // a constant that only refers to itself.
    for absent in ["@unused", "@rel =", "@only_in_metadata ="] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
    // The source is unchanged.
    source.verify().expect("the source still verifies");
    assert!(defines(source, "helper") && defines(source, "other") && defines(source, "kept"));
}

#[test]
fn a_subset_holds_what_its_functions_reach_and_nothing_else() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    check(&m);
}

#[test]
fn a_subset_of_a_lazily_read_copy_reads_only_the_bodies_it_keeps() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    let lazy = m.lazy_copy().expect("a lazy copy");
    check(&lazy);
}

#[test]
fn a_module_with_an_ifunc_gives_subsets_that_verify() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    for name in ["resolver", "helper", "other"] {
        let subset = m.subset(&[m.function(name).unwrap()]).expect("a subset");
        subset.verify().unwrap_or_else(|e| panic!("the subset of {name}: {e}"));
        assert!(defines(&subset, name));
        assert!(!subset.to_text().contains("ifunc"), "{name}");
    }
}

#[test]
fn modules_are_measured_in_order_while_they_are_made_whatever_the_thread_count() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    let target = fmerge_llvm::Target::for_module(&m, None).unwrap();
    let names = ["kept", "helper", "other", "resolver"];
    let measure = |jobs: usize| {
        // Made one at a time on this thread, as the measuring threads compile the ones before;
        // the third "fails" to be made and its error comes back in its place.
        let made = names.iter().enumerate().map(|(k, name)| {
            if k == 2 {
                return Err(fmerge_llvm::LlvmError::InvalidIr { message: "not made".into() });
            }
            m.subset(&[m.function(name).unwrap()])?.to_bitcode()
        });
        fmerge_llvm::target::measure_bitcode_as_made(&target, jobs, made)
    };
    let one = measure(1);
    assert_eq!(one.len(), names.len());
    for (k, name) in names.iter().enumerate() {
        match &one[k] {
            Err(e) => assert!(k == 2 && e.to_string().contains("not made"), "{name}: {e}"),
            Ok(r) => assert!(k != 2 && r.functions.keys().any(|s| s.contains(name)), "{name}"),
        }
    }
    for jobs in [2, 3, 8] {
        let other = measure(jobs);
        for (a, b) in one.iter().zip(&other) {
            assert_eq!(
                a.as_ref().ok().map(|r| &r.functions),
                b.as_ref().ok().map(|r| &r.functions)
            );
        }
    }
}
