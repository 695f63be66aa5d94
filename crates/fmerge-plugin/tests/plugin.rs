//! The plugin inside the real tools: opt-22, clang-22 (full LTO, ThinLTO, plain compiles) with
//! ld.lld-22, and cargo with rustc's linker-plugin LTO. Each build with the plugin must behave
//! as the build without it, and have less `.text`; a failure inside the plugin must leave the
//! module as it was and the host running.
//!
//! The plugin and the `fmerge` binary are taken from the target directory these tests were
//! built in (`cargo build --release --workspace` builds both; `make test` does).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn target_dir() -> PathBuf {
    // target/<profile>/deps/plugin-HASH
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf()
}

fn plugin() -> PathBuf {
    let p = target_dir().join("libfmerge_plugin.so");
    assert!(
        p.exists(),
        "{} is missing: build it with `cargo build --release --workspace` (make test does)",
        p.display()
    );
    p
}

fn fmerge() -> Command {
    let p = target_dir().join("fmerge");
    assert!(p.exists(), "{} is missing: `cargo build --release --workspace`", p.display());
    Command::new(p)
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo")
}

fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `.text` bytes of an executable or object file.
fn text_bytes(file: &Path) -> u64 {
    use object::{Object, ObjectSection};
    let data = std::fs::read(file).expect("read binary");
    let obj = object::File::parse(&*data).expect("parse binary");
    obj.section_by_name(".text").map_or(0, |s| s.size())
}

/// Compiles the demo's three sources with `flags` into `dir`; returns the object files.
fn compile_demo(dir: &Path, flags: &[&str]) -> Vec<PathBuf> {
    compile_demo_with(dir, flags, "")
}

/// [`compile_demo`] with `plugin_options` in `FMERGE_PLUGIN_OPTIONS` (clang parses `-mllvm`
/// before it loads a `-fpass-plugin`).
fn compile_demo_with(dir: &Path, flags: &[&str], plugin_options: &str) -> Vec<PathBuf> {
    ["handlers.c", "main.c", "containers.cpp"]
        .iter()
        .map(|src| {
            let out = dir.join(format!("{src}.o"));
            let cc = if src.ends_with(".cpp") { "clang++-22" } else { "clang-22" };
            run_ok(
                Command::new(cc)
                    .env("FMERGE_PLUGIN_OPTIONS", plugin_options)
                    .arg("-Os")
                    .args(flags)
                    .arg("-c")
                    .arg(demo().join(src))
                    .arg("-o")
                    .arg(&out),
            );
            out
        })
        .collect()
}

/// Links with clang++-22 and lld, with the plugin in the linker when `with_plugin`; `env` is
/// FMERGE_PLUGIN_OPTIONS. Returns the linker's stderr.
fn link(objs: &[PathBuf], exe: &Path, lto: &str, with_plugin: bool, env: &str) -> String {
    let mut cmd = Command::new("clang++-22");
    cmd.arg(lto).arg("-fuse-ld=lld").args(objs).arg("-o").arg(exe);
    if with_plugin {
        cmd.arg(format!("-Wl,--load-pass-plugin={}", plugin().display()));
    }
    cmd.env("FMERGE_PLUGIN_OPTIONS", env).env("RUST_BACKTRACE", "0");
    String::from_utf8_lossy(&run_ok(&mut cmd).stderr).into_owned()
}

fn output_of(exe: &Path) -> Vec<u8> {
    run_ok(&mut Command::new(exe)).stdout
}

/// Textual IR without comments (`; preds = ...` lists follow the use-list order, which a
/// restored module does not keep) and without the module id.
fn ir_without_comments(bc: &Path) -> String {
    let out = run_ok(Command::new("llvm-dis-22").arg(bc).arg("-o").arg("-"));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("; ModuleID"))
        .map(|l| l.split(" ;").next().unwrap_or(l).trim_end())
        .filter(|l| !l.starts_with(';'))
        .collect::<Vec<_>>()
        .join("\n")
}

fn demo_module(dir: &Path) -> PathBuf {
    let objs = compile_demo(dir, &["-emit-llvm"]);
    let bc = dir.join("demo.bc");
    run_ok(Command::new("llvm-link-22").args(&objs).arg("-o").arg(&bc));
    bc
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("report written")).expect("JSON report")
}

#[test]
fn opt_with_the_plugin_writes_exactly_what_fmerge_opt_writes() {
    let dir = tempfile::tempdir().unwrap();
    let bc = demo_module(dir.path());
    let cli = dir.path().join("cli.bc");
    run_ok(fmerge().arg("opt").arg(&bc).arg("-q").arg("-o").arg(&cli));
    let plugged = dir.path().join("plugged.bc");
    let report = dir.path().join("r.json");
    run_ok(
        Command::new("opt-22")
            .arg(format!("-load-pass-plugin={}", plugin().display()))
            .arg("-passes=fmerge")
            .arg(format!("-fmerge-report={}", report.display()))
            .arg(&bc)
            .arg("-o")
            .arg(&plugged),
    );
    // Same pipeline, same options, same bitcode writer (both keep the use-list order). The
    // plugin measures position-independent code when the module asks for it and `fmerge opt`
    // llc's default; on the demo no decision depends on it.
    assert!(
        std::fs::read(&cli).unwrap() == std::fs::read(&plugged).unwrap(),
        "opt with the plugin and fmerge opt wrote different modules"
    );
    assert!(read_json(&report)["merges"].as_array().unwrap().len() >= 5);
}

