//! Rust-style allocation paths: a growable buffer (`Vec<T>`: capacity, pointer, length) with
//! Rust's `RawVec` helpers instantiated once per element type, so that similar merging pairs
//! them: `grow_amortized` (overflow-checked capacity and layout arithmetic, a `current_memory`
//! and a result slot on the stack with lifetime markers; like `RawVecInner` it takes the
//! element layout as parameters, each with a `range` of exactly this instance's value, so the
//! copies for two element types are identical up to those attributes and a merge that keeps
//! one's `range` computes the other's minimum capacity and byte count wrongly),
//! `finish_grow` (malloc or realloc, the result written through an `sret` pointer; Rust's
//! `Alignment` range on the alignment), `reserve`, `push`, `get` (call sites with Rust's
//! call-site attributes), and a user function
//! that fills a vector, uses a scratch array with lifetime markers inside its loop, checksums,
//! and frees. The allocation never fails in practice; if it does the program exits with
//! status 3, before any difference could be printed.

use crate::rng::Rng;
use std::fmt::Write;

/// An element type: its IR type, size, alignment and fields (bit widths, at byte offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elem {
    pub name: &'static str,
    pub ll: &'static str,
    pub size: u64,
    pub align: u64,
    /// (offset, bits) of each integer field.
    pub fields: &'static [(u64, u32)],
}

pub const ELEMS: [Elem; 7] = [
    Elem { name: "u8", ll: "i8", size: 1, align: 1, fields: &[(0, 8)] },
    Elem { name: "u16", ll: "i16", size: 2, align: 2, fields: &[(0, 16)] },
    Elem { name: "u32", ll: "i32", size: 4, align: 4, fields: &[(0, 32)] },
    Elem { name: "u64", ll: "i64", size: 8, align: 8, fields: &[(0, 64)] },
    Elem { name: "pair", ll: "{ i32, i32 }", size: 8, align: 4, fields: &[(0, 32), (4, 32)] },
    Elem { name: "wide", ll: "{ i64, i16 }", size: 16, align: 8, fields: &[(0, 64), (8, 16)] },
    Elem { name: "rgb", ll: "[3 x i8]", size: 3, align: 1, fields: &[(0, 8), (1, 8), (2, 8)] },
];

/// One instantiation of the vector code.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub k: usize,
    pub elem: Elem,
    /// Pushes: `(x & 31) + base_pushes`.
    pub base_pushes: i64,
    /// Multiplier of the pushed values.
    pub mul: i64,
    /// Calls `reserve(extra)` first when `x & 64`.
    pub reserve: Option<i64>,
    /// A scratch array with lifetime markers inside the push loop, every `scratch_every`
    /// iterations (a power of two).
    pub scratch_every: Option<i64>,
    /// Linkage of the helpers.
    pub linkage: &'static str,
}

impl Instance {
    /// The name of the function the driver calls: `i64 (i64)`.
    pub fn entry(&self) -> String {
        format!("vecuse_{}_{}", self.elem.name, self.k)
    }
}

/// `count` instances: element types drawn with repeats (a repeated type with other constants
/// is a constants-merging candidate, another type a similar-merging one).
pub fn instances(rng: &mut Rng, count: usize) -> Vec<Instance> {
    (0..count)
        .map(|k| Instance {
            k,
            elem: *rng.pick(&ELEMS),
            base_pushes: rng.range(1, 40),
            mul: *rng.pick(&[3, 7, 31, 0x9E37_79B1, 0x7FFF_FFFF, -5]),
            reserve: rng.chance(50).then(|| rng.range(1, 100)),
            scratch_every: rng.chance(70).then(|| *rng.pick(&[1, 2, 4, 8])),
            linkage: ["internal ", "internal ", "linkonce_odr ", ""][rng.below(4)],
        })
        .collect()
}

