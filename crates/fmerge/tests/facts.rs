//! Facts in merged code: when one body serves several functions, every fact LLVM may use in
//! it must hold for each of them. One case per kind of fact: two functions `@f` and `@g` that
//! differ only in that fact, each true in its own program (`@f` is called with values that
//! satisfy it, `@g` with values that do not). Each case comes in three variants, so that each
//! stage merges it: as it is (identical stage, or similar when the bodies differ), with
//! stores to different globals (constants stage), and with one more instruction in `@g`
//! (similar stage).
//!
//! A case is only worth something if breaking the rule changes behaviour: the *control*
//! gives `@g` `@f`'s fact (what a merge that kept `@f`'s promise for `@g` would do), and the
//! test first checks that the control, optimized with `opt -O2` and compiled with `llc -O2`,
//! prints something else than the original. Then every merge mode must print the same as the
//! original after the same optimization, must have merged, and no call site fmerge created may
//! state a fact (`fm_call_like_function`).
//!
//! Where each rule is enforced: parameter and return attributes of a shared body are the
//! intersection of the members' (`intersect::apply` for identical and constant merges,
//! `fm_set_merged_attrs` for similar ones); a shared instruction keeps the poison and
//! fast-math flags, metadata and call-site attributes that all members have
//! (`intersect::instruction`); an instruction only one member has runs only for that member,
//! so it keeps its own; `llvm.assume` is an instruction like any other; call sites fmerge
//! creates carry only ABI attributes. `samesign` is handled by the same flag intersection as
//! `nsw`, but LLVM 22's -O2 pipeline does not exploit it in a way a program can show.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

struct Fact {
    name: &'static str,
    f_sig: &'static str,
    f_body: &'static str,
    g_sig: &'static str,
    /// `None`: the same body as `@f`.
    g_body: Option<&'static str>,
    f_args: &'static str,
    g_args: &'static str,
    /// A return attribute of `@f` only.
    f_ret: &'static str,
}

