//! A replaced instruction must leave its function at once: anything that copies the
//! function before the next sweep (a merged body cloned from it, a module copy that is
//! measured) would otherwise run the old instruction as well as its replacement. That is
//! how googletest's printers came to print nested containers twice after fmerge (issue 13:
//! a call whose call sites were rewritten stayed in a body that was merged again in the
//! same round).

use fmerge_llvm::{Function, Instruction, Llvm};
use std::path::Path;

const IR: &str = r#"
declare void @g(i32)
declare void @h(i32)

define void @f(i32 %x) {
  call void @g(i32 %x)
  call void @h(i32 %x)
  ret void
}
"#;

fn calls_to(f: Function<'_>, callee: &str) -> usize {
    insts(f).into_iter().filter(|&i| calls_to_one(i, callee)).count()
}

#[test]
fn a_detached_instruction_is_gone_from_its_function_and_from_copies() {
    let llvm = Llvm::new();
    let mut m = llvm.parse(Path::new("detach.ll"), IR.as_bytes()).unwrap();
    {
        let f = m.function("f").unwrap();
        let old = insts(f).into_iter().find(|&i| calls_to_one(i, "g")).unwrap();
        m.detach_instruction(old);
        assert_eq!(calls_to(f, "g"), 0, "the detached call is still in @f");
        assert_eq!(calls_to(f, "h"), 1);
        m.verify().expect("a module with a detached instruction verifies");
        let copy = m.duplicate().unwrap();
        assert_eq!(calls_to(copy.function("f").unwrap(), "g"), 0, "a copy kept the call");
        // @g has no user left (the detached call dropped its operands).
        assert!(!m.function("g").unwrap().has_uses());
    }
    m.sweep();
    m.verify().unwrap();
    assert_eq!(calls_to(m.function("f").unwrap(), "h"), 1);
}

fn calls_to_one(i: Instruction<'_>, callee: &str) -> bool {
    i.opcode() == fmerge_core::ir::opcode::CALL
        && i.called_value().is_some_and(|c| c.name() == callee)
}

fn insts(f: Function<'_>) -> Vec<Instruction<'_>> {
    f.blocks().into_iter().flat_map(|b| b.instructions()).collect()
}
