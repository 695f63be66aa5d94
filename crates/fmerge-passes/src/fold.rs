//! Committing a merge: how a function that is being merged away keeps its callers working.
//!
//! Three ways, from cheapest to most conservative (LLVM's MergeFunctions uses the same ones):
//! - **replace** every use of G by the function it merged into (only when G's address is not
//!   significant: `unnamed_addr`, not in `llvm.used`, not interposable), then erase G if nothing
//!   outside the module can see it;
//! - **redirect** only G's direct call sites, keeping G for whoever takes its address;
//! - **thunk**: G's body becomes one tail call to the merged function (G keeps its name,
//!   linkage, comdat, attributes and metadata, so its identity for the linker and for address
//!   comparisons is untouched).
//!
//! Thunks are built *in place*: G's old body is moved into a scratch function that is erased at
//! the next sweep, so no IR handle is ever destroyed mid-pass (see `fmerge_llvm::module`).

use fmerge_core::ir::opcode;
use fmerge_llvm::{
    Builder, Function, Instruction, Linkage, Module, TailCallKind, UnnamedAddr, Value,
};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// What the rest of the program can observe about a function, decided once per module.
pub struct Visibility<'m> {
    used: HashSet<Function<'m>>,
    whole_program: bool,
    /// Whether a function is larger than [`LARGE_FUNCTION`], computed once per function: no
    /// function is freed while a `Visibility` lives (the module is borrowed), so a handle
    /// never comes to mean another function; sizes change little meanwhile.
    large: RefCell<HashMap<Function<'m>, bool>>,
}

/// Instructions past which a function's call sites are not rewritten (see
/// [`rewritable_call_sites`]).
pub const LARGE_FUNCTION: usize = 10_000;

/// The names a program's entry point has in a module: `main`, and on WebAssembly also what
/// clang calls a `main` with parameters (`__main_argc_argv`, which wasi-libc's start code
/// calls; `int main(void)` keeps its name) and the start code's own `__main_void`.
pub const ENTRY_POINTS: &[&str] = &["main", "__main_argc_argv", "__main_void"];

impl<'m> Visibility<'m> {
    pub fn new(module: &'m Module<'_>, whole_program: bool) -> Self {
        Visibility { used: module.used_functions(), whole_program, large: RefCell::default() }
    }

    /// Has `f` more than [`LARGE_FUNCTION`] instructions?
    pub fn is_large(&self, f: Function<'m>) -> bool {
        *self.large.borrow_mut().entry(f).or_insert_with(|| f.instruction_count() > LARGE_FUNCTION)
    }

    /// Named in `llvm.used`/`llvm.compiler.used`: referenced where LLVM cannot see.
    pub fn is_used_elsewhere(&self, f: Function<'m>) -> bool {
        self.used.contains(&f)
    }

    /// Can code outside this module call or reference `f` by name?
    pub fn is_externally_visible(&self, f: Function<'m>) -> bool {
        if self.is_used_elsewhere(f) {
            return true;
        }
        if self.whole_program {
            // The module is the whole program: only the entry point is called from outside.
            return ENTRY_POINTS.contains(&f.name().as_str());
        }
        !f.linkage().is_local()
    }

    /// May `f` be erased once it has no uses left?
    pub fn is_erasable_when_unused(&self, f: Function<'m>) -> bool {
        if self.is_used_elsewhere(f) {
            return false;
        }
        f.linkage().is_discardable_if_unused() || !self.is_externally_visible(f)
    }

    /// May `f`'s body move into a merged body private to this module? Not when the linker may
    /// deduplicate `f` with copies in other modules (linkonce, weak, comdat) and the module is
    /// not the whole program: every module would then keep its own private copy.
    pub fn may_share_privately(&self, f: Function<'m>) -> bool {
        let dedupable = f.linkage().is_linkonce_or_weak() || f.has_comdat();
        self.whole_program || !dedupable
    }

