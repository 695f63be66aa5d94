//! The rustc wrapper role: cargo runs `cargo-fmerge RUSTC ARGS...` for every crate.
//!
//! Why a wrapper: cargo decides which crates are binaries, with which profile, features and
//! target, and where their files go; the wrapper sees rustc's exact command for each and
//! changes only the links that fmerge can improve: binaries and test harnesses built with fat
//! LTO (`cargo fmerge` sets the profile's `lto = "fat"`), never build scripts. For those it
//! asks rustc for the fat-LTO module as well (`--emit llvm-bc=...`, written before the link)
//! and puts `cargo-fmerge` in the linker's place (a link named like the real linker, so rustc
//! infers the same linker flavor), with the plan of the link in the environment. Every
//! other invocation (dependencies, `rustc -vV`, build scripts) runs unchanged. A cdylib,
//! staticlib or dylib of the selected packages is noted for the report: its exported
//! functions are called from outside, so it is not a whole program.

use crate::plan::{self, LinkPlan, Note};
use anyhow::{Context, Result, bail};
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the wrapper needs from one rustc command line.
#[derive(Debug, Default)]
pub struct RustcArgs {
    pub crate_name: Option<String>,
    pub crate_types: Vec<String>,
    pub test: bool,
    pub out_dir: Option<PathBuf>,
    pub target: Option<String>,
    /// `-C` options in order (`lto`, `opt-level`, `linker`, ...), later ones win.
    pub codegen: Vec<(String, String)>,
}

impl RustcArgs {
    pub fn parse(args: &[String]) -> RustcArgs {
        let mut r = RustcArgs::default();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            // `--flag value` or `--flag=value`.
            let mut value = |name: &str| -> Option<String> {
                if a == name {
                    i += 1;
                    args.get(i).cloned()
                } else {
                    a.strip_prefix(name).and_then(|v| v.strip_prefix('=')).map(str::to_string)
                }
            };
            if let Some(v) = value("--crate-name") {
                r.crate_name = Some(v);
            } else if let Some(v) = value("--crate-type") {
                r.crate_types.extend(v.split(',').map(str::to_string));
            } else if let Some(v) = value("--out-dir") {
                r.out_dir = Some(PathBuf::from(v));
            } else if let Some(v) = value("--target") {
                r.target = Some(v);
            } else if let Some(v) = value("--codegen") {
                r.push_codegen(&v);
            } else if a == "-C" {
                i += 1;
                if let Some(v) = args.get(i) {
                    r.push_codegen(v);
                }
            } else if let Some(v) = a.strip_prefix("-C") {
                r.push_codegen(v);
            } else if a == "--test" {
                r.test = true;
            }
            i += 1;
        }
        r
    }

    fn push_codegen(&mut self, kv: &str) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        self.codegen.push((k.replace('_', "-"), v.to_string()));
    }

    /// The last value of `-C key`.
    pub fn cg(&self, key: &str) -> Option<&str> {
        self.codegen.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Fat LTO: `-C lto`, `-C lto=fat`, `=yes`, `=true`, `=on`, `=y`.
    pub fn fat_lto(&self) -> bool {
        matches!(self.cg("lto"), Some("" | "fat" | "yes" | "true" | "on" | "y"))
    }

    /// A program rustc links (a binary, an example or a test harness), not a build script.
    pub fn is_program(&self) -> bool {
        let bin = self.test || self.crate_types.iter().any(|t| t == "bin");
        let build_script =
            self.crate_name.as_deref().is_some_and(|n| n.starts_with("build_script_"));
        bin && !build_script
    }

    /// `llc` options generating code as rustc would for this crate.
    pub fn llc_args(&self) -> Vec<String> {
        let mut out = vec!["-filetype=obj".to_string()];
        // rustc's levels: 0-3 as such, `s` and `z` at LLVM's default level.
        let level = match self.cg("opt-level").unwrap_or("0") {
            "1" => "1",
            "2" | "s" | "z" => "2",
            "3" => "3",
            _ => "0",
        };
        out.push(format!("-O{level}"));
        // rustc's default for hosted targets is position independent code (PIE executables).
        let reloc = match self.cg("relocation-model").unwrap_or("pic") {
            "pie" | "default" => "pic".to_string(),
            other => other.to_string(),
        };
        out.push(format!("-relocation-model={reloc}"));
        if let Some(model) = self.cg("code-model") {
            out.push(format!("-code-model={model}"));
        }
        if let Some(cpu) = self.cg("target-cpu") {
            out.push(format!("-mcpu={cpu}"));
        }
        // Target features are on every function the module holds (rustc writes them there);
        // the rest is what rustc's target machine sets: one section per function and per
        // object, and a trap for `unreachable` except after calls that never return.
        out.extend(
            [
                "-function-sections",
                "-data-sections",
                "-trap-unreachable",
                "-no-trap-after-noreturn",
            ]
            .map(str::to_string),
        );
        out
    }
}

