//! Global merging inside the build's own backends: the two rounds of `fmerge summarize` →
//! `fmerge combine` → `fmerge apply`, run by the plugin in every module it sees (each backend
//! of a ThinLTO link, in-process or distributed, or each compile), so that a build system
//! needs no new steps, only two options:
//!
//! - `-fmerge-summary-dir=DIR` (round 1): the module's summary, as `fmerge summarize` writes
//!   it, goes to `DIR/<hash of the module's identifier>-<process id>.fms`. Backends run in
//!   parallel threads of one linker (different identifiers) or in parallel processes on
//!   several machines (different process ids, or different identifiers); each file is written
//!   atomically (a temporary name, then a rename), so `fmerge combine DIR` never reads half a
//!   file.
//! - `-fmerge-global-info=FILE` (round 2): `fmerge combine`'s merge information is applied to
//!   the module as `fmerge apply` does, before the module's own merging runs.
//!   Inside an in-process link the plugin reads the linker's command line: without
//!   `--gc-sections` the link keeps every backend's copy of a shared function, which matters
//!   for copies with exception tables (see `fmerge_passes::global::Sharing`). A distributed
//!   backend's object goes to an ordinary link, which keeps one copy of each (comdats), so
//!   there such copies are made: without `--gc-sections` a distributed build can be smaller
//!   than the in-process one; with it both give the same bytes.
//!
//! With both, the summary describes the module before the information is applied, which is
//! what the next round's information must be computed from: a build can refresh the
//! information now and then while applying the previous one. Information from an older build
//! never changes behaviour: `apply` recomputes every hash and compares every body before
//! using an entry.
//!
//! Both steps run after the module's own merging, on the module as that leaves it (as `fmerge
//! opt` runs before `summarize` and `apply`), so both rounds see the same module.
//!
//! Both rounds keep the plugin's run-time rule (see [`pricing`]): round 2 prices what it
//! applies as the module's own merging prices its merges (the module's profile, or counts
//! estimated from the code, and the slowdown budget that merging left), and round 1 leaves out
//! of the summary the functions round 2 would refuse whatever the group, so that no module
//! counts on sharing a copy with them.
//!
//! Inside a compiler or linker nothing here may stop the host: an unreadable information file
//! or a missing summary directory is reported once per process, and the module is then left
//! unchanged (checked before anything is merged); a summary that cannot be written is reported
//! the same way.

use crate::{Settings, restore};
use fmerge_core::global::MergeInfo;
use fmerge_llvm::Target;
use fmerge_llvm::module::Module;
use fmerge_llvm::plugin::Place;
use fmerge_passes::Report;
use fmerge_passes::global::{Pricing, Sharing};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What the global steps need, checked before the module is touched.
pub(crate) struct Prepared {
    info: Option<Arc<MergeInfo>>,
}

/// Checks what `s` asks for: the merge information is readable, the summary directory exists.
/// `None` (after a warning, once per process) when the module must be left unchanged.
pub(crate) fn prepare(s: &Settings) -> Option<Prepared> {
    let info = match &s.global_info {
        Some(path) => match merge_info(path) {
            Ok(info) => Some(info),
            Err(e) => {
                warn_once(&INFO_WARNED, &e);
                return None;
            }
        },
        None => None,
    };
    if let Some(dir) = &s.summary_dir
        && !dir.is_dir()
    {
        let e = format!("the summary directory {} does not exist", dir.display());
        warn_once(&SUMMARY_WARNED, &e);
        return None;
    }
    Some(Prepared { info })
}