    /// Is the address of `f` insignificant, so its uses may be pointed at another function?
    pub fn address_is_insignificant(&self, f: Function<'m>) -> bool {
        if self.is_used_elsewhere(f) || f.is_interposable() {
            return false;
        }
        if f.unnamed_addr() == UnnamedAddr::Global {
            return true;
        }
        // In a whole program, an address nobody takes cannot be compared.
        !self.is_externally_visible(f) && !f.has_address_taken()
    }
}

/// Can `g`'s body be replaced by a call that forwards its arguments?
pub fn can_thunk(g: Function<'_>) -> Result<(), &'static str> {
    let ty = g.global_value_type();
    if ty.is_vararg() {
        return Err("variable arguments cannot be forwarded by a thunk");
    }
    if g.has_fn_attr("naked") {
        return Err("naked function");
    }
    for k in 0..ty.param_types().len() as u32 {
        for attr in ["inalloca", "preallocated", "swifterror", "swiftasync"] {
            if g.param_has_attr(k, attr) {
                return Err("a parameter cannot be forwarded by a tail call");
            }
        }
    }
    Ok(())
}

/// Rewrites every direct call of `g` (as the callee) to call `target` instead. Returns how
/// many call sites changed. `g` and `target` must be interchangeable.
pub fn redirect_direct_calls<'m>(g: Function<'m>, target: Function<'m>) -> usize {
    let mut n = 0;
    for (user, k) in g.users() {
        let Some(call) = user.as_instruction() else { continue };
        if matches!(call.opcode(), opcode::CALL | opcode::INVOKE) && call.num_operands() == k + 1 {
            call.set_operand(k, target.as_value());
            n += 1;
        }
    }
    n
}

/// Where one argument of a forwarding call comes from.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'m> {
    /// The forwarding function's own parameter (a call site's own argument when rewriting).
    Param(u32),
    /// A fixed value: a constant the original used, `poison` for a parameter the callee
    /// ignores on this path, or the function identifier.
    Value(Value<'m>),
}

impl Arg<'_> {
    /// The same argument as plain data that outlives the module borrow (`Other` for a value
    /// that is not a [`fmerge_llvm::ContextConstant`]).
    pub fn key(&self) -> CallArg {
        match *self {
            Arg::Param(k) => CallArg::Param(k),
            Arg::Value(v) => match v.context_constant() {
                Some(c) => CallArg::Constant(c),
                None if v.is_global_value() => CallArg::Global(v.name()),
                None => CallArg::Other,
            },
        }
    }
}

/// An [`Arg`] of a rewritten call site, kept after the stages are done (see
/// `crate::report::Member::call_args`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallArg {
    /// The call site's own argument `k`.
    Param(u32),
    /// A constant that names itself as long as the context lives.
    Constant(fmerge_llvm::ContextConstant),
    /// The address of the global of this name (a function, a variable).
    Global(String),
    /// Any other fixed value (a global's address, say): such a call cannot be turned back.
    Other,
}

/// `Param(0..n)` followed by `extra` values: the arguments of a thunk whose target takes the
/// thunk's own parameters first.
pub fn forwarding_args<'m>(n: usize, extra: &[Value<'m>]) -> Vec<Arg<'m>> {
    (0..n as u32).map(Arg::Param).chain(extra.iter().map(|&v| Arg::Value(v))).collect()
}

/// Turns `g` into a thunk: its body becomes `tail call target(args...)`.
pub fn make_thunk<'m>(
    module: &'m Module<'_>,
    g: Function<'m>,
    target: Function<'m>,
    args: &[Arg<'m>],
) {
    discard_body(module, g);
    write_forwarding_body(module, g, target, args);
}

/// Moves `f`'s body into a scratch function queued for erasure; `f` becomes a declaration.
pub fn discard_body<'m>(module: &'m Module<'_>, f: Function<'m>) {
    if f.is_declaration() {
        return;
    }
    let scratch = module.add_function("fmerge.discarded", f.global_value_type());
    scratch.set_linkage(Linkage::Private);
    assert!(f.move_body_to(scratch), "a function's body always fits a function of its own type");
    module.defer_erase(scratch);
}

