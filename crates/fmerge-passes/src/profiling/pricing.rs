//! Pricing merges by the work they add at run time, with the profile the module was built with.
//!
//! Every merge adds work at run time: a thunk's jump, an extra argument, `select`s and
//! branches where the merged functions differ. On code that runs rarely that costs nothing
//! measurable; on the hottest functions it is the whole slowdown (a Lua interpreter executed
//! 2.4% more instructions, almost all of it two merges on its hottest paths). A module built
//! with `clang -fprofile-use` (or any LLVM PGO) carries each function's entry count, branch
//! weights and a profile summary.
//!
//! fmerge turns them into block counts (LLVM's `BlockFrequencyInfo`), the module's **work**
//! (executed IR instructions: Σ block count × block instructions) and, for every merge with
//! constants or of similar functions, the work it **adds** (`fmerge_core::profiling::work`:
//! calls times the thunk's jump and extra arguments, parameterized constants and
//! `select`s/branches on the function id times how often their original blocks ran). The
//! merges of a module may add at most `--max-slowdown` (0.5% by default) of its work together:
//! each stage spends that budget on the merges that save the most bytes per unit of added work
//! first, in the batches it decides together (a round of merging with constants; a batch of
//! similar merges). Functions the profile never saw run (count 0), and functions without
//! counts in a module that has a profile (as LLVM treats them), are cold: merging them is
//! free. Identical merges are not priced (they add at most a jump).
//!
//! Without a profile the counts are estimated from the code ([`ModuleProfile::estimate`]), and
//! one more rule applies: code that runs about once per run is priced as code that never
//! runs. A function that no loop and no recursion reaches (`fmerge_core::profiling::estimate`'s
//! `repeated`) runs at most once per call path to it through straight-line code, whatever the
//! input, so its blocks outside its own loops (`cyclic_blocks`) get count 0: no added work, not
//! likely hot, not in the module's work. Without this, a flat estimate (a test program, whose
//! every test runs about once per run and whose helpers run from a few places) put nearly every
//! block in the top 99.9% of counts, called the whole module likely hot and refused most of
//! its merges (a LevelDB test binary's backends saved 614 bytes of the 6.8 KB they save
//! unpriced). The hot cut is still taken over every estimated count, so the code that loops or
//! recurses is likely hot exactly where it was before.
//!
//! A merged body inherits counts when they are known: a body of functions equal up to
//! constants has their control flow, so its block counts are the members' summed. A similar
//! merge's body has neither member's blocks; if one of its members ran, it is not merged again
//! (the work it adds could not be priced).
//!
//! `--hot-percentile P` adds the older, coarser rule on top: functions hot at LLVM's P%
//! cutoff (an entry count or branch weight among the largest counts that make up P% of all
//! counts) stay out of merging with constants and of similar merging whatever work a merge
//! would add. Global merging's parameterized copies (`crate::global`) use that cut at 99%.

use fmerge_core::profiling::estimate::{self, CallGraph, VirtualCalls, VirtualTable};
use fmerge_core::profiling::work::{self, SlowdownBudget};
use fmerge_llvm::{Function, Module};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// LLVM's default hot cutoff (`-profile-summary-cutoff-hot`), in millionths.
pub const DEFAULT_HOT_PERCENTILE: u32 = 990_000;

/// With estimated counts, the percentile (millionths) at which code counts as likely hot
/// ([`Ledger::hot_refusal`]).
pub const ESTIMATE_HOT_PERCENTILE: u32 = 999_000;
/// With estimated counts, how much slower (a fraction of their own work) a merge may make the
/// functions it replaces when one of them is likely hot. Calibrated on six programs' timing
/// runs (callgrind): at 3% none ran more than 0.3% more instructions, and the corpus kept 82%
/// of the bytes merging without pricing saves; at 1% it kept 74%, and at the 99% cut instead
/// of 99.9% SQLite ran 4.3% more (an aggregate step function called through a pointer from
/// its interpreter loop, which the estimate sees as called once per run).
pub const ESTIMATE_MAX_RELATIVE: f64 = 0.03;

/// An estimate's counts are per this many runs of the program (so that blocks that run a
/// small fraction of their function's calls keep a count above zero).
const ESTIMATE_SCALE: f64 = 1000.0;

/// What the profile says about one function.
#[derive(Clone, Debug)]
struct FnCounts {
    entry: u64,
    /// The hottest count: the entry count or any branch weight.
    max: u64,
    /// Each block's count in layout order (empty when the function never ran).
    blocks: Vec<u64>,
    /// Σ block count × block instructions.
    work: u64,
}

/// The profile a module was built with, as the stages use it: counts, hot threshold and work.
#[derive(Clone, Debug)]
pub struct ModuleProfile {
    /// The percentile (millionths) the hot threshold was computed for.
    pub percentile: u32,
    /// Count at which a function is hot (never 0: a profile with no counts has no hot
    /// functions).
    pub hot_threshold: u64,
    /// Whether hot functions stay out of merges that add work whatever they add
    /// (`--hot-percentile`).
    pub cut: bool,
    /// The module's work: executed IR instructions, Σ block count × block instructions.
    pub total_work: u64,
    /// The share of `total_work` merges may add together.
    pub max_slowdown: f64,
    /// The share of `total_work` one merge may add per KB it saves.
    pub max_slowdown_per_kb: f64,
    /// Whether the counts are estimated from the code ([`ModuleProfile::estimate`]) rather
    /// than a profile's.
    pub estimated: bool,
    /// With estimated counts: how much slower a merge may make likely hot functions
    /// ([`Ledger::hot_refusal`]).
    pub max_relative: f64,
    counts: HashMap<String, FnCounts>,
}

