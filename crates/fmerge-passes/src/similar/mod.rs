//! Similar-function merging (F3M search, HyFM alignment, SalSSA-style code generation).
//!
//! Per round:
//! 1. Lower the module once. Functions whose traits rule out a merged body or a thunk sit out
//!    (varargs, musttail, blockaddress, callbr, funclet EH, swifterror, GC, prefix data,
//!    taking their own address, token values), as do functions no bigger than a thunk.
//! 2. Fingerprint every candidate with a MinHash signature over shingles of its encoded
//!    instructions and index them with LSH (F3M; band count and similarity threshold adapt to
//!    the number of functions), so partners are found without comparing all pairs.
//! 3. Largest functions first (a worklist): query the index for the most similar live
//!    partners. Check that each may share a body with the function (return type, function
//!    attributes, calling convention, GC, section, personality), align the two (HyFM block
//!    pairing with Needleman–Wunsch inside blocks) and *predict* the merged body's cost from
//!    the alignment. Try the partners in the order of the bytes predicted saved, most first
//!    (not most similar first: similarity does not count what pairing costs): skip pairs that
//!    cannot pay, build the body ([`codegen`]) and price it with TTI. Failures and losses are
//!    remembered so they are not retried.
//! 4. A clear gain is committed at once (thunks or rewritten call sites). The merged body is
//!    lowered, indexed and put at the front of the worklist, so it can merge again (three or
//!    more similar functions end up sharing one body). Functions whose call sites were
//!    rewritten are stale for the rest of the round and sit out.
//! 5. Close calls wait in a bounded batch that is settled by compiling it (one code generation
//!    for the whole batch), then committed or erased. A batch compiles on other threads while
//!    the search goes on, its functions out of the search; it lands (its winners committed)
//!    when the next batch is full or nothing else is left to look at: points the search
//!    decides, so the output never depends on timing or the number of threads.
//! 6. Bodies that lost, and the old bodies of members that became thunks, wait for the
//!    module's sweep. Once enough of them wait ([`PARK_AFTER`]), the round parks between two
//!    batches: it lets go of the module (its lowering too, `fmerge_llvm::lower::Parked`), the
//!    stage sweeps it, and the round resumes where it stopped. On tokei this kept 22 MB of
//!    dead bodies from the peak.
//!
//! A second round (after a sweep) retries the functions the first one took out while they
//! waited or changed; a third found little (15 of 222 merges on tokei, 1.9 KB) for a tenth of
//! the stage's time. The second round starts from the first one's lowering, parked across
//! the sweep: only the functions the first round changed (members, callers whose call sites
//! it rewrote) are lowered again, in module order, as a fresh lowering would have them.

pub mod codegen;
pub mod params;

use crate::fold::{self, Visibility, can_thunk};
use crate::measure::SizeCache;
use crate::options::SearchMode;
use crate::proposal::{self, Proposal};
use crate::report::{Basis, MergeRecord, Rejected, Skipped, StageStats};
use crate::session::{Run, Session};
use crate::stage::{About, Stage};
use codegen::Side;
use fmerge_core::align::{AlignConfig, FunctionAlignment, align_blocks};
use fmerge_core::compare::Walk;
use fmerge_core::fingerprint::OpcodeTypeFingerprint;
use fmerge_core::ir::{FuncData, ModuleTables, traits};
use fmerge_core::lsh::{LshConfig, LshIndex};
use fmerge_core::minhash::{MinHashConfig, MinHasher};
use fmerge_core::profiling::work;
use fmerge_core::profit::{self, Verdict};
use fmerge_core::rank::{Candidate, CandidateSearch, ExhaustiveRanking, FuncKey, Worklist};
use fmerge_llvm::lower::{FuncHandles, Hashes, LoweredModule};
use fmerge_llvm::{Function, Module, Value, cost};
use params::ParamMap;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

const STAGE: &str = "similar";
/// Rounds at most (a third found little: see the module comment).
const ROUNDS: usize = 2;
/// Partners tried per function (F3M's exploration threshold).
const EXPLORE: usize = 3;
/// Pairs whose alignment shares less than this fraction of instructions are not tried.
const MIN_ALIGNMENT: f64 = 0.3;
/// Close calls settled together by one code generation. A pending close call takes its
/// functions out of the search until it is settled: halving the batch from 96 found more
/// merges (corpus `.text`: zstd -1,593 bytes, fd -192, tokei -16, six others equal).
const BATCH: usize = 48;

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

/// The similar stage; what its rounds learn is kept in its `Memo` (made when the first
/// round starts).
#[derive(Default)]
pub struct Similar {
    memo: Option<Memo>,
    /// Rounds run so far.
    rounds: usize,
    /// The functions the first round looks for partners for (`None`: all).
    first: Option<HashSet<String>>,
    /// The last round's lowering, parked across the sweep between two rounds.
    carried: Option<Box<Carried>>,
}

impl Similar {
    /// A stage whose first round looks for partners only for `functions` (every function
    /// may still be a partner): the size guard's second chance for the functions of merges
    /// it undid.
    pub fn retrying(functions: HashSet<String>) -> Self {
        Similar { memo: None, rounds: 0, first: Some(functions), carried: None }
    }
}

impl Stage for Similar {
    fn about(&self) -> About {
        About { name: STAGE, activity: "merging similar functions", max_rounds: ROUNDS }
    }

    fn run_round(&mut self, session: &mut Session<'_, '_>, stats: &mut StageStats) -> usize {
        let module = &*session.module;
        let run = &mut session.run;
        let first = &mut self.first;
        let memo = self.memo.get_or_insert_with(|| Memo {
            rejected: HashSet::new(),
            sizes: SizeCache::default(),
            scoped: first.is_some(),
            retry: first.take(),
            measure_budget: proposal::MeasureBudget::for_stage(module, run.opts),
        });
        self.rounds += 1;
        let last = self.rounds == ROUNDS;
        let round = match self.carried.take() {
            Some(carried) => Round::next(*carried, module, run, stats, memo),
            None => Round::new(module, run, stats, memo),
        };
        let mut outcome = round.run(last);
        // A parked round lets go of the module, so that what it doomed is erased now instead
        // of at the round's end, then goes on where it stopped.
        while let Outcome::Parked(parked) = outcome {
            session.module.sweep();
            fmerge_llvm::memory::release_freed_memory(session.module.embedding());
            let memo = self.memo.as_mut().expect("made when the round started");
            let t = Instant::now();
            let round = Round::resume(*parked, &*session.module, &mut session.run, stats, memo);
            round.stats.add_time("park", t);
            outcome = round.run(last);
        }
        match outcome {
            Outcome::Done(merges, carried) => {
                self.carried = carried;
                merges
            }
            Outcome::Parked(_) => unreachable!("resumed until done"),
        }
    }
}

