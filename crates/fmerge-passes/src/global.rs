//! Global merging under separate compilation, the module side (see `fmerge_core::global` for
//! the model and the file formats).
//!
//! - [`summarize`]: the module's summary: a stable hash, size and parameterizable constants
//!   per function that could take part.
//! - [`apply`]: for every function whose recomputed hash has a group in the merge information
//!   (and whose constants fit the group's parameters), a parameterized copy of *its own body*
//!   (`<name>.Tgm`, internal, `unnamed_addr`) and a thunk that passes its own constants. The
//!   copies made in different modules are identical, so the linker's identical code folding
//!   (`ld.lld --icf=all`, objects built with function sections) keeps one. Nothing here
//!   trusts the information: a stale or colliding entry can only cost size, never behaviour.

use crate::fold::{self, Visibility, can_thunk};
use crate::report::{Disposal, Member, MergeRecord, Report, Skipped, StageStats};
use fmerge_core::compare::Walk;
use fmerge_core::global::{FunctionSummary, MergeInfo, ModuleSummary};
use fmerge_core::ir::{FuncData, Operand, traits};
use fmerge_core::profit;
use fmerge_llvm::lower::{Hashes, LoweredModule, lower_module};
use fmerge_llvm::{LlvmError, Module, Target, Value, cost};
use std::time::Instant;

const STAGE: &str = "global";

/// Traits that rule out a parameterized copy or a thunk (as for constant merging).
const BLOCKING: u32 = traits::VARARGS
    | traits::MUSTTAIL
    | traits::BLOCK_ADDRESS
    | traits::PREFIX_PROLOGUE
    | traits::SELF_ADDRESS
    | traits::CALLBR
    | traits::GC
    | traits::SWIFTERROR;

/// Summaries of the functions of `lowered` that may take part, with their indices.
fn candidates<'m>(
    module: &'m Module<'_>,
    lowered: &LoweredModule<'m>,
    target: &Target,
    mut skipped: impl FnMut(&FuncData, String),
) -> Vec<(usize, FunctionSummary, Walk)> {
    let vis = Visibility::new(module, false);
    let mut out = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let func = lowered.handles[k].function;
        if f.traits & BLOCKING != 0 {
            skipped(f, traits::describe(f.traits & BLOCKING));
            continue;
        }
        if let Err(why) = can_thunk(func) {
            skipped(f, why.to_string());
            continue;
        }
        // The linker already keeps one copy of these across modules.
        if !vis.may_share_privately(func) {
            continue;
        }
        let Some(units) = cost::function_cost(target, func) else { continue };
        if units <= profit::thunk_units(f.arg_types.len() + 1) {
            continue;
        }
        let walk = Walk::new(f);
        let summary = fmerge_core::global::summarize(lowered.tables(), f, &walk, units as u32);
        out.push((k, summary, walk));
    }
    out
}

/// The summary of `module`, named `name` in the merge information's reports.
pub fn summarize(module: &Module<'_>, target: &Target, name: &str) -> ModuleSummary {
    let lowered = lower_module(module, Hashes::Stable);
    let functions =
        candidates(module, &lowered, target, |_, _| {}).into_iter().map(|(_, s, _)| s).collect();
    ModuleSummary { module: name.to_string(), functions }
}

