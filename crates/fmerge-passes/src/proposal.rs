//! A merge waiting for its verdict, shared by every stage that builds a new body: which
//! functions it replaces, how each stays callable, what it costs, and committing it.
//!
//! Each member either becomes a thunk (`tail call body(args...)`) or — when it is local, only
//! ever called directly, and the extra arguments at its call sites cost less than a thunk —
//! disappears, its call sites calling the body with the same arguments.

use crate::fold::{self, Arg, Visibility};
use crate::measure::{SizeCache, Sizes};
use crate::report::{Disposal, Member};
use fmerge_core::profit;
use fmerge_llvm::{Function, Linkage, Module, Target, cost};

#[derive(Clone)]
pub struct Proposal<'m> {
    pub members: Vec<Function<'m>>,
    pub body: Function<'m>,
    /// For each member, the arguments the body needs from it (`Arg::Param(k)`: its own
    /// parameter `k`, or a call site's argument `k` when call sites are rewritten).
    pub args: Vec<Vec<Arg<'m>>>,
    /// For each member, whether its call sites are rewritten (else it becomes a thunk).
    pub rewrite: Vec<bool>,
    /// TTI units of the originals, and of the body plus thunks and extra call-site arguments.
    pub before_units: i64,
    pub after_units: i64,
    /// TTI units of the body alone, and its bytes per unit (see `fmerge_core::profit`).
    pub body_units: i64,
    pub body_factor: f64,
    /// TTI units that no compiled function contains (extra arguments at rewritten call sites).
    pub unmeasured_units: i64,
    /// For a merge of similar functions: the members' shape (added up) and the body's, which
    /// the estimate reads beside TTI units (`fmerge_core::profit::estimated_similar_saving`).
    pub shapes: Option<(profit::CodeShape, profit::CodeShape)>,
}

impl<'m> Proposal<'m> {
    /// Estimated bytes saved (calibrated, see `fmerge_core::profit::estimated_saving` and,
    /// for similar functions, `estimated_similar_saving`).
    pub fn estimated_saving(&self) -> i64 {
        if let Some((members, merged)) = self.shapes {
            return profit::estimated_similar_saving(
                self.before_units,
                self.body_units,
                self.after_units - self.body_units,
                members,
                merged,
            );
        }
        profit::estimated_saving(
            self.before_units,
            self.body_units,
            self.body_factor,
            self.after_units - self.body_units,
        )
    }