/// How often the blocks of a function ran, as far as the stages can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockCounts {
    /// Never ran, or no counts in a module with a profile: merging it adds no work.
    Cold,
    /// Each block's count in layout order (block 0's is the entry count).
    Blocks(Vec<u64>),
    /// A merged body of code that ran, whose blocks have no counts of their own.
    Unknown,
}

impl BlockCounts {
    /// Block `b`'s count (0 when cold or unknown).
    pub fn block(&self, b: usize) -> u64 {
        match self {
            BlockCounts::Blocks(c) => c.get(b).copied().unwrap_or(0),
            _ => 0,
        }
    }

    pub fn entry(&self) -> u64 {
        self.block(0)
    }

    pub fn blocks(&self) -> &[u64] {
        match self {
            BlockCounts::Blocks(c) => c,
            _ => &[],
        }
    }

    /// Whether the function may have run.
    pub fn ran(&self) -> bool {
        match self {
            BlockCounts::Cold => false,
            BlockCounts::Blocks(c) => c.iter().any(|&n| n > 0),
            BlockCounts::Unknown => true,
        }
    }
}

impl ModuleProfile {
    /// The module's profile, or `None` if it was not built with one. `cut`: the percentile
    /// (millionths) at which functions are kept out of merging whatever a merge costs (`None`:
    /// no such cut; the report still gives the hot functions at LLVM's 99%). `max_slowdown`:
    /// the share of the module's work merges may add.
    pub fn read(
        module: &Module<'_>,
        cut: Option<u32>,
        max_slowdown: f64,
        max_slowdown_per_kb: f64,
    ) -> Option<ModuleProfile> {
        let percentile = cut.unwrap_or(DEFAULT_HOT_PERCENTILE);
        let hot_threshold = module.profile_hot_threshold(percentile)?.max(1);
        let mut total_work = 0u64;
        let mut counts = HashMap::new();
        for f in module.functions() {
            if f.is_declaration() {
                continue;
            }
            let Some(entry) = f.entry_count() else { continue };
            let max = f.max_profile_count().unwrap_or(entry);
            // A function that never ran (entry count and every branch weight 0) needs no BFI.
            let blocks = if max == 0 {
                Vec::new()
            } else {
                // BFI always answers for a function with an entry count; if it did not, every
                // block is priced at the hottest count (never cheaper than the truth).
                f.block_profile_counts().unwrap_or_else(|| vec![max; f.blocks().len()])
            };
            let fn_work = if blocks.is_empty() { 0 } else { work_with(f, &blocks) };
            total_work = total_work.saturating_add(fn_work);
            counts.insert(f.name(), FnCounts { entry, max, blocks, work: fn_work });
        }
        Some(ModuleProfile {
            percentile,
            hot_threshold,
            cut: cut.is_some(),
            total_work,
            max_slowdown,
            max_slowdown_per_kb,
            estimated: false,
            max_relative: 0.0,
            counts,
        })
    }

