//! What the user asked for.

use serde::Serialize;
use std::collections::BTreeSet;

/// Which merging stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stages {
    /// Fold functions that are exactly equal (LLVM MergeFunctions' job).
    pub identical: bool,
    /// Merge functions equal up to constants that can become parameters.
    pub constants: bool,
    /// Merge similar functions (alignment + SSA code generation).
    pub similar: bool,
}

impl Stages {
    pub const ALL: Stages = Stages { identical: true, constants: true, similar: true };
}

/// How merge decisions are priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ProfitMode {
    /// TTI code-size estimates only (fastest).
    Estimate,
    /// Generate code for every candidate and its originals; keep it only if bytes drop.
    Exact,
    /// Estimates for clear cases, generated code for close ones (the default).
    Hybrid,
}

/// How similar-function merging finds partners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SearchMode {
    /// MinHash signatures in an LSH index (F3M): near-linear in the number of functions.
    Lsh,
    /// Every pair scored by opcode/type-frequency fingerprints (seed 000): quadratic, for
    /// comparison.
    Exhaustive,
}

/// Which merges may be committed. Merges are numbered 1, 2, ... in the order the stages commit
/// them, which is deterministic (it never depends on threads or timing), so a number names the
/// same merge on every run of the same input with the same options.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Gate {
    /// Commit only merges 1..=limit (`fmerge opt --bisect-limit`, like LLVM's
    /// `-opt-bisect-limit`): what `fmerge bisect` searches over.
    pub limit: Option<usize>,
    /// Merges never to commit, each named by the sorted names of the functions it merges (the
    /// size guard vetoes merges that generated code showed to lose bytes).
    pub veto: BTreeSet<Vec<String>>,
}

impl Gate {
    /// May merge number `seq` (1-based) of `originals` be committed?
    pub fn allows(&self, seq: usize, originals: &[String]) -> bool {
        if self.limit.is_some_and(|l| seq > l) {
            return false;
        }
        self.veto.is_empty() || !self.veto.contains(&merge_key(originals))
    }
}

/// The name of a merge: the sorted names of the functions it merges.
pub fn merge_key(originals: &[String]) -> Vec<String> {
    let mut k = originals.to_vec();
    k.sort();
    k
}

/// The default [`Options::measure_budget`].
pub const DEFAULT_MEASURE_BUDGET: f64 = 0.06;

#[derive(Clone, Debug, Serialize)]
pub struct Options {
    pub stages: Stages,
    /// The module is the whole program: externally visible functions other than `main` may
    /// be removed when nothing references them.
    pub whole_program: bool,
    pub profit: ProfitMode,
    pub search: SearchMode,
    /// Threads that may generate code at once to settle close calls (results never depend on
    /// it).
    pub jobs: usize,
    /// Decisions whose estimated gain is within this fraction of the functions' size are
    /// confirmed by generating code (Hybrid mode).
    pub close_margin: f64,
    /// How much code generation a stage may spend on close calls (Hybrid mode), as a fraction
    /// of the module's instructions: a close call whose functions would push the stage past it
    /// is decided on its estimate. Code generation costs about as much per instruction as
    /// `opt -Oz`, so this bounds the time measuring adds to about this fraction of `-Oz`.
    pub measure_budget: f64,
    /// The caller has just verified the input module (the CLI does, while it reads the input:
    /// a verifier crash on a corrupt file is then reported as that file being corrupt), so
    /// [`crate::optimize`] does not verify it a second time.
    pub input_verified: bool,
    /// Which merges may be committed (all, unless bisecting or vetoed).
    pub gate: Gate,
    /// Read the module's profile, if it has one, and price merges by the work they add
    /// (`crate::profiling::pricing`); false merges as if there were no profile
    /// (`--ignore-profile`).
    pub use_profile: bool,
    /// The share of the module's work (by its profile) that merges with constants and of
    /// similar functions may add together (`--max-slowdown`, a fraction: 0.005 is 0.5%).
    pub max_slowdown: f64,
    /// The share of the module's work one such merge may add per KB it saves
    /// (`--max-slowdown-per-kb`, a fraction: 0.001 is 0.1%).
    pub max_slowdown_per_kb: f64,
    /// Functions hot by the profile at this percentile (millionths) are not merged with
    /// constants or as similar functions whatever a merge would cost (`--hot-percentile`);
    /// `None`: no such cut, merges are priced.
    pub hot_percentile: Option<u32>,
    /// The module's profile, read by [`crate::optimize`] (callers leave it `None`).
    #[serde(skip)]
    pub profile: Option<std::sync::Arc<crate::profiling::pricing::ModuleProfile>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stages: Stages::ALL,
            whole_program: false,
            profit: ProfitMode::Hybrid,
            search: SearchMode::Lsh,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            close_margin: 0.2,
            measure_budget: DEFAULT_MEASURE_BUDGET,
            input_verified: false,
            gate: Gate::default(),
            use_profile: true,
            max_slowdown: crate::profiling::pricing::DEFAULT_MAX_SLOWDOWN,
            max_slowdown_per_kb: crate::profiling::pricing::DEFAULT_MAX_SLOWDOWN_PER_KB,
            hot_percentile: None,
            profile: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_admits_up_to_its_limit_and_never_a_vetoed_merge() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let open = Gate::default();
        assert!(open.allows(1_000_000, &names(&["f", "g"])));
        let limited = Gate { limit: Some(2), ..Gate::default() };
        assert!(limited.allows(2, &names(&["f", "g"])));
        assert!(!limited.allows(3, &names(&["f", "g"])));
        let zero = Gate { limit: Some(0), ..Gate::default() };
        assert!(!zero.allows(1, &names(&["f"])));
        let mut vetoed = Gate::default();
        vetoed.veto.insert(merge_key(&names(&["g", "f"])));
        assert!(!vetoed.allows(1, &names(&["f", "g"])));
        assert!(vetoed.allows(1, &names(&["f", "h"])));
    }
}
