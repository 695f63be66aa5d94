//! Confirming merge decisions by generating code.
//!
//! The functions in question are copied into a module of their own (everything else becomes a
//! declaration), compiled in-process, and read back symbol by symbol. Many decisions are
//! measured with one compilation: callers gather all candidates first.

use fmerge_llvm::target::measure_bitcode_as_made;
use fmerge_llvm::{Function, Module, ModuleBytes, Result, Target};
use std::collections::BTreeMap;

/// Machine-code bytes of each function in `fns`, compiled on its own for `target`.
pub struct Sizes {
    by_symbol: BTreeMap<String, u64>,
}

impl Sizes {
    /// Sizes of the modules `bitcode` yields ([`subsets_as_bitcode`], of one module or
    /// several), compiled on up to `jobs` threads while the next ones are being made, one
    /// result per entry.
    pub fn of_bitcode(
        target: &Target,
        bitcode: impl IntoIterator<Item = Result<ModuleBytes>>,
        jobs: usize,
    ) -> Vec<Result<Sizes>> {
        measure_bitcode_as_made(target, jobs, bitcode)
            .into_iter()
            .map(|r| r.map(|report| Sizes { by_symbol: report.functions }))
            .collect()
    }

    /// Sizes read off a compiled object's function symbols.
    pub fn from_symbols(by_symbol: BTreeMap<String, u64>) -> Sizes {
        Sizes { by_symbol }
    }

    /// Bytes of function `name` (Mach-O symbols carry a leading underscore).
    pub fn get(&self, name: &str) -> Option<u64> {
        crate::guard::symbol_size(&self.by_symbol, name)
    }

    /// Bytes of every function symbol measured.
    pub fn by_symbol(&self) -> &BTreeMap<String, u64> {
        &self.by_symbol
    }

    /// Sum over `names`; `None` if any is missing.
    pub fn total<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Option<u64> {
        names.into_iter().map(|n| self.get(n)).sum()
    }
}

/// Each group of functions of `module` copied into a module subset of its own, as bitcode,
/// made as the result is iterated (on this thread: the module's context is not thread safe).
/// A subset that does not verify is reported as an error (and would crash LLVM's bitcode
/// writer), never written.
pub fn subsets_as_bitcode<'a>(
    module: &'a Module<'_>,
    groups: &'a [&'a [Function<'a>]],
) -> impl Iterator<Item = Result<ModuleBytes>> + 'a {
    groups.iter().map(|fns| {
        let subset = module.subset(fns)?;
        let v = subset.verify();
        if let (Err(e), Some(_)) = (&v, std::env::var_os("FMERGE_DEBUG_MEASURE")) {
            eprintln!("measure: subset does not verify: {e}");
        }
        v.and_then(|()| subset.to_bitcode())
    })
}

/// `fns` split into at most `n` groups of about as many instructions each (the largest
/// function first into the lightest group), so that compiling them in parallel keeps every
/// thread busy. Deterministic; the grouping never changes a size.
pub fn balanced_groups<'m>(fns: &[Function<'m>], n: usize) -> Vec<Vec<Function<'m>>> {
    let n = n.clamp(1, fns.len().max(1));
    let mut sized: Vec<(usize, usize)> =
        fns.iter().enumerate().map(|(k, f)| (f.instruction_count(), k)).collect();
    sized.sort_by(|a, b| b.cmp(a));
    let mut groups: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); n];
    for (size, k) in sized {
        let lightest = (0..n).min_by_key(|&g| (groups[g].0, g)).expect("n >= 1");
        groups[lightest].0 += size;
        groups[lightest].1.push(k);
    }
    groups
        .into_iter()
        .filter(|(_, ks)| !ks.is_empty())
        .map(|(_, mut ks)| {
            ks.sort_unstable();
            ks.into_iter().map(|k| fns[k]).collect()
        })
        .collect()
}

/// Machine-code sizes of original functions already measured, keyed by name and instruction
/// count (so a function that changed, or a new function that took a freed name, is measured
/// again). Callers also forget a name when they change its function.
#[derive(Default)]
pub struct SizeCache {
    bytes: std::collections::HashMap<(String, usize), u64>,
}

/// A function as [`SizeCache`] knows it (name and instruction count).
#[derive(Clone)]
pub struct CacheKey((String, usize));

fn cache_key(f: Function<'_>) -> (String, usize) {
    (f.name(), f.blocks().iter().map(|b| b.instructions().len()).sum())
}

impl SizeCache {
    pub fn get(&self, f: Function<'_>) -> Option<u64> {
        self.bytes.get(&cache_key(f)).copied()
    }

    pub fn insert(&mut self, f: Function<'_>, bytes: u64) {
        self.bytes.insert(cache_key(f), bytes);
    }

    /// What `f` is cached under as it is now (see [`SizeCache::insert_as`]).
    pub fn key(f: Function<'_>) -> CacheKey {
        CacheKey(cache_key(f))
    }

    /// Caches the bytes of a function as it was when `key` was taken (it may have changed
    /// since: it is then measured again when asked for as it is).
    pub fn insert_as(&mut self, key: CacheKey, bytes: u64) {
        self.bytes.insert(key.0, bytes);
    }

    pub fn forget(&mut self, name: &str) {
        self.bytes.retain(|(n, _), _| n != name);
    }
}
