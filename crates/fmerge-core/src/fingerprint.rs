//! Rocha's opcode- and type-frequency fingerprint and its upper-bound similarity (seed 000).
//!
//! A fingerprint counts, over every instruction of a function (phis and terminators included),
//! how often each opcode occurs and how often each result type occurs (`void` too, so stores,
//! branches and void calls count). Types are keyed by their stable hash, so fingerprints of two
//! modules compare meaningfully.
//!
//! For two functions and one kind of key (opcodes or types), `sim = Σ min(f1, f2)` counts the
//! instructions that could at best be paired, `diff = Σ |f1 − f2|` those that cannot. The upper
//! bound is `sim / (2·sim + diff)`: the fraction of all instructions of both functions that a
//! perfect merge could share, so identical multisets give 0.5 and disjoint ones 0. The similarity
//! is the smaller of the opcode bound and the type bound: both must allow a pairing.
//!
//! The pruning filter (SalSSA's `func-merging-similarity-pruning`) rejects a pair when the opcode
//! bound is hopeless (`sim < 0.8·diff`) or the types differ more than twice as much as they agree
//! (`types_diff > 2·types_sim`). The latter is evaluated as a product instead of SalSSA's
//! quotient so that `0/0` (two empty functions) and `x/0` need no special case: no shared type
//! with a difference rejects; nothing at all passes.
//!
//! Storage is sparse: sorted `(key, count)` lists, so comparing two fingerprints is one merge walk
//! over the distinct opcodes and types (a few dozen entries), and unknown future opcode numbers
//! need no fixed-size table (a pitfall of the 68-slot arrays, notes §2.1).

use crate::ir::{FuncData, ModuleTables};

/// Opcode and type frequencies of one function, plus its size for ordering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpcodeTypeFingerprint {
    /// `(opcode, count)`, sorted by opcode, counts > 0.
    pub opcodes: Vec<(u32, u32)>,
    /// `(result type stable hash, count)`, sorted by hash, counts > 0.
    pub types: Vec<(u64, u32)>,
    /// Number of instructions (size estimate used to order the worklist).
    pub size: u32,
}

/// Shared and differing counts of two frequency lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// `Σ min(a, b)` over all keys.
    pub sim: u64,
    /// `Σ |a − b|` over all keys (keys on one side only count fully).
    pub diff: u64,
}

impl Overlap {
    /// `sim / (2·sim + diff)`, 0 when both sides are empty.
    pub fn upper_bound(self) -> f64 {
        let den = 2 * self.sim + self.diff;
        if den == 0 { 0.0 } else { self.sim as f64 / den as f64 }
    }
}