/// What earlier rounds learnt.
struct Memo {
    /// Pairs (by name) that failed or did not pay: not tried again.
    rejected: HashSet<(String, String)>,
    /// Sizes of original functions already compiled (forgotten when a function changes).
    sizes: SizeCache,
    /// Functions the next round must look for partners for (`None`: all). A function that
    /// stayed live to the end of a round has been offered every partner the round had (later
    /// arrivals queried it themselves), and its rejected pairs are remembered; only functions
    /// taken out during the round (stale, pending, merged) have partners left to try.
    retry: Option<HashSet<String>>,
    /// The size guard's second chance: each round lowers and searches only the functions
    /// that could share a body with those it looks for partners for (`retry`; see
    /// [`in_scope`]), instead of the whole module again (on Ninja's test binary, the second
    /// chance for six functions lowered and indexed 3,100).
    scoped: bool,
    /// Code generation left for settling close calls.
    measure_budget: proposal::MeasureBudget,
}

/// A batch of close calls being compiled: the proposals as they were launched.
struct InFlight<'m> {
    pending: Vec<Pending<'m>>,
    proposals: Vec<Proposal<'m>>,
    launched: proposal::Launched<'m>,
}

/// A proposal waiting for code generation to settle it.
struct Pending<'m> {
    proposal: Proposal<'m>,
    ratio: f64,
    names: (String, String),
    price: WorkPrice,
}

/// What a merge adds at run time by the profile (see `crate::profiling::pricing`).
#[derive(Clone, Copy, Debug, Default)]
struct WorkPrice {
    /// Executed instructions it adds.
    added: u64,
    /// Whether a member ran (its merged body then has unknown counts).
    ran: bool,
}

/// Instructions of bodies waiting for the module's sweep (candidate bodies that lost, members'
/// old bodies) from which a round parks to let the sweep erase them: on tokei they were
/// 147,000 instructions by the round's end, about 30 MB.
const PARK_AFTER: usize = 20_000;

/// [`PARK_AFTER`], or `FMERGE_PARK_AFTER` (tests: 1 parks after every batch that doomed a
/// body, so that small modules exercise parking).
fn park_after() -> usize {
    let knob = std::env::var("FMERGE_PARK_AFTER").ok().and_then(|v| v.parse().ok());
    knob.unwrap_or(PARK_AFTER)
}

/// How a round ended.
enum Outcome {
    /// Done: the merges it committed, and its lowering parked for the next round (unless
    /// it was the last).
    Done(usize, Option<Box<Carried>>),
    /// Parked between two batches of close calls, to be resumed after the module's sweep.
    Parked(Box<ParkedRound>),
}

/// Which search a round is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// LSH's partners.
    Lsh,
    /// The fingerprint ranking's partners too (exhaustive search, see [`Round::run`]).
    Widened,
}

/// A round without its module: its lowering parked ([`fmerge_llvm::lower::Parked`]) and its
/// state.
struct ParkedRound {
    funcs: Vec<FuncData>,
    lowering: fmerge_llvm::lower::Parked,
    state: RoundState,
}

/// What a round that ended leaves the next one: its lowering, parked, and what it computed
/// from it (its search index is dropped: the next round indexes its own functions).
struct Carried {
    funcs: Vec<FuncData>,
    lowering: fmerge_llvm::lower::Parked,
    known: Known,
    /// Functions the round changed (see [`RoundState::stale`]).
    stale: Vec<bool>,
}

/// What was computed from each function's lowering, when first needed: kept while the
/// function does not change, from one round to the next too.
struct Known {
    walks: Vec<Option<Walk>>,
    costs: Vec<Option<Option<Vec<i64>>>>,
    shapes: Vec<Option<profit::CodeShape>>,
}

impl Known {
    /// Nothing known yet of `n` functions.
    fn unknown(n: usize) -> Known {
        Known { walks: (0..n).map(|_| None).collect(), costs: vec![None; n], shapes: vec![None; n] }
    }

    /// One more function, nothing known of it yet.
    fn push_unknown(&mut self) {
        self.walks.push(None);
        self.costs.push(None);
        self.shapes.push(None);
    }

    /// One more function: what `from` knew of its function `k` (taken from it).
    fn push_from(&mut self, from: &mut Known, k: usize) {
        self.walks.push(from.walks[k].take());
        self.costs.push(from.costs[k].take());
        self.shapes.push(from.shapes[k].take());
    }

    /// Forgets what was known of function `k` (lowered again).
    fn forget(&mut self, k: usize) {
        (self.walks[k], self.costs[k], self.shapes[k]) = (None, None, None);
    }
}

/// What a round holds that borrows nothing, kept as it is when the round parks.
struct RoundState {
    known: Known,
    /// Candidate for merging right now (eligible, not merged, not stale, not pending).
    live: Vec<bool>,
    /// Gone or changed for the rest of the round: merged, or its call sites rewritten.
    stale: Vec<bool>,
    search: Search,
    worklist: Worklist,
    merges: usize,
    /// The pairs of `memo.rejected` among this round's functions, by index: the search asks
    /// about every LSH candidate, and names would cost two string copies per question.
    rejected: rustc_hash::FxHashSet<(u32, u32)>,
    phase: Phase,
    looked_at: usize,
}

/// One round: a single lowering of the module, grown as merged bodies appear.
struct Round<'a, 'm, 'c, 's> {
    module: &'m Module<'c>,
    run: &'a mut Run<'s>,
    stats: &'a mut StageStats,
    memo: &'a mut Memo,
    /// The lowering, lean: its `handles` are empty (`fns` holds the functions).
    lowered: LoweredModule<'m>,
    /// Each lowered function, `None` once a sweep erased it (only ever a stale one).
    fns: Vec<Option<Function<'m>>>,
    vis: Visibility<'m>,
    index_of: HashMap<Function<'m>, usize>,
    state: RoundState,
    pending: Vec<Pending<'m>>,
    /// The last batch of close calls, being compiled on other threads while the round goes
    /// on ([`Round::settle`]).
    in_flight: Option<InFlight<'m>>,
    /// Instructions of bodies waiting for the sweep since the last one, and how many park
    /// the round ([`PARK_AFTER`]).
    doomed: usize,
    park_after: usize,
}

impl<'a, 'm, 'c, 's> Round<'a, 'm, 'c, 's> {
    fn new(
        module: &'m Module<'c>,
        run: &'a mut Run<'s>,
        stats: &'a mut StageStats,
        memo: &'a mut Memo,
    ) -> Self {
        let t = Instant::now();
        let fns = in_scope(module, memo);
        let mut lowered = fmerge_llvm::lower::lower_lean(module, fns, Hashes::Local);
        stats.add_time("lower", t);
        let fns: Vec<_> = lowered.handles.drain(..).map(|h| Some(h.function)).collect();
        let known = Known::unknown(fns.len());
        Round::with_lowering(module, run, stats, memo, lowered, fns, known)
    }