/// Declarations and helpers every module with instances needs.
pub fn prelude(s: &mut String) {
    s.push_str(
        "declare noalias ptr @malloc(i64)\ndeclare ptr @realloc(ptr, i64)\ndeclare void @free(ptr)\n\
         declare void @exit(i32)\ndeclare { i64, i1 } @llvm.uadd.with.overflow.i64(i64, i64)\n\
         declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)\n\n",
    );
    s.push_str(
        "@fmt.allocfail = private unnamed_addr constant [24 x i8] c\"allocation failed:%lld\\0A\\00\"\n\
         define internal void @alloc_failed(i64 %r) noinline noreturn {\n  \
         call i32 (ptr, ...) @printf(ptr @fmt.allocfail, i64 %r)\n  call void @exit(i32 3)\n  \
         unreachable\n}\n\n",
    );
}

/// Stores the `i64` value `v` into the element at `p` (each field a slice of `v`'s bits).
fn store_elem(s: &mut String, e: &Elem, v: &str, p: &str, tag: &str) {
    for (n, &(off, bits)) in e.fields.iter().enumerate() {
        let fp = if off == 0 {
            p.to_string()
        } else {
            let q = format!("%{tag}.fp{n}");
            writeln!(s, "  {q} = getelementptr inbounds i8, ptr {p}, i64 {off}").unwrap();
            q
        };
        let val = if n == 0 {
            v.to_string()
        } else {
            let sh = format!("%{tag}.sh{n}");
            writeln!(s, "  {sh} = lshr i64 {v}, {}", 8 * n + 5).unwrap();
            sh
        };
        if bits == 64 {
            writeln!(s, "  store i64 {val}, ptr {fp}").unwrap();
        } else {
            writeln!(s, "  %{tag}.t{n} = trunc i64 {val} to i{bits}").unwrap();
            writeln!(s, "  store i{bits} %{tag}.t{n}, ptr {fp}").unwrap();
        }
    }
}

/// Loads the element at `p` as an `i64` checksum of its fields into `%{tag}`.
fn load_elem(s: &mut String, e: &Elem, p: &str, tag: &str) {
    let mut acc = "0".to_string();
    for (n, &(off, bits)) in e.fields.iter().enumerate() {
        let fp = if off == 0 {
            p.to_string()
        } else {
            let q = format!("%{tag}.lp{n}");
            writeln!(s, "  {q} = getelementptr inbounds i8, ptr {p}, i64 {off}").unwrap();
            q
        };
        let x = if bits == 64 {
            writeln!(s, "  %{tag}.l{n} = load i64, ptr {fp}").unwrap();
            format!("%{tag}.l{n}")
        } else {
            writeln!(s, "  %{tag}.l{n} = load i{bits}, ptr {fp}").unwrap();
            writeln!(s, "  %{tag}.x{n} = sext i{bits} %{tag}.l{n} to i64").unwrap();
            format!("%{tag}.x{n}")
        };
        writeln!(s, "  %{tag}.m{n} = mul i64 {acc}, 131").unwrap();
        writeln!(s, "  %{tag}.a{n} = add i64 %{tag}.m{n}, {x}").unwrap();
        acc = format!("%{tag}.a{n}");
    }
    writeln!(s, "  %{tag} = add i64 {acc}, 0").unwrap();
}

