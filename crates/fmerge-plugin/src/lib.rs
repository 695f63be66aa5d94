//! # fmerge-plugin: fmerge inside clang, opt and lld
//!
//! `libfmerge_plugin.so` is an LLVM 22 pass plugin. Loaded into a tool that links
//! `libLLVM.so.22.1` (Debian's clang-22, opt-22 and ld.lld-22 do), it runs fmerge's pipeline
//! ([`fmerge_passes::optimize`]) on the module the tool is optimizing:
//!
//! - `opt-22 -load-pass-plugin=libfmerge_plugin.so -passes=fmerge in.bc -o out.bc`;
//! - full LTO: `clang-22 -flto -fuse-ld=lld -Wl,--load-pass-plugin=libfmerge_plugin.so`, at the
//!   end of the LTO pipeline, on the whole linked program (the linker has already internalized
//!   what no other object or shared library can see: that is the whole-program knowledge);
//! - a compile without LTO: `clang-22 -fpass-plugin=libfmerge_plugin.so`, after the optimizer;
//! - ThinLTO: in each backend, on that backend's module, when its code generation starts: in
//!   lld's in-process backends and in distributed ones (`clang -fthinlto-index=... -Xclang
//!   -load -Xclang libfmerge_plugin.so`, where clang loads no pass plugin into its optimizer);
//!   with `-fmerge-summary-dir` and `-fmerge-global-info`, also across modules (`global.rs`).
//!
//! The registration is C++ (`fmerge-llvm/shim/plugin.cpp`); [`run`] is what it calls.
//! Inside someone else's process there is no worker process to catch a crash, so the rule
//! is: never end the host, never leave it a broken module. Before merging, [`run`] keeps a
//! copy of the module; on any error (an LLVM error, a panic, a module that fails the
//! verifier) it puts the copy back and prints one warning. The module is then as it was, but
//! its functions are new objects: the pass reports it changed, so that the host drops what it
//! cached about the old ones.

mod global;

use fmerge_llvm::Target;
use fmerge_llvm::module::Module;
use fmerge_llvm::plugin::{PassPluginLibraryInfo, Place, PluginOptions};
use fmerge_passes::options::OptionError;
use fmerge_passes::pipeline::Measure;
use fmerge_passes::{Options, Report};
use std::path::PathBuf;

/// The entry point LLVM looks up when it loads a pass plugin.
// An exported symbol with a fixed name is what a plugin is: the one `unsafe` attribute outside
// fmerge-llvm, and no code behind it but a safe call.
#[unsafe(no_mangle)]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    fmerge_llvm::plugin::plugin_info(run)
}

/// What the user asked for, after the environment variable FMERGE_PLUGIN_OPTIONS (which wins:
/// it is the only channel some tools leave) was applied to the command-line options.
#[derive(Debug)]
struct Settings {
    enabled: bool,
    in_compiles: bool,
    options: Options,
    guard: bool,
    report: Option<String>,
    verbose: bool,
    /// Print the wall time of each step (what a run costs the host, and where).
    timings: bool,
    /// For tests of the failure path: panic after merging (the module is then half done).
    inject_failure: bool,
    /// Global merging, round 1: write the module's summary into this directory.
    summary_dir: Option<PathBuf>,
    /// Global merging, round 2: apply this merge information first.
    global_info: Option<PathBuf>,
}

/// The merging options the plugin shares with `fmerge opt` (`-fmerge-NAME` here, `--NAME`
/// there), in the order their values are checked. [`fmerge_passes::OptionsBuilder::set`]
/// parses them, with the defaults and checks of the command line.
const SHARED: [&str; 7] = [
    "merge",
    "profit",
    "search",
    "hot-percentile",
    "max-slowdown",
    "max-slowdown-per-kb",
    "estimate",
];