/// Runs the global steps `s` asks for on `module` (after its own merging): writes its summary,
/// then applies the merge information. Returns whether the module changed, and the report of
/// what was applied (the merges, and the members left out and why); on any failure the module
/// is as it was before this call, and a warning says so.
pub(crate) fn run(
    module: &mut Module<'_>,
    s: &Settings,
    place: Place,
    p: Prepared,
    spent: u64,
) -> (bool, Option<Report>) {
    if let Some(dir) = &s.summary_dir
        && let Err(e) = write_summary(module, dir, s)
    {
        warn_once(&SUMMARY_WARNED, &e);
    }
    if s.summary_dir.is_some() && s.verbose {
        eprintln!("fmerge: {} ({}): summary written", place.name(), module.source_file_name());
    }
    let Some(info) = p.info else { return (false, None) };
    // What to restore on failure (as in `merge_module`): the module as bitcode.
    let backup = match module.to_bitcode() {
        Ok(bitcode) => bitcode,
        Err(e) => {
            eprintln!("fmerge: warning: {e}; the module was left unchanged");
            return (false, None);
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let target = Target::for_object_file(module, None)?;
        let sharing = Sharing::LinkOnce { duplicates_stay: duplicates_stay(place) };
        let pricing = pricing(module, s, spent);
        fmerge_passes::global::apply_with(module, &target, &info, sharing, &pricing)
    }));
    let report = match outcome {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => {
            let why = format!("applying {}: {e}", display(s));
            return (restore(module, &backup, &why), None);
        }
        Err(_) => {
            let why = "internal error applying merge information (a bug)";
            return (restore(module, &backup, why), None);
        }
    };
    if s.verbose {
        eprintln!(
            "fmerge: {} ({}): merge information applied: {} functions became thunks of shared \
             copies, {} left out for their run-time cost",
            place.name(),
            module.source_file_name(),
            report.functions_merged(),
            report
                .skipped
                .iter()
                .filter(|k| k.reason.starts_with("runtime cost"))
                .map(|k| k.function.split(" + ").count())
                .sum::<usize>(),
        );
    }
    (!report.merges.is_empty(), Some(report))
}

/// How both rounds price merges at run time: as the module's own merging prices its merges
/// (its profile, or counts estimated from the code; `-fmerge-estimate=false` turns the
/// estimate off), with `spent`, what that merging already took of the slowdown budget.
fn pricing(module: &Module<'_>, s: &Settings, spent: u64) -> Pricing {
    let profile = fmerge_passes::pipeline::module_profile(module, &s.options, &|_: &str| {});
    Pricing { profile: profile.map(Arc::new), spent }
}

/// Whether the link keeps every backend's definition of a link-once function, the ones nothing
/// calls included (see `fmerge_passes::global::Sharing`): an in-process ThinLTO link (the
/// plugin runs inside the linker, whose command line it reads) without `--gc-sections`. A
/// distributed backend's object goes to an ordinary link, whose comdats keep one. Unknown
/// (no `/proc`) counts as keeping them, which only leaves some merges out.
fn duplicates_stay(place: Place) -> bool {
    if place != Place::ThinLtoBackend {
        return false;
    }
    let Ok(cmdline) = std::fs::read("/proc/self/cmdline") else { return true };
    // Arguments in a response file (`@FILE`, which drivers use for long command lines) are
    // read as whitespace-separated words.
    let mut args: Vec<Vec<u8>> = Vec::new();
    for a in cmdline.split(|&b| b == 0) {
        match a.strip_prefix(b"@").and_then(|f| std::fs::read(std::str::from_utf8(f).ok()?).ok()) {
            Some(text) => args.extend(text.split(u8::is_ascii_whitespace).map(<[u8]>::to_vec)),
            None => args.push(a.to_vec()),
        }
    }
    !gc_sections(args.iter().map(Vec::as_slice))
}

/// Whether linker arguments ask for `--gc-sections` (the last of it and `--no-gc-sections`).
fn gc_sections<'a>(args: impl Iterator<Item = &'a [u8]>) -> bool {
    let mut on = false;
    for a in args {
        match a {
            b"--gc-sections" | b"-gc-sections" => on = true,
            b"--no-gc-sections" | b"-no-gc-sections" => on = false,
            _ => {}
        }
    }
    on
}

fn display(s: &Settings) -> String {
    s.global_info.as_deref().map_or_else(String::new, |p| p.display().to_string())
}