#[test]
fn options_reach_the_pass_on_opts_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let bc = demo_module(dir.path());
    let report = dir.path().join("r.json");
    run_ok(
        Command::new("opt-22")
            .arg(format!("-load-pass-plugin={}", plugin().display()))
            .args(["-passes=fmerge", "-fmerge-merge=identical"])
            .arg(format!("-fmerge-report={}", report.display()))
            .arg(&bc)
            .arg("-o")
            .arg(dir.path().join("out.bc")),
    );
    let r = read_json(&report);
    let stages: Vec<&str> =
        r["stages"].as_array().unwrap().iter().map(|s| s["stage"].as_str().unwrap()).collect();
    assert_eq!(stages, ["identical"], "{r}");
}

#[test]
fn a_module_with_fewer_than_two_functions_to_merge_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    // One definition that may merge; the other is `available_externally` (another module's).
    let ll = dir.path().join("one.ll");
    let body = "(i32 %x) {\n  %y = mul i32 %x, 7\n  ret i32 %y\n}\n";
    std::fs::write(
        &ll,
        format!("define i32 @f{body}define available_externally i32 @g{body}declare i32 @h()\n"),
    )
    .unwrap();
    let plain = dir.path().join("plain.bc");
    run_ok(Command::new("opt-22").arg(&ll).arg("-o").arg(&plain));
    let opt = |env: &str, out: &Path| {
        let o = run_ok(
            Command::new("opt-22")
                .arg(format!("-load-pass-plugin={}", plugin().display()))
                .arg("-passes=fmerge")
                .arg(&ll)
                .arg("-o")
                .arg(out)
                .env("FMERGE_PLUGIN_OPTIONS", env),
        );
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let out = dir.path().join("out.bc");
    assert_eq!(opt("", &out), "", "the plugin prints nothing unless asked");
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&plain).unwrap());
    let stderr = opt("-fmerge-verbose", &out);
    assert!(stderr.contains("1 function(s) that could merge: nothing to do"), "{stderr}");
    // Asked for a report, the plugin runs (and writes one) all the same.
    let report = dir.path().join("r.json");
    let stderr = opt(&format!("-fmerge-verbose -fmerge-report={}", report.display()), &out);
    assert!(stderr.contains("0 functions merged"), "{stderr}");
    assert_eq!(read_json(&report)["functions_before"], 2);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&plain).unwrap());
}

#[test]
fn c_and_cpp_through_full_lto_in_lld_are_smaller_and_behave_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let objs = compile_demo(dir.path(), &["-flto"]);
    let (plain, merged) = (dir.path().join("plain"), dir.path().join("merged"));
    link(&objs, &plain, "-flto", false, "");
    assert_eq!(
        link(&objs, &merged, "-flto", true, ""),
        "",
        "the plugin prints nothing unless asked"
    );
    let report = dir.path().join("lto.json");
    let env = format!("-fmerge-verbose -fmerge-report={}", report.display());
    let stderr = link(&objs, &merged, "-flto", true, &env);
    assert!(stderr.contains("fmerge: full LTO link"), "{stderr}");
    assert_eq!(output_of(&plain), output_of(&merged));
    let (a, b) = (text_bytes(&plain), text_bytes(&merged));
    assert!(b < a, ".text {a} -> {b}");
    let r = read_json(&report);
    assert!(!r["merges"].as_array().unwrap().is_empty());
    // The size guard runs by default in the linker too. lld generates code with every
    // function in a section of its own, and so does the guard there: a function's size then
    // does not depend on what it is compiled with, and the units that cannot lose (here the
    // identical copies erased) are not compiled.
    assert!(r["guard"].is_object(), "{r}");
    assert!(r["guard"]["unmeasured"].as_u64().is_some_and(|n| n >= 1), "{r}");
}

/// Decisions the size-guarded stages settled by compiling them, all stages together.
fn measured_decisions(report: &serde_json::Value) -> u64 {
    let stages = report["stages"].as_array().expect("stages");
    stages.iter().map(|s| s["measured_decisions"].as_u64().expect("a count")).sum()
}

/// `fmerge opt` compiles every candidate of a small module (`opt -passes=fmerge` too: the
/// first test). Inside a link that code generation comes on top of the linker's own, so there
/// a small module is priced as a large one is: a merge the estimate calls clear is not
/// compiled (`tests/programs/dup_constants.c`: one merge with constants, clearly paying).
#[test]
fn a_link_compiles_only_the_close_calls_of_a_small_module() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fmerge/tests/programs/dup_constants.c");
    let obj = dir.path().join("dup_constants.o");
    run_ok(Command::new("clang-22").args(["-Os", "-flto", "-c"]).arg(&src).arg("-o").arg(&obj));
    let objs = [obj];
    let (plain, merged) = (dir.path().join("plain"), dir.path().join("merged"));
    link(&objs, &plain, "-flto", false, "");
    let report = dir.path().join("r.json");
    let measured = |extra: &str| {
        let env = format!("-fmerge-estimate=false -fmerge-report={} {extra}", report.display());
        link(&objs, &merged, "-flto", true, &env);
        assert_eq!(output_of(&plain), output_of(&merged));
        let r = read_json(&report);
        assert_eq!(r["merges"].as_array().unwrap().len(), 1, "{r}");
        measured_decisions(&r)
    };
    assert_eq!(measured(""), 0, "a clear call is taken on its estimate");
    assert_eq!(measured("-fmerge-profit=exact"), 1, "exact pricing compiles it");
}

