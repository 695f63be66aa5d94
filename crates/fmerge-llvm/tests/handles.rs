//! The typed IR handles and fmerge's own LLVM enums, through LLVM itself: the checked ways
//! from a value down to a function, global variable or instruction; linkage, visibility,
//! `unnamed_addr` and tail-call kinds written by fmerge and read back by LLVM's printer; and
//! the embedding that travels with contexts, modules, copies and targets.

use fmerge_core::ir::opcode;
use fmerge_llvm::{
    Embedding, Function, Linkage, Llvm, Module, TailCallKind, Target, UnnamedAddr, Visibility,
};
use std::path::Path;

const IR: &str = r#"
target triple = "x86_64-unknown-linux-gnu"

@table = internal constant [2 x i32] [i32 1, i32 2]
@counter = global i32 0

declare i32 @g(i32)

define linkonce_odr hidden i32 @f(i32 %x) unnamed_addr {
  %v = load i32, ptr @table
  %r = tail call i32 @g(i32 %x)
  %s = add i32 %r, %v
  ret i32 %s
}
"#;

fn parse(llvm: &Llvm) -> Module<'_> {
    llvm.parse(Path::new("handles.ll"), IR.as_bytes()).expect("valid IR")
}

fn line_of<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line with {needle}"))
}

#[test]
fn values_go_down_to_their_kind_only() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    let f = m.function("f").unwrap();
    let v = f.as_value();
    assert_eq!(v.as_function(), Some(f));
    assert_eq!(v.as_global().map(|g| g.as_value()), Some(v));
    assert!(v.as_instruction().is_none() && v.as_global_var().is_none());

    let table = m.global("table").unwrap();
    assert_eq!(table.as_value().as_global_var(), Some(table));
    assert!(table.as_value().as_function().is_none());
    assert!(table.is_global_constant() && !m.global("counter").unwrap().is_global_constant());
    assert!(table.initializer().is_some_and(|i| i.is_constant()));

    let insts: Vec<_> = f.blocks().into_iter().flat_map(|b| b.instructions()).collect();
    let ops: Vec<u32> = insts.iter().map(|i| i.opcode()).collect();
    assert_eq!(ops, [opcode::LOAD, opcode::CALL, opcode::ADD, opcode::RET]);
    let call = insts[1];
    assert_eq!(call.as_value().as_instruction(), Some(call));
    assert!(call.as_value().as_function().is_none());
    assert!(call.is_call_like() && !insts[2].is_call_like());
    let callee = call.called_value().and_then(|c| c.as_function()).unwrap();
    assert_eq!(callee, m.function("g").unwrap());
    assert_eq!(call.parent_block().map(|b| b.parent()), Some(f));
    // A handle of a narrower kind hashes and prints as the value it is.
    assert_eq!(format!("{f:?}"), format!("{v:?}"));
    let set: std::collections::HashSet<_> = [v].into();
    assert!(set.contains(&f.as_value()));
}

#[test]
fn linkage_properties_read_and_write_through_llvm() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    let f = m.function("f").unwrap();
    assert_eq!(f.linkage(), Linkage::LinkOnceOdr);
    assert_eq!(f.visibility(), Visibility::Hidden);
    assert_eq!(f.unnamed_addr(), UnnamedAddr::Global);
    assert_eq!(m.global("table").unwrap().linkage(), Linkage::Internal);
    assert_eq!(m.function("g").unwrap().linkage(), Linkage::External);

    f.set_linkage(Linkage::WeakOdr);
    f.set_visibility(Visibility::Protected);
    f.set_unnamed_addr(UnnamedAddr::Local);
    let text = m.to_text();
    let define = line_of(&text, "@f(");
    assert!(define.contains("weak_odr protected"), "{define}");
    assert!(define.contains("local_unnamed_addr"), "{define}");
    assert_eq!(f.linkage(), Linkage::WeakOdr);
    assert_eq!(f.visibility(), Visibility::Protected);
    assert_eq!(f.unnamed_addr(), UnnamedAddr::Local);

    f.set_linkage(Linkage::Private);
    f.set_visibility(Visibility::Default);
    f.set_unnamed_addr(UnnamedAddr::None);
    let text = m.to_text();
    let define = line_of(&text, "@f(");
    assert!(define.starts_with("define private i32 @f"), "{define}");
    assert!(!define.contains("unnamed_addr"), "{define}");
    m.verify().unwrap();
}

