//! One run of the stages over a module, and the state the stages share while it lasts.
//!
//! A [`Session`] holds the module being merged and a [`Run`]: the target (the size ruler),
//! the options (never changed by a run), the module's profile, the [`Ledger`] of the slowdown
//! budget, the [`Gate`] of merges that may be committed, and the report being built. The
//! stages ([`crate::stage::Stage`]) read and write only this; a re-run of the stages under
//! the size guard starts a new session (a new ledger, an empty report) on a fresh copy of the
//! input. When the stages are done, [`Session::finish`] leaves a [`Ran`]: what the guard
//! judges and the pipeline turns into the final report.
//!
//! The module and the rest are separate fields so that a stage can hold the module shared
//! (handles into it live as long as that borrow) while it records into the run.

use crate::guard::{Footprint, Gate, Merges};
use crate::options::Options;
use crate::profiling::pricing::{Ledger, ModuleProfile};
use crate::report::{MergeRecord, Report, Skipped};
use fmerge_llvm::{Module, Target};
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

/// Where a run tells how far it got: `step` starts a step a person would name ("merging
/// similar functions", "measuring the merged functions"); `detail` says how far the current
/// step is (merges so far), for a progress line only. Any `Fn(&str)` is a `Progress` that
/// hears the steps.
pub trait Progress {
    fn step(&self, what: &str);
    fn detail(&self, _what: &str) {}
}

impl<F: Fn(&str)> Progress for F {
    fn step(&self, what: &str) {
        self(what)
    }
}

/// A module and the run of the stages on it.
pub struct Session<'s, 'c> {
    pub module: &'s mut Module<'c>,
    pub run: Run<'s>,
}

/// What the stages of one run share beside the module.
pub struct Run<'s> {
    pub target: &'s Target,
    pub opts: &'s Options,
    /// The module's profile (`None`: it has none, or `--ignore-profile`).
    pub profile: Option<&'s ModuleProfile>,
    /// The slowdown budget and what merged bodies cost at run time (priced by `profile`).
    pub ledger: Ledger,
    /// Which merges may be committed.
    pub gate: &'s Gate,
    /// What the stages did so far.
    pub report: Report,
    /// The (stage, function) pairs reported as skipped.
    skipped: HashSet<(&'static str, String)>,
    /// Where to tell how far the run got.
    pub progress: &'s dyn Progress,
}

/// What a run of the stages leaves: its report and its ledger.
pub struct Ran {
    pub report: Report,
    pub ledger: Ledger,
}

impl<'s, 'c> Session<'s, 'c> {
    pub fn new(
        module: &'s mut Module<'c>,
        target: &'s Target,
        opts: &'s Options,
        profile: Option<&'s Arc<ModuleProfile>>,
        gate: &'s Gate,
        progress: &'s dyn Progress,
    ) -> Self {
        let fresh = Ran { report: Report::default(), ledger: Ledger::new(profile.cloned()) };
        Session::resume(module, target, opts, profile, gate, fresh, progress)
    }

    /// A session that goes on from where `ran` (a run of the stages on `module`) stopped: its
    /// report and ledger continue, so merges keep their numbers and the budget its spending.
    pub fn resume(
        module: &'s mut Module<'c>,
        target: &'s Target,
        opts: &'s Options,
        profile: Option<&'s Arc<ModuleProfile>>,
        gate: &'s Gate,
        ran: Ran,
        progress: &'s dyn Progress,
    ) -> Self {
        let skipped = ran.report.skipped.iter().map(|s| (s.stage, s.function.clone())).collect();
        Session {
            module,
            run: Run {
                target,
                opts,
                profile: profile.map(|p| &**p),
                ledger: ran.ledger,
                gate,
                report: ran.report,
                skipped,
                progress,
            },
        }
    }

    pub fn finish(self) -> Ran {
        Ran { report: self.run.report, ledger: self.run.ledger }
    }
}

impl Run<'_> {
    /// Whether the next merge, of `originals`, may be committed (see [`Gate`]); counts it as
    /// gated if not. Callers then push a [`MergeRecord`] with `seq: self.report.next_seq()`.
    pub fn admit(&mut self, originals: &[String]) -> bool {
        let ok = self.gate.allows(self.report.next_seq(), originals);
        if !ok {
            self.report.gated += 1;
        }
        ok
    }

    /// Reports that `stage` left `function` alone, and why: once per stage and function (a
    /// stage meets a function again in every round).
    pub fn skip_once(&mut self, stage: &'static str, function: &str, reason: String) {
        if self.skipped.insert((stage, function.to_string())) {
            self.report.skipped.push(Skipped { stage, function: function.to_string(), reason });
        }
    }
}

impl Merges for Ran {
    fn footprints(&self) -> Vec<Footprint<'_>> {
        self.report.merges.iter().map(MergeRecord::footprint).collect()
    }

    fn forget(&mut self, seqs: &BTreeSet<usize>) {
        let report = &mut self.report;
        for m in report.merges.iter().filter(|m| seqs.contains(&m.seq)) {
            if let Some(s) = report.stages.iter_mut().find(|s| s.stage == m.stage) {
                s.merges -= 1;
                s.functions_removed_or_thunked -= m.members.len();
            }
        }
        let before = report.merges.len();
        report.merges.retain(|m| !seqs.contains(&m.seq));
        report.forgotten += before - report.merges.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_undone_keep_their_numbers_from_later_merges() {
        let mut ran = Ran { report: Report::default(), ledger: Ledger::new(None) };
        for _ in 0..3 {
            let seq = ran.report.next_seq();
            let name = format!("f{seq}");
            ran.report.merges.push(MergeRecord::new(seq, "similar", vec![], name, vec![], 0));
        }
        ran.forget(&[2, 3].into_iter().collect());
        assert_eq!(ran.report.merges.len(), 1);
        // The guard judges merges numbered above the last it judged (3): a merge committed
        // after the undo must not get number 2 or 3 again.
        assert_eq!(ran.report.next_seq(), 4);
    }
}