#[test]
fn thin_lto_backends_and_plain_compiles_merge_each_module() {
    let dir = tempfile::tempdir().unwrap();
    let objs = compile_demo(dir.path(), &["-flto=thin"]);
    let (plain, merged) = (dir.path().join("plain"), dir.path().join("merged"));
    link(&objs, &plain, "-flto=thin", false, "");
    let stderr = link(&objs, &merged, "-flto=thin", true, "-fmerge-verbose -fmerge-timings");
    assert!(stderr.contains("fmerge: ThinLTO backend"), "{stderr}");
    // lld's backend verified the module at the end of its optimizer: the plugin verifies only
    // what it leaves.
    let steps: Vec<&str> = stderr.lines().filter(|l| l.contains("wall time by step")).collect();
    assert!(!steps.is_empty(), "{stderr}");
    assert!(steps.iter().all(|l| !l.contains("verifying the input") && l.contains("verifying")));
    assert_eq!(output_of(&plain), output_of(&merged));
    assert!(text_bytes(&merged) < text_bytes(&plain));

    // No LTO: clang runs the pass after its optimizer, one translation unit at a time.
    let pass_plugin = format!("-fpass-plugin={}", plugin().display());
    let (plain_dir, tu_dir) = (dir.path().join("plain-tu"), dir.path().join("tu"));
    std::fs::create_dir(&plain_dir).unwrap();
    std::fs::create_dir(&tu_dir).unwrap();
    let plain_objs = compile_demo(&plain_dir, &[]);
    // One translation unit at a time, the estimate sees the demo's loops call every handler:
    // without it, fmerge merges them (with it, only identical functions, which these units
    // do not have).
    let merged_objs = compile_demo_with(&tu_dir, &[&pass_plugin], "-fmerge-estimate=false");
    let (plain_exe, merged_exe) = (plain_dir.join("exe"), tu_dir.join("exe"));
    link(&plain_objs, &plain_exe, "-O2", false, "");
    link(&merged_objs, &merged_exe, "-O2", false, "");
    assert_eq!(output_of(&plain_exe), output_of(&merged_exe));
    let sum = |o: &[PathBuf]| o.iter().map(|p| text_bytes(p)).sum::<u64>();
    assert!(sum(&merged_objs) < sum(&plain_objs));
}

/// A distributed ThinLTO build: an index-only link, one backend compile per module (with the
/// code generation options lld's in-process backends use), then the final link (with
/// `link_flags`). Returns the backends' stderr.
fn distributed_thin_lto(
    objs: &[PathBuf],
    exe: &Path,
    plugin_flags: &[String],
    link_flags: &[&str],
) -> String {
    let mut index = Command::new("clang++-22");
    index.args(["-flto=thin", "-fuse-ld=lld", "-Wl,--thinlto-index-only"]).args(objs);
    run_ok(index.arg("-o").arg(exe.with_extension("unused")));
    let mut stderr = String::new();
    let mut natives = Vec::new();
    for o in objs {
        let tag = exe.file_name().unwrap().to_string_lossy();
        let native = PathBuf::from(format!("{}.{tag}.native.o", o.display()));
        let index = format!("-fthinlto-index={}.thinlto.bc", o.display());
        let out = run_ok(
            Command::new("clang++-22")
                .args(["-Os", "-ffunction-sections", "-fdata-sections", "-x", "ir"])
                .arg(o)
                .arg(index)
                .args(plugin_flags)
                .arg("-c")
                .arg("-o")
                .arg(&native)
                .env("RUST_BACKTRACE", "0"),
        );
        stderr += &String::from_utf8_lossy(&out.stderr);
        natives.push(native);
    }
    let mut link = Command::new("clang++-22");
    run_ok(link.arg("-fuse-ld=lld").args(link_flags).args(&natives).arg("-o").arg(exe));
    stderr
}

#[test]
fn distributed_thin_lto_backends_merge_as_the_in_process_link_does() {
    let dir = tempfile::tempdir().unwrap();
    let objs = compile_demo(dir.path(), &["-flto=thin"]);
    let (plain, in_process) = (dir.path().join("plain"), dir.path().join("in-process"));
    link(&objs, &plain, "-flto=thin", false, "");
    link(&objs, &in_process, "-flto=thin", true, "");
    // clang's distributed backend ignores -fpass-plugin; `-Xclang -load` is what loads fmerge
    // there (and registers its -mllvm options).
    let flags = backend_flags(&["-fmerge-verbose", "-fmerge-timings"]);
    let distributed = dir.path().join("distributed");
    let stderr = distributed_thin_lto(&objs, &distributed, &flags, &[]);
    assert!(stderr.contains("fmerge: distributed ThinLTO backend"), "{stderr}");
    // clang's release backend runs no verifier (-disable-llvm-verifier): the plugin does.
    assert!(stderr.contains("verifying the input"), "{stderr}");
    assert!(stderr.contains("functions merged"), "{stderr}");
    assert_eq!(output_of(&plain), output_of(&distributed));
    assert_eq!(text_bytes(&distributed), text_bytes(&in_process));
    assert!(text_bytes(&distributed) < text_bytes(&plain));
    // Without the plugin, the distributed build is the in-process one too.
    let unmerged = dir.path().join("unmerged");
    assert_eq!(distributed_thin_lto(&objs, &unmerged, &[], &[]), "");
    assert_eq!(text_bytes(&unmerged), text_bytes(&plain));
}