/// Runs as `RUSTC_WRAPPER`: `args` are rustc (or the user's wrapper) and its arguments.
pub fn run(args: Vec<OsString>) -> Result<i32> {
    if args.is_empty() {
        bail!("the rustc wrapper role was started without a rustc to run");
    }
    let strings: Vec<String> = args[1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let parsed = RustcArgs::parse(&strings);
    let mut cmd = match std::env::var_os(plan::ENV_NEXT_WRAPPER).filter(|w| !w.is_empty()) {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(&args[0]);
            c
        }
        None => Command::new(&args[0]),
    };
    let session = std::env::var_os(plan::ENV_SESSION).map(PathBuf::from);
    if let (Some(session), true) = (session, parsed.fat_lto()) {
        if parsed.is_program() {
            let (plan, linker) = plan_link(&parsed, &session)?;
            let rest = without_linker(&strings);
            cmd.args(rest);
            cmd.arg(format!("--emit=llvm-bc={}", plan.bitcode.display()));
            cmd.arg("-C").arg(format!("linker={}", linker.display()));
            cmd.env(plan::ENV_LINK_PLAN, serde_json::to_string(&plan)?);
            return Err(cmd.exec()).context("starting rustc");
        }
        note_library(&parsed, &session);
    }
    cmd.args(&args[1..]);
    Err(cmd.exec()).context("starting rustc")
}

/// The plan of a program's link and the linker path to give rustc.
fn plan_link(parsed: &RustcArgs, session: &Path) -> Result<(LinkPlan, PathBuf)> {
    let crate_name = parsed.crate_name.clone().context("rustc was given no --crate-name")?;
    let out_dir = parsed.out_dir.clone().context("rustc was given no --out-dir")?;
    let extra = parsed.cg("extra-filename").unwrap_or("");
    let stem = format!("{crate_name}{extra}");
    let real_linker = parsed.cg("linker").unwrap_or("cc").to_string();
    // A link in the session named like the real linker: rustc infers the linker flavor
    // from the name (`cc`, `clang`, `ld.lld`...), and must infer the same one.
    let name = Path::new(&real_linker)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "cc".into());
    let dir = session.join("linkers").join(&stem);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let link = dir.join(name);
    if !link.exists() {
        let me = std::env::current_exe().context("finding cargo-fmerge's own path")?;
        std::os::unix::fs::symlink(&me, &link)
            .with_context(|| format!("linking {} to {}", link.display(), me.display()))?;
    }
    let plan = LinkPlan {
        real_linker,
        bitcode: out_dir.join(format!("{stem}.fmerge.bc")),
        stem,
        out_dir,
        crate_name,
        package: std::env::var("CARGO_PKG_NAME").unwrap_or_default(),
        kind: if parsed.test { "test" } else { "bin" }.to_string(),
        llc_args: parsed.llc_args(),
    };
    Ok((plan, link))
}

/// rustc's arguments without `-C linker=...` (the wrapper gives its own).
fn without_linker(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    let is_linker = |kv: &str| kv.starts_with("linker=");
    while i < args.len() {
        let a = &args[i];
        if (a == "-C" || a == "--codegen") && args.get(i + 1).is_some_and(|v| is_linker(v)) {
            i += 2;
            continue;
        }
        let joined = a.strip_prefix("-C").or_else(|| a.strip_prefix("--codegen="));
        if joined.is_some_and(is_linker) {
            i += 1;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

/// Notes a library of the selected packages that `cargo fmerge` leaves as it is.
fn note_library(parsed: &RustcArgs, session: &Path) {
    if std::env::var_os("CARGO_PRIMARY_PACKAGE").is_none() {
        return;
    }
    let Some(kind) =
        parsed.crate_types.iter().find(|t| matches!(t.as_str(), "cdylib" | "staticlib" | "dylib"))
    else {
        return;
    };
    let note = Note {
        package: std::env::var("CARGO_PKG_NAME").unwrap_or_default(),
        crate_name: parsed.crate_name.clone().unwrap_or_default(),
        crate_type: kind.clone(),
    };
    let dir = session.join("notes");
    if std::fs::create_dir_all(&dir).is_ok()
        && let Ok(json) = serde_json::to_vec(&note)
    {
        let _ = std::fs::write(dir.join(format!("{}-{kind}.json", note.crate_name)), json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> RustcArgs {
        RustcArgs::parse(&s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn programs_with_fat_lto_are_merged_and_build_scripts_are_not() {
        let bin = parse("--crate-name app --crate-type bin -C opt-level=3 -C lto=fat");
        assert!(bin.is_program() && bin.fat_lto());
        let test = parse("--crate-name app --test -Clto");
        assert!(test.is_program() && test.fat_lto());
        let script = parse("--crate-name build_script_build --crate-type bin -C lto=fat");
        assert!(!script.is_program());
        let thin = parse("--crate-name app --crate-type bin -C lto=thin");
        assert!(!thin.fat_lto());
        let lib = parse("--crate-name lib --crate-type=lib,cdylib -C lto=fat");
        assert!(!lib.is_program() && lib.crate_types == ["lib", "cdylib"]);
    }

    #[test]
    fn llc_options_follow_rustc_options() {
        let a = parse("-C opt-level=z -C relocation-model=static -Ctarget-cpu=native");
        let llc = a.llc_args();
        assert!(llc.contains(&"-O2".into()) && llc.contains(&"-mcpu=native".into()));
        assert!(llc.contains(&"-relocation-model=static".into()));
        let d = parse("--crate-name x").llc_args();
        assert!(d.contains(&"-O0".into()) && d.contains(&"-relocation-model=pic".into()));
        assert_eq!(parse("--codegen opt-level=3").cg("opt-level"), Some("3"));
    }

    #[test]
    fn the_users_linker_is_taken_out() {
        let args: Vec<String> = "a -C linker=clang -Clinker=x --codegen linker=y -C opt-level=3 b"
            .split(' ')
            .map(Into::into)
            .collect();
        assert_eq!(without_linker(&args), ["a", "-C", "opt-level=3", "b"]);
    }
}