const FACTS: &[Fact] = &[
    Fact {
        name: "param-range",
        f_sig: "i32 range(i32 0, 4) %x",
        f_body: "  %w = add i32 %x, 0\n  %c = icmp ult i32 %x, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        g_sig: "i32 %x",
        g_body: None,
        f_args: "i32 2",
        g_args: "i32 50",
        f_ret: "",
    },
    Fact {
        name: "param-nonnull",
        f_sig: "ptr nonnull %p, i32 %x",
        f_body: "  %c = icmp eq ptr %p, null\n  %v = select i1 %c, i32 -1, i32 7\n",
        g_sig: "ptr %p, i32 %x",
        g_body: None,
        f_args: "ptr @buf, i32 3",
        g_args: "ptr null, i32 3",
        f_ret: "",
    },
    Fact {
        name: "param-align",
        f_sig: "ptr align 16 %p, i32 %x",
        f_body: "  %i = ptrtoint ptr %p to i64\n  %m = and i64 %i, 15\n  %v = trunc i64 %m to i32\n",
        g_sig: "ptr %p, i32 %x",
        g_body: None,
        f_args: "ptr @buf, i32 3",
        g_args: "ptr getelementptr (i8, ptr @buf, i64 1), i32 3",
        f_ret: "",
    },
    Fact {
        name: "param-noalias",
        f_sig: "ptr noalias %p, ptr noalias %q, i32 %x",
        f_body: "  store i32 1, ptr %p\n  store i32 2, ptr %q\n  %v = load i32, ptr %p\n",
        g_sig: "ptr %p, ptr %q, i32 %x",
        g_body: None,
        f_args: "ptr @buf, ptr @buf2, i32 3",
        g_args: "ptr @buf, ptr @buf, i32 3",
        f_ret: "",
    },
    Fact {
        name: "param-dereferenceable",
        f_sig: "ptr dereferenceable(4) %p, i32 %x",
        f_body: "  %c = icmp eq ptr %p, null\n  br i1 %c, label %z, label %l\nl:\n  %w = load i32, ptr %p\n  br label %z\nz:\n  %v = phi i32 [ -1, %entry ], [ %w, %l ]\n",
        g_sig: "ptr %p, i32 %x",
        g_body: None,
        f_args: "ptr @buf, i32 3",
        g_args: "ptr null, i32 3",
        f_ret: "",
    },
    Fact {
        name: "call-site-return-range",
        f_sig: "i32 %x",
        f_body: "  %w = call range(i32 0, 4) i32 @abs(i32 %x)\n  %c = icmp ult i32 %w, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %w = call i32 @abs(i32 %x)\n  %c = icmp ult i32 %w, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        ),
        f_args: "i32 2",
        g_args: "i32 -50",
        f_ret: "",
    },
    Fact {
        name: "load-range-metadata",
        f_sig: "ptr %p, i32 %x",
        f_body: "  %w = load i32, ptr %p, !range !0\n  %c = icmp ult i32 %w, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        g_sig: "ptr %p, i32 %x",
        g_body: Some(
            "  %w = load i32, ptr %p\n  %c = icmp ult i32 %w, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        ),
        f_args: "ptr @three, i32 2",
        g_args: "ptr @fifty, i32 2",
        f_ret: "",
    },
    Fact {
        name: "load-nonnull-metadata",
        f_sig: "ptr %p, i32 %x",
        f_body: "  %w = load ptr, ptr %p, !nonnull !1\n  %c = icmp eq ptr %w, null\n  %v = select i1 %c, i32 -1, i32 7\n",
        g_sig: "ptr %p, i32 %x",
        g_body: Some(
            "  %w = load ptr, ptr %p\n  %c = icmp eq ptr %w, null\n  %v = select i1 %c, i32 -1, i32 7\n",
        ),
        f_args: "ptr @pbuf, i32 2",
        g_args: "ptr @pnull, i32 2",
        f_ret: "",
    },
    Fact {
        name: "nsw",
        f_sig: "i32 %x",
        f_body: "  %a = add nsw i32 %x, 1\n  %c = icmp sgt i32 %a, %x\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %a = add i32 %x, 1\n  %c = icmp sgt i32 %a, %x\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 5",
        g_args: "i32 2147483647",
        f_ret: "",
    },
    Fact {
        name: "nuw",
        f_sig: "i32 %x",
        f_body: "  %a = add nuw i32 %x, 1\n  %c = icmp ugt i32 %a, %x\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %a = add i32 %x, 1\n  %c = icmp ugt i32 %a, %x\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 5",
        g_args: "i32 -1",
        f_ret: "",
    },
    Fact {
        name: "exact",
        f_sig: "i32 %x",
        f_body: "  %a = lshr exact i32 %x, 2\n  %b = shl i32 %a, 2\n  %c = icmp eq i32 %b, %x\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %a = lshr i32 %x, 2\n  %b = shl i32 %a, 2\n  %c = icmp eq i32 %b, %x\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 8",
        g_args: "i32 7",
        f_ret: "",
    },
    Fact {
        name: "disjoint",
        f_sig: "i32 %x",
        f_body: "  %a = or disjoint i32 %x, 1\n  %b = sub i32 %a, 1\n  %c = icmp eq i32 %b, %x\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %a = or i32 %x, 1\n  %b = sub i32 %a, 1\n  %c = icmp eq i32 %b, %x\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 8",
        g_args: "i32 3",
        f_ret: "",
    },
    Fact {
        name: "nneg",
        f_sig: "i32 %x",
        f_body: "  %a = zext nneg i32 %x to i64\n  %s = sext i32 %x to i64\n  %c = icmp eq i64 %a, %s\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %a = zext i32 %x to i64\n  %s = sext i32 %x to i64\n  %c = icmp eq i64 %a, %s\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 8",
        g_args: "i32 -5",
        f_ret: "",
    },
    Fact {
        name: "fast-math",
        f_sig: "i32 %x",
        f_body: "  %d = sitofp i32 %x to double\n  %n = fdiv double %d, %d\n  %c = fcmp nnan uno double %n, 0.0\n  %v = zext i1 %c to i32\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %d = sitofp i32 %x to double\n  %n = fdiv double %d, %d\n  %c = fcmp uno double %n, 0.0\n  %v = zext i1 %c to i32\n",
        ),
        f_args: "i32 3",
        g_args: "i32 0",
        f_ret: "",
    },
    Fact {
        name: "return-range",
        f_sig: "i32 %x",
        f_body: "  %v = and i32 %x, 3\n",
        g_sig: "i32 %x",
        g_body: Some("  %v = and i32 %x, 255\n"),
        f_args: "i32 2",
        g_args: "i32 77",
        f_ret: "range(i32 0, 4) ",
    },
    Fact {
        name: "assume",
        f_sig: "i32 %x",
        f_body: "  %k = icmp ult i32 %x, 4\n  call void @llvm.assume(i1 %k)\n  %w = add i32 %x, 0\n  %c = icmp ult i32 %x, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        g_sig: "i32 %x",
        g_body: Some(
            "  %w = add i32 %x, 0\n  %c = icmp ult i32 %x, 4\n  %v = select i1 %c, i32 10, i32 1000\n",
        ),
        f_args: "i32 2",
        g_args: "i32 50",
        f_ret: "",
    },
];

