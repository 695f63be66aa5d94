//! `fmerge instrument`: edge profiling with the fewest counters (seed 001; Knuth; Ball and
//! Larus).
//!
//! **Instrumenting.** For every function: its control-flow graph with LLVM's static
//! frequency estimate as edge weights ([`fmerge_llvm::profiling::instrument`]); the blocks
//! that leave it (returns) and those that may leave it without coming back (a call that may
//! unwind, never return, or reach `exit()`/`longjmp`, by an analysis of the whole module; with
//! `--assume-calls-return` only the first two); [`fmerge_core::profiling::probes::place`]
//! picks the counters, one per edge outside a maximum spanning tree. Where a counter sits:
//! - an edge `u → v`: at the end of `u` if `u` has one successor (and its terminator is not a
//!   call: a counter before an `invoke` would run before the call), else at the start of `v`
//!   if `v` has one predecessor, else in a new block splitting the edge (an unwind edge into a
//!   shared landing pad gets a landing pad of its own);
//! - an exit: just before the returning instruction (before a `musttail` call);
//! - the entry (only when the entry block itself may leave abnormally): at its start.
//!
//! Once every counter is in place, counters updated in loops without calls are kept in
//! registers through the loop and written back at its exits, as far as the loop has registers
//! to spare (counter promotion, [`fmerge_llvm::Module::promote_counters`]; not with `--atomic`
//! or `--no-promote`).
//!
//! Edges that can carry no counter (out of an `indirectbr` or `callbr` into a block with
//! several predecessors) are *pinned* into the spanning tree. If pinned edges alone
//! close a cycle, the function falls back to a counter per block (exact block counts; edge
//! counts where conservation gives them), and the map says why; so does a function that calls
//! `setjmp` (control re-enters the middle of a block there). Functions fmerge cannot
//! instrument (naked, funclet exception handling, `available_externally`) are listed as
//! skipped. The module gets the counters, the runtime that appends them at exit (and, with
//! `--write-on-signal`, when a signal ends the process: [`fmerge_llvm::Module::add_profile_runtime`]),
//! and is verified by the caller.

use fmerge_core::profiling::costmodel::CostTable;
use fmerge_core::profiling::files::{
    FunctionProbes, MapOptions, ProbeMap, ProfileFile, Scheme, cfg_hash,
};
use fmerge_core::profiling::probes::{self, Cfg, FlowEdge};
use fmerge_llvm::profiling::instrument::{
    ControlFlow, CounterSite, ProfileData, Promotion, RuntimeError,
};
use fmerge_llvm::{Function, Module};
use std::collections::HashMap;

/// How to count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probes {
    /// Optimal edge probes (the default).
    Optimal,
    /// A counter in every reachable block (the reference for checking the optimal counts).
    Blocks,
    /// Both, in one program: `fmerge profile merge` checks, run by run, that the optimal
    /// counters rebuild exactly the counted blocks.
    Check,
}

#[derive(Clone, Debug)]
pub struct InstrumentOptions {
    pub probes: Probes,
    /// `atomicrmw add` instead of load/add/store: exact in threaded programs, slower.
    pub atomic: bool,
    /// Only calls that may unwind or never return are abnormal exits.
    pub assume_calls_return: bool,
    /// Cost mode (`--mode work`, seed 001's work metric) and its cost table: a run records its
    /// cost, Σ over blocks of cost × count: a counter on each probe whose count stands for
    /// some cost, weighed by that cost when the runs are summed.
    pub cost_table: Option<CostTable>,
    /// Cost mode: drop probes that add little cost (seed 001's relaxation).
    pub relax: Option<Relax>,
    /// Counter promotion: keep counters in registers through loops without calls, written
    /// back at the loops' exits ([`fmerge_llvm::Module::promote_counters`]). Never with
    /// `atomic`.
    pub promote: bool,
    /// Also write the record when a signal that ends the process arrives (SIGINT, SIGTERM,
    /// SIGPIPE, SIGABRT, ...): handlers the program can see.
    pub write_on_signal: bool,
}

