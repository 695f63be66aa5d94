//! The command line of `cargo fmerge`: its own options, and cargo's, which pass through.
//!
//! cargo runs a subcommand as `cargo-fmerge fmerge ARGS...`. Its own options (`--json`,
//! `--profile-data`, `--fmerge-arg`) may stand anywhere before a `--`; they are taken out
//! first and everything else goes to cargo unchanged, so `cargo fmerge build --release --bin
//! fd` reads like `cargo build --release --bin fd`. clap then parses the command and the
//! options, and writes `--help`.

use crate::cargo;
use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

const LONG_ABOUT: &str = "\
Builds each selected binary as one fat-LTO module, merges identical and similar functions
across the whole program (standard library and dependencies included) with `fmerge opt`,
generates the code with the options rustc would use, and links it with rustc's own link
command: native libraries from build scripts, `-C link-arg`s and your linker keep working.
The binaries land where cargo puts them (target/release/NAME).

  cargo fmerge build --release             # every binary of the package or workspace
  cargo fmerge build --release --bin NAME  # cargo's options pass through
  cargo fmerge test --release              # the test harnesses merged, then run
  cargo fmerge run --release -- ARGS       # build merged, then run

For each binary it prints .text before (rustc's fat-LTO link of the same module) and after,
the time merging took, and the bytes saved by crate. The profile's lto and codegen-units are
set to \"fat\" and 1 (as CARGO_PROFILE_<NAME>_LTO=fat CARGO_PROFILE_<NAME>_CODEGEN_UNITS=1
would); everything else comes from your Cargo.toml.

Needs: rustc built on LLVM 22 (`rustc -vV` shows \"LLVM version: 22.x\"; rustc 1.95), the
`fmerge` binary (next to cargo-fmerge, on PATH, or $FMERGE) and LLVM 22's llc (`llc-22` on
PATH, or $FMERGE_LLC). With --target, a cross target needs its standard library (rustup
target add), a linker for it (target.<triple>.linker in .cargo/config.toml) and an llc built
with that target (Debian's llc-22 has all of LLVM's).

A cdylib or staticlib is not a whole program (code outside calls its exported functions):
cargo fmerge builds it with fat LTO only. Merge such a library with fmerge's pass plugin in
the final link, or with `fmerge opt` (without --whole-program) on its fat-LTO module.";

#[derive(Parser, Debug)]
#[command(name = "cargo fmerge", bin_name = "cargo fmerge", version, long_about = LONG_ABOUT)]
#[command(about = "Build Rust binaries as whole programs merged by fmerge")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// `cargo build` with every selected binary merged.
    #[command(override_usage = "cargo fmerge build [OPTIONS] [CARGO BUILD ARGS]...")]
    Build(Options),
    /// `cargo test` with every test harness merged (built first, reported, then run).
    #[command(override_usage = "cargo fmerge test [OPTIONS] [CARGO TEST ARGS]... [-- TEST ARGS]")]
    Test(Options),
    /// `cargo run` with the binary merged (reported after it ran).
    #[command(override_usage = "cargo fmerge run [OPTIONS] [CARGO RUN ARGS]... [-- PROGRAM ARGS]")]
    Run(Options),
}

#[derive(Args, Debug, Clone)]
pub struct Options {
    /// Print the report as JSON on stdout (one object: binaries, libraries not merged).
    #[arg(long)]
    pub json: bool,
    /// A profile for fmerge to keep hot code out of merges: fmerge's own (`.fprof`, from
    /// `fmerge profile merge`) or LLVM's (`.profdata`, from llvm-profdata; rustc then builds
    /// with `-C profile-use`).
    #[arg(long, value_name = "FILE")]
    pub profile_data: Option<PathBuf>,
    /// One more option for `fmerge opt` (repeat for several), e.g. `--fmerge-arg=--merge
    /// --fmerge-arg=identical`.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub fmerge_arg: Vec<String>,
    /// cargo's arguments, passed through as they are (what `cargo build`, `test` or `run`
    /// takes), before or after the options above.
    #[arg(last = true, value_name = "CARGO ARGS")]
    pub cargo_args: Vec<String>,
}

/// Our options that take a value.
const WITH_VALUE: &[&str] = &["--profile-data", "--fmerge-arg"];
/// Our options without one.
const FLAGS: &[&str] = &["--json", "-h", "--help", "-V", "--version"];

/// Puts `cargo-fmerge`'s own options first and cargo's after a `--`, for clap.
pub fn arrange(args: &[String]) -> Vec<String> {
    let mut ours = Vec::new();
    let mut cargo = Vec::new();
    let mut i = 0;
    // The command (build, test, run, help) leads.
    if let Some(first) = args.first()
        && !first.starts_with('-')
    {
        ours.push(first.clone());
        i = 1;
    }
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            cargo.extend(args[i..].iter().cloned());
            break;
        }
        let name = a.split('=').next().unwrap_or(a);
        if FLAGS.contains(&a.as_str()) {
            ours.push(a.clone());
        } else if WITH_VALUE.contains(&name) {
            ours.push(a.clone());
            if !a.contains('=')
                && let Some(v) = args.get(i + 1)
            {
                ours.push(v.clone());
                i += 1;
            }
        } else {
            cargo.push(a.clone());
        }
        i += 1;
    }
    let mut out = vec!["cargo-fmerge".to_string()];
    out.extend(ours);
    if !cargo.is_empty() {
        out.push("--".into());
        out.extend(cargo);
    }
    out
}

/// The subcommand's entry: `args` without the program name.
pub fn main(args: Vec<OsString>) -> Result<i32> {
    let mut args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    // cargo runs `cargo-fmerge fmerge ...`; `cargo-fmerge ...` works as well.
    if args.first().is_some_and(|a| a == "fmerge") {
        args.remove(0);
    }
    let cli = match Cli::try_parse_from(arrange(&args)) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return Ok(code);
        }
    };
    cargo::run(cli.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn own_options_are_taken_out_anywhere_before_the_separator() {
        let a = arrange(&v("build --release --json --bin fd --profile-data p.fprof -- --json"));
        assert_eq!(
            a,
            v("cargo-fmerge build --json --profile-data p.fprof -- --release --bin fd -- --json")
        );
        let cli = Cli::try_parse_from(&a).unwrap();
        let Command::Build(o) = cli.command else { panic!("build") };
        assert!(o.json);
        assert_eq!(o.cargo_args, v("--release --bin fd -- --json"));
    }

    #[test]
    fn fmerge_options_pass_with_their_hyphens() {
        let a = arrange(&v("test --fmerge-arg=--merge --fmerge-arg identical -p x"));
        let Command::Test(o) = Cli::try_parse_from(&a).unwrap().command else { panic!("test") };
        assert_eq!(o.fmerge_arg, ["--merge", "identical"]);
        assert_eq!(o.cargo_args, ["-p", "x"]);
    }

    #[test]
    fn unknown_commands_are_usage_errors() {
        assert!(Cli::try_parse_from(arrange(&v("bild --release"))).is_err());
        assert!(Cli::try_parse_from(arrange(&v("build"))).is_ok());
    }
}