/// The IR of one instance.
pub fn instance(inst: &Instance) -> String {
    let e = &inst.elem;
    let k = format!("{}_{}", e.name, inst.k);
    let (size, align, t) = (e.size, e.align, e.ll);
    let link = inst.linkage;
    let mut s = String::new();
    // finish_grow: allocate or reallocate; the result through an sret pointer.
    writeln!(
        s,
        "define {link}void @finish_grow_{k}(ptr noalias sret({{ i64, i64, i64 }}) align 8 %out, \
         i64 noundef range(i64 1, -9223372036854775807) %align, i64 noundef %size, \
         ptr noalias noundef readonly align 8 dereferenceable(24) %cur) noinline {{
entry:
  %ca = load i64, ptr %cur
  %has = icmp ne i64 %ca, 0
  br i1 %has, label %re, label %fresh
re:
  %cpp = getelementptr inbounds i8, ptr %cur, i64 8
  %cp = load ptr, ptr %cpp
  %csp = getelementptr inbounds i8, ptr %cur, i64 16
  %cs = load i64, ptr %csp
  %z = icmp eq i64 %cs, 0
  br i1 %z, label %fresh, label %grow
grow:
  %rp = call ptr @realloc(ptr %cp, i64 %size)
  br label %done
fresh:
  %mp = call ptr @malloc(i64 %size)
  br label %done
done:
  %p = phi ptr [ %rp, %grow ], [ %mp, %fresh ]
  %isnull = icmp eq ptr %p, null
  %o1 = getelementptr inbounds i8, ptr %out, i64 8
  %o2 = getelementptr inbounds i8, ptr %out, i64 16
  br i1 %isnull, label %err, label %ok
ok:
  store i64 0, ptr %out
  store ptr %p, ptr %o1
  store i64 %size, ptr %o2
  ret void
err:
  store i64 1, ptr %out
  store i64 %align, ptr %o1
  store i64 %size, ptr %o2
  ret void
}}
"
    )
    .unwrap();
    // grow_amortized: the new capacity and layout, checked; finish_grow; the vector updated.
    writeln!(
        s,
        "define {link}i64 @grow_amortized_{k}(ptr noundef align 8 dereferenceable(24) %vec, i64 %len, i64 %additional, \
         i64 noundef range(i64 {align}, {align1}) %elem_align, i64 noundef range(i64 {size}, {size1}) %elem_size) noinline {{
entry:
  %cur = alloca {{ i64, ptr, i64 }}, align 8
  %res = alloca {{ i64, i64, i64 }}, align 8
  %ov = call {{ i64, i1 }} @llvm.uadd.with.overflow.i64(i64 %len, i64 %additional)
  %req = extractvalue {{ i64, i1 }} %ov, 0
  %ovf = extractvalue {{ i64, i1 }} %ov, 1
  br i1 %ovf, label %overflow, label %l1
l1:
  %cap = load i64, ptr %vec
  %dbl = shl nuw i64 %cap, 1
  %c1 = call i64 @llvm.umax.i64(i64 %dbl, i64 %req)
  %is1 = icmp eq i64 %elem_size, 1
  %small = icmp ule i64 %elem_size, 1024
  %mc0 = select i1 %small, i64 4, i64 1
  %mc = select i1 %is1, i64 8, i64 %mc0
  %c2 = call i64 @llvm.umax.i64(i64 %c1, i64 %mc)
  %mo = call {{ i64, i1 }} @llvm.umul.with.overflow.i64(i64 %c2, i64 %elem_size)
  %bytes = extractvalue {{ i64, i1 }} %mo, 0
  %mof = extractvalue {{ i64, i1 }} %mo, 1
  br i1 %mof, label %overflow, label %l2
l2:
  %limit = sub i64 -9223372036854775808, %elem_align
  %big = icmp ugt i64 %bytes, %limit
  br i1 %big, label %overflow, label %l3
l3:
  call void @llvm.lifetime.start.p0(ptr %cur)
  %none = icmp eq i64 %cap, 0
  br i1 %none, label %nomem, label %mem
nomem:
  store i64 0, ptr %cur
  br label %call
mem:
  %vpp = getelementptr inbounds i8, ptr %vec, i64 8
  %vp = load ptr, ptr %vpp
  %oldb = mul nuw i64 %cap, %elem_size
  store i64 %elem_align, ptr %cur
  %cpp = getelementptr inbounds i8, ptr %cur, i64 8
  store ptr %vp, ptr %cpp
  %csp = getelementptr inbounds i8, ptr %cur, i64 16
  store i64 %oldb, ptr %csp
  br label %call
call:
  call void @llvm.lifetime.start.p0(ptr %res)
  call void @finish_grow_{k}(ptr noalias noundef nonnull sret({{ i64, i64, i64 }}) align 8 dereferenceable(24) %res, \
i64 noundef %elem_align, i64 noundef %bytes, ptr noalias noundef nonnull readonly align 8 dereferenceable(24) %cur)
  call void @llvm.lifetime.end.p0(ptr %cur)
  %tag = load i64, ptr %res
  %isok = icmp eq i64 %tag, 0
  br i1 %isok, label %ok, label %allocerr
ok:
  %npp = getelementptr inbounds i8, ptr %res, i64 8
  %np = load ptr, ptr %npp
  %vpp2 = getelementptr inbounds i8, ptr %vec, i64 8
  store ptr %np, ptr %vpp2
  store i64 %c2, ptr %vec
  call void @llvm.lifetime.end.p0(ptr %res)
  ret i64 0
allocerr:
  call void @llvm.lifetime.end.p0(ptr %res)
  ret i64 2
overflow:
  ret i64 1
}}
",
        align1 = align + 1,
        size1 = size + 1,
    )
    .unwrap();
    // reserve(additional): grows when the spare capacity is too small.
    writeln!(
        s,
        "define {link}void @reserve_{k}(ptr noundef align 8 dereferenceable(24) %vec, i64 %additional) noinline {{
entry:
  %cap = load i64, ptr %vec
  %lenp = getelementptr inbounds i8, ptr %vec, i64 16
  %len = load i64, ptr %lenp
  %spare = sub i64 %cap, %len
  %small = icmp ult i64 %spare, %additional
  br i1 %small, label %grow, label %done
grow:
  %r = call range(i64 0, 3) i64 @grow_amortized_{k}(ptr noundef nonnull align 8 dereferenceable(24) %vec, i64 %len, \
i64 %additional, i64 noundef {align}, i64 noundef {size})
  %bad = icmp ne i64 %r, 0
  br i1 %bad, label %fail, label %done
fail:
  call void @alloc_failed(i64 %r)
  unreachable
done:
  ret void
}}
"
    )
    .unwrap();
    // push(x)
    writeln!(
        s,
        "define {link}void @push_{k}(ptr noundef align 8 dereferenceable(24) %vec, i64 %x) noinline {{
entry:
  %lenp = getelementptr inbounds i8, ptr %vec, i64 16
  %len = load i64, ptr %lenp
  %cap = load i64, ptr %vec
  %full = icmp eq i64 %len, %cap
  br i1 %full, label %grow, label %store
grow:
  %r = call range(i64 0, 3) i64 @grow_amortized_{k}(ptr noundef nonnull align 8 dereferenceable(24) %vec, i64 %len, \
i64 1, i64 noundef {align}, i64 noundef {size})
  %bad = icmp ne i64 %r, 0
  br i1 %bad, label %fail, label %store
fail:
  call void @alloc_failed(i64 %r)
  unreachable
store:
  %pp = getelementptr inbounds i8, ptr %vec, i64 8
  %p = load ptr, ptr %pp
  %e = getelementptr inbounds {t}, ptr %p, i64 %len"
    )
    .unwrap();
    store_elem(&mut s, e, "%x", "%e", "st");
    writeln!(
        s,
        "  %len1 = add nuw i64 %len, 1
  store i64 %len1, ptr %lenp
  ret void
}}
"
    )
    .unwrap();
    // get(i): the element's checksum, or -1 past the end.
    writeln!(
        s,
        "define {link}i64 @get_{k}(ptr noundef align 8 dereferenceable(24) %vec, i64 %i) noinline {{
entry:
  %lenp = getelementptr inbounds i8, ptr %vec, i64 16
  %len = load i64, ptr %lenp
  %in = icmp ult i64 %i, %len
  br i1 %in, label %load, label %out
load:
  %pp = getelementptr inbounds i8, ptr %vec, i64 8
  %p = load ptr, ptr %pp
  %e = getelementptr inbounds {t}, ptr %p, i64 %i"
    )
    .unwrap();
    load_elem(&mut s, e, "%e", "ld");
    writeln!(
        s,
        "  ret i64 %ld
out:
  ret i64 -1
}}
"
    )
    .unwrap();
    // The user: fill a vector, a scratch array in the loop, checksum, free.
    let reserve = match inst.reserve {
        Some(extra) => format!(
            "  %rb = and i64 %x, 64\n  %rz = icmp ne i64 %rb, 0\n  br i1 %rz, label %res, label %loop.pre\n\
             res:\n  call void @reserve_{k}(ptr %v, i64 {extra})\n  br label %loop.pre\n"
        ),
        None => "  br label %loop.pre\n".into(),
    };
    writeln!(
        s,
        "define i64 @{}(i64 %x) {{
entry:
  %v = alloca {{ i64, ptr, i64 }}, align 8
  %tmp = alloca [4 x {t}], align {align}
  call void @llvm.lifetime.start.p0(ptr %v)
  store i64 0, ptr %v
  %vp = getelementptr inbounds i8, ptr %v, i64 8
  store ptr inttoptr (i64 {align} to ptr), ptr %vp
  %vl = getelementptr inbounds i8, ptr %v, i64 16
  store i64 0, ptr %vl
  %n0 = and i64 %x, 31
  %n = add i64 %n0, {}
{reserve}loop.pre:
  br label %loop
loop:
  %i = phi i64 [ 0, %loop.pre ], [ %i1, %next ]
  %acc = phi i64 [ 0, %loop.pre ], [ %acc2, %next ]
  %c = icmp ult i64 %i, %n
  br i1 %c, label %body, label %sum.pre
body:
  %m = mul i64 %i, {}
  %val = xor i64 %m, %x
  call void @push_{k}(ptr %v, i64 %val)",
        inst.entry(),
        inst.base_pushes,
        inst.mul
    )
    .unwrap();
    match inst.scratch_every {
        Some(every) => {
            writeln!(
                s,
                "  %sm = and i64 %i, {}\n  %sc = icmp eq i64 %sm, 0\n  br i1 %sc, label %scratch, label %next\nscratch:\n  \
                 call void @llvm.lifetime.start.p0(ptr %tmp)",
                every - 1
            )
            .unwrap();
            for j in 0..4 {
                writeln!(
                    s,
                    "  %g{j} = sub i64 %i, {j}\n  %w{j} = call i64 @get_{k}(ptr %v, i64 %g{j})\n  \
                             %tp{j} = getelementptr inbounds [4 x {t}], ptr %tmp, i64 0, i64 {j}"
                )
                .unwrap();
                store_elem(&mut s, e, &format!("%w{j}"), &format!("%tp{j}"), &format!("ts{j}"));
            }
            let mut acc = "%acc".to_string();
            for j in 0..4 {
                load_elem(&mut s, e, &format!("%tp{j}"), &format!("tl{j}"));
                writeln!(s, "  %sa{j} = mul i64 {acc}, 33\n  %sb{j} = add i64 %sa{j}, %tl{j}")
                    .unwrap();
                acc = format!("%sb{j}");
            }
            writeln!(
                s,
                "  call void @llvm.lifetime.end.p0(ptr %tmp)\n  br label %next\nnext:\n  \
                 %acc2 = phi i64 [ %acc, %body ], [ {acc}, %scratch ]"
            )
            .unwrap();
        }
        None => writeln!(s, "  br label %next\nnext:\n  %acc2 = add i64 %acc, 0").unwrap(),
    }
    writeln!(
        s,
        "  %i1 = add nuw i64 %i, 1
  br label %loop
sum.pre:
  %len = load i64, ptr %vl
  br label %sum
sum:
  %j = phi i64 [ 0, %sum.pre ], [ %j1, %sumb ]
  %h = phi i64 [ %acc, %sum.pre ], [ %h2, %sumb ]
  %jc = icmp ult i64 %j, %len
  br i1 %jc, label %sumb, label %drop
sumb:
  %ev = call i64 @get_{k}(ptr %v, i64 %j)
  %h1 = mul i64 %h, 31
  %h2 = add i64 %h1, %ev
  %j1 = add nuw i64 %j, 1
  br label %sum
drop:
  %cap = load i64, ptr %v
  %hc = mul i64 %h, 7
  %hr = add i64 %hc, %cap
  %has = icmp ne i64 %cap, 0
  br i1 %has, label %free, label %done
free:
  %p = load ptr, ptr %vp
  call void @free(ptr %p)
  br label %done
done:
  call void @llvm.lifetime.end.p0(ptr %v)
  ret i64 %hr
}}
"
    )
    .unwrap();
    s
}
