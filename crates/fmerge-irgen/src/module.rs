//! A whole generated module: families of similar functions, the helpers and globals they use,
//! and a `main` that calls every function on many inputs and prints checksums of the results,
//! of the side-effect log, of the global cells and of function-address comparisons.

use crate::alloc;
use crate::ast::*;
use crate::emit;
use crate::family::{self, CELLS, Drift, Features, PURE_HELPERS, RTAB_BITS, TABLES};
use crate::rng::Rng;
use std::fmt::Write;

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Families of similar functions (each starts from one random function).
    pub families: usize,
    /// Members per family, at most (at least 2).
    pub max_members: usize,
    /// Inputs each function is called with.
    pub inputs: usize,
    /// `invoke`/`landingpad` with a C++ personality (needs the C++ runtime when run).
    pub eh: bool,
    /// Stack slots with lifetime markers.
    pub slots: bool,
    /// Facts (parameter, return and call-site attributes, metadata, poison and fast-math
    /// flags, `llvm.assume`) that differ between family members, and pointer parameters.
    pub facts: bool,
    /// Rust-style vector instances (`RawVec` grow paths, [`crate::alloc`]); 0: none.
    pub alloc: usize,
    /// Emit every declared fact even where it does not hold (the control that shows a wrong
    /// fact changes what the program does after `-O2`; such modules have undefined
    /// behaviour by design).
    pub unchecked: bool,
}

impl Config {
    pub fn new(seed: u64) -> Config {
        Config {
            seed,
            families: 4,
            max_members: 4,
            inputs: 48,
            eh: true,
            slots: true,
            facts: true,
            alloc: 3,
            unchecked: false,
        }
    }

    /// The shape the soak and `tests/generated.rs` use for `seed`: family counts and sizes,
    /// exceptions, slots, facts and vector instances vary with the seed, so that any range
    /// of seeds covers every combination (facts and slots are on for three seeds in four,
    /// vector instances for one in two).
    pub fn shaped(seed: u64) -> Config {
        let h = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        Config {
            seed,
            families: 2 + (seed % 5) as usize,
            max_members: 2 + (seed / 5 % 4) as usize,
            inputs: 48,
            eh: !seed.is_multiple_of(3),
            slots: !h.is_multiple_of(4),
            facts: !(h >> 4).is_multiple_of(4),
            alloc: if (h >> 8).is_multiple_of(2) { 2 + (h >> 9) as usize % 3 } else { 0 },
            unchecked: false,
        }
    }
}

/// A generated module.
pub struct Generated {
    pub ll: String,
    pub functions: Vec<Function>,
    /// One line per family member: how it was derived from the family's base.
    pub notes: Vec<String>,
    /// The Rust-style vector instances (their `vecuse_*` entries are called like functions).
    pub vectors: Vec<alloc::Instance>,
}

const FNV: i64 = 0xcbf2_9ce4_8422_2325_u64 as i64;
const PRIME: i64 = 0x0000_0100_0000_01b3;

/// The families of functions for `cfg`, without the module around them.
pub fn families(cfg: &Config) -> (Vec<Function>, Vec<String>) {
    let mut rng = Rng::new(cfg.seed);
    let mut funcs: Vec<Function> = Vec::new();
    let mut notes = Vec::new();
    let mut callees = Vec::new();
    for fam in 0..cfg.families {
        // Functions of earlier families that call no generated function may be called.
        let first = funcs.len();
        let feat = Features { eh: cfg.eh, callees: &callees, slots: cfg.slots, facts: cfg.facts };
        let mut r = rng.fork();
        let base = family::function(&mut r, format!("fam{fam}_m0"), feat);
        let members = r.range(2, cfg.max_members.max(2) as i64) as usize;
        notes.push(format!("fam{fam}_m0: base ({} statements)", base.size()));
        funcs.push(base.clone());
        for m in 1..members {
            let mut f = base.clone();
            f.name = format!("fam{fam}_m{m}");
            let drift = match r.below(10) {
                0 => Drift::Identical,
                1 if !cfg.facts => Drift::Identical,
                1 | 2 if cfg.facts => Drift::Facts,
                2..=4 => Drift::Constants,
                _ => Drift::Similar,
            };
            let n = match drift {
                Drift::Identical => 0,
                Drift::Facts | Drift::Constants => r.range(1, 3),
                Drift::Similar => r.range(1, 4),
            };
            let what: Vec<&str> =
                (0..n).map(|_| family::mutate(&mut r, &mut f, drift, feat)).collect();
            // Copies keep their own linkage and address-taken flag now and then.
            if r.chance(30) {
                f.linkage = *r.pick(&[Linkage::Internal, Linkage::External, Linkage::LinkonceOdr]);
                f.address_taken = r.chance(25);
            }
            notes.push(format!("{}: {drift:?} [{}]", f.name, what.join(", ")));
            funcs.push(f);
        }
        // Functions with pointer parameters are called by the driver only.
        callees.extend(
            funcs[first..]
                .iter()
                .filter(|f| !f.calls_generated() && !f.has_ptr_params())
                .map(Function::callee),
        );
    }
    if cfg.unchecked {
        for f in &mut funcs {
            f.unchecked = true;
        }
    }
    (funcs, notes)
}

