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

use crate::fold::Arg;
use crate::fold::{self, Visibility, can_thunk};
use crate::intersect;
use crate::measure::SizeCache;
use crate::profiling::pricing::BlockCounts;
use crate::proposal::{self, Proposal};
use crate::report::{MergeRecord, Rejected, Skipped, StageStats};
use crate::session::{Run, Session};
use crate::stage::{About, Stage};
use fmerge_core::compare::{self, Mode, UNREACHED, Walk};
use fmerge_core::ir::{FuncData, traits};
use fmerge_core::profiling::work;
use fmerge_core::profit;
use fmerge_llvm::lower::{Hashes, lower_functions, structural_twins};
use fmerge_llvm::{Function, Instruction, Module, Value, cost};

const STAGE: &str = "constants";

/// Why linkonce/weak/comdat functions sit out when the module is not the whole program.
pub const PER_MODULE_COPIES: &str = "the linker may keep one copy of it across modules; a merged body private to this module \
     would be repeated in each (use --whole-program if the module is the whole program)";

/// Traits that make a parameterized body or a thunk impossible (global merging's copies too).
pub(crate) const BLOCKING: u32 = traits::VARARGS
    | traits::MUSTTAIL
    | traits::BLOCK_ADDRESS
    | traits::PREFIX_PROLOGUE
    | traits::SELF_ADDRESS
    | traits::CALLBR
    | traits::GC
    | traits::SWIFTERROR;

/// The stage of functions equal up to constants.
#[derive(Default)]
pub struct Constants;

impl Stage for Constants {
    fn about(&self) -> About {
        About { name: STAGE, activity: "merging functions that differ in constants", max_rounds: 4 }
    }

    fn run_round(&mut self, session: &mut Session<'_, '_>, stats: &mut StageStats) -> usize {
        one_round(&*session.module, &mut session.run, stats)
    }
}