    /// Counts estimated from the module's code, for a module without a profile (see
    /// [`fmerge_core::profiling::estimate`]): each block's frequency per call by LLVM's
    /// static heuristics, times the function's calls per run propagated over the call graph
    /// from what may be called from outside (`main`, exported and address-taken functions,
    /// each once per run). An indirect call reaches every defined function of its type whose
    /// address is taken, in equal shares; a C++ virtual call (`fmerge_llvm`'s
    /// `Instruction::virtual_slot`) only those at its slot of the module's virtual tables and
    /// those whose address is used other than in them (`estimate::VirtualCalls`). Calls to code
    /// outside the module are not followed.
    /// Functions that no loop or recursion reaches keep counts only in their loops (see the
    /// module header); the hot threshold is taken before, over every estimated count.
    pub fn estimate(
        module: &Module<'_>,
        cut: Option<u32>,
        max_slowdown: f64,
        max_slowdown_per_kb: f64,
    ) -> ModuleProfile {
        let defined: Vec<_> =
            module.functions().into_iter().filter(|f| !f.is_declaration()).collect();
        let index: HashMap<Function<'_>, u32> =
            defined.iter().enumerate().map(|(i, &f)| (f, i as u32)).collect();
        let mut graph = CallGraph::default();
        // Address-taken functions by type, types in the order they first appear (node
        // numbers, and so the order counts are summed in, do not depend on hashing).
        let mut types: HashMap<_, usize> = HashMap::new();
        let mut by_type: Vec<Vec<u32>> = Vec::new();
        for (i, f) in defined.iter().enumerate() {
            let taken = f.has_address_taken();
            let outside = taken || !f.linkage().is_local() || f.name() == "main";
            graph.add(if outside { 1.0 } else { 0.0 });
            if taken {
                let next = by_type.len();
                let k = *types.entry(f.global_value_type()).or_insert(next);
                if k == next {
                    by_type.push(Vec::new());
                }
                by_type[k].push(i as u32);
            }
        }
        let nodes: Vec<u32> = by_type.iter().map(|targets| graph.indirect(targets)).collect();
        // A virtual call reaches the functions at its slot (and those whose address escapes
        // otherwise): one node per type and slot, made when first called.
        let virtual_calls = virtual_calls(module, &index);
        let mut by_slot: HashMap<(usize, u64), u32> = HashMap::new();
        let mut frequencies = Vec::with_capacity(defined.len());
        let mut in_loop = Vec::with_capacity(defined.len());
        for (i, f) in defined.iter().enumerate() {
            let freqs = f.block_frequencies();
            let cyclic = loop_blocks(*f);
            for (b, block) in f.blocks().iter().enumerate() {
                for inst in block.instructions() {
                    if !inst.is_call_like() {
                        continue;
                    }
                    let per_call = freqs.get(b).copied().unwrap_or(0.0);
                    let callee = match inst.called_value().and_then(|v| v.as_function()) {
                        Some(g) => index.get(&g).copied(),
                        None => types.get(&inst.called_function_type()).map(|&k| {
                            match inst.virtual_slot() {
                                Some(slot) => *by_slot.entry((k, slot)).or_insert_with(|| {
                                    let targets = virtual_calls.targets(slot, &by_type[k]);
                                    if targets.len() == by_type[k].len() {
                                        nodes[k]
                                    } else {
                                        graph.indirect(&targets)
                                    }
                                }),
                                None => nodes[k],
                            }
                        }),
                    };
                    match callee {
                        Some(j) if cyclic[b] => graph.call_in_loop(i as u32, j, per_call),
                        Some(j) => graph.call(i as u32, j, per_call),
                        None => {}
                    }
                }
            }
            frequencies.push(freqs);
            in_loop.push(cyclic);
        }
        let entries = estimate::entry_counts(&graph);
        let repeated = estimate::repeated(&graph);
        let estimated: Vec<Vec<u64>> = frequencies
            .iter()
            .zip(&entries)
            .map(|(freqs, &e)| {
                freqs.iter().map(|&q| (e * ESTIMATE_SCALE * q).round() as u64).collect()
            })
            .collect();
        // The cut is taken over every estimated count, as over a profile's...
        let hot_percentile = cut.unwrap_or(ESTIMATE_HOT_PERCENTILE);
        let hot_threshold =
            estimate::hot_threshold(estimated.iter().flatten().copied(), hot_percentile).max(1);
        // ... then code that runs about once per run is priced as code that never runs (see
        // the module header): the blocks of a function that is not repeated, but for its loops.
        let mut total_work = 0u64;
        let mut counts = HashMap::with_capacity(defined.len());
        for (i, (f, mut blocks)) in defined.iter().zip(estimated).enumerate() {
            if !repeated[i] {
                for (n, &looped) in blocks.iter_mut().zip(&in_loop[i]) {
                    if !looped {
                        *n = 0;
                    }
                }
            }
            let fn_work = work_with(*f, &blocks);
            total_work = total_work.saturating_add(fn_work);
            let max = blocks.iter().copied().max().unwrap_or(0);
            let entry = (entries[i] * ESTIMATE_SCALE).round() as u64;
            let blocks = if max == 0 { Vec::new() } else { blocks };
            counts.insert(f.name(), FnCounts { entry, max, blocks, work: fn_work });
        }
        ModuleProfile {
            percentile: hot_percentile,
            hot_threshold,
            cut: cut.is_some(),
            total_work,
            max_slowdown,
            max_slowdown_per_kb,
            estimated: true,
            max_relative: ESTIMATE_MAX_RELATIVE,
            counts,
        }
    }

    /// What the work is called in the report's reasons.
    fn work_kind(&self) -> &'static str {
        if self.estimated { "estimated" } else { "profiled" }
    }

    /// The function's entry count, if the profile has one.
    pub fn entry_count(&self, name: &str) -> Option<u64> {
        self.counts.get(name).map(|c| c.entry)
    }

    fn is_hot(&self, name: &str) -> bool {
        self.counts.get(name).is_some_and(|c| c.max >= self.hot_threshold)
    }

    /// The counts of a function of the input (see [`Ledger::counts`] for merged bodies).
    fn counts_of(&self, name: &str) -> BlockCounts {
        match self.counts.get(name) {
            Some(c) if c.blocks.iter().any(|&n| n > 0) => BlockCounts::Blocks(c.blocks.clone()),
            _ => BlockCounts::Cold,
        }
    }

    /// Why `name` must not be merged whatever a merge costs (`--hot-percentile`: it, or a
    /// block of it, is hot), or `None`.
    pub fn hot_reason(&self, name: &str) -> Option<String> {
        if !self.cut {
            return None;
        }
        let c = self.counts.get(name)?;
        self.is_hot(name).then(|| {
            format!(
                "hot in the {}: entered {} times, hottest count {}, the hot threshold is {} (the top {}% of counts, --hot-percentile)",
                if self.estimated { "estimate" } else { "profile" },
                c.entry,
                c.max,
                self.hot_threshold,
                f64::from(self.percentile) / 10_000.0
            )
        })
    }

    /// Whether the counts are estimated and `name` is likely hot by them.
    pub fn likely_hot(&self, name: &str) -> bool {
        self.estimated && self.is_hot(name)
    }

    /// With estimated counts, why any merge that turns `name` into a thunk passing at least
    /// one more argument is refused by [`Ledger::hot_refusal`] (on its own: the jump and the
    /// argument per call are already more than [`ESTIMATE_MAX_RELATIVE`] of its work), or
    /// `None`. Global merging leaves such functions out of its summaries, so that no other
    /// module's member of a group counts on sharing a copy with them.
    pub fn refuses_any_thunk(&self, name: &str) -> Option<String> {
        if !self.estimated || !self.is_hot(name) {
            return None;
        }
        let c = self.counts.get(name)?;
        let least = work::call_work(c.entry, true, 1);
        let relative = work::fraction(least, c.work);
        (c.work == 0 || relative > self.max_relative).then(|| {
            format!(
                "runtime cost: likely hot (estimated from the code: the module has no profile), and a thunk would make it about {:.2}% slower, more than {:.2}%",
                relative * 100.0,
                self.max_relative * 100.0
            )
        })
    }

    fn record(&self) -> ProfileRecord {
        ProfileRecord {
            estimated: self.estimated,
            hot_percentile: f64::from(self.percentile) / 10_000.0,
            hot_cut: self.cut,
            hot_threshold: self.hot_threshold,
            functions_with_counts: self.counts.len(),
            hot_functions: self.counts.values().filter(|c| c.max >= self.hot_threshold).count(),
            never_executed: self.counts.values().filter(|c| c.entry == 0).count(),
            merged_never_executed: 0,
            merged_hot: 0,
            total_work: self.total_work,
            max_slowdown_percent: self.max_slowdown * 100.0,
            max_slowdown_per_kb_percent: self.max_slowdown_per_kb * 100.0,
            work_budget: 0,
            added_work: 0,
            added_fraction: 0.0,
            merges_over_budget: 0,
        }
    }
}

