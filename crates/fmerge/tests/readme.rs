//! The documentation's commands work as written: every ```sh block of README.md and of each
//! page in docs/, except those that run `make` (the quick start, which CI runs itself, and the
//! hours-long reliability run), is run in order in one shell per page, from a directory that
//! looks like the repository root to the commands (a fresh copy of `examples/`, and `target/`
//! pointing at this build's). Each page starts with its own setup block (where the tools are,
//! what it compiles), so a reader can follow any page on its own, and so can this test.
//! Blocks that only show commands (benchmarks, another project's) are ```text and not run.
//!
//! Then the promise a newcomer relies on is checked on what each page built: every program it
//! built from the demo with fmerge prints what the demo prints without fmerge and is smaller
//! than the same build without fmerge (full LTO against full LTO, anything else against the
//! plain build), and so is every Rust program it built with fmerge.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The shell blocks the test runs.
fn shell_blocks(doc: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in doc.lines() {
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
    assert!(current.is_none(), "unclosed ```sh block");
    blocks
}

/// What a build of the demo with fmerge is compared with.
#[derive(Clone, Copy)]
enum Reference {
    /// The demo linked with clang full LTO and lld, without the plugin.
    Lto,
    /// The demo compiled file by file at `-Os` and linked, without fmerge.
    Plain,
}

/// A page whose commands run, and what they must have built.
struct Page {
    path: &'static str,
    /// Programs built from the demo with fmerge (paths from the page's directory).
    demo_builds: &'static [(&'static str, Reference)],
    /// Rust programs built with fmerge, each with the same build without fmerge: (merged,
    /// without).
    rust_builds: &'static [(&'static str, &'static str)],
    /// Builds the references of `rust_builds` that the page's commands do not build.
    rust_references: &'static str,
}

const PAGES: &[Page] = &[
    Page {
        path: "README.md",
        demo_builds: &[
            ("demo", Reference::Lto),
            ("demo-thin", Reference::Plain),
            ("demo-thin2", Reference::Plain),
            ("demo-dist", Reference::Plain),
            ("demo-merged", Reference::Plain),
            ("demo-sep", Reference::Plain),
        ],
        // The plugin route against the same linker-plugin LTO build without the plugin.
        rust_builds: &[(
            "examples/rust-plugin/target/release/app",
            "examples/rust-plugin/target/plain/release/app",
        )],
        rust_references: "cd examples/rust-plugin
            RUSTFLAGS='-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=-fuse-ld=lld' \\
              cargo build --release --target-dir target/plain",
    },
    Page {
        path: "docs/guide.md",
        demo_builds: &[
            ("demo", Reference::Lto),
            ("demo-thin", Reference::Plain),
            ("demo-merged", Reference::Plain),
        ],
        // Fat LTO through `fmerge opt`, and `cargo fmerge`, against cargo's own fat-LTO
        // build, which `cargo rustc` left in place.
        rust_builds: &[
            ("examples/rust-plugin/app-merged", "examples/rust-plugin/target/release/app"),
            (
                "examples/rust-plugin/target/fmerge/release/app",
                "examples/rust-plugin/target/release/app",
            ),
        ],
        rust_references: "",
    },
    Page {
        path: "docs/profiles.md",
        demo_builds: &[("demo-pgo", Reference::Lto), ("demo-prof", Reference::Plain)],
        rust_builds: &[],
        rust_references: "",
    },
    Page {
        path: "docs/separate-compilation.md",
        demo_builds: &[("demo-sep", Reference::Plain), ("demo-glob", Reference::Plain)],
        rust_builds: &[],
        rust_references: "",
    },
    Page {
        path: "docs/outlining.md",
        demo_builds: &[("demo-outlined", Reference::Plain), ("demo-lto-outlined", Reference::Lto)],
        rust_builds: &[],
        rust_references: "",
    },
    Page {
        path: "docs/troubleshooting.md",
        demo_builds: &[],
        rust_builds: &[],
        rust_references: "",
    },
];