fn one_round(module: &Module<'_>, run: &mut Run<'_>, stats: &mut StageStats) -> usize {
    let (target, opts) = (run.target, run.opts);
    let lowered = lower_functions(module, &structural_twins(module), Hashes::Local);
    let vis = Visibility::new(module, opts.whole_program);
    let mut eligible = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let func = lowered.handles[k].function;
        let reason = if f.traits & BLOCKING != 0 {
            Some(traits::describe(f.traits & BLOCKING))
        } else if !vis.may_share_privately(func) {
            Some(PER_MODULE_COPIES.to_string())
        } else if let Some(why) = run.ledger.exclusion(&f.name) {
            Some(why)
        } else {
            can_thunk(func).err().map(str::to_string)
        };
        // A function no bigger than a thunk (often a thunk itself) can only grow by merging.
        let tiny = || {
            f.is_forwarder()
                || cost::function_cost(target, func)
                    .is_none_or(|c| c <= profit::thunk_units(f.arg_types.len() + 1))
        };
        if reason.is_none() && tiny() {
            continue;
        }
        match reason {
            Some(r) => run.skip_once(STAGE, &f.name, r),
            None => eligible.push(k),
        }
    }
    let funcs: Vec<&FuncData> = eligible.iter().map(|&k| &lowered.funcs[k]).collect();
    let walks: Vec<Walk> = funcs.iter().map(|f| Walk::new(f)).collect();
    let classes = compare::equal_classes(lowered.tables(), &funcs, &walks, Mode::ModuloParams);

    let margins = proposal::Margins::for_mode(opts.profit, opts.close_margin);
    let mut proposals = Vec::new();
    let mut params_of = Vec::new();
    // Per proposal: the work it adds at run time, and its body's block counts.
    let mut runtime: Vec<(u64, BlockCounts)> = Vec::new();
    for class in &classes {
        let Some(plan) = compare::param_plan(lowered.tables(), &funcs, &walks, class) else {
            continue;
        };
        if plan.num_params() == 0 {
            // Exactly equal: the identical stage's business.
            continue;
        }
        let rep = &lowered.handles[eligible[class[0]]];
        let members: Vec<Function<'_>> =
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
        for (k, p) in body.params().into_iter().enumerate() {
            match k.checked_sub(first_extra) {
                None => p.set_name(&rep.function.params()[k].name()),
                Some(c) => p.set_name(&format!("const{c}")),
            }
        }
        if !r.clone_body_into(body) {
            module.defer_erase(body);
            continue;
        }
        let body_insts: Vec<Instruction<'_>> =
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
        // Sealed last: the seal adds `noinline`, which no member has to share.
        fold::seal_merged_function(body);
        if let Err(why) = body.verify() {
            module.defer_erase(body);
            stats.rolled_back += 1;
            run.report.skipped.push(Skipped {
                stage: STAGE,
                function: r.name(),
                reason: format!("merged body rolled back, it did not verify: {}", why.trim()),
            });
            continue;
        }
        let args: Vec<Vec<Arg<'_>>> =
            args.iter().map(|consts| fold::forwarding_args(first_extra, consts)).collect();
        let Some(proposal) =
            Proposal::plan(target, &vis, members, body, args, profit::BYTES_PER_UNIT_ORIGINAL)
        else {
            module.defer_erase(body);
            continue;
        };
        let counts: Vec<BlockCounts> =
            proposal.members.iter().map(|m| run.ledger.counts(&m.name())).collect();
        let member_walks: Vec<&Walk> = class.iter().map(|&c| &walks[c]).collect();
        let (body_counts, sites) =
            body_counts(funcs[class[0]], &member_walks, &counts, &plan.sites);
        let calls: Vec<u64> = counts.iter().map(BlockCounts::entry).collect();
        let added = work::sites_work(sites).saturating_add(proposal.call_work(&calls));
        // Not affordable even if it saved what it plausibly can: dropped before any code is
        // generated to measure it (`Proposal::plausible_saving`).
        let names: Vec<String> = proposal.members.iter().map(|m| m.name()).collect();
        if let Some(why) = run
            .ledger
            .refusal(added, proposal.plausible_saving(margins))
            .or_else(|| run.ledger.hot_refusal(added, &names))
        {
            run.ledger.over_budget += 1;
            run.report.skipped.push(Skipped {
                stage: STAGE,
                function: names.join(" + "),
                reason: why,
            });
            module.defer_erase(body);
            continue;
        }
        runtime.push((added, body_counts));
        proposals.push(proposal);
        params_of.push(plan.num_params());
    }

    let verdicts = proposal::settle(
        module,
        target,
        &proposals,
        margins,
        &mut SizeCache::default(),
        &mut proposal::MeasureBudget::for_stage(module, opts),
        opts.jobs,
        stats,
    );
    // The winners spend the slowdown budget, most bytes per unit of added work first (without
    // a profile every merge is free and the order is the proposals' order).
    let mut kept = Vec::new();
    for (k, (p, v)) in proposals.iter().zip(&verdicts).enumerate() {
        if v.keep {
            kept.push(k);
            continue;
        }
        stats.rejected_unprofitable += 1;
        run.report.rejected.push(Rejected {
            stage: STAGE,
            members: p.members.iter().map(|m| m.name()).collect(),
            estimated_saving: p.estimated_saving(),
            measured_saving: v.measured_saving,
        });
        module.defer_erase(p.body);
    }
    let priced: Vec<(i64, u64)> = kept
        .iter()
        .map(|&k| {
            let saving = verdicts[k].measured_saving.unwrap_or(proposals[k].estimated_saving());
            (saving, runtime[k].0)
        })
        .collect();
    let mut merges = 0;
    for j in work::cheapest_first(&priced) {
        let k = kept[j];
        let (p, v, params) = (&proposals[k], &verdicts[k], params_of[k]);
        let (added, body_counts) = &runtime[k];
        let originals: Vec<String> = p.members.iter().map(|m| m.name()).collect();
        if let Err(why) = run.ledger.spend(*added, priced[j].0) {
            run.report.skipped.push(Skipped {
                stage: STAGE,
                function: originals.join(" + "),
                reason: why,
            });
            module.defer_erase(p.body);
            continue;
        }
        if !run.admit(&originals) {
            run.ledger.budget.spent -= added;
            module.defer_erase(p.body);
            continue;
        }
        let members = p.commit(module, &vis);
        let work = originals.iter().map(|n| run.ledger.work_of(n)).sum::<Option<u64>>();
        run.ledger.set_body(p.body.name(), body_counts.clone(), work);
        merges += 1;
        stats.merges += 1;
        stats.functions_removed_or_thunked += members.len();
        let seq = run.report.next_seq();
        run.report.merges.push(MergeRecord {
            estimated_saving: p.estimated_saving(),
            measured_saving: v.measured_saving,
            decided_on: Some(v.basis),
            added_work: run.profile.is_some().then_some(*added),
            work_fraction: run.ledger.fraction(*added),
            member_work: None,
            ..MergeRecord::new(seq, STAGE, originals, p.body.name(), members, params)
        });
    }
    merges
}

/// The merged body's block counts, and the count of each constant site's block. The body has
/// the representative's control flow (`member_walks[0]`), and every member's blocks map onto it
/// by their order in the walk (equal functions walk alike), so a body block runs as often as
/// the members' blocks it stands for together. `counts` in member order; `sites` are the
/// parameter plan's `(instruction, operand, parameter)` in the representative.
fn body_counts(
    rep: &FuncData,
    member_walks: &[&Walk],
    counts: &[BlockCounts],
    sites: &[(u32, u32, u32)],
) -> (BlockCounts, Vec<u64>) {
    if !counts.iter().any(BlockCounts::ran) {
        return (BlockCounts::Cold, Vec::new());
    }
    let mut summed = vec![0u64; rep.blocks.len()];
    for (walk, c) in member_walks.iter().zip(counts) {
        for (b, sum) in summed.iter_mut().enumerate() {
            let serial = member_walks[0].block_serial[b];
            if serial != UNREACHED {
                let theirs = walk.blocks.get(serial as usize).copied();
                *sum = sum.saturating_add(theirs.map_or(0, |x| c.block(x as usize)));
            }
        }
    }
    let block_of = work::block_of_insts(rep);
    let sites = sites.iter().map(|&(i, _, _)| summed[block_of[i as usize] as usize]).collect();
    (BlockCounts::Blocks(summed), sites)
}