    /// The round after the one `carried` was (its lowering parked when it ended, the module
    /// swept since): functions it changed are lowered again, the others keep their lowering
    /// and what was computed from it. The functions come in module order, as [`Round::new`]
    /// has them.
    fn next(
        carried: Carried,
        module: &'m Module<'c>,
        run: &'a mut Run<'s>,
        stats: &'a mut StageStats,
        memo: &'a mut Memo,
    ) -> Self {
        let t = Instant::now();
        let Carried { funcs, lowering, known: mut old_known, stale } = carried;
        let (mut lowerer, old_fns) = lowering.resume(module);
        let mut old: Vec<Option<FuncData>> = funcs.into_iter().map(Some).collect();
        let at: HashMap<Function<'m>, usize> =
            old_fns.iter().enumerate().filter_map(|(k, f)| Some(((*f)?, k))).collect();
        let fns = in_scope(module, memo);
        let n = fns.len();
        let mut funcs = Vec::with_capacity(n);
        let mut known = Known::unknown(0);
        for &f in &fns {
            let kept = at.get(&f).copied().filter(|&k| {
                // A changed body or one whose unused instructions the sweep erased.
                !stale[k] && old[k].as_ref().is_some_and(|d| d.num_insts() == f.instruction_count())
            });
            match kept {
                Some(k) => {
                    funcs.push(old[k].take().expect("each function once"));
                    known.push_from(&mut old_known, k);
                }
                None => {
                    funcs.push(lowerer.lower(f).0);
                    known.push_unknown();
                }
            }
        }
        drop((old, old_known));
        stats.add_time("lower", t);
        let lowered = LoweredModule { funcs, handles: Vec::new(), lowerer };
        let fns = fns.into_iter().map(Some).collect();
        Round::with_lowering(module, run, stats, memo, lowered, fns, known)
    }

    /// A round on `lowered` (lean: `fns` holds its functions, alive), with what is `known`
    /// of each: indexes every eligible function and puts those the memo says to retry (all,
    /// if it says nothing) on the worklist.
    fn with_lowering(
        module: &'m Module<'c>,
        run: &'a mut Run<'s>,
        stats: &'a mut StageStats,
        memo: &'a mut Memo,
        lowered: LoweredModule<'m>,
        fns: Vec<Option<Function<'m>>>,
        known: Known,
    ) -> Self {
        let opts = run.opts;
        let t = Instant::now();
        let n = lowered.funcs.len();
        let state = RoundState {
            known,
            live: vec![false; n],
            stale: vec![false; n],
            search: Search::new(opts.search, 0),
            worklist: Worklist::new(std::iter::empty()),
            merges: 0,
            rejected: Default::default(),
            phase: Phase::Lsh,
            looked_at: 0,
        };
        let mut round = Round::assemble(module, run, stats, memo, lowered, fns, state);
        let by_name: HashMap<&str, usize> =
            round.lowered.funcs.iter().enumerate().map(|(k, f)| (f.name.as_str(), k)).collect();
        let known = round.memo.rejected.iter().filter_map(|(x, y)| {
            Some(index_pair(*by_name.get(x.as_str())?, *by_name.get(y.as_str())?))
        });
        let rejected = known.collect();
        round.state.rejected = rejected;
        let eligible: Vec<usize> = (0..n).filter(|&k| round.eligible(k)).collect();
        round.state.search = Search::new(opts.search, eligible.len());
        round.state.search.insert_many(round.lowered.tables(), &round.lowered.funcs, &eligible);
        // The signatures' shingles were made and dropped on every core, each in its own
        // allocator arena: hand that back before the round builds bodies and compiles them.
        fmerge_llvm::memory::release_freed_memory(module.embedding());
        let retry = round.memo.retry.take();
        round.state.worklist = Worklist::new(
            eligible
                .iter()
                .filter(|&&k| {
                    retry.as_ref().is_none_or(|r| r.contains(&round.lowered.funcs[k].name))
                })
                .map(|&k| (FuncKey(k as u32), round.lowered.funcs[k].num_insts() as u64)),
        );
        for k in eligible {
            round.state.live[k] = true;
        }
        round.stats.add_time("index", t);
        round
    }

    /// The round `parked` was, borrowing `module` (the module it was parked from, swept since).
    fn resume(
        parked: ParkedRound,
        module: &'m Module<'c>,
        run: &'a mut Run<'s>,
        stats: &'a mut StageStats,
        memo: &'a mut Memo,
    ) -> Self {
        let (lowerer, fns) = parked.lowering.resume(module);
        for (k, f) in fns.iter().enumerate() {
            assert!(
                f.is_some() || parked.state.stale[k],
                "a sweep erased a function still in the search"
            );
        }
        let lowered = LoweredModule { funcs: parked.funcs, handles: Vec::new(), lowerer };
        let mut round = Round::assemble(module, run, stats, memo, lowered, fns, parked.state);
        // A merged body is lowered when it is committed, with the instructions its building
        // left unused (queued for the sweep): the sweep erased them, so such a body is lowered
        // again, and indexed again if it is in the search.
        for k in 0..round.fns.len() {
            let Some(f) = round.fns[k].filter(|_| !round.state.stale[k]) else { continue };
            if f.instruction_count() == round.lowered.funcs[k].num_insts() {
                continue;
            }
            round.lowered.funcs[k] = round.lowered.lowerer.lower(f).0;
            round.state.known.forget(k);
            if round.state.live[k] {
                round.state.search.remove(FuncKey(k as u32));
                round.state.search.insert_many(round.lowered.tables(), &round.lowered.funcs, &[k]);
            }
        }
        round
    }

    /// A round on `lowered` (lean: `fns` holds its functions, `None` where a sweep erased one)
    /// in `state`, nothing pending.
    fn assemble(
        module: &'m Module<'c>,
        run: &'a mut Run<'s>,
        stats: &'a mut StageStats,
        memo: &'a mut Memo,
        lowered: LoweredModule<'m>,
        fns: Vec<Option<Function<'m>>>,
        state: RoundState,
    ) -> Self {
        let vis = Visibility::new(module, run.opts.whole_program);
        Round {
            module,
            run,
            stats,
            memo,
            lowered,
            index_of: index_of(&fns),
            fns,
            vis,
            state,
            pending: Vec::new(),
            in_flight: None,
            doomed: 0,
            park_after: park_after(),
        }
    }

    /// Lets go of the module (between batches: nothing is pending).
    fn park(self) -> Outcome {
        Outcome::Parked(self.parked())
    }

    /// The round without its module (nothing may be pending).
    fn parked(self) -> Box<ParkedRound> {
        assert!(
            self.pending.is_empty() && self.in_flight.is_none(),
            "parking with close calls pending"
        );
        let LoweredModule { funcs, lowerer, .. } = self.lowered;
        Box::new(ParkedRound {
            funcs,
            lowering: lowerer.park(self.module, self.fns),
            state: self.state,
        })
    }

    /// Whether enough is waiting for the sweep to park (see [`PARK_AFTER`]).
    fn park_due(&self) -> bool {
        self.doomed >= self.park_after
            && self.pending.is_empty()
            && self.in_flight.is_none()
            && !self.state.worklist.is_empty()
    }

