//! The differential check: merge a module with fmerge in every mode, verify the output with
//! `opt-22`, run the original and each merged module in every way of executing it (by default
//! `lli-22` and a native executable built by `clang++-22 -O2`, whose optimizer and code
//! generator exploit attributes, metadata, flags and lifetime markers) and compare exit status,
//! stdout and stderr byte for byte. The original must behave the same in every way first: a
//! difference there is undefined behaviour in the generated program, a generator bug.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The external programs a check runs.
#[derive(Clone, Debug)]
pub struct Tools {
    pub fmerge: PathBuf,
    pub opt: String,
    pub lli: String,
    pub clang: String,
    /// How modules run: every module runs in each of these ways (default: `lli-22` and
    /// native code from `clang++-22 -O2`).
    pub execs: Vec<Exec>,
    /// Per-process time limit.
    pub timeout: Duration,
}

/// A way of running a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    /// `lli-22` (code generation without the optimization pipeline).
    Lli,
    /// `clang++-22 -O0`: native code, no optimization.
    ClangO0,
    /// `clang++-22 -O2`: the whole optimization pipeline and code generation at -O2, linked
    /// natively; where facts a merge kept wrongly change what the program does.
    ClangO2,
}

impl Exec {
    pub fn name(self) -> &'static str {
        match self {
            Exec::Lli => "lli",
            Exec::ClangO0 => "O0",
            Exec::ClangO2 => "O2",
        }
    }

    /// `lli`, `O0` or `O2`.
    pub fn parse(s: &str) -> Option<Exec> {
        [Exec::Lli, Exec::ClangO0, Exec::ClangO2].into_iter().find(|e| e.name() == s)
    }
}

impl Tools {
    pub fn new(fmerge: impl Into<PathBuf>) -> Tools {
        Tools {
            fmerge: fmerge.into(),
            opt: "opt-22".into(),
            lli: "lli-22".into(),
            clang: "clang++-22".into(),
            execs: vec![Exec::Lli, Exec::ClangO2],
            timeout: Duration::from_secs(120),
        }
    }
}

/// One way of running fmerge.
#[derive(Clone, Debug)]
pub struct Mode {
    pub name: &'static str,
    pub args: &'static [&'static str],
    /// Let fmerge measure `.text` (`--measure`) and check its promise that the output
    /// is never larger than the input: the report's measured sizes must not grow.
    pub measure: bool,
}

/// Every merge mode, estimate and exact pricing, whole-program mode and exhaustive search,
/// and the default options as a user runs them (measured, so also checked for size).
pub const MODES: &[Mode] = &[
    Mode {
        name: "identical",
        args: &["--merge", "identical", "--profit", "estimate"],
        measure: false,
    },
    Mode {
        name: "constants",
        args: &["--merge", "identical,constants", "--profit", "estimate"],
        measure: false,
    },
    Mode { name: "all-estimate", args: &["--profit", "estimate"], measure: false },
    Mode { name: "all-exact", args: &["--profit", "exact"], measure: false },
    Mode { name: "all-hybrid-wp", args: &["--whole-program"], measure: false },
    Mode {
        name: "all-exhaustive",
        args: &["--profit", "estimate", "--search", "exhaustive"],
        measure: false,
    },
    Mode { name: "default", args: &[], measure: true },
];

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The generated input itself is bad (a generator bug, not an fmerge bug).
    Input,
    /// The original program behaves differently under two ways of running it (`lli-22` and
    /// `-O2`): undefined behaviour in the generated input, a generator bug.
    InputUb,
    /// fmerge exited with an error, a signal or a panic.
    Crash,
    /// fmerge's output fails `opt-22 -passes=verify`.
    Verifier,
    /// The merged program behaves differently.
    Behaviour,
    /// Two runs of the same command gave different output or report.
    Nondeterminism,
    /// fmerge measured its output and wrote more `.text` than its input had.
    Larger,
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub mode: String,
    pub kind: Kind,
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} in mode {}: {}", self.kind, self.mode, self.detail)
    }
}

