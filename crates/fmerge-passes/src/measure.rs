//! Confirming merge decisions by generating code.
//!
//! The functions in question are copied into a module of their own (everything else becomes a
//! declaration), compiled in-process, and read back symbol by symbol. Many decisions are
//! measured with one compilation: callers gather all candidates first.

use fmerge_llvm::target::measure_object;
use fmerge_llvm::{Module, Result, Target, Value};
use std::collections::BTreeMap;

/// Machine-code bytes of each function in `fns`, compiled on its own for `target`.
pub struct Sizes {
    by_symbol: BTreeMap<String, u64>,
}

impl Sizes {
    pub fn of(module: &Module<'_>, target: &Target, fns: &[Value<'_>]) -> Result<Sizes> {
        if fns.is_empty() {
            return Ok(Sizes { by_symbol: BTreeMap::new() });
        }
        let subset = module.subset(fns);
        if let Some(dir) = std::env::var_os("FMERGE_DEBUG_SUBSETS") {
            static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let _ = std::fs::write(
                std::path::Path::new(&dir).join(format!("subset{n}.bc")),
                subset.to_bitcode(),
            );
        }
        let obj = target.emit_object_consuming(subset)?;
        Ok(Sizes { by_symbol: measure_object(&obj)?.functions })
    }

    /// Bytes of function `name` (Mach-O symbols carry a leading underscore).
    pub fn get(&self, name: &str) -> Option<u64> {
        self.by_symbol.get(name).or_else(|| self.by_symbol.get(&format!("_{name}"))).copied()
    }

    /// Sum over `names`; `None` if any is missing.
    pub fn total<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Option<u64> {
        names.into_iter().map(|n| self.get(n)).sum()
    }
}