    /// Prices a body for `members` and decides, member by member, thunk or rewritten calls.
    /// `None` if TTI cannot price something.
    /// `body_factor` is the body's bytes per TTI unit: a merged body of similar functions
    /// costs more per unit than an ordinary function.
    pub fn plan(
        target: &Target,
        vis: &Visibility<'m>,
        members: Vec<Function<'m>>,
        body: Function<'m>,
        args: Vec<Vec<Arg<'m>>>,
        body_factor: f64,
    ) -> Option<Proposal<'m>> {
        let before = members.iter().map(|&m| cost::function_cost(target, m)).sum::<Option<i64>>();
        Self::plan_with_member_units(target, vis, members, before, body, args, body_factor)
    }

    /// [`Proposal::plan`] for a caller that knows the members' TTI units already (`None`: TTI
    /// cannot price some member).
    pub fn plan_with_member_units(
        target: &Target,
        vis: &Visibility<'m>,
        members: Vec<Function<'m>>,
        before: Option<i64>,
        body: Function<'m>,
        args: Vec<Vec<Arg<'m>>>,
        body_factor: f64,
    ) -> Option<Proposal<'m>> {
        let before = before?;
        let body_units = cost::function_cost(target, body)?;
        let mut after = body_units;
        let mut unmeasured = 0;
        let mut rewrite = Vec::with_capacity(members.len());
        for (&m, a) in members.iter().zip(&args) {
            let thunk = profit::thunk_units(a.len());
            // A rewritten call passes the arguments that are not its own.
            let extra = a.iter().filter(|x| matches!(x, Arg::Value(_))).count();
            let sites = fold::rewritable_call_sites(vis, m, a).map(|n| (n * extra) as i64);
            match sites {
                Some(units) if units < thunk => {
                    rewrite.push(true);
                    after += units;
                    unmeasured += units;
                }
                _ => {
                    rewrite.push(false);
                    after += thunk;
                }
            }
        }
        Some(Proposal {
            members,
            body,
            args,
            rewrite,
            before_units: before,
            after_units: after,
            body_units,
            body_factor,
            unmeasured_units: unmeasured,
            shapes: None,
        })
    }

    /// The most bytes the merge may be expected to save before it is measured: its estimate
    /// if `margins` trust it; for a close call, what the keep margin allows (a close call
    /// whose code turned out better than that was estimated wrong by more than the margin);
    /// never more than the members' whole estimated size. Used to drop merges whose added
    /// run-time work the price per KB could not allow before code is generated to measure
    /// them (the measure budget then goes to merges that may be taken).
    pub fn plausible_saving(&self, margins: Margins) -> i64 {
        let size = self.before_units.max(1) as f64 * profit::BYTES_PER_UNIT_ORIGINAL;
        let estimate = self.estimated_saving();
        match margins.judge(self.before_units, estimate) {
            profit::Verdict::Keep => estimate,
            _ => (estimate as f64).max(margins.keep * size).min(size).round() as i64,
        }
    }

    /// The work the members' calls add at run time
    /// (`fmerge_core::profiling::work::call_work`): each member's call count (`calls`, in
    /// member order) times its thunk's jump and the arguments it passes beyond its own.
    pub fn call_work(&self, calls: &[u64]) -> u64 {
        self.args
            .iter()
            .zip(&self.rewrite)
            .zip(calls)
            .map(|((args, &rewrite), &n)| {
                let extra = args.iter().filter(|x| matches!(x, Arg::Value(_))).count();
                fmerge_core::profiling::work::call_work(n, !rewrite, extra)
            })
            .fold(0u64, u64::saturating_add)
    }

    /// Makes the merge real: thunks and rewritten call sites. Members whose call sites can no
    /// longer be rewritten (an earlier commit changed their users) become thunks instead.
    ///
    /// A member whose call sites were rewritten also becomes a thunk, queued for erasure: a
    /// body built before this commit from one of its callers (another merge still waiting to
    /// be settled) calls it, and would otherwise keep a whole copy of its code alive beside
    /// the merged body (zstd: Huffman decoders merged twice, 5.6 KB). The sweep erases it if
    /// nothing calls it any more.
    pub fn commit(&self, module: &'m Module<'_>, vis: &Visibility<'m>) -> Vec<Member> {
        let mut out = Vec::new();
        for ((&m, args), &rewrite) in self.members.iter().zip(&self.args).zip(&self.rewrite) {
            if rewrite && fold::rewritable_call_sites(vis, m, args).is_some() {
                fold::rewrite_call_sites(module, m, self.body, args);
                fold::make_thunk(module, m, self.body, args);
                module.defer_erase(m);
                out.push(Member {
                    call_args: Some(args.iter().map(fold::Arg::key).collect()),
                    ..Member::new(m.name(), Disposal::CallSitesRewritten)
                });
            } else {
                fold::make_thunk(module, m, self.body, args);
                out.push(Member::new(m.name(), Disposal::Thunk));
            }
        }
        out
    }
}

/// Proposals being compiled on other threads ([`start_measuring`]): what the result is read
/// against once they are done.
pub struct Measurement<'m> {
    /// The originals compiled, and what the size cache is to know each as (taken when the
    /// subsets were made: a function may change while it compiles).
    originals: Vec<(Function<'m>, crate::measure::CacheKey)>,
    /// Each proposal's probe thunks (members that stay callable through a thunk).
    probes: Vec<Vec<Function<'m>>>,
    measuring: Option<fmerge_llvm::target::Measuring>,
    /// The subsets could not be made.
    failed: bool,
}

