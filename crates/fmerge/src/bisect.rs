//! `fmerge bisect`: find the first merge that breaks a build, like LLVM's `-opt-bisect-limit`
//! searched by hand, but automatic.
//!
//! The stages commit merges in a deterministic order and number them (`seq` in the report);
//! `fmerge opt --bisect-limit N` commits only merges 1..=N. A merge that breaks the program
//! keeps it broken for every larger N (later merges do not repair it), so a binary search over
//! N with the user's build-and-test command finds the first bad merge: the command passes
//! with N - 1 merges and fails with N. The search runs `fmerge opt` as a process for each N
//! (this binary, or `--fmerge` for another release) with `--no-measure`, so the size guard
//! does not renumber merges between runs.
//!
//! The test command runs with `sh -c`; `{}` in it (or the environment variable
//! `FMERGE_BISECT_MODULE`) names the merged module to test. Exit 0 means good, 125 means the
//! module cannot be tested (as for `git bisect run`: bisecting stops with an error), anything
//! else means bad.

use crate::cli::BisectArgs;
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `fmerge bisect` found.
#[derive(serde::Serialize)]
struct Found {
    /// Merges in the unlimited run.
    merges: usize,
    /// The first merge whose presence fails the test.
    first_bad: usize,
    /// That merge as the report lists it.
    merge: serde_json::Value,
    /// Modules with merges 1..first_bad-1 (passes) and 1..first_bad (fails).
    good_module: PathBuf,
    bad_module: PathBuf,
    /// The merged body of the first bad merge, as textual IR.
    body_ir: PathBuf,
    /// How many times the test ran.
    tests_run: usize,
}

struct Bisector<'a> {
    args: &'a BisectArgs,
    fmerge: PathBuf,
    dir: PathBuf,
    tests_run: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Good,
    Bad,
}

impl Bisector<'_> {
    /// Merges with `limit` (`None`: all), writing `DIR/limit-N.bc` and its report.
    fn merge(&self, limit: Option<usize>, emit_ll: bool) -> Result<(PathBuf, serde_json::Value)> {
        let tag = limit.map_or("all".to_string(), |n| n.to_string());
        let ext = if emit_ll { "ll" } else { "bc" };
        let out = self.dir.join(format!("limit-{tag}.{ext}"));
        let report = self.dir.join(format!("limit-{tag}.json"));
        let mut cmd = Command::new(&self.fmerge);
        cmd.arg("opt").args(&self.args.inputs).arg("-o").arg(&out).arg("--report").arg(&report);
        cmd.args(["--no-measure", "-q"]).args(&self.args.opt_args);
        if emit_ll {
            cmd.args(["--emit", "ll"]);
        }
        if let Some(n) = limit {
            cmd.arg("--bisect-limit").arg(n.to_string());
        }
        let res = cmd.output().with_context(|| format!("running {}", self.fmerge.display()))?;
        if !res.status.success() {
            bail!(
                "fmerge opt failed ({}): {}",
                res.status,
                String::from_utf8_lossy(&res.stderr).trim()
            );
        }
        let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)
            .context("reading the report of fmerge opt")?;
        Ok((out, r))
    }

    /// Runs the user's test on `module`.
    fn test(&mut self, module: &Path) -> Result<Outcome> {
        self.tests_run += 1;
        let cmd = self.args.test.replace("{}", &module.display().to_string());
        let status = Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .env("FMERGE_BISECT_MODULE", module)
            .status()
            .with_context(|| format!("running the test command {cmd:?}"))?;
        match status.code() {
            Some(0) => Ok(Outcome::Good),
            Some(125) => bail!("the test command could not test {} (exit 125)", module.display()),
            _ => Ok(Outcome::Bad),
        }
    }

    /// Merges with `limit` and tests the result.
    fn probe(&mut self, limit: usize, say: &mut impl Write) -> Result<Outcome> {
        let (out, _) = self.merge(Some(limit), false)?;
        let outcome = self.test(&out)?;
        writeln!(
            say,
            "  merges 1..={limit}: {}",
            if outcome == Outcome::Good { "good" } else { "bad" }
        )?;
        Ok(outcome)
    }
}

