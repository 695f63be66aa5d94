//! The record of what fmerge did, for people (tables) and tools (`--json`).
//!
//! The stages add merges, rejections, skips and their statistics to the report of their run
//! (`crate::session::Run::report`); the pipeline completes it once the size guard is done
//! (the guard's record, sizes, the profile's summary) and hands it to the caller to write.

use crate::fold::CallArg;
use crate::guard::{Footprint, GuardRecord};
use serde::Serialize;

/// How a function that was merged away keeps working for its callers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Disposal {
    /// Every use now refers to the merged body; the function is gone.
    Erased,
    /// Its body is a tail call to the merged body.
    Thunk,
    /// Its direct calls call the merged body; the function itself is unchanged.
    CallsRedirected,
    /// Every call site calls the merged body with the function's constants; it is gone.
    CallSitesRewritten,
}

#[derive(Clone, Debug, Serialize)]
pub struct Member {
    pub name: String,
    pub disposal: Disposal,
    /// For [`Disposal::CallSitesRewritten`]: the arguments every rewritten call passes to the
    /// merged body, which is what lets the size guard turn such a call back into a call of
    /// the member (`crate::undo`).
    #[serde(skip)]
    pub call_args: Option<Vec<CallArg>>,
}

impl Member {
    pub fn new(name: String, disposal: Disposal) -> Self {
        Member { name, disposal, call_args: None }
    }
}

/// What decided a merge (see `proposal::settle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The estimate was clear (beyond the keep or reject margin).
    Estimate,
    /// A close call decided on its estimate because the measuring budget was spent.
    OverBudget,
    /// A close call decided by compiling it.
    Measured,
}

/// One committed merge.
#[derive(Clone, Debug, Serialize)]
pub struct MergeRecord {
    /// Its number in commit order (1, 2, ...: see `guard::Gate`).
    pub seq: usize,
    pub stage: &'static str,
    /// The functions it merged, as they were named before (the survivor of an identical
    /// group included): what names the merge for `guard::Gate::veto`.
    pub originals: Vec<String>,
    /// The function holding the shared body afterwards.
    pub body: String,
    pub members: Vec<Member>,
    /// Parameters of the shared body (constants: the extra ones only).
    pub params: usize,
    /// Fraction of instructions the alignment shared (similar merges only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alignment: Option<f64>,
    /// Estimated bytes saved (TTI-based), and bytes saved by generated code when measured.
    pub estimated_saving: i64,
    pub measured_saving: Option<i64>,
    /// What decided it (merges of identical functions are not priced: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_on: Option<Basis>,
    /// The profile's entry count of each original (same order), when the module has a
    /// profile (`crate::profiling::pricing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_counts: Option<Vec<Option<u64>>>,
    /// The work the merge adds at run time by the profile (executed IR instructions, see
    /// `crate::profiling::pricing`), and the fraction of the module's work that is; only when
    /// the module has a profile (merges of identical functions are not priced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added_work: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_fraction: Option<f64>,
    /// The work of the functions it replaced, by the same counts (those of the input only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member_work: Option<u64>,
}

/// A merge that was built and priced, but not taken because it would not save bytes.
#[derive(Clone, Debug, Serialize)]
pub struct Rejected {
    pub stage: &'static str,
    pub members: Vec<String>,
    /// Estimated bytes saved (negative: the merge would grow the code).
    pub estimated_saving: i64,
    pub measured_saving: Option<i64>,
}

/// A function a stage left alone, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub stage: &'static str,
    pub function: String,
    pub reason: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct StageStats {
    pub stage: &'static str,
    /// Wall time of the stage; left out of reports unless asked for (`Report::timings`), so
    /// that the same input always gives the same report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Where the time went (seconds per phase), with the same rule as `seconds`.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub breakdown: std::collections::BTreeMap<&'static str, f64>,
    pub rounds: usize,
    pub merges: usize,
    pub functions_removed_or_thunked: usize,
    /// Candidates rejected because they would not save bytes.
    pub rejected_unprofitable: usize,
    /// Candidates rolled back because the merged function did not verify.
    pub rolled_back: usize,
    /// Decisions confirmed by generating code, and how often the estimate had the sign wrong.
    pub measured_decisions: usize,
    pub estimate_disagreed: usize,
    /// Close calls decided on their estimate because the measuring budget was spent.
    pub over_budget: usize,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    pub target: String,
    pub functions_before: usize,
    pub functions_after: usize,
    pub text_bytes_before: Option<u64>,
    pub text_bytes_after: Option<u64>,
    pub stages: Vec<StageStats>,
    pub merges: Vec<MergeRecord>,
    pub rejected: Vec<Rejected>,
    pub skipped: Vec<Skipped>,
    /// Merges that were ready but not committed because of the run's `guard::Gate`
    /// (bisecting, or vetoed by the size guard).
    pub gated: usize,
    /// What the size guard did (only when the module was measured before and after).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardRecord>,
    /// The module's profile and what merging did with it (only when it has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::profiling::pricing::ProfileRecord>,
    /// Merges committed and then taken out of `merges` (the size guard undid them in place):
    /// their numbers are never given again.
    #[serde(skip)]
    pub forgotten: usize,
}