/// Starts measuring the bytes each of `proposals` saves: the originals (those not in `cache`)
/// and the bodies with probe thunks, in module subsets made on this thread and compiled on
/// others while the caller goes on. The module must keep the proposals' bodies, members and
/// probes until [`Measurement::finish`].
pub fn start_measuring<'m>(
    module: &'m Module<'_>,
    target: &Target,
    proposals: &[&Proposal<'m>],
    cache: &SizeCache,
    jobs: usize,
) -> Measurement<'m> {
    let mut originals = Vec::new();
    let mut new_fns = Vec::new();
    let mut probes: Vec<Vec<Function<'_>>> = Vec::new();
    for p in proposals {
        originals.extend(p.members.iter().copied().filter(|&m| cache.get(m).is_none()));
        new_fns.push(p.body);
        let mut ps = Vec::new();
        for ((&m, args), &rewrite) in p.members.iter().zip(&p.args).zip(&p.rewrite) {
            if rewrite {
                continue;
            }
            let name = format!("{}.fmerge.probe", m.name());
            let probe = module.add_function(&name, m.global_value_type());
            probe.copy_function_attrs_from(m);
            probe.set_linkage(Linkage::Internal);
            fold::write_forwarding_body(module, probe, p.body, args);
            new_fns.push(probe);
            ps.push(probe);
        }
        probes.push(ps);
    }
    let originals: Vec<_> = originals.into_iter().map(|m| (m, SizeCache::key(m))).collect();
    if proposals.is_empty() {
        return Measurement { originals, probes, measuring: None, failed: false };
    }
    // Originals and new functions together, in two halves of about as many instructions: two
    // module copies keep two cores busy, and the split never changes a size.
    let all: Vec<Function<'_>> =
        originals.iter().map(|(m, _)| *m).chain(new_fns.iter().copied()).collect();
    let (h1, h2) = all.split_at(balanced_split(&all));
    let groups: Vec<&[Function<'_>]> = [h1, h2].into_iter().filter(|g| !g.is_empty()).collect();
    let bitcode: Vec<_> = crate::measure::subsets_as_bitcode(module, &groups).collect();
    let failed = bitcode.iter().any(Result::is_err);
    let measuring = fmerge_llvm::target::measure_bitcode_in_background(target, jobs, bitcode);
    Measurement { originals, probes, measuring: Some(measuring), failed }
}

