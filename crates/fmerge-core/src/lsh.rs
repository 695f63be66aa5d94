//! Locality-sensitive hashing over MinHash signatures: F3M's candidate search (seed 003 §III-C/D,
//! notes §2.3).
//!
//! A signature of `k ≥ b·r` values is cut into `b` bands of `r` consecutive positions. Each band
//! is hashed (together with its band number) to a bucket key, and the function is filed under
//! each of its `b` keys. Two functions whose signatures agree on a fraction `s` of positions share
//! at least one bucket with probability `1 − (1 − s^r)^b`: near-duplicates almost surely, strangers
//! almost never. A query looks only into its own `b` buckets, scores the functions found there by
//! the full-signature estimate ([`Signature::similarity`]), keeps those scoring *above* the
//! threshold, and returns them best first (ties by smaller key, so the order is deterministic).
//!
//! Rules worth knowing:
//! - **Every band has its own bucket table** (and the band number is hashed into the key). Band 3
//!   of one signature and band 7 of another hold values of different hash functions; equal values
//!   there mean nothing (F3M mixed all bands into one table). Separate tables also let
//!   [`LshIndex::insert_many`] fill the bands in parallel.
//! - **Bucket cap.** Very common shingle pairs make a few buckets huge, and scanning them
//!   dominates the search (F3M §IV-E). A bucket keeps at most `bucket_cap` members; later
//!   insertions into a full bucket are dropped (counted in [`LshStats::dropped`]). Similar
//!   functions share many buckets, so they still meet through the others. Capping storage rather
//!   than only the scan also bounds the cost of `remove`, which must find the key in the bucket.
//! - **Adaptive parameters** ([`adaptive_params`]): with `n` functions, `x = log10(n)/10` and
//!   `RD = clamp(x − 0.3, 0.05, 0.4)`. The similarity threshold becomes `RD` (F3M's ranking
//!   distance `1 − RD`: keep distances below it), and the band count becomes
//!   `ceil(ln(1 − 0.9) / ln(1 − (RD + 0.1)^r))`, the fewest bands that still find a pair of
//!   similarity `RD + 0.1` with probability 0.9; it only ever lowers the configured count. Bands
//!   use the first `b·r` signature positions; the similarity estimate still uses all of them.
//! - With the default threshold 0 a candidate must agree on at least one position.
//!
//! A band's buckets are a map from bucket key to members (`BandTable`: a single member is stored
//! inline and lists exist only for buckets of two or more, which keeps 1M functions × 100 bands
//! in memory; hence keys must stay below 2^31). The maps use the bucket key itself as their hash
//! (keys come out of [`StableHasher`] and are already well mixed), which is fast and independent
//! of any random state. Signatures are stored in one flat array indexed by key, so scoring a
//! candidate is one contiguous read.

use crate::hash::StableHasher;
use crate::minhash::{Signature, similarity};
use crate::rank::{Candidate, CandidateSearch, FuncKey, best_first};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Seed separating band keys from other uses of [`StableHasher`].
const BAND_SEED: u64 = 0x6c73_685f_6261_6e64;
/// Candidates of one query from which scoring is split across threads. Handing work to
/// another thread costs more than scoring a few hundred signatures, and far more when other
/// jobs share the cores: on SQLite (2,243 queries of 740 candidates on average), with a
/// machine's two cores shared with other jobs, the search took 0.61-0.92 s split from 256
/// candidates on, 0.47-0.50 s on one thread.
const PARALLEL_SCORING: usize = 4096;

/// LSH parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LshConfig {
    /// Rows per band `r` (F3M: 2).
    pub rows: usize,
    /// Number of bands `b` (F3M: 100).
    pub bands: usize,
    /// Maximum members per bucket (F3M's evaluation: 100).
    pub bucket_cap: usize,
    /// Candidates must have an estimated similarity strictly above this.
    pub threshold: f64,
}

impl Default for LshConfig {
    fn default() -> Self {
        LshConfig { rows: 2, bands: 100, bucket_cap: 100, threshold: 0.0 }
    }
}

impl LshConfig {
    /// This configuration with F3M's adaptive threshold and band count for `n` functions.
    pub fn adapted_to(self, n: usize) -> Self {
        let a = adaptive_params(n, self.rows);
        LshConfig { bands: self.bands.min(a.bands), threshold: a.threshold, ..self }
    }