/// Gives the body-less function `f` a body forwarding to `target`.
pub fn write_forwarding_body<'m>(
    module: &'m Module<'_>,
    f: Function<'m>,
    target: Function<'m>,
    args: &[Arg<'m>],
) {
    assert!(f.is_declaration(), "thunk body for a function that still has one");
    let entry = f.append_block("entry");
    let b = Builder::new(module);
    b.position_at_end(entry);
    let params = f.params();
    let values: Vec<Value<'m>> = args
        .iter()
        .map(|a| match *a {
            Arg::Param(k) => params[k as usize],
            Arg::Value(v) => v,
        })
        .collect();
    let call = b.call(target.global_value_type(), target.as_value(), &values);
    call.set_call_like_function(target);
    let both_swifttail = f.call_conv() == SWIFT_TAIL_CC && target.call_conv() == SWIFT_TAIL_CC;
    call.set_tail_call_kind(if both_swifttail {
        TailCallKind::MustTail
    } else {
        TailCallKind::Tail
    });
    let ret_ty = f.global_value_type().return_type();
    if ret_ty.kind() == fmerge_core::ir::TypeKind::Void {
        b.ret(None);
    } else {
        b.ret(Some(call.as_value()));
    }
}

/// If every use of `f` is a plain direct call, none of them in a large function, and nothing
/// outside the module can reach `f`, the number of call sites (so they can all call a merged
/// body instead, and `f` can go).
///
/// A call site with an extra argument changes its caller, whose size no measurement covers
/// (only the extra argument is priced). In a large caller that change moves register
/// allocation and block layout by far more than the argument: QuickJS-ng's `JS_CallInternal`
/// (about 12,000 instructions) grew by 1.0 KB (2.1 KB with PIC) from three rewritten calls,
/// more than the two merges saved. Callees called from large functions keep a thunk instead,
/// which leaves the caller's code as it was. Measured on the benchmark's Oz modules (x86-64
/// `.text`, static / PIC): QuickJS-ng -1,005 / -3,095 bytes, SQLite +11 / +11, the other seven
/// unchanged. A bound of 2,000 cost fd 1.3 KB and tokei 0.4 KB: in mid-sized callers the
/// rewritten calls are usually cheaper than thunks.
///
/// `args` are the arguments the rewritten calls would pass (see [`rewrite_call_sites`]). The
/// values fmerge adds (`Arg::Value`) must reach the body the way the body expects them, and
/// how a vector or floating-point value is passed depends on the target features of the
/// *caller* as well as the callee: an AVX2 function's `<32 x i8>` parameter arrives in one
/// YMM register, while a caller compiled without AVX passes it in two XMM registers. So when
/// an added value is not an integer or a pointer, every caller must have the callee's
/// [`ABI_FN_ATTRS`] (aho-corasick's `#[target_feature(enable = "avx2")]` tests received
/// garbage from their harness closures: issue 13). Thunks need no such rule: a thunk has its
/// member's attributes, and members of one merge have equal target attributes.
pub fn rewritable_call_sites<'m>(
    vis: &Visibility<'m>,
    f: Function<'m>,
    args: &[Arg<'m>],
) -> Option<usize> {
    if vis.is_externally_visible(f) || !vis.is_erasable_when_unused(f) {
        return None;
    }
    let feature_dependent = args.iter().any(|a| match a {
        Arg::Param(_) => false,
        Arg::Value(v) => !matches!(
            v.ty().kind(),
            fmerge_core::ir::TypeKind::Int | fmerge_core::ir::TypeKind::Pointer
        ),
    });
    let fn_ty = f.global_value_type();
    let users = f.users();
    for (u, k) in &users {
        let u = u.as_instruction()?;
        let direct = u.opcode() == opcode::CALL
            && u.num_operands() == k + 1
            && u.called_function_type() == fn_ty
            && u.operand_bundles().is_empty()
            && u.tail_call_kind() != TailCallKind::MustTail;
        if !direct || u.parent_block().is_some_and(|b| vis.is_large(b.parent())) {
            return None;
        }
        if feature_dependent && u.parent_block().is_none_or(|b| !same_abi_target(b.parent(), f)) {
            return None;
        }
    }
    Some(users.len())
}