impl<'m> Measurement<'m> {
    /// Waits for the compiles and reads each proposal's saving off them: `None` where
    /// something could not be measured (the caller must then not take the merge). The probes
    /// are queued for erasure.
    pub fn finish(
        self,
        module: &'m Module<'_>,
        proposals: &[&Proposal<'m>],
        cache: &mut SizeCache,
    ) -> Vec<Option<i64>> {
        let mut failed = self.failed;
        let mut after = Vec::new();
        for report in self.measuring.map(|m| m.wait()).unwrap_or_default() {
            match report {
                Ok(report) => {
                    let s = Sizes::from_symbols(report.functions);
                    for (m, key) in &self.originals {
                        if let Some(b) = s.get(&m.name()) {
                            cache.insert_as(key.clone(), b);
                        }
                    }
                    after.push(s);
                }
                Err(_) => failed = true,
            }
        }
        let result = proposals
            .iter()
            .zip(&self.probes)
            .map(|(p, ps)| {
                if failed {
                    return None;
                }
                let b: u64 = p.members.iter().map(|&m| cache.get(m)).sum::<Option<u64>>()?;
                let size_of = |name: &str| after.iter().find_map(|s| s.get(name));
                let mut a = size_of(&p.body.name())?;
                for probe in ps {
                    a += size_of(&probe.name())?;
                }
                Some(b as i64 - a as i64 - profit::units_to_bytes(p.unmeasured_units))
            })
            .collect();
        for probe in self.probes.into_iter().flatten() {
            module.defer_erase(probe);
        }
        result
    }
}

/// Where to split `fns` so that both halves hold about as many instructions (code generation
/// time follows the instruction count).
fn balanced_split(fns: &[Function<'_>]) -> usize {
    let sizes: Vec<usize> = fns.iter().map(|f| f.instruction_count()).collect();
    let total: usize = sizes.iter().sum();
    let mut acc = 0;
    for (k, s) in sizes.iter().enumerate() {
        if 2 * (acc + s) > total {
            // The function that straddles the middle goes where it unbalances least.
            return if 2 * acc + s <= total { k + 1 } else { k.max(1) };
        }
        acc += s;
    }
    fns.len() / 2
}

/// The measure budget: how many instructions a stage may still compile to settle close calls
/// (`Options::measure_budget`). Counted in instructions, never in seconds, so that the output
/// does not depend on the machine or its load.
#[derive(Clone, Copy, Debug)]
pub struct MeasureBudget {
    remaining: u64,
}

/// The smallest measure budget, in instructions, when measuring is on at all.
pub const MIN_MEASURE_BUDGET: u64 = 2500;

impl MeasureBudget {
    /// `fraction` of the instructions `module` holds now; unlimited in Exact mode.
    pub fn for_stage(module: &Module<'_>, opts: &crate::options::Options) -> MeasureBudget {
        if opts.profit == crate::options::ProfitMode::Exact {
            return MeasureBudget { remaining: u64::MAX };
        }
        let insts: usize = module.functions().iter().map(|f| f.instruction_count()).sum();
        let share = (insts as f64 * opts.measure_budget.max(0.0)) as u64;
        // Small modules get a floor (a few hundred milliseconds of code generation at most):
        // there the budget would not cover a single close call of their larger functions.
        let floor = if opts.measure_budget > 0.0 { MIN_MEASURE_BUDGET } else { 0 };
        MeasureBudget { remaining: share.max(floor) }
    }

    /// Takes `cost` instructions if that many are left.
    fn take(&mut self, cost: u64) -> bool {
        let ok = cost <= self.remaining;
        if ok {
            self.remaining -= cost;
        }
        ok
    }
}

/// Instructions compiled to measure `p`: its body, and originals whose size is not cached.
fn measuring_cost(p: &Proposal<'_>, cache: &SizeCache) -> u64 {
    let originals: usize =
        p.members.iter().filter(|&&m| cache.get(m).is_none()).map(|m| m.instruction_count()).sum();
    (p.body.instruction_count() + originals) as u64
}

/// The decision on one proposal.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    pub keep: bool,
    pub measured_saving: Option<i64>,
    /// What decided it.
    pub basis: crate::report::Basis,
}

/// Decides every proposal: clear estimates are trusted (see [`Margins`]); close ones are
/// compiled, all in one batch, while `measure_budget` lasts, and decided on their estimate
/// after.
#[allow(clippy::too_many_arguments)]
pub fn settle(
    module: &Module<'_>,
    target: &Target,
    proposals: &[Proposal<'_>],
    margins: Margins,
    cache: &mut SizeCache,
    measure_budget: &mut MeasureBudget,
    jobs: usize,
    stats: &mut crate::report::StageStats,
) -> Vec<Verdict> {
    let launched = launch(module, target, proposals, margins, cache, measure_budget, jobs, stats);
    launched.land(module, proposals, cache, stats)
}

/// Proposals judged, the close ones being compiled ([`launch`]).
pub struct Launched<'m> {
    judged: Vec<(profit::Verdict, crate::report::Basis)>,
    measurement: Measurement<'m>,
}

/// Judges `proposals` as [`settle`] does, and starts compiling the close ones on other
/// threads: the caller may go on (leaving the proposals' functions alone) until it lands
/// them ([`Launched::land`]).
#[allow(clippy::too_many_arguments)]
pub fn launch<'m>(
    module: &'m Module<'_>,
    target: &Target,
    proposals: &[Proposal<'m>],
    margins: Margins,
    cache: &SizeCache,
    measure_budget: &mut MeasureBudget,
    jobs: usize,
    stats: &mut crate::report::StageStats,
) -> Launched<'m> {
    use crate::report::Basis;
    use profit::Verdict as V;
    let judged: Vec<(V, Basis)> = proposals
        .iter()
        .map(|p| match margins.judge(p.before_units, p.estimated_saving()) {
            V::Measure if !measure_budget.take(measuring_cost(p, cache)) => {
                stats.over_budget += 1;
                (if p.estimated_saving() > 0 { V::Keep } else { V::Reject }, Basis::OverBudget)
            }
            v => (v, Basis::Estimate),
        })
        .collect();
    let close = close_ones(proposals, &judged);
    let measurement = start_measuring(module, target, &close, cache, jobs);
    Launched { judged, measurement }
}

