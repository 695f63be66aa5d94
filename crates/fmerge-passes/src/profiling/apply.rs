//! `fmerge opt --profile`: the counts of a profile put back into the module.
//!
//! Each defined function whose name and control-flow hash match a function of the profile
//! gets its entry count and branch weights; the module gets a profile summary. From then on
//! it is a module "built with a profile", exactly like one from clang PGO:
//! [`crate::profiling::pricing`] keeps hot functions out of merges that add work, and LLVM's
//! own passes see the counts.

use fmerge_core::profiling::files::{FunctionProfile, ProfileFile, cfg_hash};
use fmerge_core::profiling::probes::Cfg;
use fmerge_llvm::Module;
use serde::Serialize;
use std::collections::HashMap;

/// What applying a profile did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProfileUse {
    /// Functions that got counts.
    pub applied: usize,
    /// Functions of the profile with the name of a function here whose control flow differs
    /// (the code changed since the profile was taken): left without counts.
    pub stale: Vec<String>,
    /// Defined functions the profile does not name: left without counts.
    pub missing: usize,
}

/// Puts `profile`'s counts into `module` as `!prof` metadata and a profile summary (none if
/// no function matched).
/// Functions the profile does not know are left without counts (LLVM then treats them as
/// unknown, fmerge as not hot). A name listed twice with the same control flow (two static
/// functions of different modules) is ambiguous and skipped as stale.
pub fn apply_profile(module: &Module<'_>, profile: &ProfileFile) -> ProfileUse {
    let mut by_name: HashMap<&str, Vec<&FunctionProfile>> = HashMap::new();
    for f in &profile.functions {
        by_name.entry(f.name.as_str()).or_default().push(f);
    }
    let mut used = ProfileUse::default();
    let mut entries = Vec::new();
    let mut counts = Vec::new();
    for f in module.functions() {
        if f.is_declaration() {
            continue;
        }
        let name = f.name();
        let Some(cands) = by_name.get(name.as_str()) else {
            used.missing += 1;
            continue;
        };
        // Only the shape is compared: no frequency or call analysis needed.
        let (blocks, edges) = f.cfg_edges();
        let hash = cfg_hash(&Cfg { blocks, edges, ..Cfg::default() });
        let matching: Vec<_> = cands.iter().filter(|c| c.cfg_hash == hash).collect();
        let [p] = matching.as_slice() else {
            used.stale.push(name);
            continue;
        };
        let edges: Vec<u64> = p.edges.iter().map(|e| e.unwrap_or(0)).collect();
        if p.edges.iter().all(Option::is_some) {
            f.set_profile(p.entries, &edges);
        } else {
            // Only the entry count: branch weights from partly known edges would lie.
            f.set_profile(p.entries, &[]);
        }
        entries.push(p.entries);
        counts.extend(&p.blocks);
        used.applied += 1;
    }
    if used.applied > 0 {
        module.set_profile_summary(&entries, &counts);
    }
    used
}