/// The run-time side of one run of the stages: the module's profile, the slowdown budget and
/// the counts of the merged bodies made so far. Lives in the run's [`crate::session::Run`] (a
/// re-run of the stages starts a new one).
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    /// The profile merges are priced by (`None`: nothing is priced).
    profile: Option<Arc<ModuleProfile>>,
    pub budget: SlowdownBudget,
    /// Counts of merged bodies made in this run (bodies not listed are cold).
    bodies: HashMap<String, BlockCounts>,
    /// The work of merged bodies made in this run, where known.
    body_work: HashMap<String, u64>,
    /// Merges not taken because their added work did not fit.
    pub over_budget: usize,
}

impl Ledger {
    pub fn new(profile: Option<Arc<ModuleProfile>>) -> Ledger {
        Ledger {
            budget: profile
                .as_deref()
                .map(|p| SlowdownBudget::new(p.total_work, p.max_slowdown))
                .unwrap_or_default(),
            profile,
            ..Ledger::default()
        }
    }

    /// How often the blocks of function `name` ran (cold without a profile).
    pub fn counts(&self, name: &str) -> BlockCounts {
        let Some(p) = &self.profile else { return BlockCounts::Cold };
        match self.bodies.get(name) {
            Some(c) => c.clone(),
            None => p.counts_of(name),
        }
    }

    /// Records the counts of a merged body just committed, and its work if known.
    pub fn set_body(&mut self, name: String, counts: BlockCounts, work: Option<u64>) {
        if counts.ran() {
            if let Some(w) = work {
                self.body_work.insert(name.clone(), w);
            }
            self.bodies.insert(name, counts);
        }
    }

    /// The work of function `name` by the counts merges are priced with (`None`: unknown, or
    /// no profile).
    pub fn work_of(&self, name: &str) -> Option<u64> {
        let p = self.profile.as_ref()?;
        if let Some(&w) = self.body_work.get(name) {
            return Some(w);
        }
        if self.bodies.contains_key(name) {
            return None;
        }
        Some(p.counts.get(name).map_or(0, |c| c.work))
    }

    /// With estimated counts, why a merge of `members` that adds `added` work is not taken
    /// although it may fit the budget: one of its members is hot by the estimate (a block
    /// among the counts that make up the top [`ESTIMATE_HOT_PERCENTILE`] of all), and the merge
    /// would make the members together more than [`ESTIMATE_MAX_RELATIVE`] slower. An
    /// estimate says well which code is likely hot, badly how hot: a share of the module's
    /// estimated work is no measure of a slowdown, but a hot function made slower is.
    pub fn hot_refusal(&self, added: u64, members: &[String]) -> Option<String> {
        let p = self.profile.as_ref().filter(|p| p.estimated)?;
        if added == 0 {
            return None;
        }
        let hot = members.iter().find(|m| match self.bodies.get(m.as_str()) {
            Some(c) => c.blocks().iter().any(|&n| n >= p.hot_threshold),
            None => p.is_hot(m),
        })?;
        let own: u64 = members.iter().map(|m| self.work_of(m).unwrap_or(0)).sum();
        let relative = work::fraction(added, own);
        (own == 0 || relative > p.max_relative).then(|| {
            format!(
                "runtime cost: {hot} is likely hot (estimated from the code: the module has no profile), and the merge would make what it replaces about {:.2}% slower, more than {:.2}%",
                relative * 100.0,
                p.max_relative * 100.0
            )
        })
    }