/// Applies `info` to `module`; the module verifies afterwards.
pub fn apply(
    module: &mut Module<'_>,
    target: &Target,
    info: &MergeInfo,
) -> Result<Report, LlvmError> {
    module.verify()?;
    let start = Instant::now();
    let mut report = Report { target: target.triple().to_string(), ..Default::default() };
    let mut stats = StageStats { stage: STAGE, rounds: 1, ..Default::default() };
    report.functions_before = module.functions().iter().filter(|f| !f.is_declaration()).count();
    {
        let module: &Module<'_> = module;
        let lowered = lower_module(module, Hashes::Stable);
        let mut skipped = Vec::new();
        let found = candidates(module, &lowered, target, |f, why| {
            skipped.push(Skipped { stage: STAGE, function: f.name.clone(), reason: why })
        });
        report.skipped = skipped;
        for (k, summary, walk) in found {
            let Some(group) = info.group(summary.hash) else { continue };
            let f = &lowered.funcs[k];
            let handles = &lowered.handles[k];
            // Where each parameter's constant sits in this function; all its sites must hold
            // one and the same constant.
            let mut args: Vec<Value<'_>> = Vec::with_capacity(group.params.len());
            let mut fits = group.inst_count == summary.inst_count;
            for sites in &group.params {
                let mut value = None;
                for &(serial, op) in sites {
                    let v = operand_at(f, &walk, serial, op).and_then(|(i, k, o)| match o {
                        Operand::Const { role: fmerge_core::ir::ConstRole::Param, .. }
                        | Operand::SelfRef => handles.insts[i as usize].operand(k),
                        _ => None,
                    });
                    match (v, value) {
                        (Some(v), None) => value = Some(v),
                        (Some(v), Some(w)) if v == w => {}
                        _ => fits = false,
                    }
                }
                match value {
                    Some(v) if fits => args.push(v),
                    _ => fits = false,
                }
            }
            if !fits {
                stats.rejected_unprofitable += 1;
                continue;
            }
            let func = handles.function;
            let Some(copy) = parameterized_copy(module, f, &walk, handles, group, &args) else {
                stats.rolled_back += 1;
                continue;
            };
            let n = func.params().len();
            fold::make_thunk(module, func, copy, &fold::forwarding_args(n, &args));
            stats.merges += 1;
            stats.functions_removed_or_thunked += 1;
            report.merges.push(MergeRecord {
                stage: STAGE,
                body: copy.name(),
                members: vec![Member { name: f.name.clone(), disposal: Disposal::Thunk }],
                params: group.params.len(),
                alignment: None,
                estimated_saving: 0,
                measured_saving: None,
            });
        }
    }
    module.sweep();
    module.verify()?;
    report.functions_after = module.functions().iter().filter(|f| !f.is_declaration()).count();
    stats.seconds = Some(start.elapsed().as_secs_f64());
    report.stages.push(stats);
    Ok(report)
}

/// The operand at walk position `serial`, canonical position `pos`: (instruction index,
/// operand index, operand).
fn operand_at(f: &FuncData, walk: &Walk, serial: u32, pos: u32) -> Option<(u32, u32, Operand)> {
    let &i = walk.insts.get(serial as usize)?;
    let (k, o) = *fmerge_core::compare::canonical_operands(f, walk, i).get(pos as usize)?;
    Some((i, k, o))
}

/// `<name>.Tgm`: a copy of `func`'s body with the group's sites replaced by trailing
/// parameters. `None` (and nothing left behind) if the copy does not verify.
fn parameterized_copy<'m>(
    module: &'m Module<'_>,
    f: &FuncData,
    walk: &Walk,
    handles: &fmerge_llvm::lower::FuncHandles<'m>,
    group: &fmerge_core::global::MergeGroup,
    args: &[Value<'m>],
) -> Option<Value<'m>> {
    // Every site's operand index, before anything is built.
    let mut positions = Vec::new();
    for (p, sites) in group.params.iter().enumerate() {
        for &(serial, op) in sites {
            let (i, k, _) = operand_at(f, walk, serial, op)?;
            positions.push((i, k, p));
        }
    }
    let func = handles.function;
    let fn_ty = func.global_value_type();
    let mut params = fn_ty.param_types();
    let first_extra = params.len();
    params.extend(args.iter().map(|a| a.ty()));
    let ty = module.function_type(fn_ty.return_type(), &params, false);
    let copy = module.add_function(&format!("{}.Tgm", func.name()), ty);
    if !func.clone_body_into(copy) {
        module.defer_erase(copy);
        return None;
    }
    fold::seal_merged_function(copy);
    let insts: Vec<Value<'m>> = copy.blocks().iter().flat_map(|b| b.instructions()).collect();
    if insts.len() != handles.insts.len() {
        fold::discard_body(module, copy);
        module.defer_erase(copy);
        return None;
    }
    let cparams = copy.params();
    for &(i, k, p) in &positions {
        insts[i as usize].set_operand(k, cparams[first_extra + p]);
    }
    if copy.verify_function().is_err() {
        fold::discard_body(module, copy);
        module.defer_erase(copy);
        return None;
    }
    Some(copy)
}
