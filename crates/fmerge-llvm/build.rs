//! Builds the C++ shim (`shim/`, one file per job) against the same LLVM 22 that llvm-sys links.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shim's sources, relative to the crate.
const SOURCES: &[&str] = &[
    "shim/attributes.cpp",
    "shim/bitcode.cpp",
    "shim/bodies.cpp",
    "shim/codegen.cpp",
    "shim/diagnostics.cpp",
    "shim/dominance.cpp",
    "shim/global_merge.cpp",
    "shim/hashing.cpp",
    "shim/module_copy.cpp",
    "shim/plugin.cpp",
    "shim/profiling/cfg.cpp",
    "shim/profiling/counters.cpp",
    "shim/profiling/pressure.cpp",
    "shim/profiling/prof_metadata.cpp",
    "shim/profiling/promotion.cpp",
    "shim/profiling/runtime_ir.cpp",
];

/// Headers the sources include.
const HEADERS: &[&str] = &["shim/shim.h", "shim/profiling/pressure.h", "shim/profiling/record.h"];

fn llvm_config() -> PathBuf {
    if let Ok(prefix) = std::env::var("LLVM_SYS_221_PREFIX") {
        return PathBuf::from(prefix).join("bin/llvm-config");
    }
    // Never the unversioned `llvm-config`: on Debian 12 it is LLVM 14.
    for candidate in ["llvm-config-22", "/usr/lib/llvm-22/bin/llvm-config"] {
        if Command::new(candidate).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return PathBuf::from(candidate);
        }
    }
    panic!(
        "LLVM 22 not found: install it with `apt-get install llvm-22-dev clang-22 lld-22` \
         (or `make setup`), or set LLVM_SYS_221_PREFIX"
    );
}

fn run(config: &Path, arg: &str) -> String {
    let out = Command::new(config).arg(arg).output().unwrap_or_else(|e| panic!("{config:?}: {e}"));
    String::from_utf8(out.stdout).expect("utf-8 llvm-config output").trim().to_string()
}

fn main() {
    let config = llvm_config();
    let cxxflags = run(&config, "--cxxflags");
    let version = run(&config, "--version");
    assert!(version.starts_with("22."), "fmerge needs LLVM 22, {config:?} reports {version}");

    let mut build = cc::Build::new();
    build.cpp(true).files(SOURCES).warnings(false);
    for flag in cxxflags.split_whitespace() {
        // Debian's flags carry -fno-exceptions and the standard; keep them, drop optimisation
        // and warning choices so ours apply.
        if flag.starts_with("-O") || flag.starts_with("-W") || flag == "-g" {
            continue;
        }
        build.flag(flag);
    }
    build.flag_if_supported("-Wno-unused-parameter").flag("-Werror=return-type").opt_level(2);
    if std::env::var("CXX").is_err() && Command::new("clang++-22").arg("--version").output().is_ok()
    {
        // Faster than g++ on LLVM's headers, and the same compiler family as the library.
        build.compiler("clang++-22");
    }
    build.compile("fmerge_shim");
    for file in SOURCES.iter().chain(HEADERS) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
}