    /// The counts of a similar merge's body (`members`: the functions it replaces), whose
    /// blocks are neither member's. A profile has none for it ([`BlockCounts::Unknown`]); an
    /// estimate is made as for any function: the body's block frequencies times the calls of
    /// its members together.
    /// Also gives the body's work by those counts, when known.
    pub fn similar_body_counts(
        &self,
        body: Function<'_>,
        members: &[String],
    ) -> (BlockCounts, Option<u64>) {
        match &self.profile {
            Some(p) if p.estimated => {
                let calls: u64 = members.iter().map(|m| self.counts(m).entry()).sum();
                let freqs = body.block_frequencies();
                let mut blocks: Vec<u64> =
                    freqs.iter().map(|&q| (calls as f64 * q).round() as u64).collect();
                if calls == 0 {
                    // Members that run about once per run (their entry blocks are priced at
                    // 0): so does the body, but for its loops, at its members' estimated calls.
                    let once: u64 = members.iter().filter_map(|m| p.entry_count(m)).sum();
                    let looped = loop_blocks(body);
                    for ((n, &q), &l) in blocks.iter_mut().zip(&freqs).zip(&looped) {
                        *n = if l { (once as f64 * q).round() as u64 } else { 0 };
                    }
                }
                let w = work_with(body, &blocks);
                (BlockCounts::Blocks(blocks), Some(w))
            }
            _ => (BlockCounts::Unknown, None),
        }
    }

    /// Why `name` must stay out of merges that add work (the `--hot-percentile` cut, or a
    /// merged body whose counts are unknown), or `None`.
    pub fn exclusion(&self, name: &str) -> Option<String> {
        let p = self.profile.as_ref()?;
        if let Some(why) = p.hot_reason(name) {
            return Some(why);
        }
        (self.bodies.get(name) == Some(&BlockCounts::Unknown)).then(|| {
            "a merged body of similar functions that ran in the profile: its blocks have no counts, so what merging it again would cost cannot be priced".to_string()
        })
    }

    /// The fraction of the module's work `added` is (`None` without a profile).
    pub fn fraction(&self, added: u64) -> Option<f64> {
        self.profile.as_ref().map(|p| work::fraction(added, p.total_work))
    }

    /// Why a merge adding `added` work is not taken, for the report.
    pub fn over_budget_reason(&self, added: u64) -> String {
        let total = self.profile.as_ref().map_or(0, |p| p.total_work);
        format!(
            "runtime cost: it would add about {added} executed instructions ({:.4}% of the module's {} work of {total}), the --max-slowdown budget of {} has {} left",
            work::fraction(added, total) * 100.0,
            self.profile.as_ref().map_or("profiled", |p| p.work_kind()),
            self.budget.limit,
            self.budget.remaining()
        )
    }

    /// Why a merge that adds `added` work and saves `saving` bytes is not affordable: it costs
    /// more than `--max-slowdown-per-kb` for what it saves, or more than is left of the
    /// budget. `None`: affordable.
    pub fn refusal(&self, added: u64, saving: i64) -> Option<String> {
        let p = self.profile.as_ref()?;
        if !work::within_rate(added, p.total_work, saving, p.max_slowdown_per_kb) {
            Some(format!(
                "runtime cost: it would add about {added} executed instructions ({:.4}% of the module's {} work of {}) to save {saving} bytes, more than --max-slowdown-per-kb {}% per KB",
                work::fraction(added, p.total_work) * 100.0,
                p.work_kind(),
                p.total_work,
                p.max_slowdown_per_kb * 100.0
            ))
        } else if added > self.budget.remaining() {
            Some(self.over_budget_reason(added))
        } else {
            None
        }
    }

    /// Takes `added` from the budget if the merge, which saves `saving` bytes, is affordable
    /// ([`Ledger::refusal`]); otherwise counts it and says why not.
    pub fn spend(&mut self, added: u64, saving: i64) -> Result<(), String> {
        if let Some(why) = self.refusal(added, saving) {
            self.over_budget += 1;
            return Err(why);
        }
        self.budget.take(added);
        Ok(())
    }
}

/// The module's virtual tables and which address-taken functions only they hold, by the
/// estimate's function numbers (`index`).
fn virtual_calls(module: &Module<'_>, index: &HashMap<Function<'_>, u32>) -> VirtualCalls {
    let tables = module.virtual_tables();
    let mut confined = vec![false; index.len()];
    let mut checked = vec![false; index.len()];
    let mut read = Vec::with_capacity(tables.tables.len());
    for table in &tables.tables {
        let mut entries = Vec::with_capacity(table.entries.len());
        for &(offset, f) in &table.entries {
            let Some(&i) = index.get(&f) else { continue };
            entries.push((offset, i));
            // Only functions some table holds can be confined to them.
            if !checked[i as usize] {
                checked[i as usize] = true;
                confined[i as usize] = tables.confine(f);
            }
        }
        read.push(VirtualTable { entries, address_points: table.address_points.clone() });
    }
    VirtualCalls::new(&read, confined)
}

/// Which blocks of `f` (layout order) are inside a loop: on a cycle of its control flow graph.
fn loop_blocks(f: Function<'_>) -> Vec<bool> {
    let blocks = f.blocks();
    let number: HashMap<_, u32> =
        blocks.iter().enumerate().map(|(b, &block)| (block, b as u32)).collect();
    let successors: Vec<Vec<u32>> = blocks
        .iter()
        .map(|block| {
            let succ = block.terminator().map(|t| t.successors()).unwrap_or_default();
            succ.iter().filter_map(|s| number.get(s).copied()).collect()
        })
        .collect();
    estimate::cyclic_blocks(&successors)
}

