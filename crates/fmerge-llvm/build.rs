//! Builds the C++ shim (`shim/`) against the same LLVM 22 that llvm-sys links, with the profile
//! runtime (`shim/profiling/runtime.c`) compiled to LLVM bitcode for every target it supports
//! and embedded in it.
//!
//! The runtime is compiled by the clang of that LLVM installation (its bitcode must be readable
//! by the LLVM fmerge links), once per triple of [`RUNTIME_TRIPLES`] and per variant (without
//! and with the signal handlers of `--write-on-signal`), all at once. The bitcode goes into
//! `$OUT_DIR/runtime_bitcode.inc` as byte arrays that `shim/profiling/runtime_link.cpp`
//! includes; that file says how a module gets the right one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    "shim/restore.cpp",
    "shim/subset.cpp",
    "shim/profiling/cfg.cpp",
    "shim/profiling/counters.cpp",
    "shim/profiling/pressure.cpp",
    "shim/profiling/prof_metadata.cpp",
    "shim/profiling/promotion.cpp",
    "shim/profiling/runtime_link.cpp",
    "shim/profiling/vtables.cpp",
];

/// Headers the sources include.
const HEADERS: &[&str] = &["shim/shim.h", "shim/profiling/pressure.h", "shim/profiling/record.h"];

/// The profile runtime.
const RUNTIME: &str = "shim/profiling/runtime.c";

/// The targets `fmerge instrument` has a runtime for: Linux on every architecture fmerge
/// handles (the targets `src/target.rs` initializes: x86, AArch64, Arm, RISC-V; WebAssembly has
/// no Linux, so no runtime and no `fmerge instrument`), in each data
/// layout clang gives it there (x86-64 and x32, AArch64 LP64 and ILP32, both byte orders where
/// Linux has them). Thumb uses the Arm builds. On all of them the runtime's constants (open(2)
/// flags, `struct sigaction`, signal numbers) are Linux's generic ones.
const RUNTIME_TRIPLES: &[&str] = &[
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-gnux32",
    "i686-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu_ilp32",
    "aarch64_be-unknown-linux-gnu",
    "arm-unknown-linux-gnueabihf",
    "armeb-unknown-linux-gnueabihf",
    "riscv64-unknown-linux-gnu",
    "riscv32-unknown-linux-gnu",
];

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

/// The clang of the LLVM installation `config` belongs to.
fn clang(config: &Path) -> PathBuf {
    let clang = Path::new(&run(config, "--bindir")).join("clang");
    let version = Command::new(&clang).arg("--version").output();
    match version {
        Ok(v) if String::from_utf8_lossy(&v.stdout).contains("version 22.") => clang,
        _ => panic!(
            "{clang:?} (clang 22, which compiles fmerge's profile runtime) not found: install \
             it with `apt-get install clang-22` (or `make setup`)"
        ),
    }
}

/// Compiles the runtime for every triple and variant, as many at once as there are CPUs;
/// returns `(triple, on_signals, bitcode)` in [`RUNTIME_TRIPLES`] order.
fn compile_runtimes(clang: &Path, out_dir: &Path) -> Vec<(&'static str, bool, Vec<u8>)> {
    let builds: Vec<(&'static str, bool)> = RUNTIME_TRIPLES
        .iter()
        .flat_map(|&triple| [false, true].map(|signals| (triple, signals)))
        .collect();
    let at_once = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut runtimes = Vec::new();
    for batch in builds.chunks(at_once) {
        let jobs: Vec<_> = batch
            .iter()
            .map(|&(triple, signals)| {
                let bc = out_dir.join(format!("runtime-{triple}-{}.bc", u8::from(signals)));
                let child = Command::new(clang)
                    // In the runtime's directory, so the bitcode names its source "runtime.c",
                    // not a path of this machine.
                    .current_dir("shim/profiling")
                    .arg(format!("--target={triple}"))
                    .arg(format!("-DFMERGE_PROF_ON_SIGNALS={}", u8::from(signals)))
                    .args(["-std=c11", "-O2", "-g0", "-fPIC", "-fno-stack-protector"])
                    // The runtime's loads and stores bring no type-based alias information
                    // into the program's module.
                    .arg("-fno-strict-aliasing")
                    // No system headers: the runtime declares what it uses of the C library.
                    .args(["-nostdlibinc", "-fno-ident", "-Wall", "-Wextra", "-Werror"])
                    .args(["-emit-llvm", "-c", "runtime.c", "-o"])
                    .arg(&bc)
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap_or_else(|e| panic!("run {clang:?}: {e}"));
                (triple, signals, bc, child)
            })
            .collect();
        for (triple, signals, bc, child) in jobs {
            let out = child.wait_with_output().expect("wait for clang");
            assert!(
                out.status.success(),
                "compiling the profile runtime for {triple} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            runtimes.push((triple, signals, std::fs::read(&bc).expect("read runtime bitcode")));
        }
    }
    runtimes
}

/// `runtime_bitcode.inc`: the bitcode as byte arrays and the table of them.
fn runtime_table(runtimes: &[(&str, bool, Vec<u8>)]) -> String {
    let mut inc = String::from(
        "// Generated by build.rs from shim/profiling/runtime.c: do not edit.\n\
         // The profile runtime compiled to LLVM bitcode, per (triple, signal handlers).\n\n",
    );
    for (k, (_, _, bytes)) in runtimes.iter().enumerate() {
        write!(inc, "alignas(8) static const unsigned char RuntimeBitcode{k}[] = {{").unwrap();
        for (i, b) in bytes.iter().enumerate() {
            if i % 24 == 0 {
                inc.push_str("\n ");
            }
            write!(inc, " {b},").unwrap();
        }
        inc.push_str("\n};\n\n");
    }
    inc.push_str("static const RuntimeBitcode RuntimeBitcodes[] = {\n");
    for (k, (triple, signals, _)) in runtimes.iter().enumerate() {
        writeln!(
            inc,
            "    {{\"{triple}\", {signals}, RuntimeBitcode{k}, sizeof RuntimeBitcode{k}}},"
        )
        .unwrap();
    }
    inc.push_str("};\n");
    inc
}

fn main() {
    let config = llvm_config();
    let cxxflags = run(&config, "--cxxflags");
    let version = run(&config, "--version");
    assert!(version.starts_with("22."), "fmerge needs LLVM 22, {config:?} reports {version}");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));

    let runtimes = compile_runtimes(&clang(&config), &out_dir);
    std::fs::write(out_dir.join("runtime_bitcode.inc"), runtime_table(&runtimes))
        .expect("write runtime_bitcode.inc");

    let mut build = cc::Build::new();
    build.cpp(true).files(SOURCES).include(&out_dir).warnings(false);
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
    for file in SOURCES.iter().chain(HEADERS).chain([&RUNTIME]) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
}
