//! C++ virtual tables and virtual calls as the run-time estimate reads them
//! (`fmerge_llvm::profiling::vtables`): entries and address points of tables (from the
//! constant `getelementptr`s that store them and from their layout), which functions only
//! tables hold, tables that cannot be read, and the slot of a virtual call.

use fmerge_llvm::Llvm;
use std::collections::HashMap;
use std::path::Path;

const IR: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Base: nothing in this module points into it (another module may construct a Base).
@_ZTV4Base = linkonce_odr unnamed_addr constant { [5 x ptr] } { [5 x ptr] [ptr null, ptr null, ptr @base_d1, ptr @base_d0, ptr @base_run] }
; Test: a primary and a secondary vtable, stored by `make` in both GEP forms.
@_ZTV4Test = unnamed_addr constant { [5 x ptr], [3 x ptr] } { [5 x ptr] [ptr null, ptr null, ptr @test_d1, ptr @test_d0, ptr @test_body], [3 x ptr] [ptr inttoptr (i64 -8 to ptr), ptr null, ptr @thunk_d1] }
; Odd: passed to a call, so pointers into it may point anywhere.
@_ZTV3Odd = internal unnamed_addr constant { [3 x ptr] } { [3 x ptr] [ptr null, ptr null, ptr @odd_f] }
@hook = global ptr @escapes
@ops = constant [1 x ptr] [ptr @base_run]

declare void @use(ptr)

define void @make(ptr %p, ptr %q) {
  store ptr getelementptr inbounds inrange(-16, 24) (i8, ptr @_ZTV4Test, i64 16), ptr %p
  store ptr getelementptr inbounds ({ [5 x ptr], [3 x ptr] }, ptr @_ZTV4Test, i32 0, i32 1, i32 2), ptr %q
  call void @use(ptr @_ZTV3Odd)
  ret void
}

define linkonce_odr void @base_d1(ptr %this) { ret void }
define linkonce_odr void @base_d0(ptr %this) { ret void }
define linkonce_odr void @base_run(ptr %this) { ret void }
define void @test_d1(ptr %this) { ret void }
define void @test_d0(ptr %this) {
  call void @test_d1(ptr %this)
  ret void
}
define void @test_body(ptr %this) { ret void }
define void @thunk_d1(ptr %this) { ret void }
define internal void @odd_f(ptr %this) { ret void }
define void @escapes(ptr %this) { ret void }

define void @calls(ptr %o, i64 %off) {
  %vt = load ptr, ptr %o
  %s = getelementptr inbounds i8, ptr %vt, i64 8
  %f = load ptr, ptr %s
  call void %f(ptr %o)
  %f0 = load ptr, ptr %vt
  call void %f0(ptr %o)
  %s2 = getelementptr inbounds ptr, ptr %vt, i64 2
  %f2 = load ptr, ptr %s2
  call void %f2(ptr %o)
  %h = load ptr, ptr @hook
  call void %h(ptr %o)
  %s3 = getelementptr inbounds i8, ptr %vt, i64 %off
  %f3 = load ptr, ptr %s3
  call void %f3(ptr %o)
  call void @base_run(ptr %o)
  ret void
}
"#;

#[test]
fn tables_entries_address_points_and_confined_functions() {
    let llvm = Llvm::new();
    let m = llvm.parse(Path::new("vtables.ll"), IR.as_bytes()).expect("valid IR");
    let vt = m.virtual_tables();
    let by_name: HashMap<String, _> = vt.tables.iter().map(|t| (t.global.name(), t)).collect();
    let mut names: Vec<&String> = by_name.keys().collect();
    names.sort();
    assert_eq!(names, ["_ZTV4Base", "_ZTV4Test"], "Odd is passed to a call: not read");
    let entries = |t: &str| -> Vec<(u64, String)> {
        by_name[t].entries.iter().map(|&(o, f)| (o, f.name())).collect()
    };
    assert_eq!(
        entries("_ZTV4Base"),
        [(16, "base_d1".into()), (24, "base_d0".into()), (32, "base_run".into())]
    );
    assert_eq!(
        entries("_ZTV4Test"),
        [
            (16, "test_d1".into()),
            (24, "test_d0".into()),
            (32, "test_body".into()),
            (56, "thunk_d1".into())
        ]
    );
    // Base: from its layout only; Test: the stores (i8 and struct-indexed) and its layout.
    assert_eq!(by_name["_ZTV4Base"].address_points, [16]);
    assert_eq!(by_name["_ZTV4Test"].address_points, [16, 56]);
    let confined = |f: &str| vt.confine(m.function(f).unwrap());
    for f in ["base_d1", "base_d0", "test_d1", "test_d0", "test_body", "thunk_d1"] {
        assert!(confined(f), "{f} is only in tables (and called directly)");
    }
    assert!(!confined("base_run"), "also in @ops, which is no virtual table");
    assert!(!confined("odd_f"), "in a table that cannot be read");
    assert!(!confined("escapes"), "stored in @hook");
}

#[test]
fn the_slot_of_a_virtual_call() {
    let llvm = Llvm::new();
    let m = llvm.parse(Path::new("vtables.ll"), IR.as_bytes()).expect("valid IR");
    let f = m.function("calls").unwrap();
    let slots: Vec<Option<u64>> = f
        .blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.is_call_like())
        .map(|i| i.virtual_slot())
        .collect();
    // +8, +0, ptr-indexed +16; a load from a global, a variable offset and a direct call are
    // not virtual calls.
    assert_eq!(slots, [Some(8), Some(0), Some(16), None, None, None]);
}
