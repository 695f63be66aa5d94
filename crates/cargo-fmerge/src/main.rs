//! `cargo fmerge`: Rust binaries built as one fat-LTO module each, merged by fmerge with the
//! whole program in view, and linked by rustc's own link command.
//!
//! One binary, three roles, told apart by the environment the first role sets up:
//! - `cargo fmerge build|test|run ...` ([`cargo`]): checks the tools, runs cargo with the
//!   profile's `lto = "fat"` and `codegen-units = 1` and with this binary as the rustc
//!   wrapper, then reports per binary;
//! - the rustc wrapper ([`rustc`]), for every crate cargo compiles: plans the link of
//!   programs and passes everything else through;
//! - the linker ([`link`]), for every planned link: links as rustc asked, merges the fat-LTO
//!   module with `fmerge opt`, generates code with `llc` as rustc would, and
//!   links again with the same command.
//!
//! It needs no LLVM of its own: fmerge, llc and rustc run as processes.

mod cargo;
mod cli;
mod link;
mod plan;
mod report;
mod rustc;

use std::ffi::OsString;

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let result = if let Ok(json) = std::env::var(plan::ENV_LINK_PLAN) {
        // rustc runs us as its linker.
        let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        serde_json::from_str::<plan::LinkPlan>(&json)
            .map_err(anyhow::Error::from)
            .and_then(|plan| link::run(&plan, &args))
    } else if std::env::var_os(plan::ENV_SESSION).is_some()
        && args.first().is_some_and(|a| a != "fmerge")
    {
        // cargo runs us as the rustc wrapper.
        rustc::run(args)
    } else {
        cli::main(args)
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1)
        }
    }
}
