//! A merging stage, and the loop that drives every stage: rounds until one merges nothing.
//!
//! A stage merges in rounds: each round looks at the module as the previous rounds left it
//! (merged bodies and callers that became equal can merge again). Between rounds the module is
//! swept (what a round doomed is erased), so no handle into the module outlives a round (a
//! stage may also sweep within a round it has let go of the module: the similar stage parks
//! its rounds). The
//! stage keeps what it learns across rounds in itself (pairs that did not pay, sizes already
//! measured); what a run shares lives in the [`Session`].

use crate::report::StageStats;
use crate::session::Session;
use std::time::Instant;

pub trait Stage {
    fn about(&self) -> About;
    /// One round; returns how many merges it committed.
    fn run_round(&mut self, session: &mut Session<'_, '_>, stats: &mut StageStats) -> usize;
}

/// What the driver needs to know of a stage.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// The stage's name in reports.
    pub name: &'static str,
    /// What the stage does, for progress output ("merging identical functions").
    pub activity: &'static str,
    /// Rounds at most.
    pub max_rounds: usize,
}

/// Runs `stage` round after round (at most [`About::max_rounds`]) until a round merges
/// nothing, and adds its statistics to the session's report.
pub fn drive(stage: &mut dyn Stage, session: &mut Session<'_, '_>) {
    let start = Instant::now();
    let about = stage.about();
    let mut stats = StageStats { stage: about.name, ..Default::default() };
    for _ in 0..about.max_rounds {
        stats.rounds += 1;
        let merged = stage.run_round(session, &mut stats);
        session.module.sweep();
        // A round frees what it built (a lowering of the module, candidate bodies).
        fmerge_llvm::memory::release_freed_memory(session.module.embedding());
        let report = &session.run.report;
        session.run.progress.detail(&format!(
            "round {}, {} merges so far, about {} bytes saved",
            stats.rounds,
            report.merges.len(),
            report.expected_saving()
        ));
        if merged == 0 {
            break;
        }
    }
    stats.seconds = Some(start.elapsed().as_secs_f64());
    // A stage run again in the same run (the size guard's second chance) adds to its line.
    let stages = &mut session.run.report.stages;
    match stages.iter_mut().find(|s| s.stage == stats.stage) {
        Some(s) => s.absorb(stats),
        None => stages.push(stats),
    }
}
