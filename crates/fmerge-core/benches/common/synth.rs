//! Synthetic workloads for the search benchmarks: families of similar instruction-encoding
//! sequences, shared by `benches/search_scaling.rs` and `examples/search_scaling.rs`.
//!
//! Real modules have a skewed instruction alphabet (a few encodings, such as `load ptr` or
//! `br label`, are everywhere) and groups of near-duplicate functions (generic instantiations,
//! derived trait impls). The generator mimics both: symbols are drawn from 2000 encodings with a
//! cubic skew towards the first ones, functions come in families of 1 to 8 members, and each
//! member is the family's base sequence with about 10% of positions substituted and a few
//! insertions and deletions. The order is shuffled so family members are not neighbours.
//! Everything derives from a seed through splitmix64, so runs repeat.

#![allow(dead_code)]

use fmerge_core::hash::mix64;

/// Deterministic splitmix64 stream.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const ALPHABET: f64 = 2000.0;

fn symbol(r: &mut Rng) -> u32 {
    let u = r.unit();
    // Encodings are hashes in real use; spread the symbol over u32 the same way.
    mix64((ALPHABET * u * u * u) as u64) as u32
}

/// A synthetic module: sequences and the family of each.
pub struct Workload {
    pub seqs: Vec<Vec<u32>>,
    pub family: Vec<u32>,
}

/// `n` sequences in families of similar members, in a shuffled order: members of one family get
/// unrelated positions (keys), as functions of one family are spread over a real module, so the
/// benchmark gains no cache locality from neighbouring keys.
pub fn families(n: usize, seed: u64) -> Workload {
    let mut r = Rng::new(seed);
    let mut seqs = Vec::with_capacity(n);
    let mut family = Vec::with_capacity(n);
    let mut fam = 0u32;
    while seqs.len() < n {
        let members = 1 + r.below(8) as usize;
        // Lengths 4..~130, most below 50 (the bulk of real functions is small).
        let len = 4 + r.below(16) as usize + (r.below(8) * r.below(16)) as usize;
        let base: Vec<u32> = (0..len).map(|_| symbol(&mut r)).collect();
        for _ in 0..members.min(n - seqs.len()) {
            let mut s = Vec::with_capacity(len + 4);
            for &x in &base {
                let p = r.below(100);
                if p < 10 {
                    s.push(symbol(&mut r)); // substitution
                } else if p < 12 {
                    // deletion
                } else if p < 14 {
                    s.push(symbol(&mut r)); // insertion before x
                    s.push(x);
                } else {
                    s.push(x);
                }
            }
            if s.is_empty() {
                s.push(base[0]);
            }
            seqs.push(s);
            family.push(fam);
        }
        fam += 1;
    }
    // Fisher–Yates with the same stream.
    for i in (1..seqs.len()).rev() {
        let j = r.below(i as u64 + 1) as usize;
        seqs.swap(i, j);
        family.swap(i, j);
    }
    Workload { seqs, family }
}