/// Generates the module for `cfg`.
pub fn generate(cfg: &Config) -> Generated {
    let (functions, mut notes) = families(cfg);
    let mut rng = Rng::new(cfg.seed ^ 0xD1B5_4A32_D192_ED03);
    let vectors = alloc::instances(&mut Rng::new(cfg.seed ^ 0x5851_F42D_4C95_7F2D), cfg.alloc);
    for v in &vectors {
        notes.push(format!(
            "{}: vector of {} ({} + x&31 pushes, reserve {:?}, scratch every {:?})",
            v.entry(),
            v.elem.name,
            v.base_pushes,
            v.reserve,
            v.scratch_every
        ));
    }
    let ll = module(&functions, &vectors, cfg, &mut rng);
    Generated { ll, functions, notes, vectors }
}

fn helpers(s: &mut String, eh: bool) {
    for w in [Ty::I32, Ty::I64] {
        let t = w.ll();
        // Pure helpers: wrapping arithmetic only.
        let k1 = w.lit(0x9E37_79B1);
        let k2 = w.lit(0x7F4A_7C15);
        writeln!(
            s,
            "define internal {t} @mix0_{t}({t} %a, {t} %b) noinline {{\n  %x = mul {t} %a, {k1}\n  \
             %y = add {t} %b, {k2}\n  %r = xor {t} %x, %y\n  ret {t} %r\n}}\n"
        )
        .unwrap();
        writeln!(
            s,
            "define internal {t} @mix1_{t}({t} %a, {t} %b) noinline {{\n  %x = shl {t} %b, 5\n  \
             %y = lshr {t} %b, 3\n  %z = xor {t} %a, %x\n  %r = add {t} %z, %y\n  ret {t} %r\n}}\n"
        )
        .unwrap();
        writeln!(
            s,
            "define {t} @mix2_{t}({t} %a, {t} %b) noinline {{\n  %x = mul {t} %b, 3\n  \
             %y = sub {t} %a, %x\n  %r = xor {t} %y, 85\n  ret {t} %r\n}}\n"
        )
        .unwrap();
        assert_eq!(PURE_HELPERS, 3);
        // The side-effect log: an FNV-style hash over (value, tag) pairs, and a count.
        let ext = if w == Ty::I64 { "%v".to_string() } else { "%x0".to_string() };
        let sext =
            if w == Ty::I64 { String::new() } else { format!("  %x0 = sext {t} %v to i64\n") };
        writeln!(
            s,
            "define internal void @log_{t}(i32 %tag, {t} %v) noinline {{\n{sext}  \
             %tg = zext i32 %tag to i64\n  %h = load i64, ptr @log_hash\n  %m1 = xor i64 %h, {ext}\n  \
             %m2 = mul i64 %m1, {PRIME}\n  %m3 = xor i64 %m2, %tg\n  %m4 = mul i64 %m3, {PRIME}\n  \
             store i64 %m4, ptr @log_hash\n  %c = load i64, ptr @log_count\n  %c1 = add i64 %c, 1\n  \
             store i64 %c1, ptr @log_count\n  ret void\n}}\n"
        )
        .unwrap();
        let tagw = if w == Ty::I64 { "  %tw = sext i32 %tag to i64\n" } else { "" };
        let tw = if w == Ty::I64 { "%tw" } else { "%tag" };
        writeln!(
            s,
            "define internal {t} @logret_{t}(i32 %tag, {t} %v) noinline {{\n  \
             call void @log_{t}(i32 %tag, {t} %v)\n{tagw}  %r = xor {t} %v, {tw}\n  ret {t} %r\n}}\n"
        )
        .unwrap();
        if eh {
            writeln!(
                s,
                "define internal {t} @maythrow_{t}({t} %x) noinline {{\nentry:\n  %m = and {t} %x, 3\n  \
                 %c = icmp eq {t} %m, 1\n  br i1 %c, label %throw, label %ok\nthrow:\n  \
                 %e = call ptr @__cxa_allocate_exception(i64 4)\n  store i32 7, ptr %e\n  \
                 call void @__cxa_throw(ptr %e, ptr @_ZTIi, ptr null)\n  unreachable\nok:\n  \
                 %r = mul {t} %x, 3\n  %r1 = add {t} %r, 1\n  ret {t} %r1\n}}\n"
            )
            .unwrap();
        }
        // Fact helpers: the low bits of a value (called with a call-site `range`), and the
        // fill and checksum of a stack slot.
        writeln!(
            s,
            "define internal {t} @lowbits_{t}({t} %a, {t} %m) noinline {{\n  %r = and {t} %a, %m\n  \
             ret {t} %r\n}}\n"
        )
        .unwrap();
        writeln!(
            s,
            "define internal void @fill_{t}(ptr %p, i64 %n, {t} %seed) noinline {{\nentry:\n  \
             br label %head\nhead:\n  %i = phi i64 [ 0, %entry ], [ %i1, %body ]\n  \
             %c = icmp ult i64 %i, %n\n  br i1 %c, label %body, label %done\nbody:\n  \
             %iw = {conv}\n  %m = mul {t} %iw, {k1}\n  %v = add {t} %m, %seed\n  \
             %e = getelementptr inbounds {t}, ptr %p, i64 %i\n  store {t} %v, ptr %e\n  \
             %i1 = add nuw nsw i64 %i, 1\n  br label %head\ndone:\n  ret void\n}}\n",
            conv = if w == Ty::I64 {
                "add i64 %i, 0".to_string()
            } else {
                format!("trunc i64 %i to {t}")
            }
        )
        .unwrap();
        writeln!(
            s,
            "define internal {t} @sum_{t}(ptr %p, i64 %n) noinline {{\nentry:\n  br label %head\n\
             head:\n  %i = phi i64 [ 0, %entry ], [ %i1, %body ]\n  \
             %acc = phi {t} [ 0, %entry ], [ %acc1, %body ]\n  %c = icmp ult i64 %i, %n\n  \
             br i1 %c, label %body, label %done\nbody:\n  \
             %e = getelementptr inbounds {t}, ptr %p, i64 %i\n  %v = load {t}, ptr %e\n  \
             %m = mul {t} %acc, 31\n  %acc1 = add {t} %m, %v\n  %i1 = add nuw nsw i64 %i, 1\n  \
             br label %head\ndone:\n  ret {t} %acc\n}}\n"
        )
        .unwrap();
        for n in ["smax", "smin", "umax", "umin"] {
            writeln!(s, "declare {t} @llvm.{n}.{t}({t}, {t})").unwrap();
        }
        writeln!(s, "declare {t} @llvm.ctpop.{t}({t})\ndeclare {t} @llvm.bswap.{t}({t})").unwrap();
        writeln!(s, "declare {t} @llvm.abs.{t}({t}, i1)\n").unwrap();
    }
    if eh {
        s.push_str(
            "@_ZTIi = external constant ptr\ndeclare ptr @__cxa_allocate_exception(i64)\n\
             declare void @__cxa_throw(ptr, ptr, ptr)\ndeclare i32 @__gxx_personality_v0(...)\n\
             declare ptr @__cxa_begin_catch(ptr)\ndeclare void @__cxa_end_catch()\n\n",
        );
    }
    s.push_str(
        "declare void @llvm.lifetime.start.p0(ptr)\ndeclare void @llvm.lifetime.end.p0(ptr)\n\
         declare void @llvm.assume(i1)\ndeclare i32 @printf(ptr, ...)\n\n",
    );
}