    /// Signature positions the bands use.
    pub fn positions(&self) -> usize {
        self.rows * self.bands
    }
}

/// F3M's adaptive choices for a number of functions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveParams {
    /// `clamp(log10(n)/10 − 0.3, 0.05, 0.4)`.
    pub rd: f64,
    /// Bands needed to find pairs of similarity `rd + 0.1` with probability 0.9.
    pub bands: usize,
    /// Similarity threshold (`= rd`; F3M's ranking distance is `1 − rd`).
    pub threshold: f64,
}

/// F3M's adaptive threshold and band count (notes §2.3).
pub fn adaptive_params(n: usize, rows: usize) -> AdaptiveParams {
    let x = (n.max(1) as f64).log10() / 10.0;
    let rd = (x - 0.3).clamp(0.05, 0.4);
    let p = (rd + 0.1).powi(rows as i32);
    let bands = ((1.0f64 - 0.9).ln() / (1.0 - p).ln()).ceil() as usize;
    AdaptiveParams { rd, bands: bands.max(1), threshold: rd }
}

/// Hasher for keys that are already uniformly distributed 64-bit values.
#[derive(Default, Clone, Copy)]
pub struct PremixedHasher(u64);

impl Hasher for PremixedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not used for u64 keys; fold anything else in a stable way.
        for &b in bytes {
            self.0 = crate::hash::mix64(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Tag bit of a [`BandTable`] slot that refers to a member list instead of holding a key.
const LIST_BIT: u32 = 1 << 31;

/// The buckets of one band: bucket key → members, in insertion order.
///
/// Logically a `HashMap<u64, Vec<FuncKey>>`, but most buckets have a single member (at b = 100
/// and 1M functions, about 70M of them), and a `Vec` each would cost one allocation and ~50 bytes
/// apiece. So the map value is one `u32` slot: a member key, or (with [`LIST_BIT`] set) the index
/// of a member list for buckets of two or more. Keys must therefore stay below 2^31.
#[derive(Clone, Debug, Default)]
struct BandTable {
    slots: HashMap<u64, u32, BuildHasherDefault<PremixedHasher>>,
    lists: Vec<Vec<FuncKey>>,
    free_lists: Vec<u32>,
}

/// Members of one bucket.
enum Members<'a> {
    One(FuncKey),
    Many(&'a [FuncKey]),
}

impl Members<'_> {
    fn len(&self) -> usize {
        match self {
            Members::One(_) => 1,
            Members::Many(v) => v.len(),
        }
    }

    fn for_each(&self, mut f: impl FnMut(FuncKey)) {
        match self {
            Members::One(k) => f(*k),
            Members::Many(v) => v.iter().copied().for_each(f),
        }
    }
}

impl BandTable {
    fn members(&self, slot: u32) -> Members<'_> {
        if slot & LIST_BIT == 0 {
            Members::One(FuncKey(slot))
        } else {
            Members::Many(&self.lists[(slot & !LIST_BIT) as usize])
        }
    }

    fn get(&self, bk: u64) -> Option<Members<'_>> {
        self.slots.get(&bk).map(|&s| self.members(s))
    }

    fn buckets(&self) -> impl Iterator<Item = Members<'_>> {
        self.slots.values().map(|&s| self.members(s))
    }

    fn new_list(&mut self, v: Vec<FuncKey>) -> u32 {
        let i = match self.free_lists.pop() {
            Some(i) => {
                self.lists[i as usize] = v;
                i
            }
            None => {
                self.lists.push(v);
                self.lists.len() as u32 - 1
            }
        };
        assert!(i < LIST_BIT, "too many LSH buckets with several members");
        i | LIST_BIT
    }

    /// Appends `key` to bucket `bk` unless it holds `cap` members; returns whether it was dropped.
    fn push(&mut self, bk: u64, key: FuncKey, cap: usize) -> bool {
        assert!(key.0 < LIST_BIT, "LSH keys must be below 2^31");
        match self.slots.get(&bk).copied() {
            None if cap > 0 => {
                self.slots.insert(bk, key.0);
                false
            }
            None => true,
            Some(s) if s & LIST_BIT == 0 => {
                if cap < 2 {
                    return true;
                }
                let list = self.new_list(vec![FuncKey(s), key]);
                self.slots.insert(bk, list);
                false
            }
            Some(s) => {
                let list = &mut self.lists[(s & !LIST_BIT) as usize];
                if list.len() < cap {
                    list.push(key);
                    false
                } else {
                    true
                }
            }
        }
    }

    /// Removes `key` from bucket `bk` (if it is there), keeping the others' order.
    fn remove(&mut self, bk: u64, key: FuncKey) {
        let Some(s) = self.slots.get(&bk).copied() else { return };
        if s & LIST_BIT == 0 {
            if s == key.0 {
                self.slots.remove(&bk);
            }
            return;
        }
        let i = (s & !LIST_BIT) as usize;
        let list = &mut self.lists[i];
        if let Some(pos) = list.iter().position(|&k| k == key) {
            list.remove(pos);
        }
        if list.len() <= 1 {
            let rest = std::mem::take(list);
            self.free_lists.push(i as u32);
            match rest.first() {
                Some(k) => self.slots.insert(bk, k.0),
                None => self.slots.remove(&bk),
            };
        }
    }

    /// Contents as plain data (tests compare tables built in different ways).
    #[cfg(test)]
    fn contents(&self) -> std::collections::BTreeMap<u64, Vec<FuncKey>> {
        self.slots
            .iter()
            .map(|(&bk, &s)| {
                let mut v = Vec::new();
                self.members(s).for_each(|k| v.push(k));
                (bk, v)
            })
            .collect()
    }
}