#[test]
fn a_failure_inside_the_plugin_leaves_the_module_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let bc = demo_module(dir.path());
    let untouched = dir.path().join("untouched.bc");
    run_ok(Command::new("opt-22").arg(&bc).arg("-o").arg(&untouched));
    let ir = run_ok(Command::new("llvm-dis-22").arg(&bc).arg("-o").arg("-")).stdout;
    let named_type = |l: &str| l.starts_with('%') && l.contains(" = type {");
    assert!(String::from_utf8_lossy(&ir).lines().any(named_type), "the demo has named types");
    // An internal error after merging (injected), and options the plugin cannot use.
    for env in ["-fmerge-inject-failure", "-fmerge-profit=fast"] {
        let out_bc = dir.path().join("out.bc");
        let out = run_ok(
            Command::new("opt-22")
                .arg(format!("-load-pass-plugin={}", plugin().display()))
                .arg("-passes=fmerge,verify")
                .arg(&bc)
                .arg("-o")
                .arg(&out_bc)
                .env("FMERGE_PLUGIN_OPTIONS", env)
                .env("RUST_BACKTRACE", "0"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("fmerge: warning:") && stderr.contains("left unchanged"),
            "{stderr}"
        );
        assert_eq!(ir_without_comments(&out_bc), ir_without_comments(&untouched), "{env}");
    }
    // In the linker too: the link succeeds and the program is the one without fmerge.
    let objs = compile_demo(dir.path(), &["-flto"]);
    let (plain, failed) = (dir.path().join("plain"), dir.path().join("failed"));
    link(&objs, &plain, "-flto", false, "");
    let stderr = link(&objs, &failed, "-flto", true, "-fmerge-inject-failure");
    assert!(stderr.contains("left unchanged"), "{stderr}");
    assert_eq!(text_bytes(&plain), text_bytes(&failed));
    assert_eq!(output_of(&plain), output_of(&failed));
}

#[test]
fn a_cargo_workspace_with_linker_plugin_lto_passes_its_tests_and_shrinks() {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rust-plugin");
    let lto = "-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=-fuse-ld=lld";
    let with = format!("{lto} -Clink-arg=-Wl,--load-pass-plugin={}", plugin().display());
    let cargo = |flags: &str, sub: &str, target: &str| {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.current_dir(&example)
            .args([sub, "--release", "--offline", "--target-dir"])
            .arg(dir.path().join(target))
            .env("RUSTFLAGS", flags)
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET");
        run_ok(&mut cmd)
    };
    cargo(lto, "build", "plain");
    cargo(&with, "build", "fmerge");
    let tests = cargo(&with, "test", "fmerge");
    let stdout = String::from_utf8_lossy(&tests.stdout);
    assert!(stdout.contains("4 passed"), "{stdout}");
    let (plain, merged) =
        (dir.path().join("plain/release/app"), dir.path().join("fmerge/release/app"));
    assert_eq!(output_of(&plain), output_of(&merged));
    let (a, b) = (text_bytes(&plain), text_bytes(&merged));
    assert!(b < a, ".text {a} -> {b}");
}

/// The global-merging tests' programs are small: in such a module the code that does the work
/// is the hot code, and the estimate from the code (the default without a profile) leaves the
/// merges these tests are about out for their run-time cost. They turn it off (the test
/// `round_two_leaves_out_merges_the_estimate_calls_hot` is about the estimate).
const UNPRICED: &str = "-fmerge-estimate=false";

/// Compiles the global-merging program (`tests/thinlto`) for ThinLTO into `dir`, the later
/// version of its sources when `edit` names one (`EDIT_BODY`, ...).
fn compile_thinlto_program(dir: &Path, edit: Option<&str>) -> Vec<PathBuf> {
    compile_for_thin_lto(dir, "tests/thinlto", &["m1.c", "m2.c", "m3.c", "main.c"], edit)
}

/// Compiles `sources` of the fixture directory `fixture` with `clang-22 -Os -flto=thin` (C++
/// with clang++-22) into `dir`, with `-D<edit>` when given.
fn compile_for_thin_lto(
    dir: &Path,
    fixture: &str,
    sources: &[&str],
    edit: Option<&str>,
) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
    sources
        .iter()
        .map(|s| {
            let out = dir.join(format!("{s}.o"));
            let cc = if s.ends_with(".cpp") { "clang++-22" } else { "clang-22" };
            let mut cmd = Command::new(cc);
            cmd.args(["-Os", "-flto=thin", "-c"]).arg(src.join(s)).arg("-o").arg(&out);
            if let Some(e) = edit {
                cmd.arg(format!("-D{e}"));
            }
            run_ok(&mut cmd);
            out
        })
        .collect()
}

/// An in-process ThinLTO link with `--icf=all` (by clang++-22 when C++ objects are in it), the
/// plugin given `env`; returns the stderr.
fn link_icf(objs: &[PathBuf], exe: &Path, env: Option<&str>) -> String {
    link_icf_with(objs, exe, env, &[])
}

