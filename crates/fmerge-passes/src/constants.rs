//! Constant-parameterized merging: functions equal except for constants that can be passed in.
//!
//! Functions that differ only in a call target, a call argument, or the address or value of a
//! load/store (the positions seed 002 and LLVM's GlobalMergeFunc parameterize; never immediates
//! that must stay constant) become one internal `noinline` body with one extra parameter per
//! distinct column of constants, placed after the original parameters (thunks then need no
//! argument shuffling). Each original either becomes a thunk passing its constants, or — when it
//! is local and only ever called directly, and that is cheaper — disappears, its call sites
//! calling the shared body with the constants themselves.
//!
//! Steps per round:
//! 1. Lower; functions whose traits make a merged body or a thunk impossible sit out
//!    (varargs, musttail, blockaddress, prefix data, self-address, callbr, GC, swifterror).
//! 2. Classes of functions equal up to `ConstRole::Param` constants; the parameter plan gives
//!    the minimal parameter set (one per distinct constant column).
//! 3. Build each candidate body as a *copy* of the class representative with the constant sites
//!    rewired to the new parameters, verify it (roll back if it does not verify), price it:
//!    Δ = Σ c(members) − (c(body) + Σ min(thunk, rewritten call sites)).
//! 4. Decide: clear estimates are trusted; close ones (and all, in exact mode) are confirmed by
//!    compiling the candidates and the originals in one batch.
//! 5. Commit the winners, erase the losers. Repeat while something merged.

use crate::fold::{self, Visibility, can_thunk};
use crate::intersect;
use crate::measure::Sizes;
use crate::options::{Options, ProfitMode};
use crate::report::{Disposal, Member, MergeRecord, Report, Skipped, StageStats};
use fmerge_core::compare::{self, Mode, Walk};
use fmerge_core::ir::{FuncData, opcode, traits};
use fmerge_core::profit::{self, Verdict};
use fmerge_llvm::{Builder, Module, Target, Value, cost};
use llvm_sys::LLVMTailCallKind;
use std::collections::HashSet;
use std::time::Instant;

const STAGE: &str = "constants";
const MAX_ROUNDS: usize = 4;

/// Traits that make a parameterized body or a thunk impossible.
const BLOCKING: u32 = traits::VARARGS
    | traits::MUSTTAIL
    | traits::BLOCK_ADDRESS
    | traits::PREFIX_PROLOGUE
    | traits::SELF_ADDRESS
    | traits::CALLBR
    | traits::GC
    | traits::SWIFTERROR;

pub fn run(module: &mut Module<'_>, target: &Target, opts: &Options, report: &mut Report) {
    let start = Instant::now();
    let mut stats = StageStats { stage: STAGE, ..Default::default() };
    let mut reported = HashSet::new();
    for _ in 0..MAX_ROUNDS {
        stats.rounds += 1;
        let merged = one_round(module, target, opts, report, &mut stats, &mut reported);
        module.sweep();
        if merged == 0 {
            break;
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    report.stages.push(stats);
}

/// How one member will stay callable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    Thunk,
    RewriteCalls,
}

struct Candidate<'m> {
    members: Vec<Value<'m>>,
    plans: Vec<Plan>,
    /// Constants each member passes, in parameter order.
    args: Vec<Vec<Value<'m>>>,
    body: Value<'m>,
    params: usize,
    before_units: i64,
    after_units: i64,
    /// Extra TTI units at rewritten call sites (not part of any measured function).
    call_site_units: i64,
    verdict: Verdict,
    measured_saving: Option<i64>,
}