/// The work of `f` with these block counts (layout order): Σ count × block instructions.
fn work_with(f: Function<'_>, counts: &[u64]) -> u64 {
    let sizes: Vec<u64> = f.blocks().iter().map(|b| b.instruction_count() as u64).collect();
    work::function_work(counts, &sizes)
}

/// What the report says about the profile.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileRecord {
    /// The counts were estimated from the code: the module has no profile (or it was
    /// ignored).
    pub estimated: bool,
    pub hot_percentile: f64,
    /// Whether functions hot at `hot_percentile` were kept out of merging whatever a merge
    /// costs (`--hot-percentile`).
    pub hot_cut: bool,
    pub hot_threshold: u64,
    pub functions_with_counts: usize,
    pub hot_functions: usize,
    /// Functions the profile never saw run: merging them costs no time at all.
    pub never_executed: usize,
    /// Of the functions merged, how many never ran in the profile, and how many were hot.
    pub merged_never_executed: usize,
    pub merged_hot: usize,
    /// The module's work (executed IR instructions by the profile), the budget merges may add
    /// (`max_slowdown_percent` of it), and what the committed merges add by the estimate.
    pub total_work: u64,
    pub max_slowdown_percent: f64,
    pub max_slowdown_per_kb_percent: f64,
    pub work_budget: u64,
    pub added_work: u64,
    pub added_fraction: f64,
    /// Merges built and profitable but not taken because their added work did not fit (in the
    /// budget, or in the rate per KB saved).
    pub merges_over_budget: usize,
}