/// How to relax cost instrumentation.
#[derive(Clone, Debug)]
pub enum Relax {
    /// Per region (loops and the outer region), losing at most this fraction of the cost of
    /// any pass through a region: a bound for every input.
    Region(f64),
    /// Over the whole program, losing at most this fraction of the cost of the training runs
    /// in the profile (counts of the same module): a bound for runs like those.
    Whole(f64, Box<ProfileFile>),
}

/// Why a module cannot be instrumented.
#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    #[error(
        "fmerge instrument supports Linux targets only (the runtime calls open/write/clock_gettime \
         with Linux's constants); the module's triple is {0:?}"
    )]
    UnsupportedTarget(String),
    #[error(
        "--write-on-signal supports glibc and musl Linux on x86, Arm, AArch64, RISC-V and \
         LoongArch only (the handlers use their struct sigaction and signal numbers); the \
         module's triple is {0:?}"
    )]
    UnsupportedSignals(String),
    #[error(
        "fmerge instrument has no profile runtime for the module's target (triple {0:?}, data \
         layout {1:?}): it has one for Linux on x86-64, x32, x86, AArch64, Arm and RISC-V, each \
         with the data layout clang gives it"
    )]
    NoRuntime(String, String),
    #[error("the module is already instrumented by fmerge (it defines __fmerge_prof_data)")]
    AlreadyInstrumented,
    #[error("instrumenting {0}")]
    Surgery(String),
}

/// What [`instrument`] did.
#[derive(Debug)]
pub struct Instrumented {
    /// The map `fmerge profile merge` needs.
    pub map: ProbeMap,
    /// What counter promotion did (nothing without `promote`, or with `atomic`).
    pub promotion: Promotion,
}

/// Instruments every function of `module`.
pub fn instrument(
    module: &mut Module<'_>,
    opts: InstrumentOptions,
) -> Result<Instrumented, InstrumentError> {
    let map = place_counters(module, &opts)?;
    // After every counter is in place: promotion rewrites the counter updates of loops.
    let promotion =
        if opts.promote && !opts.atomic { module.promote_counters() } else { Promotion::default() };
    let data = module.profile_data().expect("the profile data was added");
    module.forget_memory_effects();
    module.isolate_counters(data);
    module.add_profile_runtime(data, opts.write_on_signal).map_err(|e| match e {
        RuntimeError::SignalAbi => InstrumentError::UnsupportedSignals(module.triple()),
        RuntimeError::NoRuntime => {
            InstrumentError::NoRuntime(module.triple(), module.data_layout())
        }
        RuntimeError::Link(message) => {
            InstrumentError::Surgery(format!("linking the profile runtime: {message}"))
        }
    })?;
    Ok(Instrumented { map, promotion })
}