/// What a successful check did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub fmerge_runs: usize,
    pub executions: usize,
    /// Functions merged away, summed over modes.
    pub merged: usize,
    /// Per mode: functions merged away.
    pub per_mode: Vec<(&'static str, usize)>,
    /// Skipped-function entries in the reports, summed over modes.
    pub skipped: usize,
    /// Runs whose output fmerge measured and found no larger than the input.
    pub measured: usize,
}

/// Exit status (or -signal), stdout, stderr.
pub type Run = (i32, Vec<u8>, Vec<u8>);

/// Runs `cmd` with a time limit.
pub fn run(cmd: &mut Command, timeout: Duration) -> Result<Run, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{cmd:?} timed out after {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        -status.signal().unwrap_or(0)
    });
    Ok((code, t_out.join().unwrap(), t_err.join().unwrap()))
}

fn text(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.len() > 3000 {
        format!("{}…", &s[..s.floor_char_boundary(3000)])
    } else {
        s.into_owned()
    }
}

/// `opt-22 -passes=verify` on a module; Err holds the verifier's message.
pub fn verify(tools: &Tools, m: &Path) -> Result<(), String> {
    let r = run(
        Command::new(&tools.opt).args(["-passes=verify", "-disable-output"]).arg(m),
        tools.timeout,
    )?;
    if r.0 == 0 { Ok(()) } else { Err(text(&r.2)) }
}

/// Runs a module in one way (compiled executables go to `dir`).
pub fn execute(tools: &Tools, exec: Exec, m: &Path, dir: &Path) -> Result<Run, String> {
    let level = match exec {
        Exec::Lli => return run(Command::new(&tools.lli).arg(m), tools.timeout),
        Exec::ClangO0 => "-O0",
        Exec::ClangO2 => "-O2",
    };
    let exe = dir.join(format!("{}{level}.exe", m.file_name().unwrap().to_string_lossy()));
    let c = run(
        Command::new(&tools.clang).arg(level).arg("-w").arg(m).arg("-o").arg(&exe),
        tools.timeout,
    )?;
    if c.0 != 0 {
        return Err(format!("clang {level} failed: {}", text(&c.2)));
    }
    let r = run(&mut Command::new(&exe), tools.timeout);
    let _ = std::fs::remove_file(&exe);
    r
}

fn show(r: &Run) -> String {
    format!("exit {}\n--- stdout\n{}\n--- stderr\n{}", r.0, text(&r.1), text(&r.2))
}

/// Runs fmerge on `input` in `mode`, writing `out` and `report`.
pub fn fmerge(
    tools: &Tools,
    input: &Path,
    mode: &Mode,
    out: &Path,
    report: &Path,
) -> Result<Run, String> {
    run(
        Command::new(&tools.fmerge)
            .arg("opt")
            .arg(input)
            .arg("-o")
            .arg(out)
            .arg("--report")
            .arg(report)
            .args(if mode.measure { &["--measure", "-q"][..] } else { &["--no-measure", "-q"][..] })
            .args(mode.args),
        tools.timeout,
    )
}

/// Functions merged away and skipped-function entries in a report.
pub fn report_counts(report: &Path) -> (usize, usize) {
    let Ok(text) = std::fs::read_to_string(report) else { return (0, 0) };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { return (0, 0) };
    let merged = v["merges"]
        .as_array()
        .map(|ms| ms.iter().map(|m| m["members"].as_array().map_or(0, Vec::len)).sum())
        .unwrap_or(0);
    (merged, v["skipped"].as_array().map_or(0, Vec::len))
}

/// The measured `.text` bytes of input and output in a report (present when fmerge measured).
pub fn report_sizes(report: &Path) -> Option<(u64, u64)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(report).ok()?).ok()?;
    Some((v["text_bytes_before"].as_u64()?, v["text_bytes_after"].as_u64()?))
}

/// Options of one check.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    pub modes: &'a [Mode],
    /// Run the program (false: merge and verify only, for modules without a `main`).
    pub execute: bool,
    /// Run the first mode twice and compare output and report bytes.
    pub determinism: bool,
}

