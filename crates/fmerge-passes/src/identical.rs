//! Identical-function merging: what LLVM's MergeFunctions does, on fmerge's plain data.
//!
//! 1. Lower every definition; functions with traits no identical fold can handle
//!    (`blockaddress`, prefix/prologue data, `naked`) sit out, with the reason in the report.
//! 2. Bucket by structural hash and split buckets into classes of exactly equal functions
//!    (`fmerge_core::compare`, exact mode).
//! 3. In each class, choose the body that survives by a total order — non-ODR before ODR,
//!    strong before interposable, external before local, then by name — so separately
//!    processed modules never build thunks that call each other in a cycle once linked.
//! 4. Fold every other member into it (see [`crate::fold`]): replace uses where the address is
//!    insignificant, else redirect direct calls; erase what is then unused; thunk the rest.
//!    When the survivor is interposable, or (outside whole-program mode) it and the member are
//!    both ODR, the shared body moves into a new private function and both become thunks:
//!    another module's definition may replace either symbol at link time.
//! 5. Flags, metadata and intersectable attributes on the surviving body are intersected with
//!    every member's, because the comparison ignores them (safe to drop, not safe to invent).
//! 6. Callers changed by a round may now be equal: repeat until nothing changes. A later round
//!    looks only at the functions whose structural hash a changed function shares: the
//!    survivors, members and new bodies of the last round, and every function using one of
//!    them (through constants too). Two functions neither of which changed were compared in
//!    the last round and are still different.

use crate::fold::{self, Visibility, can_thunk};
use crate::intersect;
use crate::report::{Disposal, Member, MergeRecord, StageStats};
use crate::session::{Run, Session};
use crate::stage::{About, Stage};
use fmerge_core::compare::{self, Mode, Walk};
use fmerge_core::ir::{FuncData, traits};
use fmerge_core::profit;
use fmerge_llvm::lower::{Hashes, lower_functions, structural_twins_of};
use fmerge_llvm::{Function, Linkage, Module, UnnamedAddr, Value, cost};
use std::collections::HashSet;

const STAGE: &str = "identical";

/// Traits that keep a function out of identical merging.
const BLOCKING: u32 = traits::BLOCK_ADDRESS | traits::PREFIX_PROLOGUE;

/// The identical stage.
#[derive(Default)]
pub struct Identical {
    /// Functions the last round changed (see the module comment); `None` before the first.
    changed: Option<HashSet<String>>,
}

impl Stage for Identical {
    fn about(&self) -> About {
        About { name: STAGE, activity: "merging identical functions", max_rounds: 8 }
    }

    fn run_round(&mut self, session: &mut Session<'_, '_>, stats: &mut StageStats) -> usize {
        let module = &*session.module;
        let candidates = match &self.changed {
            None => structural_twins_of(module, |_| true),
            Some(changed) => structural_twins_of(module, |f| changed.contains(&f.name())),
        };
        let mut touched = Vec::new();
        let merges = one_round(module, &mut session.run, stats, &candidates, &mut touched);
        self.changed = Some(changed_by(&touched));
        merges
    }
}

/// The names of `touched` (functions a round merged, kept or made) and of every function
/// that uses one of them, directly or through constants.
fn changed_by(touched: &[Function<'_>]) -> HashSet<String> {
    let mut changed = HashSet::new();
    let mut seen: HashSet<Value<'_>> = HashSet::new();
    let mut stack: Vec<Value<'_>> = touched.iter().map(|f| f.as_value()).collect();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        if let Some(f) = v.as_function() {
            changed.insert(f.name());
        }
        for (user, _) in v.users() {
            match user.as_instruction().and_then(|i| i.parent_block()) {
                Some(b) => {
                    changed.insert(b.parent().name());
                }
                // A constant (or a global's initializer) using it: its users use it too.
                None if user.is_constant() => stack.push(user),
                None => {}
            }
        }
    }
    changed
}