fn close_ones<'a, 'm>(
    proposals: &'a [Proposal<'m>],
    judged: &[(profit::Verdict, crate::report::Basis)],
) -> Vec<&'a Proposal<'m>> {
    let close = proposals.iter().zip(judged).filter(|(_, v)| v.0 == profit::Verdict::Measure);
    close.map(|(p, _)| p).collect()
}

impl<'m> Launched<'m> {
    /// The verdicts on `proposals` (the ones it was launched with), once the close ones are
    /// compiled.
    pub fn land(
        self,
        module: &'m Module<'_>,
        proposals: &[Proposal<'m>],
        cache: &mut SizeCache,
        stats: &mut crate::report::StageStats,
    ) -> Vec<Verdict> {
        use crate::report::Basis;
        use profit::Verdict as V;
        let close = close_ones(proposals, &self.judged);
        let mut measured = self.measurement.finish(module, &close, cache).into_iter();
        proposals
            .iter()
            .zip(self.judged)
            .map(|(p, (v, basis))| match v {
                V::Keep => Verdict { keep: true, measured_saving: None, basis },
                V::Reject => Verdict { keep: false, measured_saving: None, basis },
                V::Measure => {
                    stats.measured_decisions += 1;
                    let saving = measured.next().flatten();
                    let estimate_keeps = p.estimated_saving() > 0;
                    if saving.is_some_and(|s| (s > 0) != estimate_keeps) {
                        stats.estimate_disagreed += 1;
                    }
                    // Unmeasurable: do not take the risk.
                    Verdict {
                        keep: saving.is_some_and(|s| s > 0),
                        measured_saving: saving,
                        basis: Basis::Measured,
                    }
                }
            })
            .collect()
    }
}

/// When an estimate is trusted: a merge is kept on its estimate alone only when the estimated
/// saving exceeds `keep` × the originals' estimated size, and dropped on its estimate alone only
/// when the estimated loss exceeds `reject` × that size; everything between is compiled. The
/// estimate is calibrated (merged bodies 6.1 bytes per TTI unit, originals 4.8, thunks 1.7);
/// on the corpus's 806 measured decisions of similar merging, the hybrid margins (+15% / −20%)
/// leave 431 to compiling and get 36 keeps and 8 rejects wrong, worth 0.8 KB of the 123 KB
/// those decisions could save.
#[derive(Clone, Copy, Debug)]
pub struct Margins {
    pub keep: f64,
    pub reject: f64,
}

impl Margins {
    /// The margins a profit mode implies (`close` is the user's close-call margin).
    pub fn for_mode(mode: crate::options::ProfitMode, close: f64) -> Margins {
        match mode {
            crate::options::ProfitMode::Estimate => Margins { keep: 0.0, reject: 0.0 },
            crate::options::ProfitMode::Exact => {
                Margins { keep: f64::INFINITY, reject: f64::INFINITY }
            }
            crate::options::ProfitMode::Hybrid => Margins { keep: close * 0.75, reject: close },
        }
    }

    /// Judges an estimated saving of `saving` bytes for originals of `before_units`.
    pub fn judge(&self, before_units: i64, saving: i64) -> profit::Verdict {
        let size = before_units.max(1) as f64 * profit::BYTES_PER_UNIT_ORIGINAL;
        let saving = saving as f64;
        if saving > self.keep * size {
            profit::Verdict::Keep
        } else if saving < -self.reject * size || (self.reject == 0.0 && saving <= 0.0) {
            profit::Verdict::Reject
        } else {
            profit::Verdict::Measure
        }
    }
}
