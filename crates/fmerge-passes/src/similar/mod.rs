//! Similar-function merging (F3M search, HyFM alignment, SalSSA-style code generation).
//!
//! Per round:
//! 1. Lower the module. Functions whose traits rule out a merged body or a thunk sit out
//!    (varargs, musttail, blockaddress, callbr, funclet EH, swifterror, GC, prefix data,
//!    taking their own address, token values), as do functions no bigger than a thunk.
//! 2. Fingerprint every candidate with a MinHash signature over shingles of its encoded
//!    instructions and index them with LSH (F3M; band count and similarity threshold adapt to
//!    the number of functions), so partners are found without comparing all pairs.
//! 3. Largest functions first: query the index for the most similar partners not yet used
//!    this round; for each (best first) check that the two may share a body (return type,
//!    function attributes, calling convention, GC, section, personality), align them (HyFM
//!    block pairing with Needleman–Wunsch inside blocks), build the merged body
//!    ([`codegen`]), and price it. The first partner whose estimate is not a clear loss is
//!    taken; failures and clear losses are remembered so later rounds do not retry them.
//! 4. Settle close estimates by compiling all candidates of the round in one batch, commit
//!    the winners (thunks or rewritten call sites), erase the losers.
//! 5. Merged bodies are ordinary functions in the next round, so they can merge again
//!    (three or more similar functions end up sharing one body).

pub mod codegen;
pub mod params;

use crate::fold::{self, Visibility, can_thunk};
use crate::options::Options;
use crate::proposal::{self, Proposal};
use crate::report::{MergeRecord, Rejected, Report, Skipped, StageStats};
use codegen::Side;
use fmerge_core::align::{AlignConfig, align_blocks};
use fmerge_core::compare::Walk;
use fmerge_core::ir::{FuncData, traits};
use fmerge_core::lsh::{LshConfig, LshIndex};
use fmerge_core::minhash::{MinHashConfig, MinHasher};
use fmerge_core::profit;
use fmerge_core::rank::{CandidateSearch, FuncKey};
use fmerge_llvm::lower::lower_module;
use fmerge_llvm::{Module, Target, Value, cost};
use params::ParamMap;
use std::collections::HashSet;
use std::time::Instant;

const STAGE: &str = "similar";
const MAX_ROUNDS: usize = 6;
/// Partners tried per function (F3M's exploration threshold).
const EXPLORE: usize = 3;
/// Pairs whose alignment shares less than this fraction of instructions are not tried.
const MIN_ALIGNMENT: f64 = 0.3;

/// Traits that rule out a merged body or a thunk.
const BLOCKING: u32 = traits::VARARGS
    | traits::MUSTTAIL
    | traits::BLOCK_ADDRESS
    | traits::CALLBR
    | traits::EH_FUNCLETS
    | traits::SWIFTERROR
    | traits::GC
    | traits::PREFIX_PROLOGUE
    | traits::SELF_ADDRESS
    | traits::TOKENS;

pub fn run(module: &mut Module<'_>, target: &Target, opts: &Options, report: &mut Report) {
    let start = Instant::now();
    let mut stats = StageStats { stage: STAGE, ..Default::default() };
    let mut memo = Memo::default();
    for _ in 0..MAX_ROUNDS {
        stats.rounds += 1;
        let merged = one_round(module, target, opts, report, &mut stats, &mut memo);
        module.sweep();
        if merged == 0 {
            break;
        }
    }
    stats.seconds = Some(start.elapsed().as_secs_f64());
    report.stages.push(stats);
}

/// What earlier rounds learnt.
#[derive(Default)]
struct Memo {
    /// Pairs (by name) that failed or did not pay: not tried again.
    rejected: HashSet<(String, String)>,
    /// Functions already reported as skipped.
    reported: HashSet<String>,
}

struct Taken<'m> {
    proposal: Proposal<'m>,
    ratio: f64,
    names: (String, String),
}