    /// Function `k` of the lowering (alive: only stale functions can be gone).
    fn func(&self, k: usize) -> Function<'m> {
        self.fns[k].expect("a function a round looks at is in the module")
    }

    /// Whether function `k` may take part, reporting why not (once per function).
    fn eligible(&mut self, k: usize) -> bool {
        let f = &self.lowered.funcs[k];
        let func = self.func(k);
        let reason = if f.traits & BLOCKING != 0 {
            Some(traits::describe(f.traits & BLOCKING))
        } else if !self.vis.may_share_privately(func) {
            Some(crate::constants::PER_MODULE_COPIES.to_string())
        } else if let Some(why) = self.run.ledger.exclusion(&f.name) {
            Some(why)
        } else {
            can_thunk(func).err().map(str::to_string)
        };
        if let Some(r) = reason {
            self.run.skip_once(STAGE, &f.name, r);
            return false;
        }
        let (thunk, forwarder) = (profit::thunk_units(f.arg_types.len() + 1), f.is_forwarder());
        // The instructions' costs rather than only their sum: pricing the function's pairs
        // reads them later in the round.
        !forwarder && self.inst_costs(k).is_some_and(|c| c.iter().sum::<i64>() > thunk)
    }

    fn walk(&mut self, k: usize) -> &Walk {
        if self.state.known.walks[k].is_none() {
            self.state.known.walks[k] = Some(Walk::new(&self.lowered.funcs[k]));
        }
        self.state.known.walks[k].as_ref().expect("just computed")
    }

    /// TTI costs of `k`'s instructions, computed once per round (prediction reads them, pricing
    /// sums them): a live function does not change during a round (a merge retires every
    /// function whose body it touches).
    fn inst_costs(&mut self, k: usize) -> Option<&Vec<i64>> {
        if self.state.known.costs[k].is_none() {
            let f = self.func(k);
            self.state.known.costs[k] = Some(cost::instruction_costs(self.run.target, f));
        }
        self.state.known.costs[k].as_ref().expect("just computed").as_ref()
    }

    /// `k`'s code shape, computed once per round (see [`Round::inst_costs`]).
    fn shape(&mut self, k: usize) -> profit::CodeShape {
        let f = self.func(k);
        *self.state.known.shapes[k].get_or_insert_with(|| code_shape(f))
    }

    /// Takes `k` out of the search (merged, pending or stale).
    fn retire(&mut self, k: usize) {
        if self.state.live[k] {
            self.state.live[k] = false;
            self.state.search.remove(FuncKey(k as u32));
        }
    }

    /// Runs the round: LSH's partners for every function on the worklist. In exhaustive
    /// search, when this is the `last` round or LSH found nothing (no later round then), every
    /// function still live is offered the fingerprint ranking's partners too, after
    /// everything LSH found: the exhaustive search makes every merge the default makes, then
    /// more.
    fn run(mut self, last: bool) -> Outcome {
        let margins = proposal::Margins::for_mode(self.run.opts.profit, self.run.opts.close_margin);
        if self.state.phase == Phase::Lsh {
            if self.search_all(margins) {
                return self.park();
            }
            if !((last || self.state.merges == 0) && self.state.search.widen()) {
                return self.finish(last);
            }
            let live = (0..self.state.live.len()).filter(|&k| self.state.live[k]);
            let sizes = live.map(|k| (FuncKey(k as u32), self.lowered.funcs[k].num_insts() as u64));
            self.state.worklist = Worklist::new(sizes.collect::<Vec<_>>());
            self.state.phase = Phase::Widened;
        }
        if self.search_all(margins) {
            return self.park();
        }
        self.finish(last)
    }

    /// Ends the round: the functions it took out are the next round's to look at again.
    /// Unless it is the `last`, its lowering is parked for the next one.
    fn finish(self, last: bool) -> Outcome {
        let retired = (0..self.state.live.len()).filter(|&k| !self.state.live[k]);
        self.memo.retry = Some(retired.map(|k| self.lowered.funcs[k].name.clone()).collect());
        if last {
            return Outcome::Done(self.state.merges, None);
        }
        assert!(
            self.pending.is_empty() && self.in_flight.is_none(),
            "a round ends with nothing pending"
        );
        let RoundState { known, stale, merges, .. } = self.state;
        let LoweredModule { funcs, lowerer, .. } = self.lowered;
        let carried =
            Carried { funcs, lowering: lowerer.park(self.module, self.fns), known, stale };
        Outcome::Done(merges, Some(Box::new(carried)))
    }

    /// Looks for partners until the worklist is empty (settling may give functions back: a
    /// close call that lost sends its functions to look again). True if the round is to
    /// park first ([`Round::park_due`]).
    fn search_all(&mut self, margins: proposal::Margins) -> bool {
        loop {
            while !self.state.worklist.is_empty() {
                if self.search_worklist(margins) {
                    return true;
                }
                self.settle();
                if self.park_now() {
                    return true;
                }
            }
            // Nothing left to look at but the batch being compiled (its losers look again).
            if self.in_flight.is_none() {
                return false;
            }
            self.land();
            if self.park_now() {
                return true;
            }
        }
    }

    /// Whether the round is to park now ([`Round::park_due`]); if enough waits for the sweep,
    /// the batch being compiled is landed first.
    fn park_now(&mut self) -> bool {
        if self.doomed >= self.park_after && !self.state.worklist.is_empty() {
            self.land();
        }
        self.park_due()
    }

    /// Looks for partners for every function on the worklist, settling close calls in batches.
    fn search_worklist(&mut self, margins: proposal::Margins) -> bool {
        while let Some(FuncKey(a)) = self.state.worklist.pop() {
            let a = a as usize;
            self.state.looked_at += 1;
            let looked_at = self.state.looked_at;
            if looked_at.is_multiple_of(64) {
                let merges = self.run.report.merges.len();
                self.run
                    .progress
                    .detail(&format!("{looked_at} functions looked at, {merges} merges so far"));
            }
            if !self.state.live[a] {
                continue;
            }
            let (live, rejected) = (&self.state.live, &self.state.rejected);
            let tried = |k: usize| rejected.contains(&index_pair(a, k));
            let t = Instant::now();
            // Partners already rejected do not take the places of untried ones.
            let partners = self.state.search.candidates(FuncKey(a as u32), EXPLORE, &|k| {
                live[k.0 as usize] && !tried(k.0 as usize)
            });
            self.stats.add_time("search", t);
            for (b, aligned) in self.rank_partners(a, partners) {
                if self.try_pair(a, b, aligned, margins) {
                    break;
                }
            }
            if self.pending.len() >= BATCH {
                self.settle();
                if self.park_now() {
                    return true;
                }
            }
        }
        false
    }

    /// Gives the members of a close call that did not go through back to the search, at the
    /// front of the worklist, so that their next partners are tried in this round (a rejected
    /// pair is remembered and not offered again).
    fn revive(&mut self, p: &Proposal<'m>) {
        for m in &p.members {
            let Some(&k) = self.index_of.get(m) else { continue };
            if self.state.live[k] || self.state.stale[k] {
                continue;
            }
            self.state.live[k] = true;
            self.state.search.insert_many(self.lowered.tables(), &self.lowered.funcs, &[k]);
            self.state.worklist.push_front(FuncKey(k as u32));
        }
    }

    /// `a`'s partners (the search's, most similar first) in the order they are tried, each
    /// with its alignment and prediction (`None`: the pair cannot be tried): most TTI units
    /// predicted saved first ([`fmerge_core::rank::by_predicted_saving`]). On lz4's three
    /// `LZ4_decompress_fast*` decompressors the most similar pair saved 159 bytes, the pair
    /// predicted to save more 233, and the third joined neither.
    fn rank_partners(
        &mut self,
        a: usize,
        partners: Vec<Candidate>,
    ) -> Vec<(usize, Option<Aligned>)> {
        let predicted: Vec<_> = partners
            .into_iter()
            .map(|c| {
                let b = c.key.0 as usize;
                let aligned = self.align_pair(a, b).map(|align| {
                    let units = self.predicted_units(a, b, &align);
                    Aligned { align, units }
                });
                let saving =
                    aligned.as_ref().and_then(|x| x.units).map(|(before, after)| before - after);
                ((b, aligned), saving)
            })
            .collect();
        fmerge_core::rank::by_predicted_saving(predicted)
    }

    /// The alignment of `a` and `b`, if the pair may be tried (not rejected before, and the two
    /// may share a body).
    fn align_pair(&mut self, a: usize, b: usize) -> Option<FunctionAlignment> {
        let key = pair_key_of(&self.lowered.funcs[a].name, &self.lowered.funcs[b].name);
        if self.memo.rejected.contains(&key) {
            return None;
        }
        let (ha, hb) = (self.func(a), self.func(b));
        let across_inlining = self.run.opts.pair_across_inlining;
        if !may_share_body(&self.lowered.funcs[a], ha, &self.lowered.funcs[b], hb, across_inlining)
        {
            return None;
        }
        // At most the smaller function's instructions can be matched: a pair whose sizes cap
        // the alignment's ratio below MIN_ALIGNMENT is rejected without aligning it, as the
        // alignment would have it.
        let counts = [a, b].map(|k| fmerge_core::align::aligned_count(&self.lowered.funcs[k]));
        let best = (2 * counts[0].min(counts[1])) as f64 / (counts[0] + counts[1]) as f64;
        if best < MIN_ALIGNMENT {
            self.remember_rejected(key);
            return None;
        }
        let t = Instant::now();
        let align = align_blocks(
            self.lowered.tables(),
            &self.lowered.funcs[a],
            &self.lowered.funcs[b],
            &AlignConfig::default(),
        );
        self.stats.add_time("align", t);
        Some(align)
    }

    /// Tries to merge `a` with `b` (aligned and predicted by [`Round::rank_partners`]); true if
    /// a merge was committed or is pending.
    fn try_pair(
        &mut self,
        a: usize,
        b: usize,
        aligned: Option<Aligned>,
        margins: proposal::Margins,
    ) -> bool {
        let Some(Aligned { align, units }) = aligned else { return false };
        let names = (self.lowered.funcs[a].name.clone(), self.lowered.funcs[b].name.clone());
        let key = pair_key(&names);
        let (ha, hb) = (self.func(a), self.func(b));
        if align.stats.ratio() < MIN_ALIGNMENT || !units.is_some_and(predicted_to_pay) {
            self.remember_rejected(key);
            return false;
        }
        // The work the body adds is known from the alignment alone. Without a profile, a
        // likely-hot member refuses it whatever the call sites add (the refusal only grows with
        // the work), so such a pair is dropped before its body is built: building and pricing
        // it cost time and, until the round's sweep, memory (on zstd, most of the bodies
        // built).
        let (ca, cb) = (self.run.ledger.counts(&names.0), self.run.ledger.counts(&names.1));
        let body_work = work::similar_body_work(
            &self.lowered.funcs[a],
            &self.lowered.funcs[b],
            &align,
            ca.blocks(),
            cb.blocks(),
        );
        if let Some(why) =
            self.run.ledger.hot_refusal(body_work, &[names.0.clone(), names.1.clone()])
        {
            self.run.ledger.over_budget += 1;
            self.left_out(why, names);
            return false;
        }
        // Known from the alignment: building the body would fail at the invokes (on Ninja's
        // test binary, 506 of 570 bodies abandoned, 0.8 s and 100 MB of them).
        if fmerge_core::align::unwinds_apart(&self.lowered.funcs[a], &self.lowered.funcs[b], &align)
        {
            self.abandoned(names, "invokes unwinding to different landing pads".into(), 0);
            self.remember_rejected(key);
            return false;
        }
        self.walk(a);
        self.walk(b);
        let (fa, fb) = (&self.lowered.funcs[a], &self.lowered.funcs[b]);
        // The lowering is lean: a live function has not changed since it was lowered, so its
        // handles, made now, are numbered as its lowering.
        let (handles_a, handles_b) = (FuncHandles::of(ha), FuncHandles::of(hb));
        assert_eq!(handles_a.insts.len(), fa.num_insts(), "{} changed since lowering", fa.name);
        assert_eq!(handles_b.insts.len(), fb.num_insts(), "{} changed since lowering", fb.name);
        let side_a = Side {
            data: fa,
            handles: &handles_a,
            walk: self.state.known.walks[a].as_ref().expect("walked"),
        };
        let side_b = Side {
            data: fb,
            handles: &handles_b,
            walk: self.state.known.walks[b].as_ref().expect("walked"),
        };
        let map = ParamMap::new(fa, fb, &align);
        let t = Instant::now();
        let built = build_body(self.module, [&side_a, &side_b], &align, &map);
        self.stats.add_time(if built.is_ok() { "codegen" } else { "codegen (abandoned)" }, t);
        let body = match built {
            Ok(body) => body,
            Err((why, doomed)) => {
                self.abandoned(names, why, doomed);
                self.remember_rejected(key);
                return false;
            }
        };
        let poison: Vec<Value<'m>> = body.params().iter().map(|p| p.ty().poison()).collect();
        let i1 = self.module.int_type(1);
        let args = vec![
            map.thunk_args(0, &poison, i1.const_int(0)),
            map.thunk_args(1, &poison, i1.const_int(1)),
        ];
        let before = [a, b].map(|k| self.inst_costs(k).map(|c| c.iter().sum::<i64>()));
        let t = Instant::now();
        let planned = Proposal::plan_with_member_units(
            self.run.target,
            &self.vis,
            vec![ha, hb],
            before.into_iter().sum::<Option<i64>>(),
            body,
            args,
            profit::BYTES_PER_UNIT_MERGED,
        );
        self.stats.add_time("price", t);
        let Some(mut p) = planned else {
            self.doom(body);
            self.remember_rejected(key);
            return false;
        };
        p.shapes = Some((self.shape(a) + self.shape(b), code_shape(body)));
        let ratio = align.stats.ratio();
        let added = body_work.saturating_add(p.call_work(&[ca.entry(), cb.entry()]));
        let price = WorkPrice { added, ran: ca.ran() || cb.ran() };
        match margins.judge(p.before_units, p.estimated_saving()) {
            Verdict::Reject => {
                self.reject(p, None, names);
                false
            }
            // Not affordable even if it saved what it plausibly can: dropped before any code is
            // generated to measure it (`Proposal::plausible_saving`).
            _ if let Some(why) =
                self.run.ledger.refusal(added, p.plausible_saving(margins)).or_else(|| {
                    self.run.ledger.hot_refusal(added, &[names.0.clone(), names.1.clone()])
                }) =>
            {
                self.run.ledger.over_budget += 1;
                self.over_budget(p, why, names);
                false
            }
            Verdict::Keep if added == 0 => {
                self.commit(p, ratio, None, Basis::Estimate, price);
                true
            }
            // Merges that add work wait for their batch, where the slowdown budget goes to those
            // that save the most bytes per unit of work first.
            _ => {
                self.retire(a);
                self.retire(b);
                self.pending.push(Pending { proposal: p, ratio, names, price });
                true
            }
        }
    }

    /// Queues a candidate body that will not be used for the sweep, counting what it holds.
    fn doom(&mut self, body: Function<'m>) {
        self.doomed += body.instruction_count();
        self.module.defer_erase(body);
    }

    /// Records a merge of `names` given up because its body cannot be built; `doomed`
    /// instructions of it were built, and wait for the sweep like any body that lost.
    fn abandoned(&mut self, names: (String, String), why: String, doomed: usize) {
        self.doomed += doomed;
        self.stats.rolled_back += 1;
        self.run.report.skipped.push(Skipped {
            stage: STAGE,
            function: format!("{} + {}", names.0, names.1),
            reason: format!("merge abandoned: {why}"),
        });
    }

    /// Remembers a pair (by name) that failed or did not pay, so it is not tried again.
    fn remember_rejected(&mut self, key: (String, String)) {
        let index = |name: &str| self.module.function(name).and_then(|f| self.index_of.get(&f));
        if let (Some(&a), Some(&b)) = (index(&key.0), index(&key.1)) {
            self.state.rejected.insert(index_pair(a, b));
        }
        self.memo.rejected.insert(key);
    }

    /// TTI units of `a` and `b`, and those the alignment predicts for their merged body and
    /// two thunks (`None`: TTI cannot price one of them).
    fn predicted_units(
        &mut self,
        a: usize,
        b: usize,
        align: &FunctionAlignment,
    ) -> Option<(i64, i64)> {
        let ca = self.inst_costs(a).cloned()?;
        let cb = self.inst_costs(b).cloned()?;
        let (fa, fb) = (&self.lowered.funcs[a], &self.lowered.funcs[b]);
        let before: i64 = ca.iter().sum::<i64>() + cb.iter().sum::<i64>();
        let thunks = profit::thunk_units(fa.arg_types.len() + 1)
            + profit::thunk_units(fb.arg_types.len() + 1);
        let after = profit::predict_merged_units(fa, fb, align, &ca, &cb) + thunks;
        Some((before, after))
    }

    fn reject(&mut self, p: Proposal<'m>, measured: Option<i64>, names: (String, String)) {
        self.stats.rejected_unprofitable += 1;
        self.run.report.rejected.push(Rejected {
            stage: STAGE,
            members: vec![names.0.clone(), names.1.clone()],
            estimated_saving: p.estimated_saving(),
            measured_saving: measured,
        });
        self.doom(p.body);
        self.remember_rejected(pair_key(&names));
    }

    /// A merge whose added work does not fit in what is left of the slowdown budget.
    fn over_budget(&mut self, p: Proposal<'m>, why: String, names: (String, String)) {
        self.doom(p.body);
        self.left_out(why, names);
    }

    /// Reports a pair left out for the run time it would add, and does not try it again.
    fn left_out(&mut self, why: String, names: (String, String)) {
        self.run.report.skipped.push(Skipped {
            stage: STAGE,
            function: format!("{} + {}", names.0, names.1),
            reason: why,
        });
        self.remember_rejected(pair_key(&names));
    }

    /// Makes a merge real, and feeds its body back into the search (unless the run's gate
    /// holds it back: then the body is erased and the pair not tried again). The caller has
    /// taken its added work from the budget (`Ledger::spend`), which is given back if the
    /// gate holds it back.
    fn commit(
        &mut self,
        p: Proposal<'m>,
        ratio: f64,
        measured: Option<i64>,
        basis: Basis,
        price: WorkPrice,
    ) {
        let originals: Vec<String> = p.members.iter().map(|m| m.name()).collect();
        if !self.run.admit(&originals) {
            self.run.ledger.budget.spent -= price.added;
            self.doom(p.body);
            self.remember_rejected(pair_key_of(&originals[0], &originals[1]));
            return;
        }
        let (counts, work) = if price.ran {
            self.run.ledger.similar_body_counts(p.body, &originals)
        } else {
            (crate::profiling::pricing::BlockCounts::Cold, None)
        };
        self.run.ledger.set_body(p.body.name(), counts, work);
        // Call sites about to be rewritten belong to functions whose lowering goes stale.
        let mut stale = Vec::new();
        for (&m, &rewrite) in p.members.iter().zip(&p.rewrite) {
            if rewrite {
                for (user, _) in m.users() {
                    if let Some(k) = user
                        .as_instruction()
                        .and_then(|u| u.parent_block())
                        .and_then(|b| self.index_of.get(&b.parent()))
                    {
                        stale.push(*k);
                    }
                }
            }
        }
        for &m in &p.members {
            if let Some(&k) = self.index_of.get(&m) {
                stale.push(k);
            }
        }
        let t = Instant::now();
        // The members' bodies (those that become thunks) wait for the sweep.
        self.doomed += p.members.iter().map(|m| m.instruction_count()).sum::<usize>();
        let members = p.commit(self.module, &self.vis);
        for k in stale {
            self.memo.sizes.forget(&self.lowered.funcs[k].name);
            self.state.stale[k] = true;
            self.retire(k);
        }
        self.state.merges += 1;
        self.stats.merges += 1;
        self.stats.functions_removed_or_thunked += members.len();
        let seq = self.run.report.next_seq();
        let params = p.body.params().len();
        self.run.report.merges.push(MergeRecord {
            alignment: Some(ratio),
            estimated_saving: p.estimated_saving(),
            measured_saving: measured,
            decided_on: Some(basis),
            added_work: self.run.profile.is_some().then_some(price.added),
            work_fraction: self.run.ledger.fraction(price.added),
            member_work: None,
            ..MergeRecord::new(seq, STAGE, originals, p.body.name(), members, params)
        });
        // The merged body may merge again.
        let (data, _) = self.lowered.lowerer.lower(p.body);
        self.stats.add_time("commit", t);
        let k = self.lowered.funcs.len();
        self.index_of.insert(p.body, k);
        self.lowered.funcs.push(data);
        self.fns.push(Some(p.body));
        self.state.known.push_unknown();
        self.state.live.push(false);
        self.state.stale.push(false);
        if self.eligible(k) {
            self.state.search.insert_many(self.lowered.tables(), &self.lowered.funcs, &[k]);
            self.state.live[k] = true;
            self.state.worklist.push_front(FuncKey(k as u32));
        }
    }

    /// Lands the batch being compiled (commits its winners), then starts compiling the close
    /// calls pending since. The search goes on while they compile: their functions stay out
    /// of it until they land. Where a batch lands depends only on the search (the next batch
    /// filling up, or nothing left to look at), never on when its compiles finish.
    fn settle(&mut self) {
        self.land();
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        // Compiling the batch allocates on other threads: what was freed since the last batch
        // goes back first, so that it does not stay resident under the compiles (fd: 11 MB
        // less at the peak).
        fmerge_llvm::memory::release_freed_memory(self.module.embedding());
        let proposals: Vec<Proposal<'m>> = pending.iter().map(|p| p.proposal.clone()).collect();
        let margins = proposal::Margins::for_mode(self.run.opts.profit, self.run.opts.close_margin);
        let t = Instant::now();
        let launched = proposal::launch(
            self.module,
            self.run.target,
            &proposals,
            margins,
            &self.memo.sizes,
            &mut self.memo.measure_budget,
            self.run.opts.jobs,
            self.stats,
        );
        self.stats.add_time("measure", t);
        self.in_flight = Some(InFlight { pending, proposals, launched });
    }

    /// Waits for the batch being compiled, if any, and commits its winners.
    fn land(&mut self) {
        let Some(InFlight { pending, proposals, launched }) = self.in_flight.take() else {
            return;
        };
        let t = Instant::now();
        let verdicts = launched.land(self.module, &proposals, &mut self.memo.sizes, self.stats);
        self.stats.add_time("measure", t);
        record_prices(&pending, &verdicts, &self.memo.sizes);
        // The winners spend the slowdown budget, most bytes per unit of added work first
        // (without a profile all are free and keep their order).
        let mut kept = Vec::new();
        for (p, v) in pending.into_iter().zip(verdicts) {
            if v.keep {
                kept.push((p, v));
            } else {
                self.revive(&p.proposal);
                self.reject(p.proposal, v.measured_saving, p.names);
            }
        }
        let priced: Vec<(i64, u64)> = kept
            .iter()
            .map(|(p, v)| {
                (v.measured_saving.unwrap_or(p.proposal.estimated_saving()), p.price.added)
            })
            .collect();
        let mut kept: Vec<Option<_>> = kept.into_iter().map(Some).collect();
        for k in work::cheapest_first(&priced) {
            let (p, v) = kept[k].take().expect("each once");
            match self.run.ledger.spend(p.price.added, priced[k].0) {
                Ok(()) => self.commit(p.proposal, p.ratio, v.measured_saving, v.basis, p.price),
                Err(why) => {
                    self.revive(&p.proposal);
                    self.over_budget(p.proposal, why, p.names)
                }
            }
        }
    }
}

