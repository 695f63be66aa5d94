//! The `cargo fmerge build|test|run` role: check the tools, run cargo, report.
//!
//! What it sets for cargo: the selected profile's `lto = "fat"` and `codegen-units = 1`
//! (through `CARGO_PROFILE_<NAME>_*`, so your Cargo.toml's other settings stay), this binary
//! as `RUSTC_WRAPPER` (a wrapper you had runs after it), and the session: a temporary
//! directory where the linker role leaves a record per merged binary, plus where `fmerge`
//! and `llc` are. `build` and `test` ask cargo for JSON messages (`--message-format
//! json-render-diagnostics`: cargo still prints its diagnostics) to learn where each binary
//! went and whether cargo found it up to date; an up-to-date binary is reported from the
//! record left next to it when it was merged, recognised by its contents. `test` builds the
//! harnesses first (`--no-run`), reports, then runs them; `run` reports after the program.

use crate::cli::{Command, Options};
use crate::plan::{self, Note, Record};
use crate::report::{self, Binary, Summary};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

/// The rustc cargo will run, as cargo finds it.
fn rustc_program() -> String {
    std::env::var("RUSTC").ok().filter(|r| !r.is_empty()).unwrap_or_else(|| "rustc".into())
}

/// Fails unless rustc is built on LLVM 22.
fn check_rustc() -> Result<()> {
    let rustc = rustc_program();
    let out = Process::new(&rustc)
        .arg("-vV")
        .output()
        .with_context(|| format!("running `{rustc} -vV` (is Rust installed?)"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let release = text.lines().find_map(|l| l.strip_prefix("release: ")).unwrap_or("?");
    match text.lines().find_map(|l| l.strip_prefix("LLVM version: ")) {
        Some(v) if v.starts_with("22.") => Ok(()),
        Some(v) => bail!(
            "rustc {release} is built on LLVM {v}; fmerge reads LLVM 22 bitcode. Use rustc 1.95 \
             (`rustup toolchain install 1.95` and `cargo +1.95 fmerge ...`), whose \
             `rustc -vV` shows \"LLVM version: 22.x\""
        ),
        None => bail!(
            "`{rustc} -vV` does not say which LLVM it is built on; cargo fmerge needs a rustc \
             built on LLVM 22 (rustc 1.95)"
        ),
    }
}

/// An executable file named `name` on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// The `fmerge` binary: $FMERGE, next to this binary, or on PATH.
fn find_fmerge() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FMERGE").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let sibling = std::env::current_exe().ok().and_then(|e| e.parent().map(|d| d.join("fmerge")));
    sibling.filter(|p| p.is_file()).or_else(|| on_path("fmerge")).context(
        "`fmerge` not found next to cargo-fmerge or on PATH: `make install` in fmerge's \
         repository installs both (or set FMERGE=/path/to/fmerge)",
    )
}

/// LLVM 22's llc: $FMERGE_LLC, `llc-22` on PATH, or Debian's LLVM 22 directory.
fn find_llc() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("FMERGE_LLC").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    on_path("llc-22")
        .or_else(|| Some(PathBuf::from("/usr/lib/llvm-22/bin/llc")).filter(|p| p.is_file()))
        .context(
            "LLVM 22's llc (`llc-22`) not found: install LLVM 22 (`make setup` in fmerge's \
             repository, or Debian's llvm-22 package), or set FMERGE_LLC=/path/to/llc",
        )
}

/// The value of `--flag V` or `--flag=V` among cargo's arguments (before any `--`).
fn cargo_value(args: &[String], names: &[&str]) -> Option<String> {
    let mut found = None;
    let mut i = 0;
    while i < args.len() && args[i] != "--" {
        for name in names {
            if args[i] == *name {
                found = args.get(i + 1).cloned();
            } else if let Some(v) = args[i].strip_prefix(&format!("{name}=")) {
                found = Some(v.to_string());
            }
        }
        i += 1;
    }
    found
}

fn cargo_flag(args: &[String], names: &[&str]) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| names.contains(&a.as_str()))
}

/// The profile cargo builds with for this command and these arguments.
pub fn profile_name(command: &str, args: &[String]) -> String {
    if let Some(p) = cargo_value(args, &["--profile"]) {
        return p;
    }
    if cargo_flag(args, &["--release", "-r"]) {
        return "release".into();
    }
    match command {
        "test" => "test".into(),
        _ => "dev".into(),
    }
}