fn one_round<'m>(
    module: &'m Module<'_>,
    run: &mut Run<'_>,
    stats: &mut StageStats,
    candidates: &[Function<'m>],
    touched: &mut Vec<Function<'m>>,
) -> usize {
    let (target, opts) = (run.target, run.opts);
    let lowered = lower_functions(module, candidates, Hashes::Local);
    let vis = Visibility::new(module, opts.whole_program);
    let mut eligible: Vec<usize> = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let reason = if f.traits & BLOCKING != 0 {
            Some(traits::describe(f.traits & BLOCKING))
        } else if lowered.handles[k].function.has_fn_attr("naked") {
            Some("naked function".to_string())
        } else {
            None
        };
        match reason {
            Some(r) => run.skip_once(STAGE, &f.name, r),
            None => eligible.push(k),
        }
    }
    let funcs: Vec<&FuncData> = eligible.iter().map(|&k| &lowered.funcs[k]).collect();
    let walks: Vec<Walk> = funcs.iter().map(|f| Walk::new(f)).collect();
    let classes = compare::equal_classes(lowered.tables(), &funcs, &walks, Mode::Exact);

    let mut merges = 0;
    for class in classes {
        let mut members: Vec<usize> = class.clone();
        members.sort_by_key(|&c| survivor_key(lowered.handles[eligible[c]].function));
        let keep = members[0];
        let h_keep = &lowered.handles[eligible[keep]];
        let f = h_keep.function;
        let originals: Vec<String> =
            members.iter().map(|&c| lowered.handles[eligible[c]].function.name()).collect();
        if !run.admit(&originals) {
            continue;
        }
        let mut record =
            MergeRecord::new(run.report.next_seq(), STAGE, originals, f.name(), Vec::new(), 0);
        let f_units = cost::function_cost(target, f).unwrap_or(0);
        // The function that holds the shared body once the class is folded.
        let mut body: Option<Function<'_>> = None;
        for &g_idx in &members[1..] {
            let h_g = &lowered.handles[eligible[g_idx]];
            let g = h_g.function;
            // When another module may supply the symbol instead (interposable, or both ODR),
            // the body moves to a private copy both symbols forward to. Outside whole-program
            // mode that copy would be repeated in every module defining the pair, where the
            // linker used to keep one: leave such pairs alone there.
            let needs_private_body = f.is_interposable()
                || (!opts.whole_program && f.linkage().is_odr() && g.linkage().is_odr());
            // Such a pair may still fold when g disappears entirely (no thunk, no copy).
            let only_erase = needs_private_body && !opts.whole_program;
            if needs_private_body && !only_erase && body.is_none() {
                if can_thunk(f).is_err() || can_thunk(g).is_err() || !thunk_pays(f, f_units) {
                    continue;
                }
                let p = move_to_private_body(module, f);
                touched.extend([f, p]);
                body = Some(p);
                record.body = p.name();
                // f is now an empty shell: it folds into the private body like any member.
                let disposal =
                    fold_into(module, &vis, f, p, f_units).expect("thunkable, checked above");
                record.members.push(Member::new(f.name(), disposal));
                if disposal == Disposal::Thunk {
                    record.estimated_saving -=
                        profit::units_to_bytes(profit::thunk_units(f.params().len()));
                }
            }
            let target_fn = body.unwrap_or(f);
            let pairs = intersect::pairs(&h_keep.insts, &walks[keep], &h_g.insts, &walks[g_idx]);
            if !intersect::compatible(target_fn, g, &pairs) {
                continue;
            }
            let units = if only_erase { 0 } else { f_units };
            let Some(disposal) = fold_into(module, &vis, g, target_fn, units) else {
                continue;
            };
            intersect::apply(target_fn, g, &pairs);
            // An erased member has no users left to be changed; its uses are the target's.
            touched.push(target_fn);
            if disposal != Disposal::Erased {
                touched.push(g);
            }
            record.estimated_saving += profit::units_to_bytes(match disposal {
                Disposal::Thunk => f_units - profit::thunk_units(g.params().len()),
                Disposal::Erased => f_units,
                _ => 0,
            });
            record.members.push(Member::new(g.name(), disposal));
        }
        if record.members.iter().any(|m| m.disposal != Disposal::CallsRedirected) {
            merges += 1;
            stats.merges += 1;
            stats.functions_removed_or_thunked += record.members.len();
            run.report.merges.push(record);
        }
    }
    merges
}

/// Sort key for the surviving copy: smallest first (see the module comment, step 3).
fn survivor_key(f: Function<'_>) -> (bool, bool, bool, String) {
    (f.linkage().is_odr(), f.is_interposable(), f.linkage().is_local(), f.name())
}

/// Is a thunk to a body of `units` smaller than the body itself?
fn thunk_pays(g: Function<'_>, units: i64) -> bool {
    units > profit::thunk_units(g.params().len())
}

/// Moves `f`'s body into a new private function (`f` is left without a body).
fn move_to_private_body<'m>(module: &'m Module<'_>, f: Function<'m>) -> Function<'m> {
    let p = module.add_function(&format!("{}.fmerged", f.name()), f.global_value_type());
    p.copy_function_attrs_from(f);
    p.set_linkage(Linkage::Private);
    p.set_visibility(fmerge_llvm::Visibility::Default);
    p.set_unnamed_addr(UnnamedAddr::Global);
    p.set_dso_local(true);
    p.clear_comdat();
    assert!(f.move_body_to(p), "a body always fits a function of its own type");
    p
}

/// Folds `g` into the equal function `body`. Returns what happened to `g`, or `None` if `g`
/// had to stay as it was.
fn fold_into<'m>(
    module: &'m Module<'_>,
    vis: &Visibility<'m>,
    g: Function<'m>,
    body: Function<'m>,
    units: i64,
) -> Option<Disposal> {
    let thunkable = can_thunk(g).is_ok() && thunk_pays(g, units);
    let erasable = vis.is_erasable_when_unused(g);
    if g.is_interposable() {
        // Another definition may replace g at link time: keep its symbol, share the body.
        if !thunkable {
            return None;
        }
        fold::make_thunk(module, g, body, &fold::forwarding_args(g.params().len(), &[]));
        return Some(Disposal::Thunk);
    }
    let has_alias_users = g.users().iter().any(|(u, _)| u.is_global_alias());
    if vis.address_is_insignificant(g) && !has_alias_users && (thunkable || erasable) {
        g.replace_all_uses_with(body.as_value());
    } else if thunkable || erasable {
        fold::redirect_direct_calls(g, body);
    } else {
        return None;
    }
    if !g.has_uses() && erasable {
        module.defer_erase(g);
        return Some(Disposal::Erased);
    }
    if thunkable {
        fold::make_thunk(module, g, body, &fold::forwarding_args(g.params().len(), &[]));
        return Some(Disposal::Thunk);
    }
    Some(Disposal::CallsRedirected)
}