/// The partner search of a round: F3M's LSH over MinHash signatures; in exhaustive mode,
/// also every pair ranked by opcode/type fingerprints (seed 000), whose partners are offered
/// after LSH's once the round has widened (see [`Round::run`]).
struct Search {
    lsh: LshIndex,
    hasher: MinHasher,
    ranking: Option<ExhaustiveRanking>,
    /// Whether the ranking's partners are offered (after LSH's).
    widened: bool,
}

impl Search {
    /// A search sized for `n` functions (LSH adapts its bands and threshold to `n`).
    fn new(mode: SearchMode, n: usize) -> Search {
        Search {
            lsh: LshIndex::new(LshConfig::default().adapted_to(n)),
            hasher: MinHasher::new(MinHashConfig::default()),
            ranking: (mode == SearchMode::Exhaustive).then(ExhaustiveRanking::new),
            widened: false,
        }
    }

    /// From now on, offers the ranking's partners after LSH's; false if there is no ranking
    /// (LSH search).
    fn widen(&mut self) -> bool {
        self.widened = self.ranking.is_some();
        self.widened
    }

    fn insert_many(&mut self, t: &ModuleTables, funcs: &[FuncData], keys: &[usize]) {
        // Signatures are pure functions of the lowering: computed on every core, in order.
        let hasher = &self.hasher;
        self.lsh.insert_many(
            keys.par_iter()
                .map(|&k| (FuncKey(k as u32), hasher.signature_of_function(t, &funcs[k])))
                .collect(),
        );
        if let Some(rank) = &mut self.ranking {
            for &k in keys {
                rank.insert(FuncKey(k as u32), OpcodeTypeFingerprint::new(t, &funcs[k]));
            }
        }
    }

