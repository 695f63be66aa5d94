//! Lazy copies of a module read from a file: from the bitcode it was read from while it is
//! unchanged, from the module itself once it changed; and never from a file that changed
//! after the module was read from it.

use fmerge_llvm::{Llvm, LlvmError, Snapshot};

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

#[test]
fn a_copy_of_the_input_is_refused_when_its_file_changed_since_it_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = bitcode_file(&dir);
    let llvm = Llvm::new();
    // Unchanged: the file is read again for the copy.
    let m = llvm.load_keeping_source(&path).unwrap();
    let copy = Snapshot::defer(&m).unwrap().read(&m).unwrap();
    copy.module().materialize_all().unwrap();
    assert!(copy.module().to_text().contains("add i32 %x, 1"));
    // Changed after it was read (same length, other bytes): no copy is made of it.
    let m = llvm.load_keeping_source(&path).unwrap();
    let deferred = Snapshot::defer(&m).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    match deferred.read(&m) {
        Err(e @ LlvmError::Io { .. }) => assert!(e.to_string().contains("changed"), "{e}"),
        Err(e) => panic!("not an I/O error: {e}"),
        Ok(_) => panic!("a copy was made of a file that changed"),
    }
    // A lazy copy of a module still unchanged reads its file again too.
    let path = bitcode_file(&dir);
    let m = llvm.load_keeping_source(&path).unwrap();
    std::fs::write(&path, b"not bitcode any more").unwrap();
    assert!(m.lazy_copy().is_err());
}

#[test]
fn a_module_put_back_from_its_kept_bitcode_prints_as_it_did() {
    const TYPED: &str = r#"
target triple = "x86_64-unknown-linux-gnu"

%struct.pair = type { i32, ptr }
%struct.pair.0 = type { i64 }

define i32 @first(ptr %p) {
  %a = getelementptr %struct.pair, ptr %p, i64 0, i32 0
  %x = load i32, ptr %a
  ret i32 %x
}

define i64 @wide(ptr %p) {
  %a = getelementptr %struct.pair.0, ptr %p, i64 0, i32 0
  %x = load i64, ptr %a
  ret i64 %x
}
"#;
    let llvm = Llvm::new();
    let mut m = llvm.parse(std::path::Path::new("typed.ll"), TYPED.as_bytes()).unwrap();
    let before = m.to_text();
    let kept = m.keep_bitcode().unwrap();
    // The lazy copy reads the kept bitcode: the module as it was.
    let copy = m.lazy_copy().unwrap();
    copy.materialize_all().unwrap();
    assert!(copy.function("wide").is_some());
    drop(copy);
    // A change, then the module put back: the same text, struct type names included (read
    // back into the same context, the types would otherwise be `%struct.pair.1`, ...).
    m.forget_source();
    m.function("wide").unwrap().as_value().set_name("narrow");
    m.restore_bitcode(&kept).unwrap();
    assert_eq!(m.to_text(), before);
    assert!(m.restore_bitcode(b"not bitcode").is_err());
    assert_eq!(m.to_text(), before);
}
