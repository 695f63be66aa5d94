//! Compiles the C++ shim (`shim/shim.cpp`) against the same LLVM 22 that llvm-sys links.

use std::path::PathBuf;
use std::process::Command;

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

fn main() {
    let config = llvm_config();
    let out = Command::new(&config).arg("--cxxflags").output().expect("run llvm-config --cxxflags");
    let cxxflags = String::from_utf8(out.stdout).expect("utf-8 cxxflags");
    let version = Command::new(&config).arg("--version").output().expect("run llvm-config");
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    assert!(version.starts_with("22."), "fmerge needs LLVM 22, {config:?} reports {version}");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file("shim/shim.cpp")
        .file("shim/plugin.cpp")
        .file("shim/instrument.cpp")
        .warnings(false);
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
    println!("cargo:rerun-if-changed=shim/shim.cpp");
    println!("cargo:rerun-if-changed=shim/plugin.cpp");
    println!("cargo:rerun-if-changed=shim/instrument.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
}