const HEADER: &str = r#"declare i32 @printf(ptr, ...)
declare i32 @abs(i32)
declare void @llvm.assume(i1)
@fmt = private constant [4 x i8] c"%d\0A\00"
@buf = global [64 x i8] zeroinitializer, align 16
@buf2 = global [64 x i8] zeroinitializer, align 16
@three = global i32 3
@fifty = global i32 50
@pbuf = global ptr @buf
@pnull = global ptr null
@sink.f = global i32 0
@sink.g = global i32 0
@hsink = global i32 0
!0 = !{i32 0, i32 4}
!1 = !{}
"#;

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    AsIs,
    Constants,
    Similar,
}

/// Work both functions share, so that merging them pays (kept alive by a volatile store).
fn shared_work() -> String {
    let ops = ["xor", "add", "mul", "lshr", "and", "or", "sub"];
    let consts = [12345, 977, 17, 3, 65535, 4096, 11];
    let mut s = String::from("  %g1 = mul i32 %x, 31\n");
    for k in 2..40 {
        s += &format!("  %g{k} = {} i32 %g{}, {}\n", ops[k % 7], k - 1, consts[k % 7]);
    }
    s + "  store volatile i32 %g39, ptr @hsink\n"
}

fn function(name: &str, sig: &str, body: &str, ret: &str, variant: Variant) -> String {
    let mut tail = String::new();
    let mut v = "%v";
    match variant {
        Variant::Constants => tail = format!("  store i32 %v, ptr @sink.{name}\n"),
        Variant::Similar if name == "g" => {
            tail = "  %v.g = add i32 %v, 0\n".into();
            v = "%v.g";
        }
        _ => {}
    }
    format!(
        "define {ret}i32 @{name}({sig}) noinline {{\nentry:\n{}{body}{tail}  ret i32 {v}\n}}\n",
        shared_work()
    )
}

/// The module of `fact`; with `violate`, `@g` carries `@f`'s fact (the control).
fn module(fact: &Fact, variant: Variant, violate: bool) -> String {
    let g_body = fact.g_body.unwrap_or(fact.f_body);
    let (g_sig, g_body, g_ret) = match (violate, fact.f_ret.is_empty()) {
        (false, _) => (fact.g_sig, g_body, ""),
        // A return fact: g keeps its own body and gets f's promise about what it returns.
        (true, false) => (fact.g_sig, g_body, fact.f_ret),
        (true, true) => (fact.f_sig, fact.f_body, ""),
    };
    let main = format!(
        "define i32 @main() {{\nentry:\n  %a = call i32 @f({})\n  %b = call i32 @g({})\n  \
         %pa = call i32 (ptr, ...) @printf(ptr @fmt, i32 %a)\n  \
         %pb = call i32 (ptr, ...) @printf(ptr @fmt, i32 %b)\n  \
         %cb = icmp ult i32 %b, 4\n  %zb = zext i1 %cb to i32\n  \
         %pc = call i32 (ptr, ...) @printf(ptr @fmt, i32 %zb)\n  ret i32 0\n}}\n",
        fact.f_args, fact.g_args
    );
    HEADER.to_string()
        + &function("f", fact.f_sig, fact.f_body, fact.f_ret, variant)
        + &function("g", g_sig, g_body, g_ret, variant)
        + &main
}

