//! Keeping merges out of hot code, with the profile the module was built with.
//!
//! Every merge adds work at run time: a thunk's jump, an extra argument, `select`s and
//! branches where the merged functions differ. On code that runs rarely that costs nothing
//! measurable; on the hottest functions it is the whole slowdown (a Lua interpreter executed
//! 2.4% more instructions, almost all of it two merges on its hottest paths). A module built
//! with `clang -fprofile-use` (or any LLVM PGO) carries each function's entry count and a
//! profile summary. fmerge uses LLVM's own threshold of hot: the smallest of the largest counts
//! that together make up the chosen percentile (99% by default, LLVM's
//! `-profile-summary-cutoff-hot`) of all counts. A function is hot if its entry count or any
//! of its branch weights (edge counts) reaches it: a function entered once around a hot loop is
//! hot. Hot functions are left out of merging with constants and of similar merging (the
//! stages that add work inside the body); identical functions still merge, which costs at most
//! a jump.
//! Functions the profile never saw run (count 0) are the best candidates; the report counts
//! them.

use fmerge_llvm::Module;
use serde::Serialize;
use std::collections::HashMap;

/// LLVM's default hot cutoff (`-profile-summary-cutoff-hot`), in millionths.
pub const DEFAULT_HOT_PERCENTILE: u32 = 990_000;

/// Entry counts and the hot threshold of one module's profile.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The percentile (millionths) the threshold was computed for.
    pub percentile: u32,
    /// Entry count at which a function is hot (never 0: a profile with no counts has no hot
    /// functions).
    pub hot_threshold: u64,
    /// Entry count and hottest count (entry or branch weight) of each function.
    counts: HashMap<String, (u64, u64)>,
}

impl Profile {
    /// The module's profile, or `None` if it was not built with one.
    pub fn read(module: &Module<'_>, percentile: u32) -> Option<Profile> {
        let hot_threshold = module.profile_hot_threshold(percentile)?.max(1);
        let counts = module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .filter_map(|f| {
                let entry = f.entry_count()?;
                Some((f.name(), (entry, f.max_profile_count().unwrap_or(entry))))
            })
            .collect();
        Some(Profile { percentile, hot_threshold, counts })
    }

    /// The function's entry count, if the profile has one.
    pub fn count(&self, name: &str) -> Option<u64> {
        self.counts.get(name).map(|c| c.0)
    }

    fn is_hot(&self, name: &str) -> bool {
        self.counts.get(name).is_some_and(|c| c.1 >= self.hot_threshold)
    }

    /// Why `name` must not be merged (it, or a block of it, is hot), or `None`.
    pub fn hot_reason(&self, name: &str) -> Option<String> {
        let &(entry, max) = self.counts.get(name)?;
        self.is_hot(name).then(|| {
            format!(
                "hot in the profile: entered {entry} times, hottest count {max}, the hot threshold is {} (the top {}% of counts)",
                self.hot_threshold,
                f64::from(self.percentile) / 10_000.0
            )
        })
    }

    fn summary(&self) -> ProfileRecord {
        ProfileRecord {
            hot_percentile: f64::from(self.percentile) / 10_000.0,
            hot_threshold: self.hot_threshold,
            functions_with_counts: self.counts.len(),
            hot_functions: self.counts.values().filter(|c| c.1 >= self.hot_threshold).count(),
            never_executed: self.counts.values().filter(|c| c.0 == 0).count(),
            merged_never_executed: 0,
            merged_hot: 0,
        }
    }
}

/// What the report says about the profile.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileRecord {
    pub hot_percentile: f64,
    pub hot_threshold: u64,
    pub functions_with_counts: usize,
    pub hot_functions: usize,
    /// Functions the profile never saw run: merging them costs no time at all.
    pub never_executed: usize,
    /// Of the functions merged, how many never ran in the profile, and how many were hot
    /// (identical merges only).
    pub merged_never_executed: usize,
    pub merged_hot: usize,
}

/// Fills in the report's profile record and each merge's entry counts.
pub fn annotate(report: &mut crate::Report, profile: &Profile) {
    let mut record = profile.summary();
    for m in &mut report.merges {
        let counts: Vec<Option<u64>> = m.originals.iter().map(|n| profile.count(n)).collect();
        record.merged_never_executed += counts.iter().filter(|c| **c == Some(0)).count();
        record.merged_hot += m.originals.iter().filter(|n| profile.is_hot(n)).count();
        if counts.iter().any(Option::is_some) {
            m.entry_counts = Some(counts);
        }
    }
    report.profile = Some(record);
}
