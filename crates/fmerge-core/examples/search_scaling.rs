//! Scaling of the LSH candidate search: for n = 1k, 10k, 100k, 1M synthetic functions (families of
//! similar sequences, see `benches/common/synth.rs`), compute MinHash signatures, build the index
//! and query every function once; print seconds and seconds per function per phase, so the growth
//! can be checked for near-linearity.
//!
//! Usage: `cargo run --release -p fmerge-core --example search_scaling [-- [--fixed] [N ...]]`
//! (`--fixed` uses F3M's static b = 100, threshold 0 instead of the adaptive parameters).

#[path = "../benches/common/synth.rs"]
mod synth;

use fmerge_core::lsh::{LshConfig, LshIndex};
use fmerge_core::minhash::{MinHashConfig, MinHasher, Signature};
use fmerge_core::rank::FuncKey;
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fixed = args.iter().any(|a| a == "--fixed");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000, 100_000, 1_000_000];
    }
    println!(
        "threads: {}, mode: {}",
        rayon::current_num_threads(),
        if fixed { "fixed b=100, t=0" } else { "adaptive (F3M)" }
    );
    println!(
        "| n | bands | threshold | signatures s | index s | query s | index+query s | index+query µs/fn | buckets | largest | dropped | scans/query | avg cands | top-1 in family |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let w = synth::families(n, 0x5eed_0000 + n as u64);
        let mh = MinHasher::new(MinHashConfig::default());
        let t0 = Instant::now();
        let sigs: Vec<Signature> = w.seqs.par_iter().map(|s| mh.signature(s)).collect();
        let t_sig = t0.elapsed().as_secs_f64();
        let cfg = if fixed { LshConfig::default() } else { LshConfig::default().adapted_to(n) };
        let t1 = Instant::now();
        let mut idx = LshIndex::new(cfg);
        idx.insert_many(
            sigs.into_iter().enumerate().map(|(k, s)| (FuncKey(k as u32), s)).collect(),
        );
        let t_index = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let res = idx.query_all(10);
        let t_query = t2.elapsed().as_secs_f64();
        // Quality: of the functions whose family has other members, how many get a family member
        // as their best candidate.
        let mut fam_size = std::collections::HashMap::new();
        for &f in &w.family {
            *fam_size.entry(f).or_insert(0usize) += 1;
        }
        let (mut eligible, mut hit, mut cands) = (0usize, 0usize, 0usize);
        for (k, c) in &res {
            cands += c.len();
            let f = w.family[k.0 as usize];
            if fam_size[&f] > 1 {
                eligible += 1;
                if c.first().is_some_and(|b| w.family[b.key.0 as usize] == f) {
                    hit += 1;
                }
            }
        }
        let st = idx.stats();
        let iq = t_index + t_query;
        println!(
            "| {n} | {} | {:.2} | {t_sig:.3} | {t_index:.3} | {t_query:.3} | {iq:.3} | {:.2} | {} | {} | {} | {:.1} | {:.2} | {:.1}% |",
            cfg.bands,
            cfg.threshold,
            iq / n as f64 * 1e6,
            st.buckets,
            st.largest_bucket,
            st.dropped,
            st.bucket_pairs as f64 / n as f64,
            cands as f64 / n as f64,
            100.0 * hit as f64 / eligible.max(1) as f64,
        );
    }
}