/// A profile's environment prefix: `CARGO_PROFILE_RELEASE_`.
fn profile_env(profile: &str) -> String {
    format!("CARGO_PROFILE_{}_", profile.to_uppercase().replace('-', "_"))
}

/// The rustc wrapper the user had, which runs after ours (not ours again, when `cargo
/// fmerge` runs inside a build that `cargo fmerge` started).
fn users_wrapper(me: &Path) -> String {
    let w = std::env::var("RUSTC_WRAPPER").unwrap_or_default();
    let ours = !w.is_empty() && std::fs::canonicalize(&w).ok() == std::fs::canonicalize(me).ok();
    if ours { String::new() } else { w }
}

/// The session: a temporary directory and the environment cargo runs in.
struct Session {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
    extra_args: Vec<String>,
}

fn session(command: &str, o: &Options) -> Result<Session> {
    check_rustc()?;
    let fmerge = find_fmerge()?;
    let llc = find_llc()?;
    if cargo_value(&o.cargo_args, &["--message-format"]).is_some() {
        bail!("cargo fmerge chooses cargo's --message-format itself; use --json for its report");
    }
    let dir = tempfile::Builder::new().prefix("cargo-fmerge").tempdir()?;
    let me = std::env::current_exe().context("finding cargo-fmerge's own path")?;
    let prefix = profile_env(&profile_name(command, &o.cargo_args));
    let mut fmerge_args = o.fmerge_arg.clone();
    let mut env = vec![
        (format!("{prefix}LTO"), "fat".to_string()),
        (format!("{prefix}CODEGEN_UNITS"), "1".to_string()),
        ("RUSTC_WRAPPER".into(), me.display().to_string()),
        (plan::ENV_NEXT_WRAPPER.into(), users_wrapper(&me)),
        (plan::ENV_SESSION.into(), dir.path().display().to_string()),
        (plan::ENV_FMERGE.into(), fmerge.display().to_string()),
        (plan::ENV_LLC.into(), llc.display().to_string()),
    ];
    let mut extra_args = Vec::new();
    if let Some(p) = &o.profile_data {
        let p = std::path::absolute(p)?;
        if !p.is_file() {
            bail!("--profile-data {}: no such file", p.display());
        }
        if p.extension().is_some_and(|e| e == "profdata") {
            // LLVM's profile: rustc puts it in the module, where fmerge finds it.
            let flag = format!("-Cprofile-use={}", p.display());
            if let Ok(flags) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
                let sep = if flags.is_empty() { "" } else { "\x1f" };
                env.push(("CARGO_ENCODED_RUSTFLAGS".into(), format!("{flags}{sep}{flag}")));
            } else if let Ok(flags) = std::env::var("RUSTFLAGS") {
                env.push(("RUSTFLAGS".into(), format!("{flags} {flag}")));
            } else {
                extra_args.push("--config".into());
                extra_args.push(format!("build.rustflags=[{}]", serde_json::to_string(&flag)?));
            }
        } else {
            fmerge_args.push("--profile".into());
            fmerge_args.push(p.display().to_string());
        }
    }
    env.push((plan::ENV_FMERGE_ARGS.into(), serde_json::to_string(&fmerge_args)?));
    Ok(Session { dir, env, extra_args })
}

/// Runs cargo; with `json`, reads its messages and returns the executables it built
/// (path, fresh).
fn run_cargo(
    sub: &str,
    s: &Session,
    args: &[String],
    json: bool,
) -> Result<(i32, Vec<(PathBuf, bool)>)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Process::new(&cargo);
    cmd.arg(sub);
    if json {
        cmd.arg("--message-format=json-render-diagnostics");
    }
    cmd.args(&s.extra_args).args(args);
    for (k, v) in &s.env {
        cmd.env(k, v);
    }
    let progress = Progress::start(s.dir.path());
    if !json {
        let status = cmd.status().with_context(|| format!("running `{cargo} {sub}`"))?;
        progress.stop();
        return Ok((status.code().unwrap_or(1), Vec::new()));
    }
    let mut child =
        cmd.stdout(Stdio::piped()).spawn().with_context(|| format!("running `{cargo} {sub}`"))?;
    let mut executables = Vec::new();
    let stdout = child.stdout.take().context("cargo's output")?;
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            // Not a message of cargo's (a build script printing to stdout): pass it on.
            println!("{line}");
            continue;
        };
        if msg["reason"] == "compiler-artifact"
            && let Some(exe) = msg["executable"].as_str()
        {
            executables.push((PathBuf::from(exe), msg["fresh"].as_bool().unwrap_or(false)));
        }
    }
    let status = child.wait()?;
    progress.stop();
    Ok((status.code().unwrap_or(1), executables))
}

