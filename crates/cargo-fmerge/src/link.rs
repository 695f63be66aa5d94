//! The linker role: rustc runs `cargo-fmerge` (through a link named like the real linker)
//! with its own link command for a program built with fat LTO.
//!
//! Why in the link: only here do rustc's link command and every file it names exist
//! together (the objects and trimmed rlibs in rustc's temporary directory are deleted when
//! rustc is done), and only here can the merged program be written where cargo expects it, so
//! cargo's freshness checks, `cargo run` and `cargo test` see the merged binary.
//!
//! How: (1) run the real linker with rustc's arguments as they are: rustc's own fat-LTO
//! binary, the "before"; (2) `fmerge opt` on the fat-LTO module rustc wrote (`--emit
//! llvm-bc`). Not `--whole-program`: rustc's fat LTO has made internal every function but the
//! program's exported ones (`main`, and `#[no_mangle]` functions that C code linked in may
//! call by name), and `--whole-program` would let fmerge erase those; on fd both give the same
//! bytes; (3) `llc` with the options rustc's code generation uses (the plan's
//! `llc_args`); (4) the real linker again with the same arguments, the fat-LTO object
//! replaced by the merged one (in a response file too, rewritten line by line), writing next
//! to the output; (5) the smaller of the two binaries is left in place (fmerge's size guard
//! makes that the merged one; a larger result is reported, not hidden), and a record of
//! sizes, time and the bytes saved by crate is written for `cargo fmerge`'s report.
//! Failures after (1) print what failed, with rustc's link command, and fail the link.

use crate::plan::{self, LinkPlan, Record};
use crate::report;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One argument of the link, or a response file (`@file`) with its lines.
#[derive(Clone, Debug)]
enum Item {
    Arg(String),
    File { lines: Vec<String> },
}

/// rustc's link command.
#[derive(Clone, Debug)]
struct LinkArgs {
    items: Vec<Item>,
}

impl LinkArgs {
    fn read(args: &[String]) -> Result<LinkArgs> {
        let mut items = Vec::new();
        for a in args {
            match a.strip_prefix('@') {
                Some(path) => {
                    let text = std::fs::read_to_string(path)
                        .with_context(|| format!("reading the linker's response file {path}"))?;
                    items.push(Item::File { lines: text.lines().map(str::to_string).collect() });
                }
                None => items.push(Item::Arg(a.clone())),
            }
        }
        Ok(LinkArgs { items })
    }

    /// Every argument, response files expanded (lines unescaped).
    fn flat(&self) -> Vec<String> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Arg(a) => out.push(a.clone()),
                Item::File { lines } => out.extend(lines.iter().map(|l| unescape(l))),
            }
        }
        out
    }

    /// The same command with every argument `f` maps to `Some` replaced (`None` keeps it;
    /// an empty replacement drops it).
    fn map(&self, f: impl Fn(&str) -> Option<Vec<String>>) -> LinkArgs {
        let items = self
            .items
            .iter()
            .flat_map(|item| match item {
                Item::Arg(a) => match f(a) {
                    Some(new) => new.into_iter().map(Item::Arg).collect(),
                    None => vec![item.clone()],
                },
                Item::File { lines } => {
                    let lines = lines
                        .iter()
                        .flat_map(|l| match f(&unescape(l)) {
                            Some(new) => new.iter().map(|n| escape(n)).collect(),
                            None => vec![l.clone()],
                        })
                        .collect();
                    vec![Item::File { lines }]
                }
            })
            .collect();
        LinkArgs { items }
    }

    /// Command-line arguments, response files written to `dir` under `name`.
    fn to_command_line(&self, dir: &Path, name: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (k, item) in self.items.iter().enumerate() {
            match item {
                Item::Arg(a) => out.push(a.clone()),
                Item::File { lines } => {
                    let path = dir.join(format!("{name}.{k}.link-args"));
                    let mut text = lines.join("\n");
                    text.push('\n');
                    std::fs::write(&path, text)
                        .with_context(|| format!("writing {}", path.display()))?;
                    out.push(format!("@{}", path.display()));
                }
            }
        }
        Ok(out)
    }
}