fn one_round(
    module: &Module<'_>,
    target: &Target,
    opts: &Options,
    report: &mut Report,
    stats: &mut StageStats,
    reported: &mut HashSet<String>,
) -> usize {
    let lowered = fmerge_llvm::lower::lower_module(module);
    let vis = Visibility::new(module, opts.whole_program);
    let mut eligible = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let func = lowered.handles[k].function;
        let reason = if f.traits & BLOCKING != 0 {
            Some(traits::describe(f.traits & BLOCKING))
        } else {
            can_thunk(func).err().map(str::to_string)
        };
        // A function no bigger than a thunk (often a thunk itself) can only grow by merging.
        let tiny = || {
            cost::function_cost(target, func)
                .is_none_or(|c| c <= profit::thunk_units(f.arg_types.len() + 1))
        };
        if reason.is_none() && tiny() {
            continue;
        }
        match reason {
            Some(r) => {
                if reported.insert(f.name.clone()) {
                    report.skipped.push(Skipped {
                        stage: STAGE,
                        function: f.name.clone(),
                        reason: r,
                    });
                }
            }
            None => eligible.push(k),
        }
    }
    let funcs: Vec<&FuncData> = eligible.iter().map(|&k| &lowered.funcs[k]).collect();
    let walks: Vec<Walk> = funcs.iter().map(|f| Walk::new(f)).collect();
    let classes = compare::equal_classes(lowered.tables(), &funcs, &walks, Mode::ModuloParams);

    let margin = match opts.profit {
        ProfitMode::Estimate => 0.0,
        ProfitMode::Exact => f64::INFINITY,
        ProfitMode::Hybrid => opts.close_margin,
    };
    let mut candidates = Vec::new();
    for class in &classes {
        let Some(plan) = compare::param_plan(lowered.tables(), &funcs, &walks, class) else {
            continue;
        };
        if plan.num_params() == 0 {
            // Exactly equal: the identical stage's business.
            continue;
        }
        let rep = &lowered.handles[eligible[class[0]]];
        let members: Vec<Value<'_>> =
            class.iter().map(|&c| lowered.handles[eligible[c]].function).collect();
        let args: Vec<Vec<Value<'_>>> = plan
            .args
            .iter()
            .map(|cs| cs.iter().map(|&c| lowered.lowerer.const_value(c)).collect())
            .collect();
        // The merged body: the representative's parameters, then one per constant column.
        let r = rep.function;
        let r_ty = r.global_value_type();
        let mut param_tys = r_ty.param_types();
        let first_extra = param_tys.len();
        param_tys.extend(args[0].iter().map(|v| v.ty()));
        let fn_ty = module.function_type(r_ty.return_type(), &param_tys, false);
        let body = fold::new_merged_function(module, &r.name(), r, fn_ty);
        if !r.clone_body_into(body) {
            module.defer_erase(body);
            continue;
        }
        let body_insts: Vec<Value<'_>> =
            body.blocks().iter().flat_map(|b| b.instructions()).collect();
        if body_insts.len() != rep.insts.len() {
            module.defer_erase(body);
            stats.rolled_back += 1;
            continue;
        }
        let params = body.params();
        for &(inst, op, p) in &plan.sites {
            body_insts[inst as usize].set_operand(op, params[first_extra + p as usize]);
        }
        // The body now serves every member: keep only the flags, metadata and attributes that
        // hold in all of them.
        let member_pairs: Vec<_> = class[1..]
            .iter()
            .map(|&c| {
                let h = &lowered.handles[eligible[c]];
                (h.function, intersect::pairs(&body_insts, &walks[class[0]], &h.insts, &walks[c]))
            })
            .collect();
        if !member_pairs.iter().all(|(g, pairs)| intersect::compatible(body, *g, pairs)) {
            module.defer_erase(body);
            continue;
        }
        for (g, pairs) in &member_pairs {
            intersect::apply(body, *g, pairs);
        }
        if let Err(why) = body.verify_function() {
            module.defer_erase(body);
            stats.rolled_back += 1;
            report.skipped.push(Skipped {
                stage: STAGE,
                function: r.name(),
                reason: format!("merged body rolled back, it did not verify: {}", why.trim()),
            });
            continue;
        }
        let costs: Option<Vec<i64>> =
            members.iter().map(|&m| cost::function_cost(target, m)).collect();
        let (Some(costs), Some(body_units)) = (costs, cost::function_cost(target, body)) else {
            module.defer_erase(body);
            continue;
        };
        let thunk = profit::thunk_units(param_tys.len());
        let mut plans = Vec::new();
        let mut after = body_units;
        let mut call_site_units = 0;
        for &m in &members {
            let rewrite = rewritable_call_sites(&vis, m).map(|n| (n * plan.num_params()) as i64);
            match rewrite {
                Some(units) if units < thunk => {
                    plans.push(Plan::RewriteCalls);
                    after += units;
                    call_site_units += units;
                }
                _ => {
                    plans.push(Plan::Thunk);
                    after += thunk;
                }
            }
        }
        let before: i64 = costs.iter().sum();
        candidates.push(Candidate {
            members,
            plans,
            args,
            body,
            params: plan.num_params(),
            before_units: before,
            after_units: after,
            call_site_units,
            verdict: profit::judge(before, after, margin),
            measured_saving: None,
        });
    }

    confirm_by_codegen(module, target, &mut candidates, stats);

    let mut merges = 0;
    for c in candidates {
        if c.verdict != Verdict::Keep {
            stats.rejected_unprofitable += 1;
            module.defer_erase(c.body);
            continue;
        }
        let mut record = MergeRecord {
            stage: STAGE,
            body: c.body.name(),
            members: Vec::new(),
            params: c.params,
            estimated_saving: profit::units_to_bytes(c.before_units - c.after_units),
            measured_saving: c.measured_saving,
        };
        for ((&m, plan), args) in c.members.iter().zip(&c.plans).zip(&c.args) {
            // Earlier commits this round may have changed m's users: check again.
            let disposal =
                if *plan == Plan::RewriteCalls && rewritable_call_sites(&vis, m).is_some() {
                    rewrite_call_sites(module, m, c.body, args);
                    module.defer_erase(m);
                    Disposal::CallSitesRewritten
                } else {
                    fold::make_thunk(module, m, c.body, args);
                    Disposal::Thunk
                };
            record.members.push(Member { name: m.name(), disposal });
        }
        merges += 1;
        stats.merges += 1;
        stats.functions_removed_or_thunked += record.members.len();
        report.merges.push(record);
    }
    merges
}

