//! What the three roles of `cargo-fmerge` tell each other.
//!
//! `cargo fmerge` runs cargo with `cargo-fmerge` as the rustc wrapper; the wrapper turns the
//! link of every whole-program binary into a call of `cargo-fmerge` as the linker. The roles
//! are separate processes, started by cargo and rustc, so what they share goes through the
//! environment (the session and the tools, chosen once by `cargo fmerge`; the plan of one
//! link, chosen by the wrapper from rustc's arguments) and through files (a record per
//! binary, read back by `cargo fmerge` for its report). All of it is JSON.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The session directory of one `cargo fmerge` run: linker links, records, notes.
pub const ENV_SESSION: &str = "CARGO_FMERGE_SESSION";
/// The `fmerge` binary the linker role runs.
pub const ENV_FMERGE: &str = "CARGO_FMERGE_FMERGE";
/// The `llc` of LLVM 22 the linker role generates code with.
pub const ENV_LLC: &str = "CARGO_FMERGE_LLC";
/// Extra arguments for `fmerge opt`, a JSON array of strings.
pub const ENV_FMERGE_ARGS: &str = "CARGO_FMERGE_OPT_ARGS";
/// The rustc wrapper the user had (`RUSTC_WRAPPER` before `cargo fmerge` set its own).
pub const ENV_NEXT_WRAPPER: &str = "CARGO_FMERGE_NEXT_WRAPPER";
/// The plan of one link, set by the wrapper for the rustc that links it.
pub const ENV_LINK_PLAN: &str = "CARGO_FMERGE_LINK_PLAN";

/// One binary's link as the rustc wrapper planned it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinkPlan {
    /// The linker rustc would have run (`-C linker`, else the target's default `cc`).
    pub real_linker: String,
    /// The crate's file stem in rustc's output directory: crate name and cargo's hash.
    pub stem: String,
    /// rustc's output directory (`--out-dir`).
    pub out_dir: PathBuf,
    /// The crate being linked (cargo's target name, `-` as `_`).
    pub crate_name: String,
    /// Its package (`CARGO_PKG_NAME`).
    pub package: String,
    /// `bin` for binaries and examples, `test` for test harnesses.
    pub kind: String,
    /// Where rustc writes the fat-LTO module (`--emit llvm-bc=...`).
    pub bitcode: PathBuf,
    /// `llc` options that generate code as rustc would (opt level, relocation model, CPU...).
    pub llc_args: Vec<String>,
}

impl LinkPlan {
    /// Intermediate files of this link, next to rustc's own outputs.
    pub fn file(&self, suffix: &str) -> PathBuf {
        self.out_dir.join(format!("{}.{suffix}", self.stem))
    }

    /// The record the linker role leaves next to rustc's outputs (found again when cargo
    /// finds the binary up to date).
    pub fn record_path(&self) -> PathBuf {
        self.file("fmerge.json")
    }
}

/// Bytes saved in one crate, by fmerge's estimate of each merge.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CrateSaving {
    #[serde(rename = "crate")]
    pub krate: String,
    pub bytes: i64,
    pub functions: usize,
}

/// What merging one binary did: written by the linker role, reported by `cargo fmerge`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub crate_name: String,
    pub package: String,
    pub kind: String,
    /// The file rustc linked (cargo copies or links it to where users find it).
    pub output: PathBuf,
    /// `.text` bytes of rustc's own fat-LTO link and of the merged link.
    pub text_before: u64,
    pub text_after: u64,
    /// Wall time of merging, code generation and the second link, in seconds.
    pub seconds: f64,
    pub merges: usize,
    pub functions_merged: usize,
    /// The merged link was not smaller, so rustc's own link was kept.
    pub kept_fat_lto: bool,
    /// By crate (demangled crate of each merged function), largest first.
    pub by_crate: Vec<CrateSaving>,
    /// FNV-1a of the binary left in place, to recognise it when cargo finds it fresh.
    pub binary_hash: u64,
}

/// A crate `cargo fmerge` cannot merge as a whole program (cdylib, staticlib, dylib).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Note {
    pub package: String,
    pub crate_name: String,
    pub crate_type: String,
}

/// FNV-1a, 64 bits, of a file's contents.
pub fn file_hash(path: &Path) -> std::io::Result<u64> {
    let bytes = std::fs::read(path)?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(h)
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