/// [`link_icf`] with `extra` linker driver flags.
fn link_icf_with(objs: &[PathBuf], exe: &Path, env: Option<&str>, extra: &[&str]) -> String {
    let cpp = objs.iter().any(|o| o.to_string_lossy().ends_with(".cpp.o"));
    let mut cmd = Command::new(if cpp { "clang++-22" } else { "clang-22" });
    cmd.args(["-flto=thin", "-fuse-ld=lld", "-Wl,--icf=all"]).args(extra);
    cmd.args(objs).arg("-o").arg(exe);
    if let Some(env) = env {
        cmd.arg(format!("-Wl,--load-pass-plugin={}", plugin().display()));
        cmd.env("FMERGE_PLUGIN_OPTIONS", env).env("RUST_BACKTRACE", "0");
    }
    String::from_utf8_lossy(&run_ok(&mut cmd).stderr).into_owned()
}

/// Round 1 of `objs` into `dir/summaries`, then `fmerge combine` of that directory; returns
/// the merge information's path.
fn round_one(dir: &Path, objs: &[PathBuf], env: &str) -> PathBuf {
    let sums = dir.join("summaries");
    std::fs::create_dir_all(&sums).unwrap();
    let env = format!("{env} -fmerge-summary-dir={}", sums.display());
    link_icf(objs, &dir.join("round1"), Some(&env));
    let written = std::fs::read_dir(&sums).unwrap().count();
    assert_eq!(written, objs.len(), "one summary per module");
    let info = dir.join("merge.fmi");
    run_ok(fmerge().arg("combine").arg(&sums).arg("-q").arg("-o").arg(&info));
    info
}

#[test]
fn two_rounds_merge_across_thin_lto_modules_in_process_and_distributed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objs = compile_thinlto_program(&d.join("obj"), None);
    let (plain, per_module, merged) = (d.join("plain"), d.join("per-module"), d.join("merged"));
    link_icf(&objs, &plain, None);
    link_icf(&objs, &per_module, Some(UNPRICED));
    let info = round_one(d, &objs, UNPRICED);
    let stderr = link_icf(
        &objs,
        &merged,
        Some(&format!("-fmerge-verbose {UNPRICED} -fmerge-global-info={}", info.display())),
    );
    assert!(stderr.contains("merge information applied: 2 functions"), "{stderr}");
    assert_eq!(output_of(&plain), output_of(&merged));
    let (a, b, c) = (text_bytes(&plain), text_bytes(&per_module), text_bytes(&merged));
    assert!(c < b && b <= a, ".text: ThinLTO {a}, per module {b}, two rounds {c}");
    // The shared copies are link-once: without identical code folding the linker still keeps
    // one of each (in a distributed build, where the backends' objects are ordinary inputs).
    let flags = backend_flags(&[UNPRICED, &format!("-fmerge-global-info={}", info.display())]);
    let distributed = d.join("distributed");
    distributed_thin_lto(&objs, &distributed, &flags, &[]);
    assert_eq!(output_of(&plain), output_of(&distributed));
    let symbols = run_ok(Command::new("llvm-nm-22").arg(&distributed)).stdout;
    let copies = String::from_utf8_lossy(&symbols).matches("__fmerge.g.").count();
    assert_eq!(copies, 1, "{}", String::from_utf8_lossy(&symbols));
    // With identical code folding, the distributed build is the in-process one.
    let folded = d.join("distributed-icf");
    distributed_thin_lto(&objs, &folded, &flags, &["-Wl,--icf=all"]);
    assert_eq!(text_bytes(&folded), c);
}

/// The clang flags that load fmerge into a distributed ThinLTO backend compile (which ignores
/// -fpass-plugin) and give it `options` (each through `-mllvm`).
fn backend_flags(options: &[&str]) -> Vec<String> {
    let load = ["-Xclang", "-load", "-Xclang"].map(String::from);
    let plugin = plugin().display().to_string();
    let options = options.iter().flat_map(|o| ["-mllvm".to_string(), o.to_string()]);
    load.into_iter().chain([plugin]).chain(options).collect()
}

/// (address, size) of each function symbol of `exe` whose name contains `part`, by name.
fn symbols(exe: &Path, part: &str) -> std::collections::BTreeMap<String, (u64, u64)> {
    let out = run_ok(Command::new("llvm-nm-22").arg("-S").arg("--defined-only").arg(exe)).stdout;
    String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (&[addr, size, _, name], true) = (f.as_slice(), l.contains(part)) else {
                return None;
            };
            let hex = |x: &str| u64::from_str_radix(x, 16).ok();
            Some((name.to_string(), (hex(addr)?, hex(size)?)))
        })
        .collect()
}