fn counts<K: Ord + Copy>(mut keys: Vec<K>) -> Vec<(K, u32)> {
    keys.sort_unstable();
    let mut out: Vec<(K, u32)> = Vec::new();
    for k in keys {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// Merge walk over two sorted frequency lists.
pub fn overlap<K: Ord + Copy>(a: &[(K, u32)], b: &[(K, u32)]) -> Overlap {
    let (mut i, mut j) = (0, 0);
    let mut o = Overlap::default();
    while i < a.len() && j < b.len() {
        let (ka, na) = a[i];
        let (kb, nb) = b[j];
        match ka.cmp(&kb) {
            std::cmp::Ordering::Less => {
                o.diff += u64::from(na);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                o.diff += u64::from(nb);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                o.sim += u64::from(na.min(nb));
                o.diff += u64::from(na.abs_diff(nb));
                i += 1;
                j += 1;
            }
        }
    }
    o.diff += a[i..].iter().map(|&(_, n)| u64::from(n)).sum::<u64>();
    o.diff += b[j..].iter().map(|&(_, n)| u64::from(n)).sum::<u64>();
    o
}

impl OpcodeTypeFingerprint {
    /// Fingerprint of every instruction of `f` (all blocks, including unreachable ones, as in
    /// SalSSA).
    pub fn new(t: &ModuleTables, f: &FuncData) -> Self {
        let opcodes = counts(f.insts.iter().map(|i| i.opcode).collect());
        let types = counts(
            f.insts
                .iter()
                .map(|i| t.types.get(i.ty.0 as usize).map_or(u64::MAX, |ty| ty.stable_hash))
                .collect(),
        );
        OpcodeTypeFingerprint { opcodes, types, size: f.insts.len() as u32 }
    }

    /// Fingerprint from raw `(opcode, result type hash)` pairs (tests, synthetic benchmarks).
    pub fn from_pairs(pairs: &[(u32, u64)]) -> Self {
        OpcodeTypeFingerprint {
            opcodes: counts(pairs.iter().map(|p| p.0).collect()),
            types: counts(pairs.iter().map(|p| p.1).collect()),
            size: pairs.len() as u32,
        }
    }

    pub fn opcode_overlap(&self, other: &Self) -> Overlap {
        overlap(&self.opcodes, &other.opcodes)
    }

    pub fn type_overlap(&self, other: &Self) -> Overlap {
        overlap(&self.types, &other.types)
    }
}

/// `min(UB_opcodes, UB_types)`, in `[0, 0.5]`; 0.5 for equal opcode and type multisets.
pub fn upper_bound_similarity(a: &OpcodeTypeFingerprint, b: &OpcodeTypeFingerprint) -> f64 {
    a.opcode_overlap(b).upper_bound().min(a.type_overlap(b).upper_bound())
}

/// SalSSA's similarity pruning: false when the pair is not worth an alignment.
pub fn passes_pruning(a: &OpcodeTypeFingerprint, b: &OpcodeTypeFingerprint) -> bool {
    pruning_ok(a.opcode_overlap(b), a.type_overlap(b))
}

fn pruning_ok(ops: Overlap, tys: Overlap) -> bool {
    // `sim < 0.8·diff` ⇔ `5·sim < 4·diff`, in integers.
    let opcodes_ok = 5 * ops.sim >= 4 * ops.diff;
    let types_ok = tys.diff <= 2 * tys.sim;
    opcodes_ok && types_ok
}

/// [`upper_bound_similarity`] of a pair, or `None` when `prune` is set and the pair fails
/// [`passes_pruning`]. Walks both frequency lists once (the ranking's inner loop).
pub fn score_pair(
    a: &OpcodeTypeFingerprint,
    b: &OpcodeTypeFingerprint,
    prune: bool,
) -> Option<f64> {
    let (ops, tys) = (a.opcode_overlap(b), a.type_overlap(b));
    if prune && !pruning_ok(ops, tys) {
        return None;
    }
    Some(ops.upper_bound().min(tys.upper_bound()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode;
    use crate::testkit::*;
    use proptest::prelude::*;

    const I32H: u64 = 0x1003;
    const VOIDH: u64 = 0x1001;

    #[test]
    fn identical_functions_score_one_half_and_pass() {
        let r = Recipe { blocks: vec![(vec![Step::Load, Step::Add(0, 1), Step::Store(2)], None)] };
        let t = tables();
        let f = build(&r);
        let a = OpcodeTypeFingerprint::new(&t, &f);
        assert_eq!(a.size as usize, f.insts.len());
        assert_eq!(upper_bound_similarity(&a, &a), 0.5);
        assert!(passes_pruning(&a, &a));
        // The same function in a module with other interned ids has the same fingerprint.
        let t7 = tables_with_salt(7);
        assert_eq!(OpcodeTypeFingerprint::new(&t7, &salted(7, &f)), a);
    }

    #[test]
    fn score_is_the_smaller_of_opcode_and_type_bounds() {
        // Same opcodes, different result types: opcode bound 0.5, type bound lower.
        let a = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, I32H),
            (opcode::ADD, I32H),
            (opcode::RET, VOIDH),
        ]);
        let b = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, 0x1004),
            (opcode::ADD, I32H),
            (opcode::RET, VOIDH),
        ]);
        assert_eq!(a.opcode_overlap(&b).upper_bound(), 0.5);
        // types: i32 min(2,1)=1 diff 1, i64 diff 1, void 1 ⇒ sim 2, diff 2 ⇒ 2/6.
        assert_eq!(a.type_overlap(&b), Overlap { sim: 2, diff: 2 });
        assert!((upper_bound_similarity(&a, &b) - 2.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn pruning_rejects_disjoint_and_lopsided_pairs() {
        let small = OpcodeTypeFingerprint::from_pairs(&[(opcode::RET, VOIDH)]);
        let mut big_pairs = vec![(opcode::LOAD, I32H); 20];
        big_pairs.push((opcode::RET, VOIDH));
        let big = OpcodeTypeFingerprint::from_pairs(&big_pairs);
        // sim 1, diff 20: 1 < 16 ⇒ rejected.
        assert!(!passes_pruning(&small, &big));
        let other = OpcodeTypeFingerprint::from_pairs(&[(opcode::UNREACHABLE, VOIDH)]);
        assert_eq!(upper_bound_similarity(&small, &other), 0.0);
        assert!(!passes_pruning(&small, &other));
        // Boundary: sim 4, diff 5 ⇒ 4 ≥ 0.8·5 = 4 passes; sim 4, diff 6 fails.
        let base = vec![(opcode::ADD, I32H); 4];
        let mut five = base.clone();
        five.extend(vec![(opcode::SUB, I32H); 5]);
        let mut six = base.clone();
        six.extend(vec![(opcode::SUB, I32H); 6]);
        let b = OpcodeTypeFingerprint::from_pairs(&base);
        assert!(passes_pruning(&b, &OpcodeTypeFingerprint::from_pairs(&five)));
        assert!(!passes_pruning(&b, &OpcodeTypeFingerprint::from_pairs(&six)));
    }

    #[test]
    fn pruning_rejects_types_that_differ_more_than_twice_they_agree() {
        // Opcodes equal; types: sim 1, diff 4 > 2·1 rejects; sim 2, diff 2 ≤ 2·2 passes.
        let a = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, 1),
            (opcode::ADD, 2),
            (opcode::ADD, 3),
        ]);
        let b = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, 1),
            (opcode::ADD, 4),
            (opcode::ADD, 5),
        ]);
        assert_eq!(a.type_overlap(&b), Overlap { sim: 1, diff: 4 });
        assert!(!passes_pruning(&a, &b));
        let c = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, 1),
            (opcode::ADD, 1),
            (opcode::ADD, 4),
        ]);
        let d = OpcodeTypeFingerprint::from_pairs(&[
            (opcode::ADD, 1),
            (opcode::ADD, 1),
            (opcode::ADD, 5),
        ]);
        assert_eq!(c.type_overlap(&d), Overlap { sim: 2, diff: 2 });
        assert!(passes_pruning(&c, &d));
    }

    #[test]
    fn empty_fingerprints_are_harmless() {
        let e = OpcodeTypeFingerprint::default();
        assert_eq!(upper_bound_similarity(&e, &e), 0.0);
        assert!(passes_pruning(&e, &e));
    }

    proptest! {
        #[test]
        fn similarity_is_symmetric_bounded_and_matches_the_definition(
            a in prop::collection::vec((0u32..6, 0u64..4), 0..40),
            b in prop::collection::vec((0u32..6, 0u64..4), 0..40),
        ) {
            let fa = OpcodeTypeFingerprint::from_pairs(&a);
            let fb = OpcodeTypeFingerprint::from_pairs(&b);
            let s = upper_bound_similarity(&fa, &fb);
            prop_assert_eq!(s, upper_bound_similarity(&fb, &fa));
            prop_assert!((0.0..=0.5).contains(&s));
            // Dense re-computation of the opcode bound.
            let (mut sim, mut diff) = (0u64, 0u64);
            for op in 0..6 {
                let x = a.iter().filter(|p| p.0 == op).count() as u64;
                let y = b.iter().filter(|p| p.0 == op).count() as u64;
                sim += x.min(y);
                diff += x.max(y) - x.min(y);
            }
            prop_assert_eq!(fa.opcode_overlap(&fb), Overlap { sim, diff });
            prop_assert_eq!(passes_pruning(&fa, &fb), passes_pruning(&fb, &fa));
            let expected = passes_pruning(&fa, &fb).then_some(s);
            prop_assert_eq!(score_pair(&fa, &fb, true), expected);
            prop_assert_eq!(score_pair(&fa, &fb, false), Some(s));
        }
    }
}
