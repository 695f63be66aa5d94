//! The size guard: a merge whose generated code is larger than what it replaced is undone.
//!
//! Every merge is decided before the whole module is compiled: on a TTI estimate when the call
//! is clear, by compiling the candidates in isolation when it is close (within a budget). Both
//! can be wrong for real code generation of the whole module (the estimate is an estimate;
//! a body compiled alone is laid out, aligned and register-allocated differently). When fmerge
//! measures the module before and after anyway (`Measure::Text`), the guard reads every
//! merge's real effect off the two measurements, and the pipeline runs the stages again from
//! the input with the losing merges vetoed (`options::Gate::veto`).
//!
//! **Attribution.** A merge's effect is the size, in the input, of the functions it replaced,
//! minus the size, in the output, of the functions it left (the shared body and the members
//! that remain as thunks). Merges chain: a merged body can itself be merged again, and a
//! survivor of an identical group can become a member of a similar merge. Merges that share a
//! function are therefore judged together, as one *unit* (union-find over the names each merge
//! touches): a unit loses when its functions are larger afterwards, and all of its merges are
//! vetoed. What no function carries (a caller's extra argument where call sites were
//! rewritten, padding between functions) is not attributed; the whole-module comparison in
//! `pipeline` catches what that misses.

use crate::report::{MergeRecord, Report};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Merges judged together, and their measured effect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unit {
    /// `seq` of each merge in the unit, in commit order.
    pub merges: Vec<usize>,
    /// The name of each merge (`options::merge_key`), what a veto holds.
    #[serde(skip)]
    pub keys: Vec<Vec<String>>,
    /// Bytes of the unit's functions in the input and in the output.
    pub bytes_before: u64,
    pub bytes_after: u64,
}

impl Unit {
    /// Bytes saved (negative: the unit made the code larger).
    pub fn saving(&self) -> i64 {
        self.bytes_before as i64 - self.bytes_after as i64
    }
}

/// The functions a merge touches: its originals, its body and its members.
fn names(m: &MergeRecord) -> BTreeSet<&str> {
    let mut n: BTreeSet<&str> = m.originals.iter().map(String::as_str).collect();
    n.insert(&m.body);
    n.extend(m.members.iter().map(|x| x.name.as_str()));
    n
}

/// Bytes of function `name` in per-symbol sizes (Mach-O symbols carry a leading underscore).
pub fn symbol_size(sizes: &BTreeMap<String, u64>, name: &str) -> Option<u64> {
    sizes.get(name).or_else(|| sizes.get(&format!("_{name}"))).copied()
}

/// Groups the merges of `report` into units and measures each with the per-function sizes of
/// the input (`before`) and of the output (`after`; a function missing there is gone). Units
/// come in the order of their first merge.
pub fn units(
    report: &Report,
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> Vec<Unit> {
    let mut parent: HashMap<&str, &str> = HashMap::new();
    fn find<'a>(parent: &mut HashMap<&'a str, &'a str>, x: &'a str) -> &'a str {
        let mut r = x;
        while let Some(&p) = parent.get(r) {
            if p == r {
                break;
            }
            r = p;
        }
        parent.insert(x, r);
        r
    }
    for m in &report.merges {
        let ns: Vec<&str> = names(m).into_iter().collect();
        for &n in &ns {
            parent.entry(n).or_insert(n);
        }
        let root = find(&mut parent, ns[0]);
        for &n in &ns[1..] {
            let r = find(&mut parent, n);
            parent.insert(r, root);
        }
    }
    let mut by_root: BTreeMap<usize, (BTreeSet<&str>, Unit)> = BTreeMap::new();
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    for m in &report.merges {
        let ns = names(m);
        let root = find(&mut parent, ns.iter().next().expect("a merge names its body"));
        let first = *first_of.entry(root).or_insert(m.seq);
        let (all, unit) = by_root.entry(first).or_insert_with(|| {
            (
                BTreeSet::new(),
                Unit { merges: Vec::new(), keys: Vec::new(), bytes_before: 0, bytes_after: 0 },
            )
        });
        all.extend(ns);
        unit.merges.push(m.seq);
        unit.keys.push(crate::options::merge_key(&m.originals));
    }
    by_root
        .into_values()
        .map(|(all, mut unit)| {
            unit.bytes_before = all.iter().filter_map(|n| symbol_size(before, n)).sum();
            unit.bytes_after = all.iter().filter_map(|n| symbol_size(after, n)).sum();
            unit
        })
        .collect()
}