fn settings(o: &PluginOptions) -> Result<Settings, String> {
    // As the shim gave them (`None`: not on the command line), in the order of SHARED.
    let mut shared = [
        &o.merge,
        &o.profit,
        &o.search,
        &o.hot_percentile,
        &o.max_slowdown,
        &o.max_slowdown_per_kb,
        &o.estimate,
    ]
    .map(Clone::clone);
    let mut report = o.report.clone();
    let (mut whole_program, mut guard, mut verbose) = (o.whole_program, o.guard, o.verbose);
    let mut timings = o.timings;
    let (mut summary_dir, mut global_info) = (o.summary_dir.clone(), o.global_info.clone());
    let (mut enabled, mut in_compiles, mut inject_failure) = (true, true, false);
    for word in o.env.as_deref().unwrap_or("").split_whitespace() {
        let word = word.trim_start_matches('-');
        let (key, value) = match word.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (word, None),
        };
        let flag = |v: Option<&str>| match v {
            None | Some("true") | Some("1") => Ok(true),
            Some("false") | Some("0") => Ok(false),
            Some(v) => Err(format!("-{key}={v}: expected true or false")),
        };
        let text = |v: Option<&str>| {
            v.map(str::to_string).ok_or_else(|| format!("-{key} needs a value (-{key}=...)"))
        };
        let slot = key.strip_prefix("fmerge-").and_then(|n| SHARED.iter().position(|s| *s == n));
        if let Some(k) = slot {
            shared[k] = Some(text(value)?);
            continue;
        }
        match key {
            "fmerge" => enabled = flag(value)?,
            "fmerge-compile" => in_compiles = flag(value)?,
            "fmerge-report" => report = text(value)?,
            "fmerge-whole-program" => whole_program = flag(value)?,
            "fmerge-guard" => guard = flag(value)?,
            "fmerge-verbose" => verbose = flag(value)?,
            "fmerge-timings" => timings = flag(value)?,
            "fmerge-inject-failure" => inject_failure = flag(value)?,
            "fmerge-summary-dir" => summary_dir = text(value)?,
            "fmerge-global-info" => global_info = text(value)?,
            _ => return Err(format!("unknown option -{key} in FMERGE_PLUGIN_OPTIONS")),
        }
    }
    let mut options = Options::builder();
    options.whole_program(whole_program);
    for (name, value) in SHARED.iter().zip(&shared) {
        let Some(value) = value else { continue };
        options.set(name, value).map_err(|e| match e {
            OptionError::UnknownKind(_) => format!("-fmerge-{name}: {e}"),
            _ => format!("-fmerge-{name}={value}: expected {}", e.expected()),
        })?;
    }
    Ok(Settings {
        enabled,
        in_compiles,
        options: options.build(),
        guard,
        report: (!report.is_empty()).then_some(report),
        verbose,
        timings,
        inject_failure,
        summary_dir: (!summary_dir.is_empty()).then(|| PathBuf::from(summary_dir)),
        global_info: (!global_info.is_empty()).then(|| PathBuf::from(global_info)),
    })
}

/// Runs fmerge on the host's module; returns whether it changed. Never panics out, never
/// leaves the module half-merged.
fn run(module: &mut Module<'_>, o: &PluginOptions) -> bool {
    let s = match settings(o) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fmerge: warning: {e}; the module was left unchanged");
            return false;
        }
    };
    if !s.enabled
        || (!s.in_compiles
            && matches!(
                o.place,
                Place::Compile | Place::ThinLtoBackend | Place::DistributedBackend
            ))
    {
        return false;
    }
    // Global merging runs after the module's own merging, on the module as that leaves it (as
    // `fmerge opt` before `summarize` and `apply`): both rounds then see the same module. What
    // it needs is checked first, so that a module it cannot serve stays unchanged.
    let global = if s.summary_dir.is_some() || s.global_info.is_some() {
        match global::prepare(&s) {
            Some(g) => Some(g),
            None => return false,
        }
    } else {
        None
    };
    let (changed, spent, report) = merge_module(module, &s, o.place, o.function_sections);
    let (global_changed, applied) = match global {
        Some(g) => global::run(module, &s, o.place, g, spent),
        None => (false, None),
    };
    // One report per module: the module's own merging, then what global merging applied (its
    // merges, and the members it left out and why).
    if let Some(path) = &s.report {
        let report = match (report, applied) {
            (Some(mut own), Some(applied)) => {
                append_report(&mut own, applied);
                Some(own)
            }
            (own, applied) => own.or(applied),
        };
        if let Some(report) = report {
            write_report(path, &report, o.place);
        }
    }
    changed || global_changed
}