/// Optimizes with `opt -O2`, compiles with `llc -O2`, links, runs: (exit code, stdout).
fn run_optimized(input: &Path, dir: &Path, tag: &str) -> (i32, String) {
    let (bc, obj, exe) =
        (dir.join(format!("{tag}.o2.bc")), dir.join(format!("{tag}.o")), dir.join(tag));
    run_ok(Command::new("opt-22").arg("-O2").arg(input).arg("-o").arg(&bc));
    run_ok(
        Command::new("llc-22")
            .args(["-O2", "-relocation-model=pic", "-filetype=obj"])
            .arg(&bc)
            .arg("-o")
            .arg(&obj),
    );
    run_ok(Command::new("clang-22").arg(&obj).arg("-o").arg(&exe));
    let (code, out, _) = execute(&exe);
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// With `--no-estimate`: the cases are small programs that run everything in loops, and the
/// default would leave merges out for their estimated run-time cost; facts are about merging.
const MODES: &[(&str, &[&str])] = &[
    ("default", &["--no-estimate"]),
    ("whole-program", &["--whole-program", "--no-estimate"]),
    ("exact", &["--profit", "exact", "--no-estimate"]),
    ("identical", &["--merge", "identical"]),
];

/// Attributes that state facts: none may sit on a call site fmerge created.
const FACT_ATTRIBUTES: &[&str] =
    &["range(", "nonnull", "noalias", "dereferenceable", "align ", "noundef"];

fn check_variant(variant: Variant) {
    let dir = tempfile::tempdir().unwrap();
    for fact in FACTS {
        let tag = format!("{}-{}", fact.name, variant as u8);
        let input = dir.path().join(format!("{tag}.ll"));
        let control = dir.path().join(format!("{tag}.control.ll"));
        std::fs::write(&input, module(fact, variant, false)).unwrap();
        std::fs::write(&control, module(fact, variant, true)).unwrap();
        let expected = run_optimized(&input, dir.path(), &tag);
        assert_ne!(
            run_optimized(&control, dir.path(), &format!("{tag}.control")),
            expected,
            "{tag}: giving @g @f's fact no longer changes the optimized program: the case \
             cannot tell a violation"
        );
        for (mode, args) in MODES {
            let identical_only = *mode == "identical";
            if identical_only && (variant != Variant::AsIs || fact.g_body.is_some()) {
                continue;
            }
            let out = dir.path().join(format!("{tag}.{mode}.ll"));
            let report = dir.path().join(format!("{tag}.{mode}.json"));
            run_ok(
                fmerge()
                    .arg("opt")
                    .arg(&input)
                    .args(*args)
                    .args(["--emit", "ll", "-q", "-o"])
                    .arg(&out)
                    .arg("--report")
                    .arg(&report),
            );
            let r: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
            assert!(
                !r["merges"].as_array().unwrap().is_empty(),
                "{tag} ({mode}): nothing merged, the case tests nothing"
            );
            let text = std::fs::read_to_string(&out).unwrap();
            let created_call = |l: &&str| {
                l.contains("call ") && ["@f(", "@g(", ".fmerged("].iter().any(|c| l.contains(c))
            };
            for line in text.lines().filter(created_call) {
                for attr in FACT_ATTRIBUTES {
                    assert!(
                        !line.contains(attr),
                        "{tag} ({mode}): a created call states a fact: {line}"
                    );
                }
            }
            let got = run_optimized(&out, dir.path(), &format!("{tag}.{mode}"));
            assert_eq!(got, expected, "{tag} ({mode}): the merged program behaves differently");
        }
    }
}

#[test]
fn facts_of_identical_functions_hold_for_every_member() {
    check_variant(Variant::AsIs);
}

#[test]
fn facts_of_functions_equal_up_to_constants_hold_for_every_member() {
    check_variant(Variant::Constants);
}

#[test]
fn facts_of_similar_functions_hold_for_every_member() {
    check_variant(Variant::Similar);
}