/// Counters of an index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LshStats {
    /// Functions stored.
    pub functions: usize,
    /// Non-empty buckets.
    pub buckets: usize,
    /// Memberships refused because a bucket was full.
    pub dropped: u64,
    /// Size of the largest bucket.
    pub largest_bucket: usize,
    /// `Σ len·(len − 1)` over buckets: bucket entries a query of every member visits in total
    /// (before de-duplication); divided by the number of functions, the scan work per query.
    pub bucket_pairs: u64,
}

/// The LSH index.
#[derive(Clone, Debug)]
pub struct LshIndex {
    config: LshConfig,
    /// Signature length, fixed by the first insertion (0 before).
    k: usize,
    /// Signatures, `k` values per key slot (flat: one memory access per scored candidate).
    values: Vec<u32>,
    present: Vec<bool>,
    /// One bucket table per band.
    tables: Vec<BandTable>,
    live: usize,
    dropped: u64,
}

/// Bucket key of band `band` holding `vals`.
#[inline]
fn band_key(band: usize, vals: &[u32]) -> u64 {
    let mut h = StableHasher::with_seed(BAND_SEED);
    h.word(band as u64);
    for &v in vals {
        h.word(u64::from(v));
    }
    h.finish()
}

impl LshIndex {
    pub fn new(config: LshConfig) -> Self {
        assert!(config.rows >= 1 && config.bands >= 1, "need at least one band of one row");
        LshIndex {
            config,
            k: 0,
            values: Vec::new(),
            present: Vec::new(),
            tables: vec![BandTable::default(); config.bands],
            live: 0,
            dropped: 0,
        }
    }