    fn remove(&mut self, key: FuncKey) {
        self.lsh.remove(key);
        if let Some(rank) = &mut self.ranking {
            rank.remove(key);
        }
    }

    /// Up to `limit` partners from LSH, then (exhaustive mode) up to `limit` more from the
    /// ranking.
    fn candidates(
        &self,
        key: FuncKey,
        limit: usize,
        accept: &dyn Fn(FuncKey) -> bool,
    ) -> Vec<Candidate> {
        let mut out = self.lsh.candidates(key, limit, accept);
        if let Some(rank) = self.ranking.as_ref().filter(|_| self.widened) {
            let seen: HashSet<FuncKey> = out.iter().map(|c| c.key).collect();
            out.extend(rank.candidates(key, limit, &|k| !seen.contains(&k) && accept(k)));
        }
        out
    }
}

/// Each function's index in a round's lowering.
fn index_of<'m>(fns: &[Option<Function<'m>>]) -> HashMap<Function<'m>, usize> {
    fns.iter().enumerate().filter_map(|(k, f)| Some(((*f)?, k))).collect()
}

/// A pair of names in a fixed order, so a rejection holds both ways round.
fn pair_key(names: &(String, String)) -> (String, String) {
    pair_key_of(&names.0, &names.1)
}

/// Two function indices in a fixed order (see [`pair_key`]).
fn index_pair(a: usize, b: usize) -> (u32, u32) {
    (a.min(b) as u32, a.max(b) as u32)
}