/// The tables that fact-carrying loads read: `@rtab{k}_W` (values below `2^RTAB_BITS[k]`,
/// for `!range`), and `@ptab{t}`, eight pointers into `@pdata` (16-byte aligned), with some
/// misaligned ones in table 1 and some null ones in table 2 (for `!nonnull` and `!align`).
fn fact_tables(s: &mut String, rng: &mut Rng) {
    for w in [Ty::I32, Ty::I64] {
        for (k, &bits) in RTAB_BITS.iter().enumerate() {
            let vals: Vec<String> = (0..16)
                .map(|j| {
                    // The largest value occurs, so that a narrower `!range` is wrong.
                    let v =
                        if j == 5 { (1i64 << bits) - 1 } else { rng.range(0, (1i64 << bits) - 1) };
                    format!("{} {v}", w.ll())
                })
                .collect();
            writeln!(
                s,
                "@rtab{k}_{0} = internal constant [16 x {0}] [{1}]",
                w.ll(),
                vals.join(", ")
            )
            .unwrap();
        }
    }
    let data: Vec<String> = (0..48).map(|_| format!("i64 {}", rng.constant())).collect();
    writeln!(s, "@pdata = internal global [48 x i64] [{}], align 16", data.join(", ")).unwrap();
    let offsets: [[Option<u64>; 8]; 3] = [
        [Some(0), Some(16), Some(32), Some(48), Some(64), Some(80), Some(96), Some(112)],
        [Some(0), Some(8), Some(16), Some(3), Some(32), Some(40), Some(5), Some(64)],
        [Some(0), None, Some(32), Some(48), None, Some(80), Some(96), None],
    ];
    for (t, offs) in offsets.iter().enumerate() {
        let ptrs: Vec<String> = offs
            .iter()
            .map(|o| match o {
                Some(o) => format!("ptr getelementptr inbounds (i8, ptr @pdata, i64 {o})"),
                None => "ptr null".into(),
            })
            .collect();
        writeln!(s, "@ptab{t} = internal constant [8 x ptr] [{}]", ptrs.join(", ")).unwrap();
    }
}