    pub fn config(&self) -> &LshConfig {
        &self.config
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The stored signature values of `key`.
    pub fn signature(&self, key: FuncKey) -> Option<&[u32]> {
        let k = key.0 as usize;
        if self.present.get(k).copied().unwrap_or(false) {
            Some(&self.values[k * self.k..(k + 1) * self.k])
        } else {
            None
        }
    }

    pub fn stats(&self) -> LshStats {
        let buckets = self.tables.iter().flat_map(|t| t.buckets());
        let mut st =
            LshStats { functions: self.live, dropped: self.dropped, ..LshStats::default() };
        for b in buckets {
            st.buckets += 1;
            st.largest_bucket = st.largest_bucket.max(b.len());
            st.bucket_pairs += (b.len() * (b.len() - 1)) as u64;
        }
        st
    }

    /// The `b` bucket keys of a signature (band `i`'s key lives in table `i`).
    pub fn band_keys(&self, sig: &[u32]) -> Vec<u64> {
        let r = self.config.rows;
        assert!(
            sig.len() >= self.config.positions(),
            "signature of {} values is shorter than {} bands x {} rows",
            sig.len(),
            self.config.bands,
            r
        );
        sig[..self.config.positions()]
            .chunks_exact(r)
            .enumerate()
            .map(|(band, vals)| band_key(band, vals))
            .collect()
    }

    /// Stores the signature values of `key` (not its bucket memberships).
    fn store(&mut self, key: FuncKey, sig: &[u32]) {
        if self.k == 0 {
            self.k = sig.len();
        }
        assert_eq!(sig.len(), self.k, "all signatures of one index must have the same length");
        let slot = key.0 as usize;
        if self.present.len() <= slot {
            self.present.resize(slot + 1, false);
            self.values.resize((slot + 1) * self.k, 0);
        }
        self.values[slot * self.k..(slot + 1) * self.k].copy_from_slice(sig);
        self.present[slot] = true;
        self.live += 1;
    }

    /// Adds `key` (replacing an earlier signature of the same key).
    pub fn insert(&mut self, key: FuncKey, sig: Signature) {
        self.remove(key);
        let keys = self.band_keys(&sig.values);
        self.store(key, &sig.values);
        let cap = self.config.bucket_cap;
        for (table, bk) in self.tables.iter_mut().zip(keys) {
            self.dropped += u64::from(table.push(bk, key, cap));
        }
    }

    /// Adds many functions. Band keys are computed in parallel and the band tables are filled in
    /// parallel (one task per band, each in input order), so the result equals inserting the
    /// items one by one.
    pub fn insert_many(&mut self, items: Vec<(FuncKey, Signature)>) {
        let keys: Vec<Vec<u64>> =
            items.par_iter().map(|(_, s)| self.band_keys(&s.values)).collect();
        // Replacements and duplicate keys keep the sequential semantics: insert those one by one.
        let mut seen = vec![false; items.iter().map(|(k, _)| k.0 as usize + 1).max().unwrap_or(0)];
        let fresh = items.iter().all(|(k, _)| {
            let s = &mut seen[k.0 as usize];
            let was = *s;
            *s = true;
            !was && self.signature(*k).is_none()
        });
        if !fresh {
            for (key, sig) in items {
                self.insert(key, sig);
            }
            return;
        }
        for (key, sig) in &items {
            self.store(*key, &sig.values);
        }
        let cap = self.config.bucket_cap;
        let per_band = items.len();
        let dropped: u64 = self
            .tables
            .par_iter_mut()
            .enumerate()
            .map(|(band, table)| {
                table.slots.reserve(per_band);
                let mut dropped = 0u64;
                for ((key, _), ks) in items.iter().zip(&keys) {
                    dropped += u64::from(table.push(ks[band], *key, cap));
                }
                dropped
            })
            .sum();
        self.dropped += dropped;
    }

    /// Removes `key`; returns whether it was present.
    pub fn remove(&mut self, key: FuncKey) -> bool {
        let Some(sig) = self.signature(key) else {
            return false;
        };
        let keys = self.band_keys(sig);
        for (table, bk) in self.tables.iter_mut().zip(keys) {
            table.remove(bk, key);
        }
        self.present[key.0 as usize] = false;
        self.live -= 1;
        true
    }

    /// Candidates for arbitrary signature values (`exclude` is never returned).
    pub fn query_signature(
        &self,
        sig: &[u32],
        exclude: Option<FuncKey>,
        limit: usize,
        accept: &dyn Fn(FuncKey) -> bool,
    ) -> Vec<Candidate> {
        // Each member once, in the order first met (a bit per stored key instead of sorting
        // every bucket entry: the order does not matter, `best_first` orders totally).
        let mut seen = vec![0u64; self.present.len().div_ceil(64)];
        let mut found: Vec<FuncKey> = Vec::new();
        for (table, bk) in self.tables.iter().zip(self.band_keys(sig)) {
            if let Some(bucket) = table.get(bk) {
                bucket.for_each(|k| {
                    let (word, bit) = (k.0 as usize / 64, k.0 % 64);
                    if seen[word] >> bit & 1 == 0 && Some(k) != exclude {
                        seen[word] |= 1 << bit;
                        found.push(k);
                    }
                });
            }
        }
        found.retain(|&k| accept(k));
        let threshold = self.config.threshold;
        let score = |&k: &FuncKey| {
            let score = similarity(sig, self.signature(k)?);
            (score > threshold).then_some(Candidate { key: k, score })
        };
        // Many candidates are scored on every core (scores are pure, and `best_first` orders
        // them totally, so the result does not depend on how the work was split).
        if found.len() >= PARALLEL_SCORING {
            return best_first(found.par_iter().filter_map(score).collect(), limit);
        }
        // Touch the first value of every candidate before scoring any: the loads are independent,
        // so their cache misses overlap instead of being paid one after another (scoring is
        // memory-bound once the signatures outgrow the caches).
        let mut touch = 0u32;
        for &k in &found {
            if let Some(s) = self.signature(k) {
                touch ^= s.first().copied().unwrap_or(0);
            }
        }
        std::hint::black_box(touch);
        best_first(found.iter().filter_map(score).collect(), limit)
    }

    /// Candidates of a stored function, best first.
    pub fn query(&self, key: FuncKey, limit: usize) -> Vec<Candidate> {
        self.candidates(key, limit, &|_| true)
    }

    /// Queries every stored function once, in parallel; results in key order.
    pub fn query_all(&self, limit: usize) -> Vec<(FuncKey, Vec<Candidate>)> {
        (0..self.present.len())
            .into_par_iter()
            .filter_map(|k| {
                let key = FuncKey(k as u32);
                let sig = self.signature(key)?;
                Some((key, self.query_signature(sig, Some(key), limit, &|_| true)))
            })
            .collect()
    }
}

impl CandidateSearch for LshIndex {
    type Summary = Signature;