/// The references, built without fmerge in `ref/`: `ref/lto`, `ref/plain`, and what the demo
/// prints, `ref/demo.out`.
const REFERENCES: &str = "mkdir ref && cd ref
    clang-22 -Os -flto -c ../examples/demo/handlers.c ../examples/demo/main.c
    clang++-22 -Os -flto -c ../examples/demo/containers.cpp
    clang++-22 -flto -fuse-ld=lld handlers.o main.o containers.o -o lto
    mkdir plain-objects && cd plain-objects
    clang-22 -Os -c ../../examples/demo/handlers.c ../../examples/demo/main.c
    clang++-22 -Os -c ../../examples/demo/containers.cpp
    clang++-22 handlers.o main.o containers.o -o ../plain && cd ..
    ./plain > demo.out && ./lto | cmp - demo.out";

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

fn sh(dir: &Path, what: &str, script: &str) {
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
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a page's commands in a fresh directory and checks what they built.
fn run_page(path: &str) {
    let page = PAGES.iter().find(|p| p.path == path).expect("a page of PAGES");
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    let blocks = shell_blocks(&text);
    assert!(!blocks.is_empty(), "{path} has no ```sh block to run");
    // `target/release` of this build: the fmerge binary under test and, next to it, the
    // plugin and cargo-fmerge (`cargo build --release --workspace` builds them all; `make
    // test` does).
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

    sh(root, &format!("the commands of {path}"), &blocks.join("\n"));

    // Never larger than the same build without fmerge, and the same output.
    sh(root, "building the references", REFERENCES);
    let t = |p: &str| common::binary_text_bytes(&root.join(p));
    for &(built, reference) in page.demo_builds {
        sh(root, &format!("running {built}"), &format!("./{built} | cmp - ref/demo.out"));
        let against = match reference {
            Reference::Lto => "ref/lto",
            Reference::Plain => "ref/plain",
        };
        assert!(t(built) < t(against), "{path}: {built} {} vs {against} {}", t(built), t(against));
    }
    if !page.rust_references.is_empty() {
        sh(root, "building the Rust references", page.rust_references);
    }
    for &(merged, cargo) in page.rust_builds {
        sh(root, &format!("running {merged}"), &format!("cmp <(./{merged}) <(./{cargo})"));
        assert!(t(merged) < t(cargo), "{path}: {merged} {} vs {cargo} {}", t(merged), t(cargo));
    }
}

#[test]
fn the_readme_commands_work_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks = shell_blocks(&readme);
    assert!(blocks.len() >= 6, "expected the README's recipes, found {} blocks", blocks.len());
    run_page("README.md");
}

#[test]
fn the_guide_commands_work_as_written() {
    run_page("docs/guide.md");
}

#[test]
fn the_profiles_commands_work_as_written() {
    run_page("docs/profiles.md");
}

#[test]
fn the_separate_compilation_commands_work_as_written() {
    run_page("docs/separate-compilation.md");
}

#[test]
fn the_outlining_commands_work_as_written() {
    run_page("docs/outlining.md");
}

#[test]
fn the_troubleshooting_commands_work_as_written() {
    run_page("docs/troubleshooting.md");
}

/// A new page with commands must be added to PAGES (and get a test above), so that its
/// commands run too.
#[test]
fn every_page_with_commands_is_tested() {
    let mut pages = vec!["README.md".to_string()];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    for page in pages {
        let text = std::fs::read_to_string(repo().join(&page)).unwrap();
        if !shell_blocks(&text).is_empty() {
            assert!(
                PAGES.iter().any(|p| p.path == page),
                "{page} has commands but is not in PAGES"
            );
        }
    }
}

#[test]
fn the_block_extractor_skips_make_and_keeps_order() {
    let text = "x\n```sh\nmake demo\n```\n```sh\necho one\n```\ntext\n```sh\necho two\n```\n";
    assert_eq!(shell_blocks(text), ["echo one", "echo two"]);
}