/// A GNU-style response file line as an argument (rustc escapes `\` and spaces).
fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn escape(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len());
    for c in arg.chars() {
        if matches!(c, '\\' | ' ' | '\t' | '"' | '\'') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The command as a shell would show it.
fn shell_line(program: &str, args: &[String]) -> String {
    let quote = |s: &str| {
        if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:@+%".contains(c))
        {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    };
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the linker role with rustc's link arguments; returns the exit status.
pub fn run(plan: &LinkPlan, args: &[String]) -> Result<i32> {
    // (1) rustc's own link, as rustc asked for it.
    let status = Command::new(&plan.real_linker)
        .args(args)
        .env_remove(plan::ENV_LINK_PLAN)
        .status()
        .with_context(|| format!("running the linker `{}`", plan.real_linker))?;
    if !status.success() {
        return Ok(status.code().unwrap_or(1));
    }
    match merge(plan, args) {
        Ok(()) => Ok(0),
        Err(e) => {
            let message = format!(
                "cargo fmerge: merging `{}` failed: {e:#}\nrustc's link command was:\n  {}\n",
                plan.crate_name,
                shell_line(&plan.real_linker, args)
            );
            eprint!("{message}");
            if let Some(session) = std::env::var_os(plan::ENV_SESSION) {
                let dir = Path::new(&session).join("errors");
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join(format!("{}.txt", plan.stem)), &message);
            }
            Ok(1)
        }
    }
}

/// Steps (2) to (5).
fn merge(plan: &LinkPlan, args: &[String]) -> Result<()> {
    let start = Instant::now();
    let link = LinkArgs::read(args)?;
    let flat = link.flat();
    let output = flat
        .iter()
        .position(|a| a == "-o")
        .and_then(|k| flat.get(k + 1))
        .map(PathBuf::from)
        .context("rustc's link command names no output (-o)")?;
    let prefix = format!("{}.", plan.stem);
    let is_lto_object = |a: &str| {
        let name = Path::new(a).file_name().map(|n| n.to_string_lossy().into_owned());
        name.is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".rcgu.o"))
    };
    let objects = flat.iter().filter(|a| is_lto_object(a)).count();
    if objects != 1 {
        bail!(
            "expected one fat-LTO object of `{}` in rustc's link command, found {objects} \
             (is the profile's codegen-units or lto overridden?)",
            plan.stem
        );
    }
    if !plan.bitcode.exists() {
        bail!("rustc wrote no fat-LTO module at {}", plan.bitcode.display());
    }
    let text_before = report::text_bytes(&output)?;
    announce(plan);

    // (2) merge.
    let merged_bc = plan.file("fmerge.merged.bc");
    let report_json = plan.file("fmerge.report.json");
    let fmerge = std::env::var(plan::ENV_FMERGE).unwrap_or_else(|_| "fmerge".into());
    let mut opt_args: Vec<String> = vec![
        "opt".into(),
        plan.bitcode.display().to_string(),
        "-o".into(),
        merged_bc.display().to_string(),
        "--report".into(),
        report_json.display().to_string(),
        "--quiet".into(),
    ];
    if let Ok(extra) = std::env::var(plan::ENV_FMERGE_ARGS) {
        let extra: Vec<String> = serde_json::from_str(&extra).context("reading fmerge options")?;
        opt_args.extend(extra);
    }
    run_tool(&fmerge, &opt_args)?;

    // (3) generate code as rustc would.
    let merged_obj = plan.file("fmerge.merged.o");
    let llc = std::env::var(plan::ENV_LLC).unwrap_or_else(|_| "llc-22".into());
    let mut llc_args = plan.llc_args.clone();
    llc_args.extend([
        merged_bc.display().to_string(),
        "-o".into(),
        merged_obj.display().to_string(),
    ]);
    run_tool(&llc, &llc_args)?;

    // (4) rustc's link again, with the merged object.
    let merged_out = plan.file("fmerge.linked");
    let obj = merged_obj.display().to_string();
    let out = merged_out.display().to_string();
    let relink = link.map(|a| {
        if is_lto_object(a) {
            Some(vec![obj.clone()])
        } else if Path::new(a) == output {
            Some(vec![out.clone()])
        } else {
            None
        }
    });
    let relink_args = relink.to_command_line(&plan.out_dir, &plan.stem)?;
    let result = Command::new(&plan.real_linker)
        .args(&relink_args)
        .env_remove(plan::ENV_LINK_PLAN)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running the linker `{}`", plan.real_linker))?;
    if !result.status.success() {
        bail!(
            "linking the merged object failed ({}):\n{}{}the merged link was:\n  {}",
            result.status,
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr),
            shell_line(&plan.real_linker, &relink_args)
        );
    }

    // (5) keep the smaller binary, record what happened.
    let text_after = report::text_bytes(&merged_out)?;
    let kept_fat_lto = text_after >= text_before;
    if kept_fat_lto {
        let _ = std::fs::remove_file(&merged_out);
    } else {
        std::fs::rename(&merged_out, &output)
            .with_context(|| format!("moving the merged binary to {}", output.display()))?;
    }
    let merged = report::read_merges(&report_json)?;
    let record = Record {
        crate_name: plan.crate_name.clone(),
        package: plan.package.clone(),
        kind: plan.kind.clone(),
        output: output.clone(),
        text_before,
        text_after: if kept_fat_lto { text_before } else { text_after },
        seconds: start.elapsed().as_secs_f64(),
        merges: merged.merges,
        functions_merged: merged.functions,
        kept_fat_lto,
        by_crate: merged.by_crate,
        binary_hash: plan::file_hash(&output)?,
    };
    let json = serde_json::to_vec_pretty(&record)?;
    plan::write_atomically(&plan.record_path(), &json)?;
    if let Some(session) = std::env::var_os(plan::ENV_SESSION) {
        let dir = Path::new(&session).join("records");
        std::fs::create_dir_all(&dir)?;
        plan::write_atomically(&dir.join(format!("{}.json", plan.stem)), &json)?;
    }
    for f in [&merged_bc, &merged_obj] {
        let _ = std::fs::remove_file(f);
    }
    Ok(())
}