/// The function attributes that decide how vector and floating-point arguments are passed:
/// the register classes the target features provide, and the widest vector the function
/// treats as legal (x86 splits wider ones).
pub const ABI_FN_ATTRS: [&str; 3] = ["target-cpu", "target-features", "min-legal-vector-width"];

/// Whether a call from `caller` to `callee` passes vector and floating-point values the way
/// `callee` expects them: both have the same [`ABI_FN_ATTRS`].
pub fn same_abi_target(caller: Function<'_>, callee: Function<'_>) -> bool {
    ABI_FN_ATTRS.iter().all(|a| caller.fn_string_attr(a) == callee.fn_string_attr(a))
}

/// Replaces each direct call of `f` by a call of `body` with `args` (where `Arg::Param(k)` is
/// the call's own argument `k`). Callers check [`rewritable_call_sites`] first.
pub fn rewrite_call_sites<'m>(
    module: &'m Module<'_>,
    f: Function<'m>,
    body: Function<'m>,
    args: &[Arg<'m>],
) {
    for (user, _) in f.users() {
        let call = user.as_instruction().expect("rewritable call sites are instructions");
        let values: Vec<Value<'m>> = args
            .iter()
            .map(|a| match *a {
                Arg::Param(k) => call.operand(k).expect("argument of a direct call"),
                Arg::Value(v) => v,
            })
            .collect();
        replace_call(module, call, body, &values);
    }
}

/// Replaces the direct call `call` by a call of `callee` with `args` (ABI attributes only,
/// its debug location, `tail` kept), and takes the old call out of its caller.
pub fn replace_call<'m>(
    module: &'m Module<'_>,
    call: Instruction<'m>,
    callee: Function<'m>,
    args: &[Value<'m>],
) {
    let b = Builder::new(module);
    b.position_before(call);
    let new = b.call(callee.global_value_type(), callee.as_value(), args);
    new.set_call_like_function(callee);
    new.copy_debug_loc_from(call);
    if call.tail_call_kind() == TailCallKind::Tail {
        new.set_tail_call_kind(TailCallKind::Tail);
    }
    if call.has_uses() {
        call.replace_all_uses_with(new.as_value());
    }
    // Out of the caller now: a merged body cloned from the caller before the next sweep must
    // not run the old call as well as the new one.
    module.detach_instruction(call);
}

/// LLVM's `swifttailcc` calling convention number.
const SWIFT_TAIL_CC: u32 = 20;

/// A new internal function of `fn_ty` named after `base`, ready to receive a merged body.
pub fn new_merged_function<'m>(
    module: &'m Module<'_>,
    base: &str,
    like: Function<'m>,
    fn_ty: fmerge_llvm::Type<'m>,
) -> Function<'m> {
    let m = module.add_function(&format!("{base}.fmerged"), fn_ty);
    m.copy_function_attrs_from(like);
    seal_merged_function(m);
    m
}

/// Gives a merged body the properties it must have, whatever was copied onto it (cloning a
/// body also copies its origin's linkage properties and attributes).
pub fn seal_merged_function(m: Function<'_>) {
    m.set_linkage(Linkage::Internal);
    m.set_visibility(fmerge_llvm::Visibility::Default);
    m.set_unnamed_addr(UnnamedAddr::Global);
    m.set_dso_local(true);
    // The merged body must outlive every member, so it never sits in a member's comdat (the
    // linker may drop a comdat group in favour of another module's copy).
    m.clear_comdat();
    // Merging exists to save bytes: an inliner that copied the body back would undo it.
    m.remove_fn_attr("alwaysinline");
    m.add_fn_attr("noinline");
}