/// The whole check of one module (`.ll` or `.bc`) in the scratch directory `dir`.
pub fn check(tools: &Tools, input: &Path, dir: &Path, plan: &Plan<'_>) -> Result<Stats, Failure> {
    let fail = |mode: &str, kind: Kind, detail: String| Failure { mode: mode.into(), kind, detail };
    verify(tools, input).map_err(|e| fail("input", Kind::Input, e))?;
    let mut stats = Stats::default();
    // The reference: the original, the same in every way of running it.
    let reference = if plan.execute {
        let mut first: Option<(Exec, Run)> = None;
        for &exec in &tools.execs {
            let r = execute(tools, exec, input, dir).map_err(|e| fail("input", Kind::Input, e))?;
            stats.executions += 1;
            if r.0 < 0 || r.1.is_empty() {
                return Err(fail(
                    "input",
                    Kind::Input,
                    format!("the original run ({}) failed: {}", exec.name(), show(&r)),
                ));
            }
            match &first {
                None => first = Some((exec, r)),
                Some((e0, r0)) if *r0 != r => {
                    return Err(fail(
                        "input",
                        Kind::InputUb,
                        format!(
                            "the original behaves differently under {} and {}\n=== {}\n{}\n=== {}\n{}",
                            e0.name(),
                            exec.name(),
                            e0.name(),
                            show(r0),
                            exec.name(),
                            show(&r)
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        first.map(|(_, r)| r)
    } else {
        None
    };
    for mode in plan.modes {
        let out = dir.join(format!("out.{}.bc", mode.name));
        let rep = dir.join(format!("report.{}.json", mode.name));
        let r =
            fmerge(tools, input, mode, &out, &rep).map_err(|e| fail(mode.name, Kind::Crash, e))?;
        stats.fmerge_runs += 1;
        if r.0 != 0 || String::from_utf8_lossy(&r.2).contains("panicked") {
            return Err(fail(mode.name, Kind::Crash, format!("exit {}: {}", r.0, text(&r.2))));
        }
        verify(tools, &out).map_err(|e| fail(mode.name, Kind::Verifier, e))?;
        if mode.measure {
            match report_sizes(&rep) {
                Some((before, after)) if after > before => {
                    return Err(fail(
                        mode.name,
                        Kind::Larger,
                        format!(".text {before} -> {after} bytes"),
                    ));
                }
                Some(_) => stats.measured += 1,
                None => {
                    return Err(fail(
                        mode.name,
                        Kind::Larger,
                        "fmerge was asked to measure, and its report has no sizes".into(),
                    ));
                }
            }
        }
        let (merged, skipped) = report_counts(&rep);
        stats.merged += merged;
        stats.skipped += skipped;
        stats.per_mode.push((mode.name, merged));
        if let Some(want) = &reference {
            for &exec in &tools.execs {
                let got = execute(tools, exec, &out, dir)
                    .map_err(|e| fail(mode.name, Kind::Behaviour, e))?;
                stats.executions += 1;
                if &got != want {
                    return Err(fail(
                        mode.name,
                        Kind::Behaviour,
                        format!(
                            "run with {}: exit {} vs {}\n--- original stdout\n{}\n--- merged stdout\n{}\n--- merged stderr\n{}",
                            exec.name(),
                            want.0,
                            got.0,
                            text(&want.1),
                            text(&got.1),
                            text(&got.2)
                        ),
                    ));
                }
            }
        }
        if plan.determinism && mode.name == plan.modes[0].name {
            let out2 = dir.join("again.bc");
            let rep2 = dir.join("again.json");
            let r2 = fmerge(tools, input, mode, &out2, &rep2)
                .map_err(|e| fail(mode.name, Kind::Crash, e))?;
            stats.fmerge_runs += 1;
            let same = |a: &Path, b: &Path| std::fs::read(a).ok() == std::fs::read(b).ok();
            if r2.0 != 0 || !same(&out, &out2) || !same(&rep, &rep2) {
                return Err(fail(
                    mode.name,
                    Kind::Nondeterminism,
                    "a second run gave a different output or report".into(),
                ));
            }
        }
    }
    Ok(stats)
}