    fn insert(&mut self, key: FuncKey, sig: Signature) {
        LshIndex::insert(self, key, sig);
    }

    fn remove(&mut self, key: FuncKey) -> bool {
        LshIndex::remove(self, key)
    }

    fn candidates(
        &self,
        key: FuncKey,
        limit: usize,
        accept: &dyn Fn(FuncKey) -> bool,
    ) -> Vec<Candidate> {
        match self.signature(key) {
            Some(sig) => self.query_signature(sig, Some(key), limit, accept),
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minhash::{MinHashConfig, MinHasher};

    /// Deterministic pseudo-random sequence over a large alphabet.
    fn random_seq(seed: u64, len: usize) -> Vec<u32> {
        (0..len as u64).map(|i| crate::hash::mix64(seed * 1_000_003 + i) as u32).collect()
    }

    fn mutate(seq: &[u32], every: usize, salt: u32) -> Vec<u32> {
        seq.iter()
            .enumerate()
            .map(|(i, &x)| if i % every == every - 1 { x ^ salt } else { x })
            .collect()
    }

    #[test]
    fn adaptive_parameters_match_the_paper() {
        // F3M §III-D: 100 bands below ~5k functions, 57 at 10k, 25 at 100k, 14 at 1M.
        let p = |n| adaptive_params(n, 2);
        assert_eq!(p(1000).rd, 0.05);
        assert!(p(1000).bands >= 100);
        assert_eq!(p(10_000).bands, 57);
        assert_eq!(p(100_000).bands, 25);
        assert_eq!(p(1_000_000).bands, 14);
        assert!((p(1_000_000).threshold - 0.3).abs() < 1e-9);
        assert_eq!(p(10usize.pow(9)).rd, 0.4);
        assert_eq!(p(0).rd, 0.05);
        let c = LshConfig::default().adapted_to(1000);
        assert_eq!(c.bands, 100, "adaptive bands only ever lower the count");
        assert_eq!(LshConfig::default().adapted_to(100_000).bands, 25);
    }

    #[test]
    fn lsh_finds_near_duplicates_and_not_strangers() {
        let mh = MinHasher::new(MinHashConfig::default());
        let mut idx = LshIndex::new(LshConfig::default());
        let base = random_seq(1, 60);
        // 0: base; 1: 1 in 20 changed; 2: 1 in 4 changed; 3..40: unrelated.
        idx.insert(FuncKey(0), mh.signature(&base));
        idx.insert(FuncKey(1), mh.signature(&mutate(&base, 20, 0xffff)));
        idx.insert(FuncKey(2), mh.signature(&mutate(&base, 4, 0xffff)));
        for k in 3..40 {
            idx.insert(FuncKey(k), mh.signature(&random_seq(u64::from(k) + 100, 60)));
        }
        let c = idx.query(FuncKey(0), 10);
        let keys: Vec<u32> = c.iter().map(|c| c.key.0).collect();
        assert_eq!(keys, vec![1, 2], "closest first, no strangers, no self");
        assert!(c[0].score > 0.7 && c[1].score > 0.2 && c[0].score > c[1].score);
        assert!(idx.query(FuncKey(7), 10).is_empty(), "a stranger has no candidates");
        assert_eq!(idx.query(FuncKey(0), 1).len(), 1);
    }

    #[test]
    fn threshold_filters_weak_candidates() {
        let mh = MinHasher::new(MinHashConfig::default());
        let base = random_seq(9, 60);
        let cfg = LshConfig { threshold: 0.5, ..LshConfig::default() };
        let mut idx = LshIndex::new(cfg);
        idx.insert(FuncKey(0), mh.signature(&base));
        idx.insert(FuncKey(1), mh.signature(&mutate(&base, 20, 1)));
        idx.insert(FuncKey(2), mh.signature(&mutate(&base, 3, 1)));
        let keys: Vec<u32> = idx.query(FuncKey(0), 10).iter().map(|c| c.key.0).collect();
        assert_eq!(keys, vec![1]);
    }

    #[test]
    fn remove_and_reinsert_keep_buckets_consistent() {
        let mh = MinHasher::new(MinHashConfig::default());
        let mut idx = LshIndex::new(LshConfig::default());
        let s = mh.signature(&random_seq(3, 30));
        idx.insert(FuncKey(0), s.clone());
        idx.insert(FuncKey(1), s.clone());
        idx.insert(FuncKey(2), s.clone());
        assert_eq!(idx.stats().buckets, 100);
        assert!(idx.remove(FuncKey(1)));
        assert!(!idx.remove(FuncKey(1)));
        let keys: Vec<u32> = idx.query(FuncKey(0), 10).iter().map(|c| c.key.0).collect();
        assert_eq!(keys, vec![2]);
        assert!(idx.query(FuncKey(1), 10).is_empty(), "removed keys are not queryable");
        idx.remove(FuncKey(0));
        idx.remove(FuncKey(2));
        assert_eq!(idx.stats(), LshStats::default());
        // Re-inserting a key replaces its old signature instead of filing it twice.
        idx.insert(FuncKey(5), s.clone());
        idx.insert(FuncKey(5), s);
        assert_eq!(idx.len(), 1);
        assert_eq!(idx.stats().largest_bucket, 1);
    }

    #[test]
    fn bucket_cap_bounds_bucket_size_and_counts_drops() {
        let mh = MinHasher::new(MinHashConfig::default());
        let s = mh.signature(&random_seq(4, 30));
        let mut idx = LshIndex::new(LshConfig { bucket_cap: 3, ..LshConfig::default() });
        for k in 0..5 {
            idx.insert(FuncKey(k), s.clone());
        }
        let st = idx.stats();
        assert_eq!(st.largest_bucket, 3);
        assert_eq!(st.bucket_pairs, 100 * 3 * 2);
        assert_eq!(st.dropped, 200);
        // Key 4 is in no bucket but can still query: it finds the first three.
        let keys: Vec<u32> = idx.query(FuncKey(4), 10).iter().map(|c| c.key.0).collect();
        assert_eq!(keys, vec![0, 1, 2]);
        // Removing a dropped key touches nothing else.
        assert!(idx.remove(FuncKey(4)));
        assert_eq!(idx.query(FuncKey(0), 10).len(), 2);
    }

    #[test]
    fn insert_many_and_query_all_equal_the_sequential_versions() {
        let mh = MinHasher::new(MinHashConfig::default());
        let base = random_seq(11, 40);
        let items: Vec<(FuncKey, Signature)> = (0..60u32)
            .map(|k| {
                let seq = if k % 3 == 0 {
                    random_seq(u64::from(k), 40)
                } else {
                    mutate(&base, 2 + k as usize % 7, k)
                };
                (FuncKey(k), mh.signature(&seq))
            })
            .collect();
        let cfg = LshConfig { bucket_cap: 10, ..LshConfig::default() };
        let mut a = LshIndex::new(cfg);
        let mut b = LshIndex::new(cfg);
        for (k, s) in items.clone() {
            a.insert(k, s);
        }
        b.insert_many(items.clone());
        assert_eq!(a.stats(), b.stats());
        assert!(a.stats().dropped > 0, "the cap must matter for this test to mean something");
        let contents = |x: &LshIndex| x.tables.iter().map(BandTable::contents).collect::<Vec<_>>();
        assert_eq!(contents(&a), contents(&b), "same bucket members in the same order");
        assert_eq!(a.values, b.values);
        // Replacing existing keys and repeating a key inside one batch behave like sequential
        // inserts too.
        let again: Vec<(FuncKey, Signature)> = vec![
            (FuncKey(3), items[4].1.clone()),
            (FuncKey(70), items[5].1.clone()),
            (FuncKey(70), items[6].1.clone()),
        ];
        for (k, s) in again.clone() {
            a.insert(k, s);
        }
        b.insert_many(again);
        assert_eq!(contents(&a), contents(&b));
        assert_eq!(a.values, b.values);
        assert_eq!(a.len(), 61);
        assert_eq!(b.len(), 61);
        let all = b.query_all(5);
        assert_eq!(all.len(), 61);
        for (k, c) in &all {
            assert_eq!(c, &a.query(*k, 5));
            assert!(
                c.windows(2).all(|w| w[0].score > w[1].score
                    || (w[0].score == w[1].score && w[0].key < w[1].key))
            );
        }
    }

    #[test]
    fn band_table_moves_between_inline_and_list_buckets_in_order() {
        let mut t = BandTable::default();
        let c = |t: &BandTable| t.contents().into_iter().collect::<Vec<_>>();
        assert!(!t.push(7, FuncKey(1), 3));
        assert_eq!(t.lists.len(), 0, "a single member needs no list");
        assert!(!t.push(7, FuncKey(2), 3));
        assert!(!t.push(7, FuncKey(3), 3));
        assert!(t.push(7, FuncKey(4), 3), "full");
        assert_eq!(c(&t), vec![(7, vec![FuncKey(1), FuncKey(2), FuncKey(3)])]);
        t.remove(7, FuncKey(2));
        assert_eq!(c(&t), vec![(7, vec![FuncKey(1), FuncKey(3)])]);
        t.remove(7, FuncKey(9)); // absent: no change
        t.remove(7, FuncKey(1));
        assert_eq!(c(&t), vec![(7, vec![FuncKey(3)])]);
        assert_eq!(t.free_lists, vec![0], "back to inline, the list is recycled");
        assert!(!t.push(8, FuncKey(5), 3));
        assert!(!t.push(8, FuncKey(6), 3));
        assert_eq!(t.lists.len(), 1, "the free list was reused");
        t.remove(7, FuncKey(3));
        t.remove(8, FuncKey(5));
        t.remove(8, FuncKey(6));
        assert!(c(&t).is_empty());
        // Caps of 0 and 1.
        assert!(t.push(1, FuncKey(1), 0));
        assert!(!t.push(1, FuncKey(1), 1));
        assert!(t.push(1, FuncKey(2), 1));
        assert_eq!(c(&t), vec![(1, vec![FuncKey(1)])]);
    }

    #[test]
    fn fewer_bands_use_a_prefix_of_the_signature() {
        let mh = MinHasher::new(MinHashConfig::default());
        let idx = LshIndex::new(LshConfig { bands: 14, ..LshConfig::default() });
        let s = mh.signature(&random_seq(5, 20));
        assert_eq!(idx.band_keys(&s.values).len(), 14);
        let mut t = s.clone();
        t.values[100] ^= 1; // outside the 28 banded positions
        assert_eq!(idx.band_keys(&s.values), idx.band_keys(&t.values));
        t.values[27] ^= 1; // inside
        assert_ne!(idx.band_keys(&s.values), idx.band_keys(&t.values));
    }
}