/// Appends the report of global merging's second round (`applied`) to the module's own
/// (`own`): its stages, merges (numbered after the module's own), skipped functions and
/// rejections; the function count after both.
fn append_report(own: &mut Report, applied: Report) {
    let first = own.next_seq();
    if !applied.merges.is_empty() {
        // Measured (if at all) before global merging changed the module.
        own.text_bytes_after = None;
    }
    own.merges.extend(applied.merges.into_iter().enumerate().map(|(k, mut m)| {
        m.seq = first + k;
        m
    }));
    own.stages.extend(applied.stages);
    own.skipped.extend(applied.skipped);
    own.rejected.extend(applied.rejected);
    own.functions_after = applied.functions_after;
}

/// The module's own merging (what the plugin does without global merging). Returns whether
/// the module changed, the run-time work its merges add by the counts they were priced
/// with (what global merging's second round may no longer spend), and its report when one
/// was asked for (`-fmerge-report`; [`run`] writes it).
fn merge_module(
    module: &mut Module<'_>,
    s: &Settings,
    place: Place,
    host_function_sections: Option<bool>,
) -> (bool, u64, Option<Report>) {
    // Merging needs two functions. A ThinLTO backend or a compile often has fewer (a codegen unit
    // with one function and the declarations it calls): there, everything below (the backup,
    // the target, verifying, the size guard's copy) would be spent on a module that cannot
    // change. Without a report asked for, the run is skipped: its outcome is known.
    let mergeable = fmerge_llvm::lower::mergeable_functions(module).len();
    if mergeable < 2 && s.report.is_none() {
        if s.verbose {
            eprintln!(
                "fmerge: {} ({}): {mergeable} function(s) that could merge: nothing to do",
                place.name(),
                module.source_file_name()
            );
        }
        return (false, 0, None);
    }
    let started = std::time::Instant::now();
    let steps = Steps::default();
    steps.begin("keeping a backup");
    // What to restore on failure: the module as bitcode, which the size guard's copy of its
    // input then reads instead of writing the module again (a copy of the module made by LLVM's
    // cloner cost sqlite's link 0.4 s and the memory of a second module).
    let backup = match module.keep_bitcode() {
        Ok(bitcode) => bitcode,
        Err(e) => {
            eprintln!("fmerge: warning: {e}; the module was left unchanged");
            return (false, 0, None);
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        steps.begin("setting up the target");
        // Measure as the host will generate code: position independent when the module asks
        // for it (clang's and rustc's default PIE). Measured with llc's static default instead,
        // merges that pass global addresses looked cheaper than they are, and a ThinLTO-linked
        // test binary of nom came out 240 bytes larger.
        let mut target = Target::for_object_file(module, None)?;
        // lld generates the code of a link with every function in a section of its own:
        // measured so, sizes are the link's, and none depends on which functions were
        // compiled together (the size guard then need not compile what it knows). In a
        // ThinLTO backend the host's code generation says (lld's always do; a distributed
        // backend compiled with -ffunction-sections too): measured otherwise, a thunk's jump
        // to a merged body came out 3 bytes shorter than it is (a short jump within one
        // section), and a distributed build's size guard judged merges otherwise than the
        // in-process link's.
        if host_function_sections.unwrap_or(matches!(place, Place::FullLto | Place::ThinLtoBackend))
        {
            target.set_function_sections(true);
        }
        let measure = if s.guard { Measure::Guard } else { Measure::Nothing };
        // A full-LTO link verifies the module before its LTO pipeline and again after it
        // (this pass included; LLVM's lto::opt, unless the linker is told --disable-verify):
        // what fmerge gets is the output of LLVM's own passes on verified IR. Verifying it
        // once more cost sqlite's link 0.13-0.26 s. An in-process ThinLTO backend runs the
        // same lto::opt (the verifier last in its optimizer, `--lto-debug-pass-manager` shows
        // it) before its code generation, where this pass runs: over fd's 442 backends,
        // verifying again was 7% of the plugin's time. clang's distributed backends skip the
        // verifier in release builds (-disable-llvm-verifier): there the input is verified.
        // fmerge still verifies what it leaves.
        // Inside a compile or a link, small modules are priced as larger ones are (close
        // calls compiled within the budget), not by compiling every candidate: that code
        // generation comes on top of the host's own, and was most of what the plugin added
        // to Lua's full-LTO link (0.65 s of 0.9 s, for 81 bytes). `opt -passes=fmerge` is a
        // step of its own, as `fmerge opt` is, and prices as it does.
        let options = Options {
            input_verified: s.options.input_verified
                || matches!(place, Place::FullLto | Place::ThinLtoBackend),
            exact_when_small: place == Place::Named,
            // Groups of three or more made by pairing a merged body with a function of other
            // inlining attributes: in zstd's full-LTO link they came out 1.6 KB larger
            // (the CLI's whole-program zstd 603 bytes smaller); not understood yet.
            pair_across_inlining: false,
            ..s.options.clone()
        };
        let report =
            fmerge_passes::optimize(module, &target, &options, measure, &|m: &str| steps.begin(m))?;
        assert!(!s.inject_failure, "failure injected by -fmerge-inject-failure");
        Ok::<_, fmerge_llvm::LlvmError>(report)
    }));
    let report = match outcome {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => return (restore(module, &backup, &e.to_string()), 0, None),
        Err(_) => {
            return (restore(module, &backup, "internal error (a bug: please report it)"), 0, None);
        }
    };
    drop(backup);
    let seconds = started.elapsed().as_secs_f64();
    if s.verbose {
        eprintln!(
            "fmerge: {} ({}): {} functions merged in {} merges ({} -> {} definitions), \
             expected saving {} bytes, {:.2}s",
            place.name(),
            module.source_file_name(),
            report.functions_merged(),
            report.merges.len(),
            report.functions_before,
            report.functions_after,
            report.expected_saving(),
            seconds
        );
    }
    if s.timings {
        eprintln!(
            "fmerge: {} ({}): wall time by step: {}",
            place.name(),
            module.source_file_name(),
            steps.times()
        );
    }
    let changed = !report.merges.is_empty();
    let spent = report.profile.as_ref().map_or(0, |p| p.added_work);
    (changed, spent, s.report.is_some().then_some(report))
}