/// Round 2 leaves out a member whose differing operands are all link-once functions that are
/// identical to functions of other modules (`tests/thinlto-odr`: `fill<A>` and `fill<B>`
/// call `grow<A>` and `grow<B>`, one code): identical code folding folds those, and then the
/// members, for free, where a shared copy would turn each into a thunk plus the copy. The
/// members whose callees differ (`fill<C>`, `fill<D>`) still share a copy. Members with landing
/// pads, one per module (`tally<A>`, `tally<B>`), get no copy unless the link collects unused
/// sections.
#[test]
fn round_two_leaves_members_the_linker_folds_or_cannot_share_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = ["a.cpp", "b.cpp", "c.cpp", "d.cpp", "main.cpp"];
    let objs = compile_for_thin_lto(&d.join("obj"), "tests/thinlto-odr", &sources, None);
    let (plain, merged) = (d.join("plain"), d.join("merged"));
    link_icf(&objs, &plain, None);
    let info = round_one(d, &objs, UNPRICED);
    let mut combine = fmerge();
    combine.arg("combine").arg(d.join("summaries")).arg("--json").arg("-o").arg(d.join("j.fmi"));
    let json = run_ok(&mut combine).stdout;
    let json: serde_json::Value = serde_json::from_slice(&json).expect("JSON merge information");
    // One group holds the four `fill` instances, with the callee as its only parameter.
    let groups = json["groups"].as_array().expect("groups");
    assert!(
        groups.iter().any(|g| g["members"] == 4 && g["params"].as_array().unwrap().len() == 1),
        "{json}"
    );
    link_icf(&objs, &merged, Some(&format!("{UNPRICED} -fmerge-global-info={}", info.display())));
    assert_eq!(output_of(&plain), output_of(&merged));
    assert!(text_bytes(&merged) < text_bytes(&plain));
    let fill = symbols(&merged, "fill");
    let at = |t: char| {
        let (_, v) = fill.iter().find(|(n, _)| n.contains(&format!("fillI1{t}E"))).expect("fill");
        *v
    };
    let (a, b, c, d) = (at('A'), at('B'), at('C'), at('D'));
    assert_eq!(a, b, "fill<A> and fill<B> folded into one function: {fill:?}");
    assert!(a.1 > 100, "fill<A> keeps its body: {fill:?}");
    assert!(c.1 < 32 && d.1 < 32, "fill<C> and fill<D> are thunks: {fill:?}");
    // `tally<A>` and `tally<B>` have landing pads: their shared copy would stay once per
    // module (no folding of functions with exception tables, no comdats after an in-process
    // link's code generation), so each keeps its body.
    let tally = symbols(&merged, "tally");
    assert_eq!(tally.len(), 2, "{tally:?}");
    assert!(tally.values().all(|&(_, size)| size > 64), "tally keeps its body: {tally:?}");
    // With `--gc-sections` the link keeps one copy (the other modules' copies, by the same
    // name, are called by nobody), so `tally<A>` and `tally<B>` share it.
    let gc = dir.path().join("merged-gc");
    let env = format!("{UNPRICED} -fmerge-global-info={}", info.display());
    link_icf_with(&objs, &gc, Some(&env), &["-Wl,--gc-sections"]);
    assert_eq!(output_of(&plain), output_of(&gc));
    let tally = symbols(&gc, "tally");
    assert!(tally.values().all(|&(_, size)| size < 32), "tally became thunks: {tally:?}");
    assert!(text_bytes(&gc) < text_bytes(&merged));
}

/// A shared copy is named by its text, which must not depend on the order a module lists its
/// declarations in (`tests/thinlto-order`: a.c uses `log_b` first, b.c `log_a`, so LLVM prints
/// their declarations and numbers their attribute groups differently): both modules' members
/// call one copy under one name, which the linker keeps once even where identical code folding
/// does not apply (exception tables, links without `--icf`).
#[test]
fn modules_listing_declarations_in_another_order_share_one_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = ["a.c", "b.c", "main.c"];
    let objs = compile_for_thin_lto(&d.join("obj"), "tests/thinlto-order", &sources, None);
    let plain = d.join("plain");
    link_icf(&objs, &plain, None);
    let info = round_one(d, &objs, UNPRICED);
    let merged = d.join("merged");
    let env = format!("{UNPRICED} -fmerge-global-info={}", info.display());
    link_icf_with(&objs, &merged, Some(&env), &["-Wl,--gc-sections"]);
    assert_eq!(output_of(&plain), output_of(&merged));
    let work = symbols(&merged, "work_");
    assert_eq!(work.len(), 2, "{work:?}");
    assert!(work.values().all(|&(_, size)| size < 32), "work_a and work_b are thunks: {work:?}");
    let copies = symbols(&merged, "__fmerge.g.");
    assert_eq!(copies.len(), 1, "one shared copy, by one name: {copies:?}");
}

/// The module lines of `-fmerge-verbose` in `stderr` (merges, functions, expected saving), by
/// module, without where the plugin ran and its seconds: what a backend decided and measured.
fn module_lines(stderr: &str) -> Vec<String> {
    let mut lines: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("fmerge: "))
        .filter_map(|l| l.split_once(" backend ").map(|(_, rest)| rest))
        .map(|l| l.rsplit_once(", ").filter(|(_, t)| t.ends_with('s')).map_or(l, |(k, _)| k))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// A distributed backend measures code as it generates it: with a section per function when
/// compiled with `-ffunction-sections`, as lld's in-process backends always do. Measured
/// otherwise, each thunk's jump to the merged body (`tests/thinlto-thunks`) came out a 2-byte
/// short jump instead of 5 bytes, and the size guard judged merges otherwise than in the
/// in-process link (on Ninja's test binary, 12 modules' expected savings differed).
#[test]
fn distributed_backends_measure_merges_as_the_in_process_link_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objs =
        compile_for_thin_lto(&d.join("obj"), "tests/thinlto-thunks", &["make.c", "main.c"], None);
    let (plain, in_process) = (d.join("plain"), d.join("in-process"));
    link_icf(&objs, &plain, None);
    let stderr = link_icf(&objs, &in_process, Some(&format!("-fmerge-verbose {UNPRICED}")));
    let expected = module_lines(&stderr);
    assert!(expected.iter().any(|l| l.contains("4 functions merged in 1 merges")), "{stderr}");
    let flags = backend_flags(&["-fmerge-verbose", UNPRICED]);
    let distributed = d.join("distributed");
    let stderr = distributed_thin_lto(&objs, &distributed, &flags, &["-Wl,--icf=all"]);
    assert_eq!(module_lines(&stderr), expected, "{stderr}");
    assert_eq!(output_of(&plain), output_of(&distributed));
    assert_eq!(text_bytes(&distributed), text_bytes(&in_process));
}