#[test]
fn tail_call_kinds_read_and_write_through_llvm() {
    let llvm = Llvm::new();
    let m = parse(&llvm);
    let f: Function<'_> = m.function("f").unwrap();
    let call = f.blocks()[0].instructions()[1];
    assert_eq!(call.tail_call_kind(), TailCallKind::Tail);
    for (kind, word) in [
        (TailCallKind::MustTail, "musttail call"),
        (TailCallKind::NoTail, "notail call"),
        (TailCallKind::None, "%r = call"),
        (TailCallKind::Tail, "tail call"),
    ] {
        call.set_tail_call_kind(kind);
        assert_eq!(call.tail_call_kind(), kind);
        assert!(line_of(&m.to_text(), "@g(i32 %x)").contains(word), "{kind:?}");
    }
}

#[test]
fn the_embedding_travels_with_modules_copies_and_targets() {
    for embedding in [Embedding::Standalone, Embedding::Plugin] {
        let llvm = Llvm::with_embedding(embedding);
        assert_eq!(llvm.embedding(), embedding);
        let m = parse(&llvm);
        assert_eq!(m.embedding(), embedding);
        assert_eq!(m.duplicate().unwrap().embedding(), embedding);
        assert_eq!(m.backup().embedding(), embedding);
        assert_eq!(m.subset(&[m.function("f").unwrap()]).unwrap().embedding(), embedding);
        assert_eq!(Target::for_module(&m, None).unwrap().embedding(), embedding);
        assert_eq!(Target::for_object_file(&m, None).unwrap().embedding(), embedding);
    }
    assert_eq!(Llvm::new().embedding(), Embedding::Standalone);
    assert_eq!(Target::new("x86_64-unknown-linux-gnu").unwrap().embedding(), Embedding::Standalone);
}

#[test]
fn a_plugins_context_leaves_code_generation_options_alone() {
    // Only the plugin's side is tried here: a standalone call would change this test
    // process's code generation for every other test.
    let llvm = Llvm::with_embedding(Embedding::Plugin);
    let switches = fmerge_llvm::target::CodeGenSwitches {
        outlining: Some(fmerge_llvm::target::Outlining::Local),
        frame_helpers: true,
        verify_machine_code: true,
    };
    assert!(!llvm.set_code_generation(&switches));
    // Measuring on other threads makes contexts of the same embedding.
    let m = parse(&llvm);
    let target = Target::for_module(&m, None).unwrap();
    let bitcode = m.to_bitcode().unwrap();
    let sizes = fmerge_llvm::target::measure_bitcode_as_made(&target, 2, [Ok(bitcode)]);
    assert!(sizes[0].as_ref().unwrap().functions.contains_key("f"));
}

/// Merging marks the bodies it makes `noinline` (and drops `alwaysinline`): the key the size
/// guard's second chance scopes its search by must not tell a function from such a body,
/// while the key that decides whether two functions may share a body still does.
#[test]
fn the_attribute_key_but_inlining_ignores_only_the_inlining_attributes() {
    const ATTRS: &str = r#"
define i32 @plain(i32 %x) #0 { ret i32 %x }
define i32 @merged(i32 %x) #1 { ret i32 %x }
define i32 @always(i32 %x) #2 { ret i32 %x }
define i32 @other(i32 %x) #3 { ret i32 %x }
attributes #0 = { nounwind optsize "target-cpu"="x86-64" }
attributes #1 = { noinline nounwind optsize "target-cpu"="x86-64" }
attributes #2 = { alwaysinline nounwind optsize "target-cpu"="x86-64" }
attributes #3 = { nounwind optsize "target-cpu"="x86-64-v3" }
"#;
    let llvm = Llvm::new();
    let m = llvm.parse(Path::new("attrs.ll"), ATTRS.as_bytes()).expect("valid IR");
    let [plain, merged, always, other] =
        ["plain", "merged", "always", "other"].map(|n| m.function(n).unwrap());
    assert_ne!(plain.fn_attr_key(), merged.fn_attr_key());
    assert_ne!(plain.fn_attr_key(), always.fn_attr_key());
    assert_eq!(plain.fn_attr_key_but_inlining(), merged.fn_attr_key_but_inlining());
    assert_eq!(plain.fn_attr_key_but_inlining(), always.fn_attr_key_but_inlining());
    assert_ne!(plain.fn_attr_key_but_inlining(), other.fn_attr_key_but_inlining());
}