/// Plans every function's counters and puts them in; returns the probe map.
fn place_counters(
    module: &Module<'_>,
    opts: &InstrumentOptions,
) -> Result<ProbeMap, InstrumentError> {
    let triple = module.triple();
    if !triple.contains("linux") {
        return Err(InstrumentError::UnsupportedTarget(triple));
    }
    if module.global("__fmerge_prof_data").is_some() {
        return Err(InstrumentError::AlreadyInstrumented);
    }
    let calls = module.comeback_analysis(opts.assume_calls_return);
    let mut planned: Vec<(Function<'_>, FunctionProbes, Vec<CounterSite>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut opcodes: Vec<String> = Vec::new();
    let mut opcode_index: HashMap<&'static str, u32> = HashMap::new();
    for f in module.functions() {
        if f.is_declaration() {
            continue;
        }
        if let Some(why) = skip_reason(f) {
            skipped.push((f.name(), why.to_string()));
            continue;
        }
        let flow = f.control_flow(&calls);
        if flow.facts.iter().any(|x| x.unsupported()) {
            skipped.push((f.name(), "funclet-based exception handling".into()));
            continue;
        }
        let (mut probes, sites) = plan(&f.name(), &flow, opts.probes);
        probes.ops = f
            .block_opcodes()
            .into_iter()
            .map(|ops| {
                ops.into_iter()
                    .map(|(name, n)| {
                        let k = *opcode_index.entry(name).or_insert_with(|| {
                            opcodes.push(name.to_string());
                            opcodes.len() as u32 - 1
                        });
                        (k, n)
                    })
                    .collect()
            })
            .collect();
        planned.push((f, probes, sites));
    }
    if let Some(costs) = &opts.cost_table {
        // Cost mode: every probe stands for some cost; a probe whose cost is 0, or that
        // relaxation drops, gets no counter. The counters are weighed when the runs are
        // summed (one shared cost word, as the seed has it, serializes every probe on one
        // memory word: Lua ran 2x slower than with separate counters).
        let fps: Vec<FunctionProbes> = planned.iter().map(|p| p.1.clone()).collect();
        let mut incs: Vec<Vec<i64>> = fps.iter().map(|f| probe_costs(f, &opcodes, costs)).collect();
        if let Some(relax) = &opts.relax {
            relax_probe_costs(&fps, &opcodes, costs, relax, &mut incs);
        }
        for ((_, fp, sites), inc) in planned.iter_mut().zip(incs) {
            let kept: Vec<(u32, i64)> = inc
                .into_iter()
                .enumerate()
                .filter(|&(_, c)| c != 0)
                .map(|(k, c)| (k as u32, c))
                .collect();
            *sites = kept.iter().map(|&(k, _)| sites[k as usize]).collect();
            fp.probe_costs = Some(kept);
        }
    }
    let map = ProbeMap::new(
        planned.iter().map(|p| p.1.clone()).collect(),
        skipped,
        MapOptions {
            atomic: opts.atomic,
            assume_calls_return: opts.assume_calls_return,
            opcodes,
            cost_table: opts.cost_table.clone(),
        },
    );
    let data = module.add_profile_data(map.module_id, map.counters);
    for ((f, _, sites), placed) in planned.iter().zip(&map.functions) {
        let updates: Vec<(u64, i64)> = (0..sites.len() as u64)
            .map(|i| (ProfileData::counter_word(placed.first + i), 1))
            .collect();
        f.instrument_counters(sites, &updates, data, opts.atomic)
            .map_err(InstrumentError::Surgery)?;
    }
    Ok(map)
}

/// Relaxation: sets the cost of every dropped probe to 0.
fn relax_probe_costs(
    functions: &[FunctionProbes],
    opcodes: &[String],
    costs: &CostTable,
    relax: &Relax,
    updates: &mut [Vec<i64>],
) {
    let block_costs = |f: &FunctionProbes| -> Vec<u64> {
        f.ops
            .iter()
            .map(|ops| {
                costs.block_cost(ops.iter().map(|&(o, n)| (opcodes[o as usize].as_str(), n)))
            })
            .collect()
    };
    match relax {
        Relax::Region(m) => {
            for (f, up) in functions.iter().zip(updates.iter_mut()) {
                let Scheme::Edges { sites } = &f.scheme else { continue };
                let placement = probes::place(&f.cfg);
                let probes: Vec<fmerge_core::profiling::relax::Probe> =
                    sites
                        .iter()
                        .zip(placement.site_weights())
                        .zip(up.iter())
                        .map(|((&site, frequency), &increment)| {
                            fmerge_core::profiling::relax::Probe { site, increment, frequency }
                        })
                        .collect();
                let drop = fmerge_core::profiling::relax::relax_regions(
                    &f.cfg,
                    &block_costs(f),
                    &probes,
                    *m,
                );
                for (u, d) in up.iter_mut().zip(drop) {
                    if d {
                        *u = 0;
                    }
                }
            }
        }
        Relax::Whole(m, profile) => {
            let by_key: HashMap<(&str, u64), &fmerge_core::profiling::files::FunctionProfile> =
                profile.functions.iter().map(|p| ((p.name.as_str(), p.cfg_hash), p)).collect();
            let mut items = Vec::new();
            let mut at = Vec::new();
            for (k, (f, up)) in functions.iter().zip(updates.iter()).enumerate() {
                let Some(p) = by_key.get(&(f.name.as_str(), f.cfg_hash)) else { continue };
                let counts: Vec<u64> = match &f.scheme {
                    Scheme::Blocks { blocks } => {
                        blocks.iter().map(|&b| p.blocks[b as usize]).collect()
                    }
                    Scheme::Edges { sites } => sites
                        .iter()
                        .map(|s| match *s {
                            FlowEdge::Real(i) => p.edges[i as usize].unwrap_or(0),
                            FlowEdge::Exit(x) => p.blocks[x as usize],
                            FlowEdge::Entry => p.entries,
                            FlowEdge::AbnormalExit(_) => 0,
                        })
                        .collect(),
                };
                for (j, (&c, n)) in up.iter().zip(counts).enumerate() {
                    items.push((c, n));
                    at.push((k, j));
                }
            }
            for ((k, j), d) in
                at.into_iter().zip(fmerge_core::profiling::relax::relax_whole(&items, *m))
            {
                if d {
                    updates[k][j] = 0;
                }
            }
        }
    }
}

/// Cost mode: the cost each probe's execution stands for, so that `Σ_p c_p·count(p)` equals
/// `Σ_B w(B)·f(B)`: with block counters, a block's own cost; with optimal probes, the costs of
/// the blocks whose counts the probe's count stands for, with their coefficients
/// ([`probes::block_coefficients`]). In wrapping 64-bit arithmetic: coefficients can be
/// negative, the sum is not.
fn probe_costs(f: &FunctionProbes, opcodes: &[String], costs: &CostTable) -> Vec<i64> {
    let w: Vec<u64> = f
        .ops
        .iter()
        .map(|ops| costs.block_cost(ops.iter().map(|&(o, n)| (opcodes[o as usize].as_str(), n))))
        .collect();
    match &f.scheme {
        Scheme::Blocks { blocks } => blocks.iter().map(|&b| w[b as usize] as i64).collect(),
        Scheme::Edges { sites } => {
            let placement = probes::place(&f.cfg);
            let mut inc = vec![0i64; sites.len()];
            for (b, terms) in probes::block_coefficients(&f.cfg, &placement).iter().enumerate() {
                for &(p, c) in terms {
                    inc[p as usize] = inc[p as usize].wrapping_add((w[b] as i64).wrapping_mul(c));
                }
            }
            inc
        }
    }
}

fn skip_reason(f: Function<'_>) -> Option<&'static str> {
    if f.linkage() == fmerge_llvm::Linkage::AvailableExternally {
        return Some("available_externally: its code is not emitted here");
    }
    if f.has_fn_attr("naked") {
        return Some("naked: no code may be added");
    }
    None
}

/// The CFG probe placement sees, with the edges that can carry no counter pinned.
fn cfg_of(flow: &ControlFlow, slots: &Slots) -> Cfg {
    let pinned = (0..flow.edges.len())
        .filter(|&i| edge_site(flow, slots, i).is_none())
        .map(|i| i as u32)
        .collect();
    let blocks_where = |p: fn(fmerge_llvm::profiling::instrument::BlockFacts) -> bool| {
        (0..flow.blocks as u32).filter(|&b| p(flow.facts[b as usize])).collect()
    };
    Cfg {
        blocks: flow.blocks,
        edges: flow.edges.clone(),
        weights: flow.weights.clone(),
        exits: blocks_where(|x| x.is_exit()),
        // A block control can re-enter (setjmp) does not determine its out-edges either.
        abnormal_exits: blocks_where(|x| x.is_abnormal_exit() || x.returns_twice()),
        pinned,
    }
}

/// Successor slots and predecessor slots of each block, and each edge's successor slot.
struct Slots {
    succ: Vec<u32>,
    pred: Vec<u32>,
    slot_of: Vec<u32>,
}

impl Slots {
    fn of(flow: &ControlFlow) -> Slots {
        let mut s = Slots {
            succ: vec![0; flow.blocks],
            pred: vec![0; flow.blocks],
            slot_of: Vec::with_capacity(flow.edges.len()),
        };
        for &(a, b) in &flow.edges {
            s.slot_of.push(s.succ[a as usize]);
            s.succ[a as usize] += 1;
            s.pred[b as usize] += 1;
        }
        s
    }
}

/// Where a counter on edge `i` (`a → b`) can sit, if anywhere.
fn edge_site(flow: &ControlFlow, slots: &Slots, i: usize) -> Option<CounterSite> {
    let (a, b) = flow.edges[i];
    let (fa, fb) = (flow.facts[a as usize], flow.facts[b as usize]);
    if slots.succ[a as usize] == 1 && !fa.call_terminator() {
        Some(CounterSite::BeforeTerminator(a))
    } else if slots.pred[b as usize] == 1 && b != 0 {
        Some(CounterSite::BlockStart(b))
    } else if !fa.unsplittable_out() && !fb.eh_pad() {
        Some(CounterSite::SplitEdge(a, slots.slot_of[i]))
    } else {
        None
    }
}

/// The blocks reachable from the entry (the ones a counter per block counts).
fn live_blocks(cfg: &Cfg) -> Vec<u32> {
    let live = cfg.reachable();
    (0..cfg.blocks as u32).filter(|&b| live[b as usize]).collect()
}

/// Placement and counter sites of one function.
fn plan(name: &str, flow: &ControlFlow, probes_kind: Probes) -> (FunctionProbes, Vec<CounterSite>) {
    let slots = Slots::of(flow);
    let cfg = cfg_of(flow, &slots);
    let hash = cfg_hash(&cfg);
    let blocks_scheme = |cfg: Cfg, fallback: Option<String>| {
        let blocks = live_blocks(&cfg);
        let sites = blocks.iter().map(|&b| CounterSite::BlockStart(b)).collect();
        let fp = FunctionProbes {
            name: name.to_string(),
            cfg_hash: hash,
            cfg,
            scheme: Scheme::Blocks { blocks },
            first: 0,
            fallback,
            check_blocks: None,
            ops: Vec::new(),
            probe_costs: None,
        };
        (fp, sites)
    };
    if probes_kind == Probes::Blocks {
        return blocks_scheme(cfg, None);
    }
    if flow.facts.iter().any(|x| x.returns_twice()) {
        let why = "calls a function that returns twice (setjmp): control re-enters a block \
                   where no edge counter sees it; a counter per block instead";
        return blocks_scheme(cfg, Some(why.to_string()));
    }
    let placement = probes::place(&cfg);
    // Taken out first: the fallback consumes `cfg`, which the iterator borrows.
    let probed_pinned = placement.probed_pinned(&cfg).next();
    if let Some(e) = probed_pinned {
        let (a, b) = cfg.edges[e as usize];
        let why = format!(
            "edge {a} -> {b} needs a counter but cannot carry one (edges that cannot be split \
             close a cycle): a counter per block instead"
        );
        return blocks_scheme(cfg, Some(why));
    }
    let sites: Vec<FlowEdge> = placement.sites().collect();
    let mut counter_sites: Vec<CounterSite> = sites
        .iter()
        .map(|s| match *s {
            FlowEdge::Real(i) => {
                edge_site(flow, &slots, i as usize).expect("pinned edges are never probed here")
            }
            FlowEdge::Exit(x) => CounterSite::BeforeTerminator(x),
            FlowEdge::Entry => CounterSite::BlockStart(0),
            FlowEdge::AbnormalExit(_) => unreachable!("abnormal exits are never probed"),
        })
        .collect();
    let mut fp = FunctionProbes {
        name: name.to_string(),
        cfg_hash: hash,
        cfg,
        scheme: Scheme::Edges { sites },
        first: 0,
        fallback: None,
        check_blocks: None,
        ops: Vec::new(),
        probe_costs: None,
    };
    if probes_kind == Probes::Check {
        let blocks = live_blocks(&fp.cfg);
        counter_sites.extend(blocks.iter().map(|&b| CounterSite::BlockStart(b)));
        fp.check_blocks = Some(blocks);
    }
    (fp, counter_sites)
}