/// Compiles every candidate that needs confirmation (with probe thunks) and its originals,
/// and replaces the verdict by the measured one.
fn confirm_by_codegen(
    module: &Module<'_>,
    target: &Target,
    cands: &mut [Candidate<'_>],
    stats: &mut StageStats,
) {
    let pending: Vec<usize> =
        (0..cands.len()).filter(|&k| cands[k].verdict == Verdict::Measure).collect();
    if pending.is_empty() {
        return;
    }
    let mut originals = Vec::new();
    let mut new_fns = Vec::new();
    let mut probes: Vec<Vec<Option<Value<'_>>>> = Vec::new();
    for &k in &pending {
        let c = &cands[k];
        originals.extend(c.members.iter().copied());
        new_fns.push(c.body);
        let mut ps = Vec::new();
        for ((&m, plan), args) in c.members.iter().zip(&c.plans).zip(&c.args) {
            if *plan == Plan::Thunk {
                let probe = module
                    .add_function(&format!("{}.fmerge.probe", m.name()), m.global_value_type());
                probe.copy_function_attrs_from(m);
                probe.set_linkage(llvm_sys::LLVMLinkage::LLVMInternalLinkage);
                fold::write_forwarding_body(module, probe, c.body, args);
                new_fns.push(probe);
                ps.push(Some(probe));
            } else {
                ps.push(None);
            }
        }
        probes.push(ps);
    }
    let sizes = Sizes::of(module, target, &originals)
        .and_then(|before| Sizes::of(module, target, &new_fns).map(|after| (before, after)));
    for (slot, &k) in pending.iter().enumerate() {
        let c = &mut cands[k];
        let measured = sizes.as_ref().ok().and_then(|(before, after)| {
            let b = before.total(
                c.members.iter().map(|m| m.name()).collect::<Vec<_>>().iter().map(String::as_str),
            )?;
            let mut a = after.get(&c.body.name())?;
            for p in probes[slot].iter().flatten() {
                a += after.get(&p.name())?;
            }
            Some(b as i64 - a as i64 - profit::units_to_bytes(c.call_site_units))
        });
        stats.measured_decisions += 1;
        match measured {
            Some(saving) => {
                let estimate_says_keep = c.before_units > c.after_units;
                if estimate_says_keep != (saving > 0) {
                    stats.estimate_disagreed += 1;
                }
                c.measured_saving = Some(saving);
                c.verdict = if saving > 0 { Verdict::Keep } else { Verdict::Reject };
            }
            // Could not measure: do not take the risk.
            None => c.verdict = Verdict::Reject,
        }
    }
    for p in probes.into_iter().flatten().flatten() {
        module.defer_erase(p);
    }
}

/// If every use of `f` is a plain direct call and nothing outside the module can reach `f`,
/// the number of call sites.
fn rewritable_call_sites(vis: &Visibility<'_>, f: Value<'_>) -> Option<usize> {
    if vis.is_externally_visible(f) || !vis.is_erasable_when_unused(f) {
        return None;
    }
    let fn_ty = f.global_value_type();
    let users = f.users();
    for (u, k) in &users {
        let direct = u.opcode() == Some(opcode::CALL)
            && u.num_operands() == k + 1
            && u.called_function_type() == fn_ty
            && u.operand_bundles().is_empty()
            && u.tail_call_kind() != LLVMTailCallKind::LLVMTailCallKindMustTail as u32;
        if !direct {
            return None;
        }
    }
    Some(users.len())
}

/// Replaces each direct call of `f` by a call of `body` with `f`'s constants appended.
fn rewrite_call_sites<'m>(
    module: &'m Module<'_>,
    f: Value<'m>,
    body: Value<'m>,
    consts: &[Value<'m>],
) {
    let b = Builder::new(module);
    let body_ty = body.global_value_type();
    for (call, _) in f.users() {
        b.position_before(call);
        let mut args: Vec<Value<'m>> =
            (0..call.num_arg_operands()).filter_map(|k| call.operand(k)).collect();
        args.extend_from_slice(consts);
        let new = b.call(body_ty, body, &args);
        new.set_call_like_function(body);
        new.copy_call_attrs_from(call);
        new.copy_debug_loc_from(call);
        if call.tail_call_kind() == LLVMTailCallKind::LLVMTailCallKindTail as u32 {
            new.set_tail_call_kind(LLVMTailCallKind::LLVMTailCallKindTail);
        }
        if call.has_uses() {
            call.replace_all_uses_with(new);
        }
        module.defer_erase_instruction(call);
    }
}