/// Progress lines on stderr while cargo runs, from the files the linker role leaves in the
/// session: when a program's merging starts and when it is done.
struct Progress {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(session: &Path) -> Progress {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (flag, session) = (stop.clone(), session.to_path_buf());
        let thread = std::thread::spawn(move || {
            let mut shown = HashSet::new();
            loop {
                // Read the flag first: one last look after cargo is done.
                let last = flag.load(Ordering::Relaxed);
                for line in progress_lines(&session, &mut shown) {
                    eprintln!("{line}");
                }
                if last {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        });
        Progress { stop, thread: Some(thread) }
    }

    fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// New progress lines: `Merging` for each program started, `Merged` for each done.
fn progress_lines(session: &Path, shown: &mut HashSet<PathBuf>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut files = |dir: &str| -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(session.join(dir)) else { return Vec::new() };
        let mut new: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.to_string_lossy().contains(".tmp") && !shown.contains(p))
            .collect();
        new.sort();
        shown.extend(new.iter().cloned());
        new
    };
    for p in files("started") {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let (name, size) = text.split_once('\t').unwrap_or((&text, "0"));
        let mb = size.parse::<f64>().unwrap_or(0.0) / 1e6;
        lines.push(format!("     Merging {name} (fat-LTO module, {mb:.1} MB) with fmerge"));
    }
    for p in files("records") {
        if let Some(r) =
            std::fs::read(&p).ok().and_then(|b| serde_json::from_slice::<Record>(&b).ok())
        {
            let saved = r.text_before as f64 - r.text_after as f64;
            let pct = if r.text_before > 0 { 100.0 * saved / r.text_before as f64 } else { 0.0 };
            lines.push(format!(
                "      Merged {}: .text -{pct:.2}% in {:.1} s",
                r.crate_name, r.seconds
            ));
        }
    }
    lines
}

fn read_json<T: serde::de::DeserializeOwned>(dir: &Path) -> Vec<T> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect()
}

/// The record of a binary merged earlier, found next to it by its contents.
fn earlier_record(exe: &Path) -> Option<Record> {
    let hash = plan::file_hash(exe).ok()?;
    let dir = exe.parent()?;
    for d in [dir.to_path_buf(), dir.join("deps")] {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if !p.to_string_lossy().ends_with(".fmerge.json") {
                continue;
            }
            if let Some(r) = std::fs::read(&p)
                .ok()
                .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
                .filter(|r| r.binary_hash == hash)
            {
                return Some(r);
            }
        }
    }
    None
}

/// The report of this session, with the executables cargo named.
fn summarize(s: &Session, executables: &[(PathBuf, bool)]) -> Summary {
    let records: Vec<Record> = read_json(&s.dir.path().join("records"));
    let mut summary =
        Summary { libraries: read_json(&s.dir.path().join("notes")), ..Summary::default() };
    let mut used = HashSet::new();
    let mut seen = HashSet::new();
    for (exe, fresh) in executables {
        if !seen.insert(exe.clone()) {
            continue;
        }
        let hash = plan::file_hash(exe).ok();
        let now =
            records.iter().position(|r| Some(r.binary_hash) == hash && !used.contains(&r.output));
        if let Some(k) = now {
            used.insert(records[k].output.clone());
            summary.binaries.push(Binary {
                path: exe.clone(),
                fresh: false,
                record: records[k].clone(),
            });
        } else if let Some(r) = earlier_record(exe) {
            summary.binaries.push(Binary { path: exe.clone(), fresh: *fresh, record: r });
        } else {
            summary.not_merged.push(exe.clone());
        }
    }
    // Links cargo did not name (`cargo run`): where cargo copied them, else where rustc
    // wrote them.
    for r in records.into_iter().filter(|r| !used.contains(&r.output)) {
        if !summary.binaries.iter().any(|b| b.record.binary_hash == r.binary_hash) {
            let path = uplifted(&r).unwrap_or_else(|| r.output.clone());
            summary.binaries.push(Binary { path, fresh: false, record: r });
        }
    }
    summary
}