fn cstr(s: &mut String, name: &str, text: &str) {
    let mut esc = String::new();
    for b in text.bytes().chain([0]) {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            esc.push(b as char);
        } else {
            write!(esc, "\\{b:02X}").unwrap();
        }
    }
    writeln!(s, "@{name} = private unnamed_addr constant [{} x i8] c\"{esc}\"", text.len() + 1)
        .unwrap();
}

fn module(funcs: &[Function], vectors: &[alloc::Instance], cfg: &Config, rng: &mut Rng) -> String {
    let mut s = String::new();
    writeln!(s, "; generated by fmerge-irgen, seed {}", cfg.seed).unwrap();
    s.push_str(
        "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n\
         target triple = \"x86_64-pc-linux-gnu\"\n\n",
    );
    writeln!(s, "@log_hash = internal global i64 {FNV}\n@log_count = internal global i64 0")
        .unwrap();
    for w in [Ty::I32, Ty::I64] {
        for k in 0..CELLS {
            let link = if k.is_multiple_of(2) { "internal " } else { "" };
            writeln!(s, "@cell{k}_{0} = {link}global {0} 0", w.ll()).unwrap();
        }
        for k in 0..TABLES {
            let vals: Vec<String> =
                (0..16).map(|_| format!("{} {}", w.ll(), w.lit(rng.constant()))).collect();
            let kind = if k == 2 { "private unnamed_addr constant" } else { "internal constant" };
            writeln!(s, "@tab{k}_{0} = {kind} [16 x {0}] [{1}]", w.ll(), vals.join(", ")).unwrap();
        }
    }
    let specials = [0, 1, -1, 2, 3, 7, 15, 255, 256, 65535, 65536, i64::MIN, i64::MAX];
    let inputs: Vec<String> = (0..cfg.inputs)
        .map(|k| {
            let v = if k.is_multiple_of(3) { *rng.pick(&specials) } else { rng.constant() };
            format!("i64 {v}")
        })
        .collect();
    writeln!(s, "@inputs = internal constant [{} x i64] [{}]", cfg.inputs, inputs.join(", "))
        .unwrap();
    let taken: Vec<&Function> = funcs.iter().filter(|f| f.address_taken).collect();
    if !taken.is_empty() {
        let ptrs: Vec<String> = taken.iter().map(|f| format!("ptr @{}", f.name)).collect();
        writeln!(s, "@fptrs = internal global [{} x ptr] [{}]", ptrs.len(), ptrs.join(", "))
            .unwrap();
    }
    cstr(&mut s, "fmt.f", "%s %016llx\n");
    cstr(&mut s, "fmt.log", "log %llu %016llx\n");
    cstr(&mut s, "fmt.cells", "cells %016llx\n");
    cstr(&mut s, "fmt.addr", "addr %s %s %d\n");
    for f in funcs {
        cstr(&mut s, &format!("name.{}", f.name), &f.name);
    }
    for v in vectors {
        cstr(&mut s, &format!("name.{}", v.entry()), &v.entry());
    }
    fact_tables(&mut s, rng);
    s.push('\n');
    helpers(&mut s, cfg.eh);
    if !vectors.is_empty() {
        alloc::prelude(&mut s);
    }
    for f in funcs {
        s.push_str(&emit::function(f));
        s.push('\n');
    }
    for v in vectors {
        s.push_str(&alloc::instance(v));
        s.push('\n');
    }
    driver(&mut s, funcs, vectors, cfg.inputs);
    s
}