/// Global merging in a distributed build gives the in-process link's bytes where both links
/// keep one copy of each shared function: with `--gc-sections`. Without it lld keeps every
/// in-process backend's copy of a link-once function, so there round 2 gives no copy to a
/// member with landing pads that is alone in its module (`tally<A>`, `tally<B>` of
/// `tests/thinlto-odr`), while a distributed build's ordinary link keeps one copy (comdats)
/// and its backends make them: smaller than the in-process link.
#[test]
fn distributed_round_two_matches_the_in_process_link_with_gc_sections() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = ["a.cpp", "b.cpp", "c.cpp", "d.cpp", "main.cpp"];
    let objs = compile_for_thin_lto(&d.join("obj"), "tests/thinlto-odr", &sources, None);
    let plain = d.join("plain");
    link_icf(&objs, &plain, None);
    let info = round_one(d, &objs, UNPRICED);
    let env = format!("-fmerge-verbose {UNPRICED} -fmerge-global-info={}", info.display());
    let flags = backend_flags(&[
        "-fmerge-verbose",
        UNPRICED,
        &format!("-fmerge-global-info={}", info.display()),
    ]);
    let gc = ["-Wl,--icf=all", "-Wl,--gc-sections"];
    let (in_process, distributed) = (d.join("in-process-gc"), d.join("distributed-gc"));
    let a = link_icf_with(&objs, &in_process, Some(&env), &["-Wl,--gc-sections"]);
    let b = distributed_thin_lto(&objs, &distributed, &flags, &gc);
    assert_eq!(module_lines(&a), module_lines(&b), "{a}\n{b}");
    assert_eq!(output_of(&plain), output_of(&distributed));
    assert_eq!(text_bytes(&distributed), text_bytes(&in_process));
    let (in_process, distributed) = (d.join("in-process"), d.join("distributed"));
    let a = link_icf(&objs, &in_process, Some(&env));
    let b = distributed_thin_lto(&objs, &distributed, &flags, &["-Wl,--icf=all"]);
    assert_ne!(module_lines(&a), module_lines(&b), "round 2 differs:\n{a}\n{b}");
    assert_eq!(output_of(&plain), output_of(&distributed));
    let tally = symbols(&distributed, "tally");
    assert!(tally.values().all(|&(_, size)| size < 32), "tally became thunks: {tally:?}");
    assert!(text_bytes(&distributed) < text_bytes(&in_process));
}

/// C++ functions that return an object (`sret` of a named struct type) and have landing pads
/// (`tests/thinlto-eh`: `describe<N>`, identical but for `dereferenceable(N)`, three in each of
/// two modules, and `from_a`/`from_b`, equal up to constants). Round 1 summarized a copy of
/// the module read back from bitcode, whose struct types were renamed (`%struct.Line.3`), so no
/// such function ever matched another module's; identical functions with landing pads, which
/// identical code folding never folds, were left to it; and the shared copies kept their
/// member's `dereferenceable(N)` (on the parameter and on the calls passing it on), one copy
/// per member. Now the members become thunks of shared copies, one per group.
#[test]
fn functions_returning_objects_with_landing_pads_share_copies_across_modules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = ["a.cpp", "b.cpp", "main.cpp"];
    let objs = compile_for_thin_lto(&d.join("obj"), "tests/thinlto-eh", &sources, None);
    let plain = d.join("plain");
    link_icf(&objs, &plain, None);
    let info = round_one(d, &objs, UNPRICED);
    let env = format!("{UNPRICED} -fmerge-global-info={}", info.display());
    let merged = d.join("merged");
    link_icf(&objs, &merged, Some(&env));
    assert_eq!(output_of(&plain), output_of(&merged));
    assert!(text_bytes(&merged) < text_bytes(&plain), "without --gc-sections");
    let gc = d.join("merged-gc");
    link_icf_with(&objs, &gc, Some(&env), &["-Wl,--gc-sections"]);
    assert_eq!(output_of(&plain), output_of(&gc));
    assert!(text_bytes(&gc) < text_bytes(&merged));
    let from = symbols(&gc, "from_");
    assert!(from.values().all(|&(_, size)| size < 128), "from_a, from_b are thunks: {from:?}");
    let thunks = symbols(&gc, "describe").values().filter(|&&(_, size)| size < 32).count();
    assert!(thunks >= 3, "{:?}", symbols(&gc, "describe"));
    let copies = symbols(&gc, "__fmerge.g.");
    assert_eq!(copies.len(), 2, "one shared copy per group: {copies:?}");
}