fn one_round(
    module: &Module<'_>,
    target: &Target,
    opts: &Options,
    report: &mut Report,
    stats: &mut StageStats,
    memo: &mut Memo,
) -> usize {
    let lowered = lower_module(module);
    let tables = lowered.tables();
    let vis = Visibility::new(module, opts.whole_program);
    let mut eligible: Vec<usize> = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let func = lowered.handles[k].function;
        let reason = if f.traits & BLOCKING != 0 {
            Some(traits::describe(f.traits & BLOCKING))
        } else {
            can_thunk(func).err().map(str::to_string)
        };
        if let Some(r) = reason {
            if memo.reported.insert(f.name.clone()) {
                report.skipped.push(Skipped { stage: STAGE, function: f.name.clone(), reason: r });
            }
            continue;
        }
        let tiny = cost::function_cost(target, func)
            .is_none_or(|c| c <= profit::thunk_units(f.arg_types.len() + 1));
        if !tiny {
            eligible.push(k);
        }
    }
    if eligible.len() < 2 {
        return 0;
    }
    let hasher = MinHasher::new(MinHashConfig::default());
    let mut index = LshIndex::new(LshConfig::default().adapted_to(eligible.len()));
    index.insert_many(
        eligible
            .iter()
            .enumerate()
            .map(|(key, &k)| {
                (FuncKey(key as u32), hasher.signature_of_function(tables, &lowered.funcs[k]))
            })
            .collect(),
    );
    let walks: Vec<Walk> = eligible.iter().map(|&k| Walk::new(&lowered.funcs[k])).collect();
    let mut order: Vec<usize> = (0..eligible.len()).collect();
    order.sort_by_key(|&key| (std::cmp::Reverse(lowered.funcs[eligible[key]].num_insts()), key));

    let margin = proposal::margin(opts.profit, opts.close_margin);
    let align_cfg = AlignConfig::default();
    let mut used = vec![false; eligible.len()];
    let mut taken: Vec<Taken<'_>> = Vec::new();
    for &a in &order {
        if used[a] {
            continue;
        }
        let partners = index.candidates(FuncKey(a as u32), EXPLORE, &|k| !used[k.0 as usize]);
        for c in partners {
            let b = c.key.0 as usize;
            let (fa, fb) = (&lowered.funcs[eligible[a]], &lowered.funcs[eligible[b]]);
            let names = (fa.name.clone(), fb.name.clone());
            if memo.rejected.contains(&pair_key(&names)) {
                continue;
            }
            let (ha, hb) = (&lowered.handles[eligible[a]], &lowered.handles[eligible[b]]);
            if !may_share_body(fa, ha.function, fb, hb.function) {
                continue;
            }
            let align = align_blocks(tables, fa, fb, &align_cfg);
            if align.stats.ratio() < MIN_ALIGNMENT {
                memo.rejected.insert(pair_key(&names));
                continue;
            }
            let (side_a, side_b) = (
                Side { data: fa, handles: ha, walk: &walks[a] },
                Side { data: fb, handles: hb, walk: &walks[b] },
            );
            let sides = [&side_a, &side_b];
            let map = ParamMap::new(fa, fb, &align);
            let body = match build_body(module, sides, &align, &map) {
                Ok(body) => body,
                Err(why) => {
                    stats.rolled_back += 1;
                    report.skipped.push(Skipped {
                        stage: STAGE,
                        function: format!("{} + {}", names.0, names.1),
                        reason: format!("merge abandoned: {why}"),
                    });
                    memo.rejected.insert(pair_key(&names));
                    continue;
                }
            };
            let poison: Vec<Value<'_>> = body.params().iter().map(|p| p.ty().poison()).collect();
            let i1 = module.int_type(1);
            let args = vec![
                map.thunk_args(0, &poison, i1.const_int(0)),
                map.thunk_args(1, &poison, i1.const_int(1)),
            ];
            let Some(p) = Proposal::plan(target, &vis, vec![ha.function, hb.function], body, args)
            else {
                module.defer_erase(body);
                memo.rejected.insert(pair_key(&names));
                continue;
            };
            if profit::judge(p.before_units, p.after_units, margin) == profit::Verdict::Reject {
                stats.rejected_unprofitable += 1;
                report.rejected.push(Rejected {
                    stage: STAGE,
                    members: vec![names.0.clone(), names.1.clone()],
                    estimated_saving: profit::units_to_bytes(p.before_units - p.after_units),
                    measured_saving: None,
                });
                module.defer_erase(body);
                memo.rejected.insert(pair_key(&names));
                continue;
            }
            used[a] = true;
            used[b] = true;
            taken.push(Taken { proposal: p, ratio: align.stats.ratio(), names });
            break;
        }
    }

    let (proposals, infos): (Vec<Proposal<'_>>, Vec<(f64, (String, String))>) =
        taken.into_iter().map(|t| (t.proposal, (t.ratio, t.names))).unzip();
    let verdicts = proposal::settle(module, target, &proposals, margin, stats);
    let mut merges = 0;
    for ((p, (ratio, names)), v) in proposals.into_iter().zip(infos).zip(verdicts) {
        if !v.keep {
            stats.rejected_unprofitable += 1;
            report.rejected.push(Rejected {
                stage: STAGE,
                members: vec![names.0.clone(), names.1.clone()],
                estimated_saving: profit::units_to_bytes(p.before_units - p.after_units),
                measured_saving: v.measured_saving,
            });
            module.defer_erase(p.body);
            memo.rejected.insert(pair_key(&names));
            continue;
        }
        let members = p.commit(module, &vis);
        merges += 1;
        stats.merges += 1;
        stats.functions_removed_or_thunked += members.len();
        report.merges.push(MergeRecord {
            stage: STAGE,
            body: p.body.name(),
            members,
            params: p.body.params().len(),
            alignment: Some(ratio),
            estimated_saving: profit::units_to_bytes(p.before_units - p.after_units),
            measured_saving: v.measured_saving,
        });
    }
    merges
}

