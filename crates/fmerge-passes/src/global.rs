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
//!
//! Similar functions across modules (beyond seed 002 and LLVM):
//! - [`summarize`] also writes each candidate's body, made module-independent: every symbol
//!   whose name may mean something else in another module (static functions and variables,
//!   string literals, linkonce/weak definitions) becomes a trailing parameter.
//! - [`combine_similar`] links those bodies into one scratch module and runs fmerge's own
//!   similar-function merging on it (search, alignment, SSA code generation, profit model).
//!   Each merge becomes a [`SimilarGroup`]: the members as summarized, their thunks, and the
//!   merged bodies, as bitcode.
//! - [`apply`] imports a group into a module that holds one of its members, checks that the
//!   module's function, made module-independent the same way, *equals* the summarized member
//!   (LLVM's function comparator, not a hash), and only then gives it the thunk's body with
//!   the module's own symbols as the extra arguments. The merged bodies are `linkonce_odr`
//!   in comdats of their own, identical in every module, so the linker keeps one.

use crate::fold::{self, Visibility, can_thunk};
use crate::profiling::pricing::{Ledger, ModuleProfile};
use crate::report::{Disposal, Member, MergeRecord, Report, Skipped, StageStats};
use fmerge_core::compare::Walk;
use fmerge_core::global::{FunctionSummary, MergeInfo, ModuleSummary, SimilarGroup, SimilarMember};
use fmerge_core::ir::{FuncData, Operand, traits};
use fmerge_core::profit;
use fmerge_llvm::lower::{Hashes, LoweredModule, lower_module};
use fmerge_llvm::{
    Function, Instruction, Linkage, Llvm, LlvmError, Module, ModuleBytes, Target, UnnamedAddr,
    Value, cost,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

const STAGE: &str = "global";

/// Traits that rule out a parameterized copy or a thunk: the same as for constant merging.
use crate::constants::BLOCKING;

/// Summaries of the functions of `lowered` that may take part, with their indices.
/// With `dedupable`, linkonce, weak and comdat functions take part too (see
/// [`summarize_with`]).
fn candidates<'m>(
    module: &'m Module<'_>,
    lowered: &LoweredModule<'m>,
    target: &Target,
    dedupable: bool,
    mut skipped: impl FnMut(&FuncData, String),
) -> Vec<(usize, FunctionSummary, Walk)> {
    let vis = Visibility::new(module, dedupable);
    // Hot functions by the module's profile get no parameterized copy (see
    // `crate::profiling::pricing`): the same cut in `summarize` and `apply`, so a module's
    // summary and its application agree.
    let profile = crate::profiling::pricing::ModuleProfile::read(
        module,
        Some(crate::profiling::pricing::DEFAULT_HOT_PERCENTILE),
        0.0,
        0.0,
    );
    let mut out = Vec::new();
    for (k, f) in lowered.funcs.iter().enumerate() {
        let func = lowered.handles[k].function;
        if f.traits & BLOCKING != 0 {
            skipped(f, traits::describe(f.traits & BLOCKING));
            continue;
        }
        if let Some(why) = profile.as_ref().and_then(|p| p.hot_reason(&f.name)) {
            skipped(f, why);
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

/// Module-local symbols a function may pass to a shared body (each one is an argument of its
/// thunk; beyond a handful they would no longer fit in registers).
const MAX_LOCALS: usize = 6;

/// Name of `functions[k]`'s body in a summary's bitcode.
fn body_name(k: usize, locals: usize) -> String {
    format!("fm.{k}.{locals}")
}

/// Bytes a thunk spends on passing one module-local symbol: the address it materializes
/// (x86-64 `lea sym(%rip), %reg` is 7 bytes, AArch64 `adrp` + `add` 8). The scratch module
/// of `combine` passes parameters through instead, so its thunks do not show this.
const LOCAL_ARG_BYTES: i64 = 7;

fn thunk_name(key: u64) -> String {
    format!("__fmerge.t.{key:016x}")
}
fn original_name(key: u64) -> String {
    format!("__fmerge.o.{key:016x}")
}
const SHARED_PREFIX: &str = "__fmerge.s.";

/// The summary of `module`, named `name` in the merge information's reports; with `bodies`,
/// also the candidates' module-independent bodies (for merging similar functions across
/// modules).
pub fn summarize(module: &Module<'_>, target: &Target, name: &str, bodies: bool) -> ModuleSummary {
    summarize_with(module, target, name, bodies, false, &Pricing::default())
}

/// [`summarize`]; with `dedupable`, also the linkonce, weak and comdat functions, which
/// separate compilation leaves to the linker (every module has a copy). In a ThinLTO backend
/// the link has already picked the one module that defines each of them, so they are ordinary
/// candidates there; [`apply_with`] must then be given the same choice.
pub fn summarize_with(
    module: &Module<'_>,
    target: &Target,
    name: &str,
    bodies: bool,
    dedupable: bool,
    pricing: &Pricing,
) -> ModuleSummary {
    let lowered = lower_module(module, Hashes::Stable);
    let mut found = candidates(module, &lowered, target, dedupable, |_, _| {});
    // What round 2 would never merge for its run-time cost (see [`Pricing`]) stays out, so
    // that no other module's member of a group counts on sharing a copy with it: a function
    // that any thunk makes too slow, and a likely hot one from similar merging, whose cost
    // (the merged body's branches on which member runs) only round 2 could price.
    let priced = pricing.profile.as_deref();
    found.retain(|(k, _, _)| {
        priced.is_none_or(|p| p.refuses_any_thunk(&lowered.funcs[*k].name).is_none())
    });
    let mut blob = Vec::new();
    if bodies {
        let copies: Vec<Function<'_>> = found
            .iter()
            .enumerate()
            .filter(|(_, (k, _, _))| priced.is_none_or(|p| !p.likely_hot(&lowered.funcs[*k].name)))
            .filter_map(|(j, (k, _, _))| {
                let f = lowered.handles[*k].function;
                let (copy, locals) = f.parameterize_locals("fm.new", MAX_LOCALS)?;
                copy.set_name(&body_name(j, locals.len()));
                Some(copy)
            })
            .collect();
        if !copies.is_empty()
            && let Some(m) = module.extract(&copies)
        {
            blob = m.to_bitcode().map(ModuleBytes::into_vec).unwrap_or_default();
        }
    }
    let functions = found.into_iter().map(|(_, s, _)| s).collect();
    ModuleSummary { module: name.to_string(), functions, bodies: blob }
}

/// Merges similar functions across modules from the bodies in `summaries` (see the module
/// documentation). Functions that `info`'s hash groups already cover take no part. `opts`
/// decides pricing as for `fmerge opt`; only the similar stage runs.
pub fn combine_similar(
    llvm: &Llvm,
    summaries: &[ModuleSummary],
    info: &MergeInfo,
    opts: &crate::options::Options,
) -> Result<Vec<SimilarGroup>, LlvmError> {
    let grouped: HashSet<u64> = info.groups.iter().map(|g| g.hash).collect();
    // Scratch name -> (summary, function).
    let mut origin: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut keys = HashSet::new();
    let mut locals_of: HashMap<String, usize> = HashMap::new();
    let mut scratch: Option<Module<'_>> = None;
    for (i, s) in summaries.iter().enumerate() {
        if s.bodies.is_empty() {
            continue;
        }
        let path = Path::new(&s.module);
        let mut m = llvm.parse(path, &s.bodies)?;
        for f in m.functions() {
            if f.is_declaration() {
                continue;
            }
            let name = f.name();
            let parsed = name.strip_prefix("fm.").and_then(|rest| {
                let (k, n) = rest.split_once('.')?;
                Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?))
            });
            let wanted = parsed.filter(|&(k, _)| {
                s.functions
                    .get(k)
                    .is_some_and(|fs| !grouped.contains(&fs.hash) && keys.insert(fs.key()))
            });
            match wanted {
                Some((k, n)) => {
                    let new = format!("__fmerge.c.{i}.{k}");
                    f.set_name(&new);
                    origin.insert(new.clone(), (i, k));
                    locals_of.insert(new, n);
                }
                None => m.defer_erase(f),
            }
        }
        m.sweep();
        match &mut scratch {
            None => scratch = Some(m),
            Some(sc) => sc.link(m, path)?,
        }
    }
    let Some(mut scratch) = scratch else { return Ok(Vec::new()) };
    scratch.verify()?;
    // Functions that share their name with a function of another module are usually copies
    // of one static function of a shared header, which the linker's identical code folding
    // often folds already when their machine code matches (QuickJS-ng's `dbuf_*` helpers);
    // thunks that pass each module's own symbols would stop that. They stay out.
    let mut by_name: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for &(i, k) in origin.values() {
        by_name.entry(summaries[i].functions[k].name.as_str()).or_default().insert(i);
    }
    let copies: Vec<String> = origin
        .iter()
        .filter(|&(_, &(i, k))| by_name[summaries[i].functions[k].name.as_str()].len() > 1)
        .map(|(n, _)| n.clone())
        .collect();
    for name in &copies {
        if let Some(f) = scratch.function(name) {
            scratch.defer_erase(f);
        }
        origin.remove(name);
    }
    scratch.sweep();
    let pristine = scratch.duplicate()?;
    let target = Target::for_module(&scratch, None)?;
    let mut opts = opts.clone();
    opts.stages = crate::options::Stages { identical: false, constants: false, similar: true };
    opts.whole_program = false;
    opts.input_verified = true;
    // The scratch module holds bodies without their callers: an estimate of how often they
    // run would see none of the loops that call them. Summaries carry no estimate either, so
    // only a profile prices these merges (as `fmerge opt --no-estimate` would).
    opts.estimate = false;
    opts.pair_across_inlining = false;
    let report = crate::pipeline::optimize(
        &mut scratch,
        &target,
        &opts,
        crate::pipeline::Measure::Nothing,
        &|_: &str| {},
    )?;
    let saving: HashMap<&str, i64> = report
        .merges
        .iter()
        .map(|m| (m.body.as_str(), m.measured_saving.unwrap_or(m.estimated_saving)))
        .collect();
    let merged: BTreeSet<&str> = report
        .merges
        .iter()
        .flat_map(|m| m.members.iter().map(|x| x.name.as_str()))
        .filter(|n| origin.contains_key(*n))
        .collect();
    // Each merged member's thunk and the defined functions it reaches, joined into groups
    // that share a function.
    let mut groups: Vec<(BTreeSet<String>, BTreeSet<String>)> = Vec::new();
    for &member in &merged {
        let Some(thunk) = scratch.function(member) else { continue };
        let mut reach = BTreeSet::new();
        let mut work = vec![thunk];
        while let Some(f) = work.pop() {
            for callee in referenced_definitions(f) {
                let name = callee.name();
                if !origin.contains_key(&name) && reach.insert(name) {
                    work.push(callee);
                }
            }
        }
        let mut members = BTreeSet::from([member.to_string()]);
        let mut k = 0;
        while k < groups.len() {
            if !groups[k].1.is_disjoint(&reach) {
                let (m, r) = groups.swap_remove(k);
                members.extend(m);
                reach.extend(r);
            } else {
                k += 1;
            }
        }
        groups.push((members, reach));
    }
    groups.sort();
    let mut out = Vec::new();
    for (members, bodies) in groups {
        // Merges inside one module were already tried, with the real symbols, by `fmerge
        // opt` on that module.
        let modules: BTreeSet<usize> = members.iter().map(|n| origin[n].0).collect();
        if modules.len() < 2 {
            continue;
        }
        let passed: usize = members.iter().map(|n| locals_of[n]).sum();
        let estimated_saving = bodies.iter().filter_map(|b| saving.get(b.as_str())).sum::<i64>()
            - LOCAL_ARG_BYTES * passed as i64;
        if estimated_saving <= 0 {
            continue;
        }
        let key_of = |n: &str| {
            let (i, k) = origin[n];
            summaries[i].functions[k].key()
        };
        let mut keyed: Vec<(u64, &String)> = members.iter().map(|n| (key_of(n), n)).collect();
        keyed.sort();
        let mut h = fmerge_core::hash::StableHasher::with_seed(0x7369_6d73);
        for (key, _) in &keyed {
            h.word(*key);
        }
        let gid = h.finish();
        let keep: Vec<Function<'_>> =
            members.iter().chain(&bodies).filter_map(|n| scratch.function(n)).collect();
        let (Some(mut export), Some(originals)) = (
            scratch.extract(&keep),
            pristine
                .extract(&members.iter().filter_map(|n| pristine.function(n)).collect::<Vec<_>>()),
        ) else {
            continue;
        };
        // Everything stays external here, or linking it into a module would skip it; `apply`
        // gives the shared bodies their linkage.
        for (j, name) in bodies.iter().enumerate() {
            if let Some(f) = export.function(name) {
                f.set_name(&format!("{SHARED_PREFIX}{gid:016x}.{j}"));
            }
        }
        for &(key, name) in &keyed {
            if let Some(f) = export.function(name) {
                f.set_name(&thunk_name(key));
            }
            if let Some(f) = originals.function(name) {
                f.set_name(&original_name(key));
            }
        }
        export.link(originals, Path::new("(originals)"))?;
        export.verify()?;
        out.push(SimilarGroup {
            members: keyed
                .iter()
                .map(|&(key, n)| {
                    let (i, k) = origin[n];
                    SimilarMember {
                        key,
                        module: summaries[i].module.clone(),
                        name: summaries[i].functions[k].name.clone(),
                    }
                })
                .collect(),
            estimated_saving,
            bitcode: export.to_bitcode()?.into_vec(),
        });
    }
    Ok(out)
}

/// Functions with bodies that `f`'s instructions name directly.
fn referenced_definitions<'m>(f: Function<'m>) -> Vec<Function<'m>> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            for k in 0..i.num_operands() {
                if let Some(v) = i.operand(k).and_then(|v| v.strip_pointer_casts().as_function())
                    && !v.is_declaration()
                {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Applies `info` to `module`; the module verifies afterwards. The parameterized copies are
/// internal: the linker's identical code folding keeps one of them.
pub fn apply(
    module: &mut Module<'_>,
    target: &Target,
    info: &MergeInfo,
) -> Result<Report, LlvmError> {
    apply_with(module, target, info, Sharing::Internal, &Pricing::default())
}

/// How [`apply_with`] prices its merges at run time. The plugin's second round prices them as
/// the module's own merging does (`crate::pipeline::module_profile`: the module's profile, or
/// counts estimated from the code), with the slowdown budget that merging left; without
/// counts (`fmerge apply`) nothing is priced.
#[derive(Clone, Debug, Default)]
pub struct Pricing {
    pub profile: Option<Arc<ModuleProfile>>,
    /// The work the module's own merging already added (taken from the budget first).
    pub spent: u64,
}

/// A member of a group (by hash) that fits it, before it is priced.
struct Planned<'a, 'm> {
    /// Its index in the lowered module.
    k: usize,
    walk: &'a Walk,
    group: &'a fmerge_core::global::MergeGroup,
    /// The constants its thunk passes.
    args: Vec<Value<'m>>,
    /// The work it adds at run time, and the bytes it saves once the copy is shared.
    added: u64,
    saving: i64,
}

/// How [`apply_with`] shares its parameterized copies between modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Internal copies: the linker's identical code folding keeps one (`fmerge apply`).
    Internal,
    /// Link-once copies named by their contents (the plugin inside a ThinLTO link).
    /// `duplicates_stay`: the link keeps every backend's definition of a link-once function,
    /// the ones nothing calls included (an in-process link without `--gc-sections`; see
    /// `unwinds`).
    LinkOnce { duplicates_stay: bool },
}