/// The steps of a run and when each began (`-fmerge-timings`); the last one ends when they
/// are shown.
#[derive(Default)]
struct Steps(std::cell::RefCell<Vec<(String, std::time::Instant)>>);

impl Steps {
    fn begin(&self, what: &str) {
        self.0.borrow_mut().push((what.to_string(), std::time::Instant::now()));
    }

    /// "step 0.12s, step 1.03s, ...", the same step's times summed (the size guard runs the
    /// stages again), in the order each step first came.
    fn times(&self) -> String {
        let steps = self.0.borrow();
        let now = std::time::Instant::now();
        let mut sums: Vec<(&str, f64)> = Vec::new();
        for (k, (what, began)) in steps.iter().enumerate() {
            let end = steps.get(k + 1).map_or(now, |s| s.1);
            let seconds = (end - *began).as_secs_f64();
            match sums.iter_mut().find(|(w, _)| w == what) {
                Some((_, sum)) => *sum += seconds,
                None => sums.push((what, seconds)),
            }
        }
        sums.iter().map(|(w, t)| format!("{w} {t:.2}s")).collect::<Vec<_>>().join(", ")
    }
}

/// After a failed run: puts the backup (the module's bitcode before the run) back and says so.
/// Returns `true`: the module is as it was, but in new objects (its functions, globals), and
/// analyses the host cached for the old ones must not be taken for them.
fn restore(module: &mut Module<'_>, backup: &[u8], why: &str) -> bool {
    match module.restore_bitcode(backup) {
        Ok(()) => eprintln!("fmerge: warning: {why}; the module was left unchanged"),
        // Bitcode the module itself wrote moments ago: reading it back does not fail.
        Err(e) => eprintln!(
            "fmerge: warning: {why}; putting the module back failed ({e}): it may have been \
             left partly merged (a bug: please report it)"
        ),
    }
    true
}

/// Writes the JSON report; a ThinLTO link runs one backend per module, so there `{}` in the
/// name, or else a suffix, tells the modules' reports apart.
fn write_report(path: &str, report: &Report, place: Place) {
    let path = if matches!(place, Place::ThinLtoBackend | Place::DistributedBackend)
        || path.contains("{}")
    {
        let id = format!("{}-{}", std::process::id(), unique());
        if path.contains("{}") { path.replace("{}", &id) } else { format!("{path}.{id}") }
    } else {
        path.to_string()
    };
    let written = serde_json::to_vec_pretty(report).map_err(|e| e.to_string()).and_then(|json| {
        fmerge_llvm::output::write_atomically(std::path::Path::new(&path), &json)
            .map_err(|e| e.to_string())
    });
    if let Err(e) = written {
        eprintln!("fmerge: warning: cannot write the report {path}: {e}");
    }
}

fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    use fmerge_passes::{ProfitMode, Stages};

    fn opts(env: Option<&str>) -> PluginOptions {
        PluginOptions {
            merge: None,
            profit: None,
            search: None,
            report: String::new(),
            hot_percentile: None,
            max_slowdown: None,
            max_slowdown_per_kb: None,
            estimate: None,
            env: env.map(str::to_string),
            summary_dir: String::new(),
            global_info: String::new(),
            whole_program: false,
            guard: true,
            verbose: false,
            timings: false,
            place: Place::FullLto,
            function_sections: None,
        }
    }

    #[test]
    fn the_environment_overrides_the_command_line_and_bad_values_are_errors() {
        let s = settings(&opts(None)).unwrap();
        assert!(s.enabled && s.guard && s.options.stages == Stages::ALL);
        let s = settings(&opts(Some(
            "-fmerge-merge=identical -fmerge-profit=exact -fmerge-guard=false -fmerge-verbose \
             --fmerge-report=r.json -fmerge-whole-program=1 -fmerge-timings",
        )))
        .unwrap();
        assert!(s.timings);
        assert!(s.options.stages.identical && !s.options.stages.similar);
        assert_eq!(s.options.profit, ProfitMode::Exact);
        assert!(!s.guard && s.verbose && s.options.whole_program);
        assert_eq!(s.report.as_deref(), Some("r.json"));
        assert!(!settings(&opts(Some("-fmerge=false"))).unwrap().enabled);
        assert_eq!(s.options.hot_percentile, None);
        assert_eq!(s.options.max_slowdown, 0.005);
        assert_eq!(s.options.max_slowdown_per_kb, 0.001);
        let s = settings(&opts(Some("-fmerge-hot-percentile=99 -fmerge-max-slowdown=2"))).unwrap();
        assert_eq!(s.options.hot_percentile, Some(990_000));
        assert_eq!(s.options.max_slowdown, 0.02);
        let s = settings(&opts(Some("-fmerge-max-slowdown-per-kb=100"))).unwrap();
        assert_eq!(s.options.max_slowdown_per_kb, 1.0);
        for bad in [
            "-fmerge-profit=fast",
            "-fmerge-merge=all",
            "-fmerge-x",
            "-fmerge-guard=yes",
            "-fmerge-hot-percentile=120",
            "-fmerge-max-slowdown=-1",
            "-fmerge-max-slowdown=fast",
            "-fmerge-max-slowdown-per-kb=x",
        ] {
            assert!(settings(&opts(Some(bad))).is_err(), "{bad}");
        }
    }

    #[test]
    fn command_line_values_are_checked_like_the_environment_s_which_wins() {
        let mut o = opts(Some("-fmerge-max-slowdown=1"));
        o.max_slowdown = Some("fast".into());
        o.profit = Some("estimate".into());
        let s = settings(&o).unwrap();
        assert_eq!(s.options.max_slowdown, 0.01);
        assert_eq!(s.options.profit, ProfitMode::Estimate);
        o.env = None;
        assert_eq!(settings(&o).unwrap_err(), "-fmerge-max-slowdown=fast: expected a percentage");
        for (env, message) in [
            ("-fmerge-profit=fast", "-fmerge-profit=fast: expected estimate, hybrid or exact"),
            ("-fmerge-search=x", "-fmerge-search=x: expected lsh or exhaustive"),
            ("-fmerge-merge=identical,bogus", "-fmerge-merge: unknown merge kind 'bogus'"),
            ("-fmerge-hot-percentile=120", "-fmerge-hot-percentile=120: expected a percentage"),
            (
                "-fmerge-max-slowdown",
                "-fmerge-max-slowdown needs a value (-fmerge-max-slowdown=...)",
            ),
            ("-fmerge-x", "unknown option -fmerge-x in FMERGE_PLUGIN_OPTIONS"),
        ] {
            assert_eq!(settings(&opts(Some(env))).unwrap_err(), message);
        }
    }
}