/// Fills in the report's profile record and each merge's entry counts, with what the run's
/// `ledger` spent.
pub fn annotate(report: &mut crate::Report, profile: &ModuleProfile, ledger: &Ledger) {
    let mut record = profile.record();
    for m in &mut report.merges {
        let counts: Vec<Option<u64>> = m.originals.iter().map(|n| profile.entry_count(n)).collect();
        record.merged_never_executed += counts.iter().filter(|c| **c == Some(0)).count();
        record.merged_hot += m.originals.iter().filter(|n| profile.is_hot(n)).count();
        if counts.iter().any(Option::is_some) {
            m.entry_counts = Some(counts);
        }
        if m.added_work.is_some() {
            m.member_work = Some(
                m.originals.iter().filter_map(|n| profile.counts.get(n)).map(|c| c.work).sum(),
            );
        }
    }
    record.work_budget = ledger.budget.limit;
    record.added_work = report.merges.iter().filter_map(|m| m.added_work).sum();
    record.added_fraction = work::fraction(record.added_work, profile.total_work);
    record.merges_over_budget = ledger.over_budget;
    report.profile = Some(record);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile_with(total_work: u64) -> ModuleProfile {
        let defaults = crate::options::Options::default();
        ModuleProfile {
            percentile: DEFAULT_HOT_PERCENTILE,
            hot_threshold: 1000,
            cut: false,
            total_work,
            max_slowdown: defaults.max_slowdown,
            max_slowdown_per_kb: defaults.max_slowdown_per_kb,
            estimated: false,
            max_relative: 0.0,
            counts: HashMap::from([(
                "hot".to_string(),
                FnCounts { entry: 10, max: 5000, blocks: vec![10, 5000, 10], work: 50_040 },
            )]),
        }
    }

    #[test]
    fn a_merge_is_taken_only_within_the_price_per_kb_and_the_budget() {
        let mut ledger = Ledger::new(Some(Arc::new(profile_with(1_000_000))));
        assert_eq!(ledger.budget.limit, 5000);
        // 100 bytes may add 0.1% × 100/1024 of 1,000,000: 97 instructions.
        let why = ledger.refusal(98, 100).expect("over the price per KB");
        assert!(why.contains("--max-slowdown-per-kb"), "{why}");
        assert!(ledger.refusal(97, 100).is_none());
        // Free merges always go; a merge that adds work and saves nothing never does.
        assert!(ledger.refusal(0, -50).is_none());
        assert!(ledger.refusal(1, 0).is_some());
        // The budget is spent merge by merge: 4 × 1200 fit in 5000, the fifth does not.
        for _ in 0..4 {
            assert!(ledger.spend(1200, 100_000).is_ok());
        }
        let why = ledger.spend(1200, 100_000).unwrap_err();
        assert!(why.contains("budget of 5000 has 200 left"), "{why}");
        assert_eq!(ledger.over_budget, 1);
        // Without a profile nothing is priced.
        assert!(Ledger::new(None).refusal(u64::MAX, -1).is_none());
    }

    #[test]
    fn with_an_estimate_likely_hot_functions_may_be_made_only_a_little_slower() {
        let mut p = profile_with(1_000_000);
        p.estimated = true;
        p.max_relative = 0.01;
        p.counts.insert(
            "cold".to_string(),
            FnCounts { entry: 1, max: 10, blocks: vec![1, 10], work: 960 },
        );
        let mut ledger = Ledger::new(Some(Arc::new(p.clone())));
        let pair = ["hot".to_string(), "cold".to_string()];
        // 1% of 50,040 + 960 is 510: 500 is within, 520 is not.
        assert!(ledger.hot_refusal(500, &pair).is_none());
        let why = ledger.hot_refusal(520, &pair).expect("over 1% of a hot function");
        assert!(why.contains("hot is likely hot") && why.contains("1.02%"), "{why}");
        assert!(ledger.hot_refusal(0, &pair).is_none(), "free merges are always taken");
        // Only cold members: the budget alone decides.
        let colds = ["cold".to_string(), "never.seen".to_string()];
        assert!(ledger.hot_refusal(1_000_000, &colds).is_none());
        // A merged body counts as what it was made of; without work it is refused.
        ledger.set_body("m.fmerged".into(), BlockCounts::Blocks(vec![20, 4000]), Some(90_000));
        let chained = ["m.fmerged".to_string(), "cold".to_string()];
        assert!(ledger.hot_refusal(900, &chained).is_none());
        assert!(ledger.hot_refusal(1000, &chained).is_some());
        ledger.set_body("u.fmerged".into(), BlockCounts::Blocks(vec![5000]), None);
        assert!(ledger.hot_refusal(1, &["u.fmerged".to_string()]).is_some());
        // A real profile prices by the budget only.
        p.estimated = false;
        assert!(Ledger::new(Some(Arc::new(p))).hot_refusal(u64::MAX, &pair).is_none());
    }

    #[test]
    fn merged_bodies_of_code_that_ran_have_unknown_counts_and_sit_out() {
        let mut ledger = Ledger::new(Some(Arc::new(profile_with(1_000_000))));
        assert_eq!(ledger.counts("hot"), BlockCounts::Blocks(vec![10, 5000, 10]));
        assert_eq!(ledger.counts("never.seen"), BlockCounts::Cold);
        ledger.set_body("cold.fmerged".into(), BlockCounts::Cold, None);
        ledger.set_body("hot.fmerged".into(), BlockCounts::Unknown, None);
        ledger.set_body("sum.fmerged".into(), BlockCounts::Blocks(vec![3, 30]), None);
        assert_eq!(ledger.counts("cold.fmerged"), BlockCounts::Cold);
        assert!(ledger.exclusion("cold.fmerged").is_none());
        assert!(ledger.exclusion("hot.fmerged").is_some());
        assert!(ledger.exclusion("sum.fmerged").is_none());
        assert_eq!(ledger.counts("sum.fmerged").entry(), 3);
        // No cut unless asked for: a hot function is priced, not excluded.
        assert!(ledger.exclusion("hot").is_none());
    }

    /// A test program's shape: tests entered once per run (`test_a`, `test_b`, each calling
    /// a helper once) next to a loop (`loopy`, calling `inner` from it). The estimated counts
    /// of the tests and the helper are all about the same, inside the top 99.9% of counts:
    /// without the once-per-run rule every function of the module was likely hot.
    const ONCE_AND_LOOPS: &str = r#"
target triple = "x86_64-pc-linux-gnu"
@g = global i32 0

define void @test_a() {
  call void @helper(i32 1)
  store volatile i32 10, ptr @g
  ret void
}

define void @test_b() {
  call void @helper(i32 2)
  store volatile i32 20, ptr @g
  ret void
}

define internal void @helper(i32 %x) {
  %y = mul i32 %x, 7
  store volatile i32 %y, ptr @g
  ret void
}

define void @loopy(i32 %n) {
entry:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  call void @inner(i32 %i)
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %loop, label %exit
exit:
  store volatile i32 0, ptr @g
  ret void
}

define internal void @inner(i32 %x) {
  %y = xor i32 %x, 5
  store volatile i32 %y, ptr @g
  ret void
}
"#;

    #[test]
    fn code_that_runs_once_per_run_is_not_likely_hot_and_loops_are() {
        let llvm = fmerge_llvm::Llvm::new();
        let module =
            llvm.parse(std::path::Path::new("t.ll"), ONCE_AND_LOOPS.as_bytes()).expect("IR");
        let p = ModuleProfile::estimate(&module, None, 0.005, 0.001);
        // The estimate itself still says how often each function is entered.
        assert_eq!(p.entry_count("test_a"), Some(1000));
        assert_eq!(p.entry_count("helper"), Some(2000));
        // The cut alone would take everything: the tests' counts are inside the top 99.9%.
        assert!(p.hot_threshold <= 1000, "threshold {}", p.hot_threshold);
        for once in ["test_a", "test_b", "helper"] {
            assert!(!p.likely_hot(once), "{once} runs once per run");
            assert!(p.refuses_any_thunk(once).is_none());
        }
        for hot in ["loopy", "inner"] {
            assert!(p.likely_hot(hot), "{hot} runs in a loop");
        }
        // Once-per-run code is priced as code that never runs; the loop keeps its counts, and
        // `loopy` only in its loop block.
        let ledger = Ledger::new(Some(Arc::new(p.clone())));
        assert_eq!(ledger.counts("test_a"), BlockCounts::Cold);
        assert_eq!(ledger.counts("helper"), BlockCounts::Cold);
        assert_eq!(ledger.work_of("test_a"), Some(0));
        let loopy = ledger.counts("loopy");
        assert_eq!(loopy.entry(), 0);
        assert!(loopy.block(1) > 1000, "{loopy:?}");
        assert_eq!(loopy.block(2), 0);
        assert!(ledger.counts("inner").entry() > 1000);
        // A merge of the two tests is free of the likely-hot rule, one with `inner` is not.
        let tests = ["test_a".to_string(), "test_b".to_string()];
        assert!(ledger.hot_refusal(500, &tests).is_none());
        let with_inner = ["inner".to_string(), "helper".to_string()];
        assert!(ledger.hot_refusal(1_000_000, &with_inner).is_some());
        // The module's work is the loop's alone.
        let inner_work = ledger.work_of("inner").unwrap();
        assert_eq!(p.total_work, inner_work + ledger.work_of("loopy").unwrap());
    }

    /// A C++ test program's shape: `cleanup` deletes objects in a loop through their
    /// deleting destructor (slot +8), `run_test` calls each test's body (slot +16) once. All
    /// of them are `void(ptr)` and in virtual tables only.
    const VIRTUAL_CALLS: &str = r#"
target triple = "x86_64-pc-linux-gnu"
@g = global i32 0
@_ZTV3Obj = linkonce_odr unnamed_addr constant { [4 x ptr] } { [4 x ptr] [ptr null, ptr null, ptr @obj_d1, ptr @obj_d0] }
@_ZTV5TestA = unnamed_addr constant { [5 x ptr] } { [5 x ptr] [ptr null, ptr null, ptr @testa_d1, ptr @testa_d0, ptr @testa_body] }
@_ZTV5TestB = unnamed_addr constant { [5 x ptr] } { [5 x ptr] [ptr null, ptr null, ptr @testb_d1, ptr @testb_d0, ptr @testb_body] }

define void @main_like(ptr %objs, i32 %n, ptr %ta, ptr %tb) {
  store ptr getelementptr inbounds inrange(-16, 16) (i8, ptr @_ZTV3Obj, i64 16), ptr %objs
  store ptr getelementptr inbounds inrange(-16, 24) (i8, ptr @_ZTV5TestA, i64 16), ptr %ta
  store ptr getelementptr inbounds inrange(-16, 24) (i8, ptr @_ZTV5TestB, i64 16), ptr %tb
  call void @run_test(ptr %ta)
  call void @run_test(ptr %tb)
  call void @cleanup(ptr %objs, i32 %n)
  ret void
}

define internal void @run_test(ptr %t) {
  %vt = load ptr, ptr %t
  %slot = getelementptr inbounds i8, ptr %vt, i64 16
  %body = load ptr, ptr %slot
  call void %body(ptr %t)
  ret void
}

define internal void @cleanup(ptr %objs, i32 %n) {
entry:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %p = getelementptr ptr, ptr %objs, i32 %i
  %o = load ptr, ptr %p
  %vt = load ptr, ptr %o
  %slot = getelementptr inbounds i8, ptr %vt, i64 8
  %d0 = load ptr, ptr %slot
  call void %d0(ptr %o)
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define linkonce_odr void @obj_d1(ptr %this) {
  store volatile i32 1, ptr @g
  ret void
}
define linkonce_odr void @obj_d0(ptr %this) {
  call void @obj_d1(ptr %this)
  store volatile i32 2, ptr @g
  ret void
}
define linkonce_odr void @testa_d1(ptr %this) {
  store volatile i32 3, ptr @g
  ret void
}
define linkonce_odr void @testa_d0(ptr %this) {
  call void @testa_d1(ptr %this)
  store volatile i32 4, ptr @g
  ret void
}
define linkonce_odr void @testb_d1(ptr %this) {
  store volatile i32 5, ptr @g
  ret void
}
define linkonce_odr void @testb_d0(ptr %this) {
  call void @testb_d1(ptr %this)
  store volatile i32 6, ptr @g
  ret void
}
define void @testa_body(ptr %this) {
  call void @helper(i32 1)
  store volatile i32 10, ptr @g
  ret void
}
define void @testb_body(ptr %this) {
  call void @helper(i32 2)
  store volatile i32 20, ptr @g
  ret void
}
define internal void @helper(i32 %x) {
  %y = mul i32 %x, 7
  store volatile i32 %y, ptr @g
  ret void
}
"#;

    #[test]
    fn a_virtual_call_reaches_the_functions_at_its_slot() {
        let llvm = fmerge_llvm::Llvm::new();
        let module =
            llvm.parse(std::path::Path::new("t.ll"), VIRTUAL_CALLS.as_bytes()).expect("IR");
        let p = ModuleProfile::estimate(&module, None, 0.005, 0.001);
        // The loop's call through slot +8 reaches the deleting destructors (and what they
        // call), not the tests' bodies at +16: before, one `void(ptr)` node reached all nine.
        for hot in ["obj_d0", "testa_d0", "testb_d0", "obj_d1", "testa_d1", "testb_d1"] {
            assert!(p.likely_hot(hot), "{hot} runs in cleanup's loop");
        }
        for once in ["testa_body", "testb_body", "helper", "run_test"] {
            assert!(!p.likely_hot(once), "{once} runs once per test");
        }
        let ledger = Ledger::new(Some(Arc::new(p.clone())));
        let bodies = ["testa_body".to_string(), "testb_body".to_string()];
        assert!(ledger.hot_refusal(1_000_000, &bodies).is_none());
        let dtors = ["testa_d0".to_string(), "testb_d0".to_string()];
        assert!(ledger.hot_refusal(1_000_000, &dtors).is_some());
        // Each destructor gets a third of the loop's calls (not a ninth of them).
        let d0 = p.entry_count("testa_d0").unwrap();
        assert!(d0 > 3 * p.entry_count("testa_body").unwrap(), "{d0}");
    }
}
