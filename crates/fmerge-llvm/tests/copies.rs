//! Lazy copies of a module read from a file: from the bitcode it was read from while it is
//! unchanged, from the module itself once it changed.

use fmerge_llvm::Llvm;

const IR: &str = r#"
target triple = "x86_64-unknown-linux-gnu"

define i32 @f(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
"#;

fn bitcode_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let llvm = Llvm::new();
    let m = llvm.parse(std::path::Path::new("copies.ll"), IR.as_bytes()).unwrap();
    let path = dir.path().join("copies.bc");
    std::fs::write(&path, m.to_bitcode().unwrap()).unwrap();
    path
}

#[test]
fn a_lazy_copy_of_an_unchanged_module_is_the_module() {
    let dir = tempfile::tempdir().unwrap();
    let path = bitcode_file(&dir);
    let llvm = Llvm::new();
    let kept = llvm.load_keeping_source(&path).unwrap();
    let plain = llvm.load(&path).unwrap();
    let (a, b) = (kept.lazy_copy().unwrap(), plain.lazy_copy().unwrap());
    a.materialize_all().unwrap();
    b.materialize_all().unwrap();
    let body = |t: String| {
        t.lines().skip_while(|l| !l.starts_with("define")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(body(a.to_text()), body(b.to_text()));
    assert!(a.to_text().contains("add i32 %x, 1"));
}

#[test]
fn a_lazy_copy_after_a_change_has_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = bitcode_file(&dir);
    let llvm = Llvm::new();
    // A change through the module's own setters forgets what it was read from.
    let m = llvm.load_keeping_source(&path).unwrap();
    m.set_triple("aarch64-unknown-linux-gnu");
    assert!(m.lazy_copy().unwrap().to_text().contains("aarch64-unknown-linux-gnu"));
    // A change through handles is the caller's to announce.
    let m = llvm.load_keeping_source(&path).unwrap();
    m.function("f").unwrap().as_value().set_name("g");
    m.forget_source();
    let copy = m.lazy_copy().unwrap();
    assert!(copy.function("g").is_some() && copy.function("f").is_none());
}