/// [`apply`] for the plugin inside a ThinLTO link with [`Sharing::LinkOnce`] (`link_once`): the functions
/// [`summarize_with`] summarizes with `dedupable` take part (a ThinLTO backend defines each
/// linkonce or weak function once), and a parameterized copy that references no module-local
/// symbol is named by a hash of its contents (its text with attributes and the declarations it
/// uses, no debug information, whatever order the module lists its declarations in:
/// `fmerge_core::global::canonical_copy_text`), `linkonce_odr hidden` in a comdat of that name: modules that
/// make the same copy define the same function under the same name, and the linker keeps one
/// without identical code folding. Different contents never share a name (up to a 64-bit hash
/// collision of the full text), so nothing the linker picks can change behaviour. Groups that
/// identical code folding handles better are left alone (see [`LINK_ONCE_MIN_INSTRUCTIONS`]).
pub fn apply_with(
    module: &mut Module<'_>,
    target: &Target,
    info: &MergeInfo,
    sharing: Sharing,
    pricing: &Pricing,
) -> Result<Report, LlvmError> {
    let link_once = sharing != Sharing::Internal;
    let duplicates_stay = sharing == Sharing::LinkOnce { duplicates_stay: true };
    let comdats = {
        let triple = target.triple();
        !triple.contains("apple") && !triple.contains("darwin")
    };
    module.verify()?;
    let start = Instant::now();
    let mut report = Report { target: target.triple().to_string(), ..Default::default() };
    let mut stats = StageStats { stage: STAGE, rounds: 1, ..Default::default() };
    let mut ledger = Ledger::new(pricing.profile.clone());
    let priced = pricing.profile.as_deref();
    ledger.budget.spent = pricing.spent.min(ledger.budget.limit);
    report.functions_before = module.functions().iter().filter(|f| !f.is_declaration()).count();
    let similar_index: HashMap<u64, usize> = info
        .similar
        .iter()
        .enumerate()
        .filter(|(_, sg)| !link_once || sg.estimated_saving >= LINK_ONCE_MIN_SIMILAR_SAVING)
        .flat_map(|(g, sg)| sg.members.iter().map(move |m| (m.key, g)))
        .collect();
    let mut similar_matches = Vec::new();
    {
        let module: &Module<'_> = module;
        let lowered = lower_module(module, Hashes::Stable);
        let mut skipped = Vec::new();
        let found = candidates(module, &lowered, target, link_once, |f, why| {
            skipped.push(Skipped { stage: STAGE, function: f.name.clone(), reason: why })
        });
        report.skipped = skipped;
        // Functions of this module that the information shows identical to functions of
        // other modules (a group without parameters): identical code folding keeps one,
        // unless they have landing pads (see `unwinds`).
        let folded: HashSet<&str> = found
            .iter()
            .filter(|(k, s, _)| {
                !unwinds(&lowered.funcs[*k])
                    && info.group(s.hash).is_some_and(|g| g.params.is_empty())
            })
            .map(|(k, _, _)| lowered.funcs[*k].name.as_str())
            .collect();
        // How many of this module's functions each group (by hash) and each similar group
        // has here.
        let mut here: HashMap<u64, usize> = HashMap::new();
        for (_, s, _) in &found {
            *here.entry(s.hash).or_default() += 1;
        }
        let mut similar_here: HashMap<usize, usize> = HashMap::new();
        let mut similar_found = Vec::new();
        let mut planned: Vec<Planned<'_, '_>> = Vec::new();
        for (k, summary, walk) in found.iter().map(|(k, s, w)| (*k, s, w)) {
            let Some(group) = info.group(summary.hash) else {
                let key = summary.key();
                if let Some(&g) = similar_index.get(&key) {
                    if priced.is_some_and(|p| p.likely_hot(&summary.name)) {
                        ledger.over_budget += 1;
                        stats.rejected_unprofitable += 1;
                        report.skipped.push(Skipped {
                            stage: SIMILAR_STAGE,
                            function: summary.name.clone(),
                            reason: "runtime cost: likely hot (estimated from the code: the module has no profile), and merged with similar functions of other modules".to_string(),
                        });
                        continue;
                    }
                    *similar_here.entry(g).or_default() += 1;
                    similar_found.push((k, key, g));
                }
                continue;
            };
            if let Some(why) = priced.and_then(|p| p.refuses_any_thunk(&summary.name)) {
                ledger.over_budget += 1;
                stats.rejected_unprofitable += 1;
                let function = summary.name.clone();
                report.skipped.push(Skipped { stage: STAGE, function, reason: why });
                continue;
            }
            // Identical functions are left to identical code folding, unless they have landing
            // pads, which it never folds (see `unwinds`): gtest's 50 `CmpHelperEQFailure<char[N],
            // std::string>` in Ninja's test binary, 220 bytes each, stayed 50 times.
            let folds = group.params.is_empty() && !unwinds(&lowered.funcs[k]);
            if link_once && (folds || group.inst_count < LINK_ONCE_MIN_INSTRUCTIONS) {
                stats.rejected_unprofitable += 1;
                continue;
            }
            if duplicates_stay && unwinds(&lowered.funcs[k]) && here[&summary.hash] < 2 {
                stats.rejected_unprofitable += 1;
                continue;
            }
            let f = &lowered.funcs[k];
            let handles = &lowered.handles[k];
            // Where each parameter's constant sits in this function; all its sites must hold
            // one and the same constant.
            let mut args: Vec<Value<'_>> = Vec::with_capacity(group.params.len());
            let mut fits = group.inst_count == summary.inst_count;
            for sites in &group.params {
                let mut value = None;
                for &(serial, op) in sites {
                    let v = operand_at(f, walk, serial, op).and_then(|(i, k, o)| match o {
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
            // A member whose every parameter is such a function, and an ODR one (template
            // instances over different pointer types: `std::vector<T*>::_M_realloc_insert`,
            // whose callees differ only in name) becomes, once identical code folding has
            // folded those, the same machine code as the group's other members, which it then
            // folds too, for free; a shared copy would only add thunks (on leveldb's ThinLTO
            // build each such group cost 12 to 36 bytes). Static functions are left out: an
            // identical twin somewhere is rarely the one the other members call (zstd's legacy
            // decoders, whose merges pay).
            // Not a member with landing pads, which identical code folding never folds.
            let folds_anyway = || {
                !unwinds(f)
                    && args.iter().all(|a| {
                        a.as_function().is_some_and(|g| {
                            matches!(g.linkage(), Linkage::LinkOnceOdr | Linkage::WeakOdr)
                                && folded.contains(g.name().as_str())
                        })
                    })
            };
            if !fits || (link_once && folds_anyway()) {
                stats.rejected_unprofitable += 1;
                continue;
            }
            // What it adds at run time (as the stage merging constants prices a merge): the
            // thunk's jump and extra arguments per call, a parameter read per run of each site.
            let counts = ledger.counts(&f.name);
            let block_of = fmerge_core::profiling::work::block_of_insts(f);
            let site_counts = group.params.iter().flatten().filter_map(|&(serial, op)| {
                let (i, _, _) = operand_at(f, walk, serial, op)?;
                Some(counts.block(block_of[i as usize] as usize))
            });
            let added = fmerge_core::profiling::work::sites_work(site_counts).saturating_add(
                fmerge_core::profiling::work::call_work(counts.entry(), true, args.len()),
            );
            // What it saves if the group's other members share the copy.
            let members = f64::from(group.members.max(2));
            let saving =
                (f64::from(summary.units) * profit::BYTES_PER_UNIT_ORIGINAL * (members - 1.0)
                    / members
                    - profit::thunk_units(f.arg_types.len() + args.len()) as f64
                        * profit::BYTES_PER_UNIT_THUNK)
                    .round() as i64;
            planned.push(Planned { k, walk, group, args, added, saving });
        }
        // This module's members of a group are priced together, as the module's own merging
        // prices a merge of them: refused together when the slowdown budget or its rate per KB
        // does not allow the work they add, or (counts estimated from the code) when one of
        // them is likely hot and they would run more than a few percent slower.
        let mut by_group: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (j, p) in planned.iter().enumerate() {
            by_group.entry(p.group.hash).or_default().push(j);
        }
        let mut refused = vec![false; planned.len()];
        for js in by_group.values() {
            let added = js.iter().map(|&j| planned[j].added).fold(0u64, u64::saturating_add);
            let saving: i64 = js.iter().map(|&j| planned[j].saving).sum();
            let names: Vec<String> =
                js.iter().map(|&j| lowered.funcs[planned[j].k].name.clone()).collect();
            let why = ledger.refusal(added, saving).or_else(|| ledger.hot_refusal(added, &names));
            match why {
                Some(why) => {
                    refuse_for_run_time(&mut ledger, &mut stats, &mut report, STAGE, &names, why);
                    for &j in js {
                        refused[j] = true;
                    }
                }
                None => {
                    ledger.budget.take(added);
                }
            }
        }
        for (p, _) in planned.iter().zip(&refused).filter(|(_, r)| !**r) {
            let (f, walk, handles) = (&lowered.funcs[p.k], p.walk, &lowered.handles[p.k]);
            let (group, args) = (p.group, &p.args);
            let func = handles.function;
            let Some(copy) = parameterized_copy(module, f, walk, handles, group, args) else {
                stats.rolled_back += 1;
                continue;
            };
            let copy = if link_once {
                link_once_copy(module, copy, func.alignment(), comdats)
            } else {
                copy
            };
            // A copy that references a module-local symbol (a string literal) stays private to
            // the member (`link_once_copy`): the member's body again, plus a thunk (on the
            // plugin tests' `thinlto-eh`, +173 bytes of 2,443 with `--gc-sections`).
            if link_once && !copy.name().starts_with(LINK_ONCE_PREFIX) {
                copy.set_name("");
                module.defer_erase(copy);
                stats.rejected_unprofitable += 1;
                continue;
            }
            let n = func.params().len();
            fold::make_thunk(module, func, copy, &fold::forwarding_args(n, args));
            stats.merges += 1;
            stats.functions_removed_or_thunked += 1;
            let member = Member::new(f.name.clone(), Disposal::Thunk);
            let seq = report.next_seq();
            report.merges.push(MergeRecord {
                added_work: pricing.profile.is_some().then_some(p.added),
                work_fraction: ledger.fraction(p.added),
                ..MergeRecord::new(
                    seq,
                    STAGE,
                    vec![f.name.clone()],
                    copy.name(),
                    vec![member],
                    group.params.len(),
                )
            });
        }
        for (k, key, g) in similar_found {
            // A member with landing pads makes a shared body with them: kept once per module
            // that has a member (see `unwinds`).
            if duplicates_stay && unwinds(&lowered.funcs[k]) && similar_here[&g] < 2 {
                stats.rejected_unprofitable += 1;
                continue;
            }
            similar_matches.push((lowered.funcs[k].name.clone(), key, g));
        }
    }
    module.sweep();
    if !similar_matches.is_empty() {
        apply_similar(module, target, info, similar_matches, &mut ledger, &mut report, &mut stats)?;
    }
    module.verify()?;
    report.functions_after = module.functions().iter().filter(|f| !f.is_declaration()).count();
    stats.seconds = Some(start.elapsed().as_secs_f64());
    report.stages.push(stats);
    Ok(report)
}

/// Whether `f` has landing pads, which give its machine code an exception table (LSDA). ld.lld's
/// identical code folding never folds such functions (their tables might differ), so
/// [`apply_with`] does not count on it to fold them. An in-process ThinLTO link keeps every
/// backend's copy of a link-once function (lld resolved comdats before code generation, and
/// ignores the backends' groups) until `--gc-sections` drops the ones nothing calls: without
/// it a shared copy of such a function stays once per module that makes it, and a module
/// whose only member of a group it is pays a whole copy plus a thunk (on leveldb's ThinLTO
/// build the `std::_Rb_tree<..>::clear` instances, whose noexcept destructor calls need a
/// landing pad, came out 12 bytes larger than unmerged). There (`duplicates_stay`),
/// [`apply_with`] gives such functions a copy only where the module has two members of the
/// group to share it. With `--gc-sections` (rustc's links) the copies pay: fd lost 1.2 KB
/// when they were left out.
fn unwinds(f: &FuncData) -> bool {
    f.traits & traits::LANDING_PADS != 0
}

/// What [`apply_with`] with `link_once` (the plugin inside a ThinLTO link, where the linker's
/// identical code folding is the baseline) leaves alone. A group without parameters is a set
/// of identical functions, which identical code folding already keeps once, for free (not
/// those with landing pads, see [`unwinds`]); a group
/// of small functions and a similar group that saves little cost more in thunks and alignment
/// than they save (measured on leveldb's ThinLTO build: every such group came out larger).
const LINK_ONCE_MIN_INSTRUCTIONS: u32 = 16;
const LINK_ONCE_MIN_SIMILAR_SAVING: i64 = 64;

/// LLVM's fixed metadata kinds `!tbaa` and `!tbaa.struct` (`llvm/IR/FixedMetadataKinds.def`).
const MD_TBAA: u32 = 1;
const MD_TBAA_STRUCT: u32 = 5;
/// `!alias.scope` and `!noalias` (the same file).
const MD_ALIAS_SCOPE: u32 = 7;
const MD_NOALIAS: u32 = 8;

/// Prefix of the link-once parameterized copies of [`apply_with`].
const LINK_ONCE_PREFIX: &str = "__fmerge.g.";

/// The link-once copy that stands for `copy` (see [`apply_with`]): a module-independent
/// version of it under its content hash (the module's own if it already has one, `copy`
/// erased), or `copy` itself when it references a module-local symbol.
fn link_once_copy<'m>(
    module: &'m Module<'_>,
    copy: Function<'m>,
    original_alignment: u32,
    comdats: bool,
) -> Function<'m> {
    let Some((shared, locals)) = copy.parameterize_locals("fmerge.shared", 0) else { return copy };
    debug_assert!(locals.is_empty());
    // The original's alignment (C++ member functions have `align 2`): without one, a new
    // function gets the target's (16 bytes on x86-64), padding that ate part of what
    // leveldb's copies saved. Set before the name is taken from the text, which shows it.
    shared.set_alignment(original_alignment);
    // The parameters' facts are the member's (gtest's `CmpHelperEQFailure<char[N], ..>` says
    // `dereferenceable(N)` of its `const char(&)[N]`), so each instance made its own copy, one
    // text and name per N (Ninja's test binary: 43 copies of one 220-byte body). Members of
    // other modules may state other facts; the copy states none (nor do its calls, which pass
    // the parameter on with the same `dereferenceable(N)`).
    shared.keep_abi_param_attrs();
    // Type-based alias information names the source's types (C++ pointer types: `p2 _ZTS1A`
    // in `fill<A>`, `p2 _ZTS1B` in `fill<B>`), so instances of one template over different
    // types would make different texts, and names, from one machine code. Dropping it only
    // drops facts; the copies then share a name, and the linker keeps one wherever comdats or
    // `--gc-sections` apply, with exception tables too. So do the scopes of `noalias`
    // information, which the inliner names after the function it inlined (gtest's
    // `FormatForComparison<char[N], ..>` in each `CmpHelperEQFailure<char[N], ..>`).
    for b in shared.blocks() {
        for i in b.instructions() {
            for kind in [MD_TBAA, MD_TBAA_STRUCT, MD_ALIAS_SCOPE, MD_NOALIAS] {
                i.drop_metadata(kind);
            }
            if matches!(i.opcode(), fmerge_core::ir::opcode::CALL | fmerge_core::ir::opcode::INVOKE)
            {
                i.keep_abi_call_attrs();
            }
        }
    }
    let text = module.extract(&[shared]).map(|m| m.to_text());
    // The text after the module's own header lines (identifier, source file name), in a form
    // that does not depend on the order this module lists its declarations in (see
    // `canonical_copy_text`).
    let body = text.as_deref().map(|t| {
        let t = t
            .lines()
            .filter(|l| !l.starts_with("; ModuleID") && !l.starts_with("source_filename"))
            .collect::<Vec<_>>()
            .join("\n");
        fmerge_core::global::canonical_copy_text(&t)
    });
    // Unnamed once given up, so the next copy's text gets the same name as this one's.
    let give_up = |f: Function<'m>| {
        f.set_name("");
        module.defer_erase(f);
    };
    let Some(body) = body else {
        give_up(shared);
        return copy;
    };
    let name = format!("{LINK_ONCE_PREFIX}{:016x}", fmerge_core::hash::hash_bytes(body.as_bytes()));
    let chosen = match module.function(&name) {
        Some(existing) => {
            give_up(shared);
            existing
        }
        None => {
            shared.set_name(&name);
            shared.set_linkage(Linkage::LinkOnceOdr);
            shared.set_visibility(fmerge_llvm::Visibility::Hidden);
            shared.set_unnamed_addr(UnnamedAddr::Global);
            shared.set_dso_local(true);
            if comdats {
                module.give_own_comdat(shared.as_global());
            }
            shared
        }
    };
    fold::discard_body(module, copy);
    module.defer_erase(copy);
    chosen
}

/// Gives each matched function (name, member key, group) the thunk of its similar group, once
/// the module's function proves equal to the member the group was built from.
fn apply_similar(
    module: &mut Module<'_>,
    target: &Target,
    info: &MergeInfo,
    matches: Vec<(String, u64, usize)>,
    ledger: &mut Ledger,
    report: &mut Report,
    stats: &mut StageStats,
) -> Result<(), LlvmError> {
    let needed: BTreeSet<usize> = matches.iter().map(|m| m.2).collect();
    for &g in &needed {
        let m = module.parse_sibling("(merge information)", &info.similar[g].bitcode)?;
        module.link(m, Path::new("(merge information)"))?;
    }
    {
        let module: &Module<'_> = module;
        // Every module that applies a group defines its shared bodies identically; the linker
        // keeps one (a comdat per body; Mach-O coalesces weak definitions without one).
        let triple = target.triple();
        let comdats = !triple.contains("apple") && !triple.contains("darwin");
        for f in module.functions() {
            if f.name().starts_with(SHARED_PREFIX) && !f.is_declaration() {
                f.set_linkage(Linkage::LinkOnceOdr);
                f.set_visibility(fmerge_llvm::Visibility::Hidden);
                f.set_unnamed_addr(UnnamedAddr::Global);
                f.set_dso_local(true);
                if comdats {
                    module.give_own_comdat(f.as_global());
                }
            }
        }
        // The members that prove equal to what their group was built from, by group.
        let mut ready: BTreeMap<usize, Vec<(String, u64, Vec<Value<'_>>)>> = BTreeMap::new();
        for (name, key, g) in matches {
            let (Some(f), Some(original)) =
                (module.function(&name), module.function(&original_name(key)))
            else {
                stats.rolled_back += 1;
                continue;
            };
            let Some((copy, locals)) = f.parameterize_locals("fmerge.check", MAX_LOCALS) else {
                stats.rejected_unprofitable += 1;
                continue;
            };
            module.defer_erase(copy);
            // The merged body was built from `original`: only an equal function may use it.
            if !copy.equals_function(original) {
                stats.rejected_unprofitable += 1;
                continue;
            }
            ready.entry(g).or_default().push((name, key, locals));
        }
        for (g, members) in ready {
            let names: Vec<String> = members.iter().map(|m| m.0.clone()).collect();
            if let Some(why) = similar_refusal(module, ledger, info, g, &members) {
                refuse_for_run_time(ledger, stats, report, SIMILAR_STAGE, &names, why);
                continue;
            }
            for (name, key, locals) in members {
                let (Some(f), Some(thunk)) =
                    (module.function(&name), module.function(&thunk_name(key)))
                else {
                    stats.rolled_back += 1;
                    continue;
                };
                let body = module.add_function("fmerge.thunk", f.global_value_type());
                module.defer_erase(body);
                let mut values = body.params();
                values.extend(locals);
                if !body.clone_body_mapped(thunk, &values) || body.verify().is_err() {
                    fold::discard_body(module, body);
                    stats.rolled_back += 1;
                    continue;
                }
                fold::discard_body(module, f);
                assert!(body.move_body_to(f), "same type");
                let group = &info.similar[g];
                stats.merges += 1;
                stats.functions_removed_or_thunked += 1;
                let seq = report.next_seq();
                let body = shared_callee(thunk).unwrap_or_default();
                let params = thunk.params().len();
                let member = Member::new(name.clone(), Disposal::Thunk);
                report.merges.push(MergeRecord {
                    estimated_saving: group.estimated_saving / group.members.len().max(1) as i64,
                    ..MergeRecord::new(seq, SIMILAR_STAGE, vec![name], body, vec![member], params)
                });
            }
        }
        for &g in &needed {
            for m in &info.similar[g].members {
                for n in [thunk_name(m.key), original_name(m.key)] {
                    if let Some(f) = module.function(&n) {
                        module.defer_erase(f);
                    }
                }
            }
        }
    }
    // Shared bodies no thunk calls (their members did not match here) go, callers first.
    loop {
        module.sweep();
        let unused: Vec<_> = module
            .functions()
            .into_iter()
            .filter(|f| f.name().starts_with(SHARED_PREFIX) && !f.has_uses())
            .map(|f| f.name())
            .collect();
        if unused.is_empty() {
            break;
        }
        for n in unused {
            if let Some(f) = module.function(&n) {
                module.defer_erase(f);
            }
        }
    }
    Ok(())
}

const SIMILAR_STAGE: &str = "global-similar";

/// Records this module's members `names` of a group refused for the run time they would
/// add (`why`): counted as the budget's refusal and as rejected, and reported as skipped.
fn refuse_for_run_time(
    ledger: &mut Ledger,
    stats: &mut StageStats,
    report: &mut Report,
    stage: &'static str,
    names: &[String],
    why: String,
) {
    ledger.over_budget += 1;
    stats.rejected_unprofitable += names.len();
    report.skipped.push(Skipped { stage, function: names.join(" + "), reason: why });
}

/// Why this module's `members` of similar group `g` (name, key, the module-local symbols
/// their thunks pass) must not become thunks of its merged body, by the run-time price (see
/// [`Pricing`]); takes what they add from the budget otherwise. What they add: per call, the
/// thunk's jump and the arguments the merged body takes beyond the member's own; in the body,
/// what it executes beyond the members' own work, its blocks counted by its own block
/// frequencies times the members' calls (the body's blocks have no counts of their own).
fn similar_refusal(
    module: &Module<'_>,
    ledger: &mut Ledger,
    info: &MergeInfo,
    g: usize,
    members: &[(String, u64, Vec<Value<'_>>)],
) -> Option<String> {
    use fmerge_core::profiling::work;
    let mut added = 0u64;
    let mut calls_of: BTreeMap<String, u64> = BTreeMap::new();
    let mut own = 0u64;
    for (name, key, _) in members {
        let calls = ledger.counts(name).entry();
        own = own.saturating_add(ledger.work_of(name).unwrap_or(0));
        let thunk = module.function(&thunk_name(*key))?;
        let f = module.function(name)?;
        let callee = shared_callee(thunk).and_then(|b| module.function(&b));
        let extra = callee.map_or(0, |b| b.params().len().saturating_sub(f.params().len()));
        added = added.saturating_add(work::call_work(calls, true, extra));
        if let Some(b) = callee {
            *calls_of.entry(b.name()).or_default() += calls;
        }
    }
    let mut body_work = 0u64;
    for (body, calls) in &calls_of {
        let Some(b) = module.function(body) else { continue };
        let sizes: Vec<u64> = b.blocks().iter().map(|x| x.instruction_count() as u64).collect();
        let counts: Vec<u64> =
            b.block_frequencies().iter().map(|&q| (*calls as f64 * q).round() as u64).collect();
        body_work = body_work.saturating_add(work::function_work(&counts, &sizes));
    }
    added = added.saturating_add(body_work.saturating_sub(own));
    let group = &info.similar[g];
    let saving = group.estimated_saving * members.len() as i64 / group.members.len().max(1) as i64;
    let names: Vec<String> = members.iter().map(|m| m.0.clone()).collect();
    let why = ledger.refusal(added, saving).or_else(|| ledger.hot_refusal(added, &names));
    if why.is_none() {
        ledger.budget.take(added);
    }
    why
}

/// The shared body a group's thunk calls (for the report).
fn shared_callee(thunk: Function<'_>) -> Option<String> {
    thunk.blocks().into_iter().flat_map(|b| b.instructions()).find_map(|i| {
        (i.opcode() == fmerge_core::ir::opcode::CALL)
            .then(|| i.called_value())
            .flatten()
            .map(|v| v.name())
            .filter(|n| n.starts_with(SHARED_PREFIX))
    })
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
) -> Option<Function<'m>> {
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
    let insts: Vec<Instruction<'m>> = copy.blocks().iter().flat_map(|b| b.instructions()).collect();
    if insts.len() != handles.insts.len() {
        fold::discard_body(module, copy);
        module.defer_erase(copy);
        return None;
    }
    let cparams = copy.params();
    for &(i, k, p) in &positions {
        insts[i as usize].set_operand(k, cparams[first_extra + p]);
    }
    if copy.verify().is_err() {
        fold::discard_body(module, copy);
        module.defer_erase(copy);
        return None;
    }
    Some(copy)
}
