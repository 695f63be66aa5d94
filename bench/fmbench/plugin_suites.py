"""`fmbench plugin-suites`: the crates of `fmbench testsuites`, built by cargo with rustc's
linker-plugin LTO, with and without the fmerge pass plugin in lld; every test's outcome must be
the same.

`fmbench testsuites` merges one fat-LTO module per test target with `fmerge opt`.  This is the other
Rust route: cargo builds the crate as usual, rustc emits ThinLTO bitcode, and lld runs fmerge
in each ThinLTO backend (one module per codegen unit).  For each crate of rsuites.SUITES
(same versions, same pinned Cargo.lock, same test targets and skips) it builds twice, each
with its own target directory:

    base:   RUSTFLAGS="-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=-fuse-ld=lld"
    plugin: the same + -Clink-arg=-Wl,--load-pass-plugin=build/plugin-suites/libfmerge_plugin.so

    cargo test --release --no-run --locked --offline (--lib | --test T)   (cargo build --release
                                                                       --bin B for a program)

-Clinker is in fact bench/testsuites/pluginwrap-clang, which runs clang-22 with rustc's arguments
unchanged; it only sets FMERGE_PLUGIN_OPTIONS per link (--plugin-options, default
"-fmerge-verbose", plus -fmerge-report=DIR/OUT-{}.json) so that the reports of each test binary's
ThinLTO backends are told from those of build scripts and proc-macros, and keeps each link's
stderr (OUT.stderr; any "fmerge: warning" in it is reported).  Both test binaries run in the
crate's directory (`--test-threads 2`, the suite's --skip list) and every test's outcome (ok,
FAILED, ignored, by name) and the exit status are compared; a difference is rerun once with both
binaries to tell a flaky test from a miscompile, and the binaries are copied to
build/plugin-suites/keep/CRATE/.  Also recorded: .text of both test binaries (llvm-size-22 -A),
and the plugin's merges and functions merged in the test binary (and, separately, in the build
scripts and proc-macros it linked afresh; with the plugin they run with fmerge too).

    fmbench plugin-suites serde_json regex itoa
    fmbench plugin-suites --plugin-options "-fmerge-merge=identical" memchr
    fmbench plugin-suites --budget 4200          # stop starting crates after 70 min

Work files: build/plugin-suites/ (src/, target-base/, target-plugin/, reports/, results.json).
Sources are copied from build/testsuites/src when `fmbench testsuites` has fetched them, else
fetched as it does.  Exit status 0 when every target built and behaved the same, 1 otherwise.
Needs cargo, clang-22 (with lld), llvm-size-22.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from . import common
from . import rsuites as ts
from .common import TESTSUITES_DATA as HERE

ROOT = ts.ROOT
WORK = Path(os.environ.get("FMERGE_PLUGIN_SUITES_WORK") or ROOT / "build" / "plugin-suites")
WRAP = HERE / "pluginwrap-clang"
LTO = ["-Clinker-plugin-lto", f"-Clinker={WRAP}", "-Clink-arg=-fuse-ld=lld"]
log = ts.log


def rustflags(variant: str, plugin: Path) -> str:
    flags = list(LTO)
    if variant == "plugin":
        flags.append(f"-Clink-arg=-Wl,--load-pass-plugin={plugin}")
    return " ".join(flags)


def source(s: ts.Suite) -> Path:
    """The crate's source under WORK/src, copied from `fmbench testsuites`' work directory if there."""
    dest = WORK / "src" / f"{s.crate}-{s.version}"
    old = ts.WORK / "src" / f"{s.crate}-{s.version}"
    if not s.path and not (dest / "Cargo.toml").exists() and (old / "Cargo.toml").exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(old, dest, ignore=shutil.ignore_patterns("target"))
    saved = ts.WORK
    ts.WORK = WORK  # fetch() writes under ts.WORK
    try:
        return ts.fetch(s)
    finally:
        ts.WORK = saved


def executable_names(target: str, crate: str) -> str:
    if target.startswith("bin:"):
        return target[4:]
    return crate.replace("-", "_") if target == "lib" else target


def build(s: ts.Suite, src: Path, target: str, variant: str, plugin: Path,
          options: str) -> dict:
    """Builds one test target; returns {exe, secs, reports dir, fresh, stderr}."""
    prog = target.startswith("bin:")
    if prog:
        cmd = ["cargo", "build", "--release", "--bin", target[4:]]
    else:
        sel = ["--lib"] if target == "lib" else ["--test", target]
        cmd = ["cargo", "test", "--release", "--no-run", *sel]
    if s.features:
        cmd += ["--features", ",".join(s.features)]
    if (ts.LOCKS / f"{s.crate}-{s.version}.lock").exists():
        cmd.append("--locked")
    cmd += ["--offline", "--message-format=json"]
    tdir = WORK / f"target-{variant}"
    reports = WORK / "reports" / variant / f"{s.crate}-{s.version}" / target.replace(":", "-")
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir(parents=True)
    # A test binary that is already up to date is not linked again (and would leave no
    # reports): remove earlier ones of this name so that cargo links it afresh.
    name = executable_names(target, s.crate)
    for d in (tdir / "release" / "deps", tdir / "release"):
        for p in d.glob(f"{name}-*") if d.exists() else []:
            if "." not in p.name[len(name) + 1:] and p.is_file():
                p.unlink()
    if prog and (tdir / "release" / name).exists():
        (tdir / "release" / name).unlink()
    env = {**os.environ,
           "CARGO_TARGET_DIR": str(tdir), "CARGO_TERM_COLOR": "never",
           "CARGO_NET_OFFLINE": "true", "CARGO_INCREMENTAL": "0",
           "RUSTFLAGS": rustflags(variant, plugin),
           "FMERGE_SUITES_REPORTS": str(reports),
           "FMERGE_SUITES_PLUGIN_OPTIONS": options if variant == "plugin" else ""}
    for k in ("FMERGE_PLUGIN_OPTIONS", "CARGO_BUILD_RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"):
        env.pop(k, None)
    t0 = time.time()
    p = common.run(cmd, cwd=src, env=env, check=False)
    secs = round(time.time() - t0, 1)
    exe, fresh = ts.built_executable(p.stdout, s.crate, prog)
    if p.returncode != 0 or exe is None:
        raise RuntimeError(f"{variant} build of {s.crate} {target} failed "
                           f"(cargo exited {p.returncode}):\n{p.stderr[-4000:]}")
    # A binary is hard-linked out of deps/NAME-HASH, the name its link (and reports) had.
    linked = exe
    for q in (tdir / "release" / "deps").glob(f"{name}-*"):
        if "." not in q.name and q.is_file() and os.path.samefile(q, exe):
            linked = q
    return {"exe": exe, "linked": linked, "secs": secs, "reports": reports, "fresh": fresh,
            "cmd": " ".join(cmd), "rustflags": env["RUSTFLAGS"]}


def link_facts(reports: Path, exe: Path) -> dict:
    """The plugin's reports and the link's stderr, for the test binary and the other links."""
    out = {"exe": {"modules": 0, "merges": 0, "functions_merged": 0, "functions_before": 0,
                   "functions_after": 0, "estimated_saving": 0},
           "other": {"links": 0, "modules": 0, "merges": 0, "functions_merged": 0},
           "warnings": [], "stderr": ""}
    name = exe.name
    for f in sorted(reports.glob("*.json")):
        r = json.loads(f.read_text())
        mine = f.name.startswith(name + "-") and f.name[len(name) + 1:].count("-") == 1
        merges = r.get("merges", [])
        fm = sum(len(m.get("members", [])) for m in merges)
        if mine:
            x = out["exe"]
            x["functions_before"] += r.get("functions_before", 0)
            x["functions_after"] += r.get("functions_after", 0)
            x["estimated_saving"] += sum(m.get("estimated_saving", 0) for m in merges)
        else:
            x = out["other"]
        x["modules"] += 1
        x["merges"] += len(merges)
        x["functions_merged"] += fm
    links = [f for f in reports.glob("*.stderr")]
    out["other"]["links"] = sum(1 for f in links if f.name != name + ".stderr")
    for f in links:
        text = f.read_text(errors="replace")
        for line in text.splitlines():
            if line.startswith("fmerge: ") and " functions merged in " in line:
                continue  # -fmerge-verbose's line per module
            if line.strip():
                out["warnings"].append(f"{f.name[:-7]}: {line}")
        if f.name == name + ".stderr":
            out["stderr"] = text[-3000:]
    return out


def run_target(s: ts.Suite, src: Path, target: str, plugin: Path, options: str) -> dict:
    res: dict = {"crate": s.crate, "version": s.version, "area": s.area, "target": target}
    prog = target.startswith("bin:")
    t0 = time.time()
    builds, runs = {}, {}
    for variant in ("base", "plugin"):
        b = build(s, src, target, variant, plugin, options)
        if b["fresh"]:
            raise RuntimeError(f"{variant}: cargo did not link {b['exe']} afresh")
        builds[variant] = b
        runs[variant] = ts.run_tests(b["exe"], src, s.skip, program=prog)
        facts = link_facts(b["reports"], b["linked"])
        res[variant] = {"exe": str(b["exe"]), "build_secs": b["secs"],
                        "text": ts.text_bytes(b["exe"]), **ts.summarize(runs[variant]),
                        "fmerge": facts["exe"], "other_links": facts["other"],
                        "link_messages": facts["warnings"][:50]}
        if variant == "plugin" and facts["exe"]["modules"] == 0:
            facts["warnings"].append("NO fmerge report for the test binary: did the plugin run?")
            res[variant]["link_messages"] = facts["warnings"][:50]
        log(f"  {variant}: built in {b['secs']} s, .text {res[variant]['text']:,}, "
            f"{res[variant]['passed']} passed, {res[variant]['failed']} failed, "
            f"{res[variant]['ignored']} ignored (status {runs[variant]['status']}, "
            f"{runs[variant]['secs']} s)"
            + (f"; fmerge: {facts['exe']['functions_merged']} functions in "
               f"{facts['exe']['merges']} merges over {facts['exe']['modules']} modules"
               if variant == "plugin" else ""))
        for w in facts["warnings"][:10]:
            log(f"    link message: {w[:300]}")
    res["command"] = builds["plugin"]["cmd"]
    res["differences"] = ts.differences(runs["base"], runs["plugin"])
    if res["differences"]:
        keep = WORK / "keep" / f"{s.crate}-{s.version}" / target.replace(":", "-")
        keep.mkdir(parents=True, exist_ok=True)
        for v in ("base", "plugin"):
            shutil.copy2(builds[v]["exe"], keep / f"{v}.exe")
            (keep / f"{v}.stdout-tail.txt").write_text(str(runs[v]["outcomes"]))
            (keep / f"{v}.stderr-tail.txt").write_text(runs[v]["stderr_tail"])
        # Once more, both binaries, to tell a flaky test from a miscompile.
        again = {v: ts.run_tests(keep / f"{v}.exe", src, s.skip, program=prog)
                 for v in ("base", "plugin")}
        res["differences_again"] = ts.differences(again["base"], again["plugin"])
        res["base_stable"] = not ts.differences(runs["base"], again["base"])
        res["plugin_stable"] = not ts.differences(runs["plugin"], again["plugin"])
        res["failure_output"] = {v: runs[v]["stderr_tail"] for v in ("base", "plugin")}
        res["kept"] = str(keep)
        log(f"  DIFFERENCES ({len(res['differences'])}): {res['differences'][:10]}; "
            f"again: {res['differences_again'][:10]}; kept in {keep}")
    res["secs"] = round(time.time() - t0, 1)
    return res


def table(results: list[dict]) -> str:
    head = ["crate", "target", "tests run (base)", "different outcomes", ".text base",
            ".text plugin", "Δ", "merges / functions merged (test binary)",
            "build+run s (base, plugin)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    tot = {"tests": 0, "diff": 0, "tb": 0, "tp": 0, "m": 0, "f": 0}
    for r in results:
        if r.get("error"):
            lines.append(f"| {r['crate']} {r['version']} | {r['target']} | ERROR: "
                         f"{r['error'].splitlines()[0][:150]} | | | | | | |")
            continue
        b, p = r["base"], r["plugin"]
        tests = b["passed"] + b["failed"] + b["ignored"]
        tb, tp = b["text"], p["text"]
        d = len(r["differences"])
        fm = p["fmerge"]
        lines.append(f"| {r['crate']} {r['version']} | {r['target']} | {tests} | {d} | {tb:,} | "
                     f"{tp:,} | {100.0 * (tp - tb) / tb:+.2f}% | {fm['merges']} / "
                     f"{fm['functions_merged']} | {r['secs']} |")
        tot["tests"] += tests
        tot["diff"] += d
        tot["tb"] += tb
        tot["tp"] += tp
        tot["m"] += fm["merges"]
        tot["f"] += fm["functions_merged"]
    pct = 100.0 * (tot["tp"] - tot["tb"]) / tot["tb"] if tot["tb"] else 0
    lines.append(f"| **total** | | {tot['tests']} | {tot['diff']} | {tot['tb']:,} | "
                 f"{tot['tp']:,} | {pct:+.2f}% | {tot['m']} / {tot['f']} | |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["table"]:
        print(table(json.loads(Path(argv[1]).read_text())["results"]))
        return 0
    ap = common.parser("plugin-suites", __doc__.split("\n")[0])
    ap.add_argument("crates", nargs="*", help="only these crates, in this order (default: all)")
    ap.add_argument("--plugin", help="use this plugin as is (default: a copy of "
                    "target/release/libfmerge_plugin.so in build/plugin-suites/)")
    ap.add_argument("--plugin-options", default="-fmerge-verbose",
                    help="FMERGE_PLUGIN_OPTIONS for the plugin build (a -fmerge-report is added)")
    ap.add_argument("--json", default=str(WORK / "results.json"))
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds: start no crate after this much time has passed")
    a = ap.parse_args(argv)
    by_name = {s.crate: s for s in ts.SUITES}
    for c in a.crates:
        if c not in by_name:
            ap.error(f"unknown crate {c} (crates: {', '.join(by_name)})")
    suites = [by_name[c] for c in a.crates] if a.crates else ts.SUITES
    WORK.mkdir(parents=True, exist_ok=True)
    if a.plugin:
        plugin = Path(a.plugin).resolve()
    else:
        plugin = WORK / "libfmerge_plugin.so"
        shutil.copy2(common.plugin_lib(), plugin)
    log(f"plugin {plugin}; FMERGE_PLUGIN_OPTIONS {a.plugin_options!r} + -fmerge-report")
    os.environ["CARGO_NET_OFFLINE"] = "true"
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    results: list[dict] = []
    t0 = time.time()
    for s in suites:
        if a.budget and time.time() - t0 > a.budget:
            log(f"{s.crate}: not started (--budget {a.budget} s used up)")
            continue
        log(f"{s.crate} {s.version}")
        try:
            src = source(s)
        except Exception as e:
            results.append({"crate": s.crate, "version": s.version, "area": s.area,
                            "target": "*", "error": f"fetch: {e}"})
            log(f"  fetch failed: {e}")
            continue
        for t in s.targets:
            try:
                results.append(run_target(s, src, t, plugin, a.plugin_options))
            except Exception as e:
                results.append({"crate": s.crate, "version": s.version, "area": s.area,
                                "target": t, "error": str(e)})
                log(f"  {t}: ERROR {str(e)[-1500:]}")
            out.write_text(json.dumps({"plugin": str(plugin),
                                       "plugin_options": a.plugin_options,
                                       "rustflags": {v: rustflags(v, plugin)
                                                     for v in ("base", "plugin")},
                                       "secs": round(time.time() - t0),
                                       "results": results}, indent=1))
    print(table(results))
    bad = [r for r in results if r.get("error") or r.get("differences")]
    print(f"\n{len(results)} targets, {len(bad)} with differences or errors; "
          f"{round(time.time() - t0)} s; results in {out}")
    for r in bad:
        print(f"  {r['crate']}/{r['target']}: {r.get('error', '')[:500]}")
        for dd in r.get("differences", [])[:20]:
            print(f"    {dd}")
    return 1 if bad else 0