#[test]
fn stale_merge_information_never_changes_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = compile_thinlto_program(&d.join("old"), None);
    let info = round_one(&d.join("old"), &old, UNPRICED);
    for edit in ["EDIT_BODY", "EDIT_REMOVE", "EDIT_ADD", "EDIT_SIGNATURE"] {
        let objs = compile_thinlto_program(&d.join(edit), Some(edit));
        let (plain, stale) = (d.join(edit).join("plain"), d.join(edit).join("stale"));
        link_icf(&objs, &plain, None);
        let env = format!("{UNPRICED} -fmerge-global-info={}", info.display());
        link_icf(&objs, &stale, Some(&env));
        assert_eq!(output_of(&plain), output_of(&stale), "{edit}");
        assert_ne!(
            output_of(&plain),
            output_of(&d.join("old/round1")),
            "{edit} changes the output"
        );
        assert!(text_bytes(&stale) < text_bytes(&plain), "{edit}");
    }
}

#[test]
fn unusable_global_merging_options_warn_once_and_leave_modules_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objs = compile_thinlto_program(&d.join("obj"), None);
    let plain = d.join("plain");
    link_icf(&objs, &plain, None);
    let bad = d.join("bad.fmi");
    std::fs::write(&bad, b"not merge information").unwrap();
    let missing = d.join("no-such-dir");
    for env in [
        format!("-fmerge-global-info={}", bad.display()),
        format!("-fmerge-summary-dir={}", missing.display()),
    ] {
        let exe = d.join("out");
        let stderr = link_icf(&objs, &exe, Some(&env));
        assert_eq!(stderr.matches("fmerge: warning:").count(), 1, "{env}: {stderr}");
        assert!(stderr.contains("modules are left unchanged"), "{stderr}");
        assert_eq!(text_bytes(&exe), text_bytes(&plain), "{env}");
        assert_eq!(output_of(&exe), output_of(&plain));
    }
}

/// Both rounds keep the rule of the module's own merging: without a profile, merges whose
/// members the estimate from the code calls likely hot, and which would make them measurably
/// slower, are left out (`tests/thinlto-hot`: `step_a` and `step_b`, equal up to constants and
/// called from the module's loop). Round 1 leaves them out of the summary; round 2, given
/// merge information that has them (from a round 1 without the estimate), does not merge them. `-fmerge-estimate=false` merges them, in the module's own merging as in round 2.
#[test]
fn round_two_leaves_out_merges_the_estimate_calls_hot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objs =
        compile_for_thin_lto(&d.join("obj"), "tests/thinlto-hot", &["hot.c", "main.c"], None);
    let plain = d.join("plain");
    link_icf(&objs, &plain, None);
    let groups = |dir: &Path| {
        let mut combine = fmerge();
        combine.arg("combine").arg(dir.join("summaries")).arg("--json").arg("-o");
        let json: serde_json::Value =
            serde_json::from_slice(&run_ok(combine.arg(dir.join("j.fmi"))).stdout)
                .expect("JSON merge information");
        json["groups"].as_array().expect("groups").len()
    };
    round_one(&d.join("priced"), &objs, "");
    assert_eq!(groups(&d.join("priced")), 0, "round 1 leaves step_a and step_b out");
    // Merge information that has them: a round 1 that prices nothing and merges only
    // identical functions in each module.
    let info =
        round_one(&d.join("unpriced"), &objs, &format!("{UNPRICED} -fmerge-merge=identical"));
    assert_eq!(groups(&d.join("unpriced")), 1, "step_a and step_b make a group");
    let bodies = |exe: &Path| {
        let steps = symbols(exe, "step_");
        steps.len() == 2 && steps.values().all(|&(_, size)| size > 32)
    };
    let merged = d.join("merged");
    let env = format!("-fmerge-verbose -fmerge-global-info={}", info.display());
    let reports = d.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    let report = format!("-fmerge-report={}/priced-{{}}.json", reports.display());
    let stderr = link_icf(&objs, &merged, Some(&format!("{env} {report}")));
    assert_eq!(output_of(&plain), output_of(&merged));
    assert!(
        stderr.contains(
            "0 functions became thunks of shared copies, 2 left out for their run-time cost"
        ),
        "{stderr}"
    );
    assert!(bodies(&merged), "step_a and step_b keep their bodies");
    // The module's report says what round 2 left out, and why.
    let global = global_records(&reports, "priced");
    let mut left_out: Vec<&str> = global
        .iter()
        .flat_map(|r| r["skipped"].as_array().unwrap())
        .filter(|k| k["stage"] == "global")
        .filter(|k| k["reason"].as_str().unwrap().starts_with("runtime cost"))
        .flat_map(|k| k["function"].as_str().unwrap().split(" + "))
        .collect();
    left_out.sort_unstable();
    assert_eq!(left_out, ["step_a", "step_b"], "round 2's refusals in the report");
    // Without the estimate the same information merges them.
    let unpriced = d.join("unpriced-link");
    let stderr = link_icf(&objs, &unpriced, Some(&format!("{env} {UNPRICED}")));
    assert_eq!(output_of(&plain), output_of(&unpriced));
    assert!(!bodies(&unpriced), "step_a and step_b merged: {stderr}");
}

/// The plugin's reports named `TAG-*.json` in `dir` that have a stage of global merging's
/// second round (one report per module: its own merging, then what round 2 applied).
fn global_records(dir: &Path, tag: &str) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with(&format!("{tag}-")) {
            continue;
        }
        let report = read_json(&path);
        if report["stages"].as_array().unwrap().iter().any(|s| s["stage"] == "global") {
            found.push(report);
        }
    }
    found
}