/// [`pair_key`] of two names.
fn pair_key_of(a: &str, b: &str) -> (String, String) {
    let (x, y) = if a <= b { (a, b) } else { (b, a) };
    (x.to_string(), y.to_string())
}

/// A pair's alignment and what it predicts: TTI units of the two functions, and of their
/// merged body and two thunks (`None`: TTI cannot price one of them).
struct Aligned {
    align: FunctionAlignment,
    units: Option<(i64, i64)>,
}

/// Whether predicted units `(before, after)` say the merged body saves something (with the
/// margin of TTI's own error: pairs predicted to lose less than that are still built and
/// priced).
fn predicted_to_pay((before, after): (i64, i64)) -> bool {
    after < before + before / 10
}

/// Function-level properties two functions must share for one body to serve both.
fn may_share_body(
    fa: &FuncData,
    a: Function<'_>,
    fb: &FuncData,
    b: Function<'_>,
    across_inlining: bool,
) -> bool {
    if fa.ret_type != fb.ret_type || a.call_conv() != b.call_conv() {
        return false;
    }
    // Inlining attributes aside (`across_inlining`): the merged body is marked noinline
    // whatever its functions say, so a merged body may merge again with a function that is
    // not (a group of three).
    let attrs = |f: Function<'_>| {
        if across_inlining { f.fn_attr_key_but_inlining() } else { f.fn_attr_key() }
    };
    if attrs(a) != attrs(b) || a.gc() != b.gc() || a.section() != b.section() {
        return false;
    }
    match (a.personality(), b.personality()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// What two functions must share for [`may_share_body`] to hold, but the personality (which
/// may be missing on one side) and the inlining attributes (which merging sets on the bodies
/// it makes), as one number: equal for any two functions that may share a body, and for a
/// function and the merged bodies made from it (it hashes type and attribute-list
/// identities, so it means something within one run only).
fn body_key(f: Function<'_>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    f.global_value_type().return_type().hash(&mut h);
    (f.call_conv(), f.fn_attr_key_but_inlining(), f.gc(), f.section()).hash(&mut h);
    h.finish()
}

/// The functions of `module` a round lowers and searches: every one that may merge, or in the
/// size guard's second chance ([`Memo::scoped`]) those with the [`body_key`] of a function
/// the round looks for partners for (no other can share a body with one of them) and a size
/// that lets them align with one of those ([`may_align`]: on Ninja's test binary, six
/// functions of 8-10 instructions were looked for partners for among 211,000 instructions,
/// of which 17,000 were in functions of a size that could align with them).
fn in_scope<'m>(module: &'m Module<'_>, memo: &Memo) -> Vec<Function<'m>> {
    let fns = fmerge_llvm::lower::mergeable_functions(module);
    let Some(retry) = memo.retry.as_ref().filter(|_| memo.scoped) else {
        return fns;
    };
    let retried: Vec<Function<'m>> = retry.iter().filter_map(|n| module.function(n)).collect();
    let keys: HashSet<u64> = retried.iter().map(|&f| body_key(f)).collect();
    let mut sizes: Vec<usize> = retried.iter().map(|f| f.instruction_count()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    fns.into_iter()
        .filter(|&f| keys.contains(&body_key(f)) && fits_some(f.instruction_count(), &sizes))
        .collect()
}

/// Whether functions of `a` and `b` instructions can align well enough to be tried
/// ([`MIN_ALIGNMENT`]): at most the smaller one's instructions are matched, and the ratio
/// counts both functions' (`2·matched / (a + b)`), so a partner more than 1.7 / 0.3 = 5.7
/// times larger or smaller never qualifies.
fn may_align(a: usize, b: usize) -> bool {
    let (small, large) = (a.min(b) as f64, a.max(b) as f64);
    2.0 * small >= MIN_ALIGNMENT * (small + large)
}

/// Whether a function of `n` instructions [`may_align`] with one of `sizes` (sorted).
fn fits_some(n: usize, sizes: &[usize]) -> bool {
    // The sizes that may align with `n` form one interval around it: start at the first size
    // not far below it and look only as far as sizes that still may align.
    let from = sizes.partition_point(|&s| s < n && !may_align(s, n));
    sizes[from..].iter().take_while(|&&s| s <= n || may_align(n, s)).any(|&s| may_align(n, s))
}

/// Creates the merged function and its body; erases it again on failure (why, and how many
/// instructions of it wait for the sweep).
fn build_body<'a, 'm>(
    module: &'m Module<'_>,
    sides: [&'a Side<'a, 'm>; 2],
    align: &fmerge_core::align::FunctionAlignment,
    map: &'a ParamMap,
) -> Result<Function<'m>, (String, usize)> {
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
        return Err((why.into(), 0));
    }
    fold::seal_merged_function(m);
    if m.personality().is_none() {
        m.set_personality(b.personality());
    }
    match codegen::build(module, m, sides, align, map) {
        Ok(()) => Ok(m),
        Err(e) => {
            module.defer_erase(m);
            Err((e, m.instruction_count()))
        }
    }
}

/// The instruction counts of `f` the similar-merge estimate reads.
fn code_shape(f: Function<'_>) -> profit::CodeShape {
    use fmerge_core::ir::opcode;
    let mut shape = profit::CodeShape::default();
    for b in f.blocks() {
        shape.blocks += 1;
        for i in b.instructions() {
            shape.insts += 1;
            match i.opcode() {
                opcode::SELECT => shape.selects += 1,
                opcode::SWITCH => shape.switches += 1,
                _ => {}
            }
        }
    }
    shape
}

/// With `FMERGE_DEBUG_PRICES=FILE`, every settled close call is appended to FILE as a JSON
/// line: what the estimate read, what it said, and what compiling measured. Run with
/// `--profit exact` (every candidate compiled), these lines are the data the estimate is
/// fitted to (`bench/results/2026-11-27-calibration/`).
fn record_prices(pending: &[Pending<'_>], verdicts: &[proposal::Verdict], sizes: &SizeCache) {
    use std::io::Write;
    let Some(path) = std::env::var_os("FMERGE_DEBUG_PRICES") else { return };
    let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) else {
        return;
    };
    for (p, v) in pending.iter().zip(verdicts) {
        let q = &p.proposal;
        let shape = |s: profit::CodeShape| [s.insts, s.blocks, s.selects, s.switches];
        let line = serde_json::json!({
            "names": [p.names.0, p.names.1],
            "ratio": p.ratio,
            "before_units": q.before_units,
            "body_units": q.body_units,
            "glue_units": q.after_units - q.body_units,
            "unmeasured_units": q.unmeasured_units,
            "member_bytes": q.members.iter().map(|&m| sizes.get(m)).collect::<Vec<_>>(),
            "members_shape": q.shapes.map(|s| shape(s.0)),
            "body_shape": q.shapes.map(|s| shape(s.1)),
            "estimated": q.estimated_saving(),
            "measured": v.measured_saving,
        });
        let _ = writeln!(f, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_more_than_5_7_times_apart_never_align_well_enough() {
        // 2·10 / (10 + 56) = 0.303: may pass; 2·10 / (10 + 57) = 0.299: cannot.
        assert!(may_align(10, 56) && may_align(56, 10));
        assert!(!may_align(10, 57) && !may_align(57, 10));
        assert!(may_align(1, 1));
        // The bound is the alignment's: a perfect match of the smaller function's
        // instructions gives exactly 2·small / (small + large).
        for small in 1..60usize {
            for large in small..400 {
                let best = 2.0 * small as f64 / (small + large) as f64;
                assert_eq!(may_align(small, large), best >= MIN_ALIGNMENT, "{small} {large}");
            }
        }
    }

    #[test]
    fn fits_some_is_any_size_that_may_align() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for _ in 0..2000 {
            let mut sizes: Vec<usize> = (0..next(6)).map(|_| next(300) as usize).collect();
            sizes.sort_unstable();
            sizes.dedup();
            let n = next(400) as usize;
            let any = sizes.iter().any(|&s| may_align(n, s));
            assert_eq!(fits_some(n, &sizes), any, "n {n} sizes {sizes:?}");
        }
    }
}