/// The units of `report` that made the code larger or saved nothing (a merge that saves no
/// bytes still costs time at run time). A unit none of whose functions the input measurement
/// knows is not judged.
pub fn losing_units(
    report: &Report,
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> Vec<Unit> {
    units(report, before, after)
        .into_iter()
        .filter(|u| u.bytes_before > 0 && u.saving() <= 0)
        .collect()
}

/// What the guard did, for the report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GuardRecord {
    /// How many times the stages ran again with losing merges vetoed.
    pub reruns: usize,
    /// The units vetoed, with what they had measured.
    pub vetoed: Vec<VetoedUnit>,
    /// Units that still lost bytes in the output written (the guard ran out of re-runs).
    pub losing_in_output: usize,
    /// The output would have been larger than the input even so: the input was written
    /// unchanged.
    pub kept_input: bool,
}

/// A vetoed unit: the functions of its merges and the bytes they measured.
#[derive(Clone, Debug, Serialize)]
pub struct VetoedUnit {
    pub originals: Vec<Vec<String>>,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Disposal, Member};

    fn merge(
        seq: usize,
        originals: &[&str],
        body: &str,
        members: &[(&str, Disposal)],
    ) -> MergeRecord {
        MergeRecord {
            seq,
            stage: "similar",
            originals: originals.iter().map(|s| s.to_string()).collect(),
            body: body.to_string(),
            members: members
                .iter()
                .map(|(n, d)| Member { name: n.to_string(), disposal: *d })
                .collect(),
            params: 0,
            alignment: None,
            estimated_saving: 0,
            measured_saving: None,
            decided_on: None,
            entry_counts: None,
            added_work: None,
            work_fraction: None,
        }
    }

    fn sizes(v: &[(&str, u64)]) -> BTreeMap<String, u64> {
        v.iter().map(|(n, b)| (n.to_string(), *b)).collect()
    }

    #[test]
    fn chained_merges_are_judged_together_and_a_loss_is_found() {
        use Disposal::*;
        let report = Report {
            merges: vec![
                merge(1, &["a", "b"], "a.fmerged", &[("a", Thunk), ("b", Thunk)]),
                merge(2, &["c", "d"], "c.fmerged", &[("c", Erased), ("d", Thunk)]),
                // The body of merge 1 merges again with e: one unit with merge 1.
                merge(
                    3,
                    &["a.fmerged", "e"],
                    "a.fmerged.fmerged",
                    &[("a.fmerged", Thunk), ("e", Thunk)],
                ),
            ],
            ..Report::default()
        };
        let before = sizes(&[("a", 100), ("b", 90), ("c", 40), ("d", 40), ("e", 80), ("x", 7)]);
        let after = sizes(&[
            ("a", 5),
            ("b", 5),
            ("a.fmerged", 5),
            ("e", 5),
            ("a.fmerged.fmerged", 150),
            ("c.fmerged", 75),
            ("d", 6),
            ("x", 7),
        ]);
        let us = units(&report, &before, &after);
        assert_eq!(us.len(), 2);
        assert_eq!(us[0].merges, vec![1, 3]);
        assert_eq!((us[0].bytes_before, us[0].bytes_after), (270, 170));
        assert_eq!(us[1].merges, vec![2]);
        assert_eq!((us[1].bytes_before, us[1].bytes_after), (80, 81));
        let losers = losing_units(&report, &before, &after);
        assert_eq!(losers.len(), 1);
        assert_eq!(losers[0].keys, vec![vec!["c".to_string(), "d".to_string()]]);
    }

    #[test]
    fn no_merges_no_units() {
        let r = Report::default();
        assert!(units(&r, &BTreeMap::new(), &BTreeMap::new()).is_empty());
    }
}