/// A pair of names in a fixed order, so a rejection holds both ways round.
fn pair_key(names: &(String, String)) -> (String, String) {
    if names.0 <= names.1 { names.clone() } else { (names.1.clone(), names.0.clone()) }
}

/// Function-level properties two functions must share for one body to serve both.
fn may_share_body(fa: &FuncData, a: Value<'_>, fb: &FuncData, b: Value<'_>) -> bool {
    if fa.ret_type != fb.ret_type || a.call_conv() != b.call_conv() {
        return false;
    }
    if a.fn_attr_key() != b.fn_attr_key() || a.gc() != b.gc() || a.section() != b.section() {
        return false;
    }
    match (a.personality(), b.personality()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// Creates the merged function and its body; erases it again on failure.
fn build_body<'a, 'm>(
    module: &'m Module<'_>,
    sides: [&'a Side<'a, 'm>; 2],
    align: &fmerge_core::align::FunctionAlignment,
    map: &'a ParamMap,
) -> Result<Value<'m>, String> {
    let (a, b) = (sides[0].handles.function, sides[1].handles.function);
    let fn_ty = a.global_value_type();
    let mut param_tys = Vec::with_capacity(map.types.len() + 1);
    let (pa, pb) = (a.params(), b.params());
    for s in 0..2 {
        let params = if s == 0 { &pa } else { &pb };
        for (orig, &m) in map.of[s].iter().enumerate() {
            if m as usize >= param_tys.len() {
                param_tys.resize(m as usize + 1, None);
            }
            param_tys[m as usize].get_or_insert(params[orig].ty());
        }
    }
    let mut tys: Vec<_> =
        param_tys.into_iter().map(|t| t.expect("every parameter typed")).collect();
    tys.push(module.int_type(1));
    let m_ty = module.function_type(fn_ty.return_type(), &tys, false);
    let m = fold::new_merged_function(module, &a.name(), a, m_ty);
    let (back0, back1) = (map.back(0), map.back(1));
    for (k, p) in m.params().into_iter().enumerate() {
        let name = match (back0.get(k).copied().flatten(), back1.get(k).copied().flatten()) {
            (Some(i), _) => pa[i as usize].name(),
            (None, Some(j)) => format!("other.{}", pb[j as usize].name()),
            (None, None) => "function.id".to_string(),
        };
        p.set_name(&name);
    }
    let mut back = [back0, back1];
    back[0].push(None);
    back[1].push(None);
    if let Err(why) = m.set_merged_attrs(a, b, &back[0], &back[1]) {
        module.defer_erase(m);
        return Err(why.into());
    }
    fold::seal_merged_function(m);
    if m.personality().is_none() {
        m.set_personality(b.personality());
    }
    match codegen::build(module, m, sides, align, map) {
        Ok(()) => Ok(m),
        Err(e) => {
            module.defer_erase(m);
            Err(e)
        }
    }
}