static INFO_WARNED: AtomicBool = AtomicBool::new(false);
static SUMMARY_WARNED: AtomicBool = AtomicBool::new(false);

/// One warning per kind per process: a linker runs many backends, each would say the same.
fn warn_once(flag: &AtomicBool, what: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        eprintln!("fmerge: warning: {what}; modules are left unchanged");
    }
}

/// The merge information at `path`, read once per process (a linker's backends share it).
fn merge_info(path: &Path) -> Result<Arc<MergeInfo>, String> {
    type Cache = Mutex<Vec<(PathBuf, Result<Arc<MergeInfo>, String>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, r)) = cache.iter().find(|(p, _)| p == path) {
        return r.clone();
    }
    let read = std::fs::read(path)
        .map_err(|e| format!("cannot read the merge information {}: {e}", path.display()))
        .and_then(|bytes| {
            MergeInfo::from_bytes(&bytes)
                .map(Arc::new)
                .map_err(|e| format!("{} is not usable merge information: {e}", path.display()))
        });
    cache.push((path.to_path_buf(), read.clone()));
    read
}

/// The file a module's summary goes to in `dir`: never the same for two backends running at
/// the same time (see the module documentation).
fn summary_path(dir: &Path, module: &Module<'_>) -> PathBuf {
    let id = format!("{}\0{}", module.identifier(), module.source_file_name());
    let hash = fmerge_core::hash::hash_bytes(id.as_bytes());
    dir.join(format!("{hash:016x}-{}.fms", std::process::id()))
}

/// Writes `module`'s summary (with bodies, as `fmerge summarize` does) into `dir`. Functions
/// that round 2 would never merge for their run-time cost (by the same counts it prices with,
/// see [`pricing`]) are left out, so that no other module's member counts on them.
fn write_summary(module: &Module<'_>, dir: &Path, s: &Settings) -> Result<(), String> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Summarizing adds module-independent copies of functions to the module it reads:
        // it reads a copy, never the host's module. LLVM's cloner's copy, which shares the
        // module's named struct types: a copy read back from bitcode into the same context
        // (`Module::duplicate`) renames every one of them (`%"class.testing::AssertionResult.5"`,
        // the suffix depending on the module), and attribute lists that name a type (`sret`,
        // `byval`, `elementtype`) then hashed differently in every module, so that functions
        // returning a C++ object never matched another module's, nor round 2's hash of the
        // same function (Ninja's test binary: gtest's 50 identical `CmpHelperEQFailure<char[N],
        // std::string>` made 9 groups, one per module).
        let copy = module.backup();
        let target = Target::for_object_file(&copy, None)?;
        let name = module.source_file_name();
        let pricing = pricing(&copy, s, 0);
        Ok::<_, fmerge_llvm::LlvmError>(fmerge_passes::global::summarize_with(
            &copy, &target, &name, true, true, &pricing,
        ))
    }));
    let summary = match outcome {
        Ok(Ok(summary)) => summary,
        Ok(Err(e)) => return Err(format!("cannot summarize the module: {e}")),
        Err(_) => return Err("internal error summarizing a module (a bug)".to_string()),
    };
    let path = summary_path(dir, module);
    fmerge_llvm::output::write_atomically(&path, &summary.to_bytes())
        .map_err(|e| format!("cannot write the summary {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::gc_sections;

    #[test]
    fn the_last_gc_sections_option_wins() {
        let args = |v: &[&'static str]| v.iter().map(|s| s.as_bytes()).collect::<Vec<_>>();
        assert!(!gc_sections(args(&["ld.lld", "a.o", "-o", "x"]).into_iter()));
        assert!(gc_sections(args(&["ld.lld", "--gc-sections", "a.o"]).into_iter()));
        assert!(gc_sections(args(&["ld.lld", "-gc-sections"]).into_iter()));
        assert!(!gc_sections(args(&["ld.lld", "--gc-sections", "--no-gc-sections"]).into_iter()));
        assert!(gc_sections(args(&["--no-gc-sections", "--gc-sections"]).into_iter()));
    }
}
