//! Criterion benchmarks of the search and alignment kernels on synthetic data: MinHash signature,
//! LSH build + query of every function (1k and 10k functions), exhaustive fingerprint ranking
//! (1k functions) and Needleman–Wunsch. The 100k/1M scaling table comes from
//! `examples/search_scaling.rs` (criterion's repetitions would take too long there).

mod common;

use common::synth;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fmerge_core::align::{DEFAULT_MAX_CELLS, needleman_wunsch};
use fmerge_core::fingerprint::OpcodeTypeFingerprint;
use fmerge_core::lsh::{LshConfig, LshIndex};
use fmerge_core::minhash::{MinHashConfig, MinHasher, Signature};
use fmerge_core::rank::{CandidateSearch, ExhaustiveRanking, FuncKey};
use std::hint::black_box;
use std::time::Duration;

fn bench_minhash(c: &mut Criterion) {
    let w = synth::families(1, 1);
    let mh = MinHasher::new(MinHashConfig::default());
    let seq: Vec<u32> = w.seqs[0].iter().cycle().take(50).copied().collect();
    c.bench_function("minhash/signature_len50_k200", |b| b.iter(|| mh.signature(black_box(&seq))));
}

fn bench_lsh(c: &mut Criterion) {
    let mut g = c.benchmark_group("lsh/build_and_query_all");
    for n in [1_000usize, 10_000] {
        let w = synth::families(n, 7);
        let mh = MinHasher::new(MinHashConfig::default());
        let sigs: Vec<Signature> = w.seqs.iter().map(|s| mh.signature(s)).collect();
        let cfg = LshConfig::default().adapted_to(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &sigs, |b, sigs| {
            b.iter(|| {
                let mut idx = LshIndex::new(cfg);
                let items = sigs.iter().cloned().enumerate().map(|(k, s)| (FuncKey(k as u32), s));
                idx.insert_many(items.collect());
                black_box(idx.query_all(10))
            })
        });
    }
    g.finish();
}

fn bench_exhaustive(c: &mut Criterion) {
    let n = 1_000usize;
    let w = synth::families(n, 9);
    let mut r = ExhaustiveRanking::new();
    for (k, s) in w.seqs.iter().enumerate() {
        // Use the low bits of each encoding as an "opcode" and the next as a "type".
        let pairs: Vec<(u32, u64)> =
            s.iter().map(|&x| (x % 64, u64::from((x >> 8) % 16))).collect();
        r.insert(FuncKey(k as u32), OpcodeTypeFingerprint::from_pairs(&pairs));
    }
    c.bench_function("rank/exhaustive_query_all_1k", |b| {
        b.iter(|| {
            for k in 0..n as u32 {
                black_box(r.candidates(FuncKey(k), 10, &|_| true));
            }
        })
    });
}

fn bench_nw(c: &mut Criterion) {
    let w = synth::families(2, 3);
    let a: Vec<u32> = w.seqs[0].iter().cycle().take(200).copied().collect();
    let b: Vec<u32> = w.seqs[1].iter().cycle().take(200).copied().collect();
    c.bench_function("align/nw_200x200", |bch| {
        bch.iter(|| needleman_wunsch(a.len(), b.len(), DEFAULT_MAX_CELLS, |i, j| a[i] == b[j]))
    });
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_minhash, bench_lsh, bench_exhaustive, bench_nw
}
criterion_main!(benches);