/// Where cargo copies a binary rustc wrote to `deps/`: `target/release/NAME`, the same file.
fn uplifted(r: &Record) -> Option<PathBuf> {
    let deps = r.output.parent()?;
    if deps.file_name()? != "deps" {
        return None;
    }
    let dir = deps.parent()?;
    [r.crate_name.clone(), r.crate_name.replace('_', "-")]
        .into_iter()
        .map(|name| dir.join(name))
        .find(|p| plan::file_hash(p).is_ok_and(|h| h == r.binary_hash))
}

/// Prints the report; fails when nothing could be merged because of library crate types.
fn report(summary: &Summary, json: bool, to_stderr: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(summary)?);
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        let text = report::human(summary, &cwd);
        if to_stderr {
            eprint!("{text}");
        } else {
            print!("{text}");
            std::io::stdout().flush()?;
        }
    }
    if summary.binaries.is_empty() && summary.not_merged.is_empty() && !summary.libraries.is_empty()
    {
        let n: &Note = &summary.libraries[0];
        bail!(
            "nothing to merge: `{}` is a {}, not a program. cargo fmerge merges whole programs \
             (binaries, examples, test harnesses), whose only entry is `main`. To merge a {}, \
             load fmerge's pass plugin into the link that uses it (README: \"Rust: the plugin in \
             the linker\"), or run `fmerge opt` without --whole-program on its fat-LTO module",
            n.crate_name,
            n.crate_type,
            n.crate_type
        );
    }
    Ok(())
}

/// Errors the linker role left, for when cargo failed.
fn print_errors(s: &Session) {
    let Ok(entries) = std::fs::read_dir(s.dir.path().join("errors")) else { return };
    for e in entries.flatten() {
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            eprint!("{text}");
        }
    }
}

/// `cargo fmerge build|test|run`.
pub fn run(command: Command) -> Result<i32> {
    let (name, o) = match &command {
        Command::Build(o) => ("build", o),
        Command::Test(o) => ("test", o),
        Command::Run(o) => ("run", o),
    };
    let s = session(name, o)?;
    let args = &o.cargo_args;
    match name {
        "build" => {
            let (code, exes) = run_cargo("build", &s, args, true)?;
            if code != 0 {
                print_errors(&s);
                return Ok(code);
            }
            report(&summarize(&s, &exes), o.json, false)?;
            Ok(0)
        }
        "test" => {
            // Build the harnesses (arguments after `--` are for them, not for the build).
            let build: Vec<String> = args.iter().take_while(|a| *a != "--").cloned().collect();
            let mut no_run = vec!["--no-run".to_string()];
            no_run.extend(build);
            let (code, exes) = run_cargo("test", &s, &no_run, true)?;
            if code != 0 {
                print_errors(&s);
                return Ok(code);
            }
            report(&summarize(&s, &exes), o.json, !o.json)?;
            let (code, _) = run_cargo("test", &s, args, false)?;
            Ok(code)
        }
        _ => {
            let (code, _) = run_cargo("run", &s, args, false)?;
            // Only what was linked now: an up-to-date binary was reported when it was built.
            let summary = summarize(&s, &[]);
            if !summary.binaries.is_empty() {
                report(&summary, o.json, !o.json)?;
            } else if code != 0 {
                print_errors(&s);
            }
            Ok(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn profiles_follow_cargos_rules() {
        assert_eq!(profile_name("build", &v("--release --bin x")), "release");
        assert_eq!(profile_name("build", &v("-r")), "release");
        assert_eq!(profile_name("build", &v("--profile=dist")), "dist");
        assert_eq!(profile_name("test", &v("--profile small-fast")), "small-fast");
        assert_eq!(profile_name("build", &v("")), "dev");
        assert_eq!(profile_name("test", &v("")), "test");
        assert_eq!(profile_name("run", &v("-- --release")), "dev");
        assert_eq!(profile_env("small-fast"), "CARGO_PROFILE_SMALL_FAST_");
    }
}
