//! What `cargo fmerge` tells its user: `.text` before and after, time, and where the bytes
//! came from by crate.
//!
//! `.text` is measured on the linked binaries (the sum of the sections named `.text*`, as
//! `llvm-size -A` lists them), read with the `object` crate. The bytes saved by crate come
//! from fmerge's report: each merge's saving (measured when fmerge compiled it, else its
//! estimate) is split over the functions it merged away, and each function belongs to the
//! crate its demangled name starts with (`<alloc::vec::Vec<T> as core::ops::Drop>::drop` to
//! `alloc`, as cargo-bloat does); names that are not Rust symbols go to `[other]`. Merges the
//! size guard undid count for nothing. These are fmerge's per-merge figures for the merged
//! functions alone, so they add up to less than the measured difference in `.text` (on fd,
//! 62% of it).

use crate::plan::{CrateSaving, Note, Record};
use anyhow::{Context, Result};
use object::{Object, ObjectSection};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `.text` bytes of a linked binary or object file.
pub fn text_bytes(path: &Path) -> Result<u64> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = object::File::parse(&*data)
        .with_context(|| format!("{} is not an object file or binary", path.display()))?;
    Ok(file
        .sections()
        .filter(|s| s.name().is_ok_and(|n| n.starts_with(".text")))
        .map(|s| s.size())
        .sum())
}

/// The crate a function belongs to, from its symbol name.
pub fn crate_of(symbol: &str) -> String {
    let Ok(demangled) = rustc_demangle::try_demangle(symbol) else {
        return "[other]".to_string();
    };
    let text = format!("{demangled:#}");
    // The first path in the name: `core` in `<u32 as core::fmt::Display>::fmt`.
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    for (at, _) in text.match_indices("::") {
        let before = &text[..at];
        let start = before.rfind(|c: char| !is_ident(c)).map_or(0, |k| k + 1);
        if start < at {
            return before[start..].to_string();
        }
    }
    "[other]".to_string()
}

/// What one fmerge report says was merged.
pub struct Merged {
    pub merges: usize,
    pub functions: usize,
    pub by_crate: Vec<CrateSaving>,
}

/// Reads fmerge's JSON report (`fmerge opt --report`).
pub fn read_merges(path: &Path) -> Result<Merged> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let report: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok(merges_of(&report))
}

fn merges_of(report: &Value) -> Merged {
    let guard = &report["guard"];
    if guard["kept_input"].as_bool() == Some(true) {
        return Merged { merges: 0, functions: 0, by_crate: Vec::new() };
    }
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    // Merges the guard undid, by their functions.
    let vetoed: HashSet<Vec<String>> = guard["vetoed"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|unit| unit["originals"].as_array().into_iter().flatten().map(strings))
        .collect();
    let mut by_crate: BTreeMap<String, (i64, usize)> = BTreeMap::new();
    let (mut merges, mut functions) = (0, 0);
    for m in report["merges"].as_array().into_iter().flatten() {
        if vetoed.contains(&strings(&m["originals"])) {
            continue;
        }
        let members: Vec<&str> = m["members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x["name"].as_str())
            .collect();
        if members.is_empty() {
            continue;
        }
        merges += 1;
        functions += members.len();
        let saving = m["measured_saving"].as_i64().or(m["estimated_saving"].as_i64()).unwrap_or(0);
        let n = members.len() as i64;
        for (k, name) in members.iter().enumerate() {
            let share = saving / n + if (k as i64) < saving % n { 1 } else { 0 };
            let e = by_crate.entry(crate_of(name)).or_default();
            e.0 += share;
            e.1 += 1;
        }
    }
    let mut by_crate: Vec<CrateSaving> = by_crate
        .into_iter()
        .map(|(krate, (bytes, functions))| CrateSaving { krate, bytes, functions })
        .collect();
    by_crate.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.krate.cmp(&b.krate)));
    Merged { merges, functions, by_crate }
}

/// One binary in the report: its record and where cargo put it.
#[derive(Clone, Debug, Serialize)]
pub struct Binary {
    /// Where cargo put it (`target/release/NAME`), or rustc's output when cargo did not say.
    pub path: PathBuf,
    /// Up to date: merged by an earlier `cargo fmerge` run, not linked again now.
    pub fresh: bool,
    #[serde(flatten)]
    pub record: Record,
}

/// The whole report (`--json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub binaries: Vec<Binary>,
    /// Binaries cargo found up to date that no `cargo fmerge` run merged.
    pub not_merged: Vec<PathBuf>,
    /// Libraries of the selected packages that are not whole programs.
    pub libraries: Vec<Note>,
}

fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// How many crates the table shows before "others".
const TOP_CRATES: usize = 8;