/// Tells `cargo fmerge` that merging started (rustc shows a linker's output only when the
/// link fails, so `cargo fmerge` prints progress from these files).
fn announce(plan: &LinkPlan) {
    let Some(session) = std::env::var_os(plan::ENV_SESSION) else { return };
    let dir = Path::new(&session).join("started");
    let size = std::fs::metadata(&plan.bitcode).map(|m| m.len()).unwrap_or(0);
    let line = format!("{}\t{size}", plan.crate_name);
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = plan::write_atomically(&dir.join(&plan.stem), line.as_bytes());
    }
}

/// Runs a tool, failing with its output.
fn run_tool(program: &str, args: &[String]) -> Result<()> {
    let out = Command::new(program)
        .args(args)
        .env_remove(plan::ENV_LINK_PLAN)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running `{program}`"))?;
    if !out.status.success() {
        bail!(
            "`{}` failed ({}):\n{}{}",
            shell_line(program, args),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_file_lines_round_trip() {
        for arg in ["plain", "/a b/c.o", r"back\slash", "it's"] {
            assert_eq!(unescape(&escape(arg)), arg);
        }
    }

    #[test]
    fn replacing_arguments_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let rsp = dir.path().join("args");
        std::fs::write(&rsp, "-m64\n/x\\ y/app.app.1-cgu.0.rcgu.o\n-o\n/out/app\n").unwrap();
        let args = vec!["-pie".to_string(), format!("@{}", rsp.display())];
        let link = LinkArgs::read(&args).unwrap();
        assert_eq!(link.flat(), ["-pie", "-m64", "/x y/app.app.1-cgu.0.rcgu.o", "-o", "/out/app"]);
        let mapped = link.map(|a| a.ends_with(".rcgu.o").then(|| vec!["/m n.o".to_string()]));
        let line = mapped.to_command_line(dir.path(), "t").unwrap();
        assert_eq!(line[0], "-pie");
        let written = std::fs::read_to_string(line[1].strip_prefix('@').unwrap()).unwrap();
        assert_eq!(written, "-m64\n/m\\ n.o\n-o\n/out/app\n");
    }

    #[test]
    fn shell_lines_quote_what_needs_it() {
        assert_eq!(shell_line("cc", &["-o".into(), "a b".into()]), "cc -o 'a b'");
    }
}