/// Elements of the buffer `main` passes for a pointer parameter (room for the largest
/// `elems` plus the largest misalignment).
const BUF: u32 = 20;

/// `h = (h ^ v) * PRIME` in `main`; returns the new hash's name.
/// The end of the driver's loop `j` over `n` inputs: the hash `h` becomes the accumulator,
/// and after the last input `printf` prints it under the function's `name`.
fn loop_latch(s: &mut String, j: usize, h: &str, n: impl std::fmt::Display, name: &str) {
    writeln!(
        s,
        "  %an{j} = add i64 {h}, 0\n  \
         %in{j} = add i64 %i{j}, 1\n  %d{j} = icmp eq i64 %in{j}, {n}\n  \
         br i1 %d{j}, label %P{j}, label %L{j}\nP{j}:\n  \
         call i32 (ptr, ...) @printf(ptr @fmt.f, ptr @name.{name}, i64 %an{j})"
    )
    .unwrap();
}

fn mix(s: &mut String, tag: &str, h: &str, v: &str) -> String {
    writeln!(s, "  %{tag}x = xor i64 {h}, {v}\n  %{tag} = mul i64 %{tag}x, {PRIME}").unwrap();
    format!("%{tag}")
}

fn driver(s: &mut String, funcs: &[Function], vectors: &[alloc::Instance], n: usize) {
    let mut allocas = String::new();
    let mut body = String::new();
    let s0 = &mut body;
    let mut prev = "entry".to_string();
    let mut acc = FNV.to_string();
    let load_input = |s: &mut String, j: usize, q: usize, np: usize| {
        writeln!(
            s,
            "  %ix{j}.{q} = mul i64 %i{j}, {np}\n  %iy{j}.{q} = add i64 %ix{j}.{q}, {}\n  \
             %iz{j}.{q} = urem i64 %iy{j}.{q}, {n}\n  \
             %ip{j}.{q} = getelementptr inbounds [{n} x i64], ptr @inputs, i64 0, i64 %iz{j}.{q}\n  \
             %in{j}.{q} = load i64, ptr %ip{j}.{q}",
            q + j
        )
        .unwrap();
    };
    for (j, f) in funcs.iter().enumerate() {
        let r = f.ret.ll();
        let w = f.arith.ll();
        writeln!(s0, "  br label %L{j}\nL{j}:").unwrap();
        writeln!(s0, "  %i{j} = phi i64 [ 0, %{prev} ], [ %in{j}, %L{j} ]").unwrap();
        writeln!(s0, "  %a{j} = phi i64 [ {acc}, %{prev} ], [ %an{j}, %L{j} ]").unwrap();
        let np = f.params.len();
        let mut args = Vec::new();
        // Pointer parameters: a fresh buffer of known contents for each call, passed at its
        // misalignment, as another parameter's pointer, or null on every fourth call.
        let mut bufs = Vec::new();
        let mut ptrs: Vec<String> = Vec::new();
        for (q, p) in f.params.iter().enumerate() {
            let Some(pp) = &p.ptr else {
                ptrs.push(String::new());
                continue;
            };
            if let Some(k) = f.alias_target(q) {
                ptrs.push(ptrs[k].clone());
                continue;
            }
            writeln!(allocas, "  %buf{j}.{q} = alloca [{BUF} x {w}], align 16").unwrap();
            writeln!(s0, "  %bb{j}.{q} = mul i64 %i{j}, 1000003").unwrap();
            for e in 0..BUF {
                writeln!(
                    s0,
                    "  %bv{j}.{q}.{e} = add i64 %bb{j}.{q}, {}\n  \
                     %be{j}.{q}.{e} = getelementptr inbounds [{BUF} x {w}], ptr %buf{j}.{q}, i64 0, i64 {e}",
                    e * 131 + q as u32
                )
                .unwrap();
                if f.arith == Ty::I64 {
                    writeln!(s0, "  store i64 %bv{j}.{q}.{e}, ptr %be{j}.{q}.{e}").unwrap();
                } else {
                    writeln!(
                        s0,
                        "  %bt{j}.{q}.{e} = trunc i64 %bv{j}.{q}.{e} to {w}\n  \
                         store {w} %bt{j}.{q}.{e}, ptr %be{j}.{q}.{e}"
                    )
                    .unwrap();
                }
            }
            writeln!(
                s0,
                "  %bp{j}.{q} = getelementptr inbounds {w}, ptr %buf{j}.{q}, i64 {}",
                pp.misalign
            )
            .unwrap();
            let v = if pp.null_calls {
                writeln!(
                    s0,
                    "  %bm{j}.{q} = and i64 %i{j}, 3\n  %bn{j}.{q} = icmp eq i64 %bm{j}.{q}, 3\n  \
                     %bs{j}.{q} = select i1 %bn{j}.{q}, ptr null, ptr %bp{j}.{q}"
                )
                .unwrap();
                format!("%bs{j}.{q}")
            } else {
                format!("%bp{j}.{q}")
            };
            bufs.push(q);
            ptrs.push(v);
        }
        for (q, p) in f.params.iter().enumerate() {
            if p.ptr.is_some() {
                args.push(format!("ptr {}", ptrs[q]));
                continue;
            }
            load_input(s0, j, q, np);
            let t = p.ty;
            let mut v = format!("%in{j}.{q}");
            if t != Ty::I64 {
                writeln!(s0, "  %arg{j}.{q} = trunc i64 %in{j}.{q} to {}", t.ll()).unwrap();
                v = format!("%arg{j}.{q}");
            }
            // A parameter with a domain gets a value of it (what every caller passes).
            if let Some((lo, hi)) = p.domain_ok() {
                writeln!(
                    s0,
                    "  %du{j}.{q} = urem {0} {v}, {1}\n  %da{j}.{q} = add {0} %du{j}.{q}, {2}",
                    t.ll(),
                    t.lit(hi - lo),
                    t.lit(lo)
                )
                .unwrap();
                v = format!("%da{j}.{q}");
            }
            let noundef = if p.noundef { "noundef " } else { "" };
            args.push(format!("{} {}{noundef}{v}", t.ll(), emit::narrow_ext(t, p.ext)));
        }
        let callee = if f.address_taken {
            let k = funcs[..j].iter().filter(|g| g.address_taken).count();
            let total = funcs.iter().filter(|g| g.address_taken).count();
            writeln!(
                s0,
                "  %fpp{j} = getelementptr inbounds [{total} x ptr], ptr @fptrs, i64 0, i64 {k}\n  \
                 %fp{j} = load ptr, ptr %fpp{j}"
            )
            .unwrap();

            format!("%fp{j}")
        } else {
            format!("@{}", f.name)
        };
        let ret_ext = emit::narrow_ext(f.ret, f.ret_facts.ext);
        writeln!(s0, "  %r{j} = call {ret_ext}{r} {callee}({})", args.join(", ")).unwrap();
        let rz = if f.ret == Ty::I64 {
            format!("%r{j}")
        } else {
            writeln!(s0, "  %rz{j} = sext {r} %r{j} to i64").unwrap();
            format!("%rz{j}")
        };
        let mut h = mix(s0, &format!("ha{j}"), &format!("%a{j}"), &rz);
        // The probe of the return facts: a comparison with the family base's bound.
        if let Some(bound) = f.ret_facts.probe {
            writeln!(
                s0,
                "  %rp{j} = icmp ult {r} %r{j}, {}\n  %rq{j} = zext i1 %rp{j} to i64",
                f.ret.lit(bound)
            )
            .unwrap();
            h = mix(s0, &format!("hp{j}"), &h, &format!("%rq{j}"));
        }
        // What the function left in its buffers.
        for &q in &bufs {
            for e in 0..BUF {
                writeln!(
                    s0,
                    "  %ce{j}.{q}.{e} = getelementptr inbounds [{BUF} x {w}], ptr %buf{j}.{q}, i64 0, i64 {e}\n  \
                     %cl{j}.{q}.{e} = load {w}, ptr %ce{j}.{q}.{e}"
                )
                .unwrap();
                let v = if f.arith == Ty::I64 {
                    format!("%cl{j}.{q}.{e}")
                } else {
                    writeln!(s0, "  %cs{j}.{q}.{e} = sext {w} %cl{j}.{q}.{e} to i64").unwrap();
                    format!("%cs{j}.{q}.{e}")
                };
                h = mix(s0, &format!("hb{j}.{q}.{e}"), &h, &v);
            }
        }
        loop_latch(s0, j, &h, n, &f.name);
        prev = format!("P{j}");
        acc = format!("%an{j}");
    }
    // The vector instances: `i64 (i64)` each.
    for (x, v) in vectors.iter().enumerate() {
        let j = funcs.len() + x;
        writeln!(s0, "  br label %L{j}\nL{j}:").unwrap();
        writeln!(s0, "  %i{j} = phi i64 [ 0, %{prev} ], [ %in{j}, %L{j} ]").unwrap();
        writeln!(s0, "  %a{j} = phi i64 [ {acc}, %{prev} ], [ %an{j}, %L{j} ]").unwrap();
        load_input(s0, j, 0, 1);
        writeln!(s0, "  %r{j} = call i64 @{}(i64 %in{j}.0)", v.entry()).unwrap();
        let h = mix(s0, &format!("ha{j}"), &format!("%a{j}"), &format!("%r{j}"));
        loop_latch(s0, j, &h, n, &v.entry());
        prev = format!("P{j}");
        acc = format!("%an{j}");
    }
    s.push_str("define i32 @main() {\nentry:\n");
    s.push_str(&allocas);
    s.push_str(&body);
    s.push_str(
        "  %lc = load i64, ptr @log_count\n  %lh = load i64, ptr @log_hash\n  \
         call i32 (ptr, ...) @printf(ptr @fmt.log, i64 %lc, i64 %lh)\n",
    );
    let mut h = FNV.to_string();
    let mut k = 0;
    for w in [Ty::I32, Ty::I64] {
        for c in 0..CELLS {
            let t = w.ll();
            writeln!(s, "  %c{k} = load {t}, ptr @cell{c}_{t}").unwrap();
            let v = if w == Ty::I64 {
                format!("%c{k}")
            } else {
                writeln!(s, "  %cz{k} = sext {t} %c{k} to i64").unwrap();
                format!("%cz{k}")
            };
            writeln!(s, "  %cx{k} = xor i64 {h}, {v}\n  %ch{k} = mul i64 %cx{k}, {PRIME}").unwrap();
            h = format!("%ch{k}");
            k += 1;
        }
    }
    writeln!(s, "  call i32 (ptr, ...) @printf(ptr @fmt.cells, i64 {h})").unwrap();
    // Distinct functions whose addresses are significant must keep distinct addresses.
    let sig: Vec<(usize, &Function)> = funcs
        .iter()
        .filter(|f| f.address_taken)
        .enumerate()
        .filter(|(_, f)| f.unnamed == UnnamedAddr::None)
        .collect();
    let total = funcs.iter().filter(|g| g.address_taken).count();
    for (x, (ka, fa)) in sig.iter().enumerate() {
        for (kb, fb) in &sig[x + 1..] {
            let tag = format!("{ka}_{kb}");
            writeln!(
                s,
                "  %pa{tag} = getelementptr inbounds [{total} x ptr], ptr @fptrs, i64 0, i64 {ka}\n  \
                 %la{tag} = load ptr, ptr %pa{tag}\n  \
                 %pb{tag} = getelementptr inbounds [{total} x ptr], ptr @fptrs, i64 0, i64 {kb}\n  \
                 %lb{tag} = load ptr, ptr %pb{tag}\n  %eq{tag} = icmp eq ptr %la{tag}, %lb{tag}\n  \
                 %ez{tag} = zext i1 %eq{tag} to i32\n  \
                 call i32 (ptr, ...) @printf(ptr @fmt.addr, ptr @name.{}, ptr @name.{}, i32 %ez{tag})",
                fa.name, fb.name
            )
            .unwrap();
        }
    }
    writeln!(s, "  %rt = trunc i64 {acc} to i32\n  %rc = and i32 %rt, 63\n  ret i32 %rc\n}}")
        .unwrap();
}