impl StageStats {
    /// Adds the statistics of another run of the same stage.
    pub fn absorb(&mut self, other: StageStats) {
        self.seconds = match (self.seconds, other.seconds) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        for (phase, t) in other.breakdown {
            *self.breakdown.entry(phase).or_default() += t;
        }
        self.rounds += other.rounds;
        self.merges += other.merges;
        self.functions_removed_or_thunked += other.functions_removed_or_thunked;
        self.rejected_unprofitable += other.rejected_unprofitable;
        self.rolled_back += other.rolled_back;
        self.measured_decisions += other.measured_decisions;
        self.estimate_disagreed += other.estimate_disagreed;
        self.over_budget += other.over_budget;
    }

    /// Adds the time since `since` to phase `phase`.
    pub fn add_time(&mut self, phase: &'static str, since: std::time::Instant) {
        *self.breakdown.entry(phase).or_default() += since.elapsed().as_secs_f64();
    }
}

impl MergeRecord {
    /// A merge of `originals` into `body`, not priced: no alignment, no estimate, no
    /// measurement, no profile (callers fill in what they know with `..MergeRecord::new(..)`).
    pub fn new(
        seq: usize,
        stage: &'static str,
        originals: Vec<String>,
        body: String,
        members: Vec<Member>,
        params: usize,
    ) -> Self {
        MergeRecord {
            seq,
            stage,
            originals,
            body,
            members,
            params,
            alignment: None,
            estimated_saving: 0,
            measured_saving: None,
            decided_on: None,
            entry_counts: None,
            added_work: None,
            member_work: None,
            work_fraction: None,
        }
    }

    /// The functions the merge touched, for the size guard.
    pub fn footprint(&self) -> Footprint<'_> {
        Footprint {
            seq: self.seq,
            estimated_saving: self.estimated_saving,
            measured_saving: self.measured_saving,
            originals: &self.originals,
            body: &self.body,
            members: self.members.iter().map(|m| m.name.as_str()).collect(),
            undoable: matches!(self.stage, "constants" | "similar")
                && self
                    .members
                    .iter()
                    .all(|m| matches!(m.disposal, Disposal::Thunk | Disposal::CallSitesRewritten)),
            rewritten: self
                .members
                .iter()
                .filter(|m| m.disposal == Disposal::CallSitesRewritten)
                .map(|m| (m.name.as_str(), m.call_args.as_deref()))
                .collect(),
            replaced: self
                .members
                .iter()
                .filter(|m| m.disposal == Disposal::Erased)
                .map(|m| m.name.as_str())
                .collect(),
        }
    }
}

impl Report {
    /// The number the next committed merge gets: one more than every merge committed so far,
    /// those undone included (the size guard tells the merges it has not judged yet by their
    /// numbers, and a bisect limit counts every commit).
    pub fn next_seq(&self) -> usize {
        self.merges.len() + self.forgotten + 1
    }

    pub fn estimated_saving(&self) -> i64 {
        self.merges.iter().map(|m| m.estimated_saving).sum()
    }

    /// Bytes the merges should save: each merge's measured saving where fmerge compiled it,
    /// its estimate elsewhere (a merge kept on its measurement can have a negative estimate).
    pub fn expected_saving(&self) -> i64 {
        self.merges.iter().map(|m| m.measured_saving.unwrap_or(m.estimated_saving)).sum()
    }

    pub fn functions_merged(&self) -> usize {
        self.merges.iter().map(|m| m.members.len()).sum()
    }
}
