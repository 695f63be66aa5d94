//! Bitcode written while the verifier runs on another thread: the same bytes as writing alone
//! when the module verifies, and the verifier's error (no bytes) when it does not.

use fmerge_llvm::{Llvm, LlvmError};

const IR: &str = r#"
target triple = "x86_64-unknown-linux-gnu"

declare void @g(i32)

define i32 @f(i32 %x) {
entry:
  %y = add i32 %x, 1
  %z = mul i32 %y, 3
  call void @g(i32 %z)
  br label %next
next:
  %w = add i32 %z, %y
  ret i32 %w
}
"#;

#[test]
fn bitcode_written_while_verifying_is_the_bitcode_written_alone() {
    let llvm = Llvm::new();
    let m = llvm.parse(std::path::Path::new("verified.ll"), IR.as_bytes()).unwrap();
    for _ in 0..20 {
        assert_eq!(*m.to_verified_bitcode().unwrap(), *m.to_bitcode().unwrap());
    }
}

#[test]
fn a_module_that_does_not_verify_gives_the_verifiers_error_and_no_bytes() {
    let llvm = Llvm::new();
    let m = llvm.parse(std::path::Path::new("verified.ll"), IR.as_bytes()).unwrap();
    // `%y = add %z, 1`: a use before its definition.
    let f = m.function("f").unwrap();
    let insts = f.blocks()[0].instructions();
    let (y, z) = (insts[0], insts[1]);
    y.set_operand(0, z.as_value());
    match m.to_verified_bitcode() {
        Err(LlvmError::InvalidIr { message }) => {
            assert!(message.contains("dominate"), "unexpected message: {message}")
        }
        Err(e) => panic!("expected invalid IR, got {e}"),
        Ok(_) => panic!("a module that does not verify was written"),
    }
    assert!(m.verify().is_err());
}
