//! The README's commands work as written: every ```sh block of README.md, except those that
//! run `make` (the quick start, which CI runs itself, and the hours-long reliability run), is
//! run in order in one shell, from a directory that looks like the repository root to the
//! commands (a copy of `examples/`, and `target/` pointing at this build's). Then the
//! promise a newcomer relies on is checked on what they built: no fmerge route gave a larger
//! program than the same build without fmerge.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The shell blocks the test runs.
fn shell_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(Vec::new()),
            (Some(b), "```") => {
                let runs_make = b.iter().any(|l| l.trim_start().starts_with("make "));
                if !runs_make {
                    blocks.push(b.join("\n"));
                }
                current = None;
            }
            (Some(b), l) => b.push(l),
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "README.md has an unclosed ```sh block");
    blocks
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        // Build outputs of earlier runs are not part of the examples.
        if name == "target" || name == "build" {
            continue;
        }
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

fn sh(dir: &Path, script: &str) {
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("FMERGE_PLUGIN_OPTIONS")
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "the README's commands failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_command_in_the_readme_works_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = shell_blocks(&readme);
    assert!(blocks.len() >= 8, "expected the README's usage blocks, found {}", blocks.len());
    // `target/release` of this build: the fmerge binary under test and, next to it, the
    // plugin (`cargo build --release --workspace` builds both; `make test` does).
    let release = Path::new(env!("CARGO_BIN_EXE_fmerge")).parent().unwrap().to_path_buf();
    assert!(
        release.join("libfmerge_plugin.so").exists(),
        "{}/libfmerge_plugin.so is missing: `cargo build --release --workspace` first",
        release.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_dir(&repo().join("examples"), &root.join("examples"));
    std::fs::create_dir(root.join("target")).unwrap();
    std::os::unix::fs::symlink(&release, root.join("target/release")).unwrap();

    sh(root, &blocks.join("\n"));

    // Never larger than the same build without fmerge.
    sh(
        root,
        "clang++-22 -flto -fuse-ld=lld handlers.o main.o containers.o -o demo-lto-plain
         mkdir plain && cd plain
         clang-22 -Os -c ../examples/demo/handlers.c ../examples/demo/main.c
         clang++-22 -Os -c ../examples/demo/containers.cpp
         clang++-22 handlers.o main.o containers.o -o ../demo-plain && cd ..
         ./demo-lto-plain | cmp - demo.out && ./demo-plain | cmp - demo.out
         cmp examples/rust-plugin/app-merged.out <(examples/rust-plugin/target/release/app)",
    );
    let t = |p: &str| common::binary_text_bytes(&root.join(p));
    assert!(t("demo") < t("demo-lto-plain"), "plugin: {} vs {}", t("demo"), t("demo-lto-plain"));
    for merged in ["demo-merged", "demo-sep", "demo-thin", "demo-prof"] {
        assert!(t(merged) < t("demo-plain"), "{merged}: {} vs {}", t(merged), t("demo-plain"));
    }
    // cargo's own fat-LTO build of the same profile, which `cargo rustc` left in place.
    let (cargo_app, merged_app) =
        (t("examples/rust-plugin/target/release/app"), t("examples/rust-plugin/app-merged"));
    assert!(merged_app < cargo_app, "Rust fat LTO: {merged_app} vs {cargo_app}");
}

#[test]
fn the_block_extractor_skips_make_and_keeps_order() {
    let text = "x\n```sh\nmake demo\n```\n```sh\necho one\n```\ntext\n```sh\necho two\n```\n";
    assert_eq!(shell_blocks(text), ["echo one", "echo two"]);
}