/// The report for people.
pub fn human(summary: &Summary, cwd: &Path) -> String {
    let mut s = String::new();
    for b in &summary.binaries {
        let r = &b.record;
        let path = b.path.strip_prefix(cwd).unwrap_or(&b.path);
        let saved = r.text_before as i64 - r.text_after as i64;
        let pct = if r.text_before > 0 { 100.0 * saved as f64 / r.text_before as f64 } else { 0.0 };
        let _ =
            writeln!(s, "fmerge: {}{}", path.display(), if b.fresh { " (up to date)" } else { "" });
        let _ = writeln!(
            s,
            "  .text {} -> {} bytes ({}, -{pct:.2}%) against fat LTO; {} merges of {} functions \
             in {:.1} s",
            thousands(r.text_before as i64),
            thousands(r.text_after as i64),
            thousands(-saved),
            r.merges,
            r.functions_merged,
            r.seconds
        );
        if r.kept_fat_lto {
            let _ =
                writeln!(s, "  the merged binary was not smaller: rustc's fat-LTO binary was kept");
        }
        if !r.by_crate.is_empty() {
            let _ = writeln!(s, "  bytes saved by crate (fmerge's figures per merge):");
            for c in r.by_crate.iter().take(TOP_CRATES) {
                let _ = writeln!(
                    s,
                    "    {:>10}  {:<28} {} functions",
                    thousands(c.bytes),
                    c.krate,
                    c.functions
                );
            }
            let rest = &r.by_crate[r.by_crate.len().min(TOP_CRATES)..];
            if !rest.is_empty() {
                let bytes: i64 = rest.iter().map(|c| c.bytes).sum();
                let functions: usize = rest.iter().map(|c| c.functions).sum();
                let label = format!("{} other crates", rest.len());
                let _ =
                    writeln!(s, "    {:>10}  {label:<28} {functions} functions", thousands(bytes));
            }
        }
    }
    for p in &summary.not_merged {
        let path = p.strip_prefix(cwd).unwrap_or(p);
        let _ = writeln!(
            s,
            "fmerge: {} is up to date from a build without fmerge and was left as it is \
             (touch a source file of its crate, or `cargo clean -p PACKAGE`, to merge it)",
            path.display()
        );
    }
    if summary.binaries.is_empty() && summary.not_merged.is_empty() && summary.libraries.is_empty()
    {
        let _ = writeln!(
            s,
            "fmerge: no program was linked (cargo fmerge merges binaries, examples and test \
             harnesses)"
        );
    }
    for n in &summary.libraries {
        let _ = writeln!(
            s,
            "fmerge: `{}` is a {} and was built with fat LTO only: its exported functions are \
             called from outside, so it is not a whole program (see `cargo fmerge --help`)",
            n.crate_name, n.crate_type
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crates_of_rust_symbols() {
        // Legacy and v0 manglings, impls, and a C name.
        assert_eq!(crate_of("_ZN4core3fmt5write17h0123456789abcdefE"), "core");
        assert_eq!(
            crate_of(
                "_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0123456789abcdefE"
            ),
            "alloc"
        );
        assert_eq!(crate_of("_RNvNtCsgEmfK2I1SDS_4core9panicking18panic_bounds_check"), "core");
        assert_eq!(
            crate_of("_RNvXs8_NtNtNtCsgEmfK2I1SDS_4core3fmt3num3impmNtB9_7Display3fmt"),
            "core"
        );
        assert_eq!(crate_of("main"), "[other]");
        assert_eq!(crate_of("memcpy"), "[other]");
    }

    #[test]
    fn savings_split_over_members_and_vetoed_merges_count_nothing() {
        let report = serde_json::json!({
            "merges": [
                {"originals": ["a", "b", "c"], "members": [
                    {"name": "_ZN4core3fmt5write17h0123456789abcdefE", "disposal": "erased"},
                    {"name": "_ZN3std2io5write17h0123456789abcdefE", "disposal": "thunk"}],
                 "estimated_saving": 101, "measured_saving": null},
                {"originals": ["d", "e"], "members": [{"name": "memcpy", "disposal": "erased"}],
                 "estimated_saving": 50, "measured_saving": 40},
                {"originals": ["f", "g"], "members": [{"name": "x", "disposal": "erased"}],
                 "estimated_saving": 70, "measured_saving": null}
            ],
            "guard": {"kept_input": false, "vetoed": [{"originals": [["f", "g"]]}]}
        });
        let m = merges_of(&report);
        assert_eq!((m.merges, m.functions), (2, 3));
        let get = |k: &str| m.by_crate.iter().find(|c| c.krate == k).map(|c| c.bytes);
        assert_eq!((get("core"), get("std"), get("[other]")), (Some(51), Some(50), Some(40)));
        assert_eq!(m.by_crate[0].krate, "core");
    }

    #[test]
    fn numbers_have_thousands_separators() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-999), "-999");
        assert_eq!(thousands(-1000), "-1,000");
    }
}