pub fn run(args: BisectArgs) -> Result<()> {
    let dir = match &args.keep {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => std::env::temp_dir().join(format!("fmerge-bisect-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir)?;
    let fmerge = match &args.fmerge {
        Some(p) => p.clone(),
        None => std::env::current_exe().context("finding the fmerge binary")?,
    };
    let mut b = Bisector { args: &args, fmerge, dir: dir.clone(), tests_run: 0 };
    let mut say: Box<dyn Write> =
        if args.json { Box::new(std::io::sink()) } else { Box::new(std::io::stderr()) };

    let (all, report) = b.merge(None, false)?;
    let total = report["merges"].as_array().map_or(0, Vec::len);
    writeln!(say, "fmerge bisect: {total} merges in all; testing")?;
    if b.test(&all)? == Outcome::Good {
        bail!("the test passes with all {total} merges: nothing to bisect");
    }
    if b.probe(0, &mut say)? == Outcome::Bad {
        bail!("the test fails with no merge at all: the failure is not caused by a merge");
    }
    // Invariant: `good` merges pass, `bad` merges fail.
    let (mut good, mut bad) = (0, total);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        match b.probe(mid, &mut say)? {
            Outcome::Good => good = mid,
            Outcome::Bad => bad = mid,
        }
    }
    let (bad_ll, bad_report) = b.merge(Some(bad), true)?;
    let (good_module, _) = b.merge(Some(good), false)?;
    let (bad_module, _) = b.merge(Some(bad), false)?;
    let merge = bad_report["merges"]
        .as_array()
        .and_then(|ms| ms.iter().find(|m| m["seq"] == bad))
        .cloned()
        .context("the report does not list the first bad merge")?;
    let body = merge["body"].as_str().unwrap_or_default().to_string();
    let ir = std::fs::read_to_string(&bad_ll)?;
    let body_text = function_text(&ir, &body).unwrap_or_default();
    let body_ir = dir.join("first-bad-body.ll");
    std::fs::write(&body_ir, &body_text)?;
    let found = Found {
        merges: total,
        first_bad: bad,
        merge: merge.clone(),
        good_module,
        bad_module,
        body_ir,
        tests_run: b.tests_run,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&found)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "first bad merge: #{bad} of {total} ({} stage)",
        merge["stage"].as_str().unwrap_or("?")
    )?;
    writeln!(out, "  merged:")?;
    for o in merge["originals"].as_array().into_iter().flatten() {
        writeln!(out, "    {}", o.as_str().unwrap_or_default())?;
    }
    writeln!(out, "  body:   {body}")?;
    for m in merge["members"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  member: {} ({})",
            m["name"].as_str().unwrap_or_default(),
            m["disposal"].as_str().unwrap_or_default()
        )?;
    }
    writeln!(out, "  passes with merges 1..={good}: {}", found.good_module.display())?;
    writeln!(out, "  fails with merges 1..={bad}:  {}", found.bad_module.display())?;
    writeln!(
        out,
        "  merged body ({} lines): {}",
        body_text.lines().count(),
        found.body_ir.display()
    )?;
    const SHOWN: usize = 40;
    for line in body_text.lines().take(SHOWN) {
        writeln!(out, "    {line}")?;
    }
    if body_text.lines().count() > SHOWN {
        writeln!(out, "    ...")?;
    }
    writeln!(out, "  ({} tests run)", b.tests_run)?;
    Ok(())
}

/// The definition of function `name` in textual IR (from `define` to its closing brace).
fn function_text(ir: &str, name: &str) -> Option<String> {
    let plain = format!("@{name}(");
    let quoted = format!("@\"{name}\"(");
    let mut lines = ir.lines();
    let start = lines
        .by_ref()
        .find(|l| l.starts_with("define") && (l.contains(&plain) || l.contains(&quoted)))?;
    let mut text = String::from(start);
    text.push('\n');
    for l in lines {
        text.push_str(l);
        text.push('\n');
        if l == "}" {
            break;
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::function_text;

    #[test]
    fn finds_a_function_by_plain_or_quoted_name() {
        let ir = "define i32 @a() {\n  ret i32 0\n}\n\ndefine internal void @\"b c\"(ptr %p) {\nentry:\n  ret void\n}\n";
        assert_eq!(function_text(ir, "a").unwrap(), "define i32 @a() {\n  ret i32 0\n}\n");
        assert!(function_text(ir, "b c").unwrap().ends_with("ret void\n}\n"));
        assert!(function_text(ir, "x").is_none());
    }
}
