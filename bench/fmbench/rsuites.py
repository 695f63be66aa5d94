"""`fmbench testsuites`: test suites we did not write, run under fmerge: Rust crates' own tests.

For every crate of SUITES (a pinned version from crates.io), this fetches its published
source, builds each listed test target (`lib` = the crate's unit tests, else a `tests/*.rs`
integration test) as ONE fat-LTO module, the way the fmerge README's Rust recipe does:

    CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \\
    CARGO_PROFILE_RELEASE_OPT_LEVEL=s \\
    cargo rustc --profile bench --test T -- --emit=llvm-bc,link -C linker=linkwrap.sh

(`--profile bench` is cargo's release profile with the test harness;
bench/testsuites/linkwrap.sh records rustc's link line). Then, for the unmerged module and for `fmerge opt` in every mode:

    llc-22 -O2 -filetype=obj -relocation-model=pic M.bc -o M.o
    cc <rustc's link line, with M.o in place of rustc's object>

and runs the test binary in the crate's directory. Every test's outcome (ok, FAILED,
ignored) and the exit status must be those of the unmerged build, and no mode's .text may
be larger than the unmerged build's. Every distinct merged binary also runs once under
valgrind memcheck; a memory error counts as a failure unless the unmerged binary has the
same error under valgrind.

Modes (`--modes`; modes.py): default (fmerge opt), whole-program (--whole-program), exact
(--profit exact), exhaustive (--search exhaustive).

Examples:

    fmbench testsuites                       # everything (make reliability)
    fmbench testsuites serde_json regex --modes default
    fmbench testsuites --quick               # the subset `make test` runs
    fmbench testsuites table build/testsuites/results.json

Work files go to build/testsuites/ (sources, one shared cargo target directory, modules and
binaries per target; FMERGE_TESTSUITES_WORK moves them). Cargo.lock files are pinned in bench/testsuites/locks/ so that the
dev-dependencies do not drift; `--update-locks` writes new ones. Exit status 0 when every
mode of every target behaved like the unmerged build (and valgrind found nothing new), 1
otherwise. Needs cargo (with crates.io), llc-22, cc and valgrind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import common
from .common import LLC, REPO as ROOT, TESTSUITES_DATA as HERE
from .modes import MODES
from .modes import parse as parse_modes

LOCKS = HERE / "locks"
WORK = Path(os.environ.get("FMERGE_TESTSUITES_WORK") or ROOT / "build" / "testsuites")
LINKWRAP = HERE / "linkwrap.sh"

# The merge modes this study runs (modes.py has their arguments).
RUN_MODES = ["default", "whole-program", "exact", "exhaustive"]
VALGRIND = [*common.VALGRIND, f"--suppressions={HERE / 'valgrind.supp'}"]
TEST_LINE = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$", re.M)


@dataclass
class Suite:
    crate: str
    version: str
    area: str
    # `lib` for the unit tests, else the name of a tests/*.rs target.
    targets: list[str]
    # Tests skipped in every build (the same for the unmerged one), with the reason.
    skip: dict[str, str] = field(default_factory=dict)
    features: list[str] = field(default_factory=list)
    # Files the published crate lacks that its tests need (path -> text), written into the
    # source copy.
    files: dict[str, str] = field(default_factory=dict)
    # A program of ours (a directory under bench/testsuites/) instead of a crates.io package.
    path: str | None = None


SUITES = [
    # Parsing
    Suite("serde_json", "1.0.154", "parsing", ["test", "regression", "stream"]),
    # The published crate leaves out tests/fuzz/ (regression tests for fuzzer findings, with
    # their data); an empty module stands in, the rest of tests/lib.rs runs.
    Suite("regex", "1.13.2", "parsing", ["integration"],
          files={"tests/fuzz.rs": "// tests/fuzz/ is not in the published crate.\n"}),
    Suite("nom", "8.0.0", "parsing", ["json"]),
    Suite("url", "2.5.8", "parsing", ["unit"]),
    Suite("semver", "1.0.28", "parsing", ["test_version_req"]),
    # csv's tests/tests.rs runs its examples, which `cargo rustc --test` does not build.
    Suite("csv", "1.4.0", "parsing", ["lib"]),
    Suite("httparse", "1.10.1", "parsing", ["lib"]),
    # Collections
    Suite("hashbrown", "0.17.2", "collections", ["lib"]),
    Suite("indexmap", "2.14.2", "collections", ["quick"]),
    Suite("smallvec", "1.16.6", "collections", ["lib"]),
    Suite("arrayvec", "0.7.8", "collections", ["tests"]),
    Suite("slab", "0.4.12", "collections", ["slab"]),
    Suite("petgraph", "0.8.3", "collections", ["graph"]),
    # Text
    Suite("aho-corasick", "1.1.5", "text", ["lib"]),
    Suite("memchr", "2.8.3", "text", ["lib"]),
    Suite("unicode-segmentation", "1.13.3", "text", ["test"]),
    # (bstr's unit tests need Unicode test data its published crate leaves out.)
    Suite("regex-syntax", "0.8.12", "text", ["lib"]),
    Suite("strsim", "0.11.1", "text", ["lib"]),
    # Numerics
    Suite("num-bigint", "0.5.1", "numerics", ["biguint"]),
    Suite("ryu", "1.0.23", "numerics", ["s2d_test"]),
    Suite("itoa", "1.0.19", "numerics", ["test"]),
    Suite("half", "2.7.1", "numerics", ["lib"]),
    # Concurrency
    Suite("crossbeam-channel", "0.5.17", "concurrency", ["select"]),
    Suite("parking_lot", "0.13.0", "concurrency", ["lib"]),
    Suite("once_cell", "1.21.4", "concurrency", ["it"]),
    # Serialization and encoding
    Suite("base64", "0.23.1", "serialization", ["tests"]),
    Suite("ciborium", "0.2.2", "serialization", ["codec"]),
    Suite("sha2", "0.11.1", "serialization", ["mod"]),
    # Iterators and buffers
    Suite("itertools", "0.15.0", "iterators", ["test_std"]),
    Suite("bytes", "1.12.2", "buffers", ["test_bytes"]),
    Suite("either", "1.19.0", "iterators", ["lib"]),
    # Programs: `bin:NAME` runs the binary; its exit status and stdout must not change.
    # regex_json is issue 13's reproducer (regex + serde_json), which fmerge c783127 broke.
    Suite("regex_json", "0.1.0", "program", ["bin:regex_json"], path="programs/regex_json"),
]

# What `make test` runs (crates/fmerge/tests/testsuites.rs): small, fast, and it includes a
# target that the old fmerge miscompiled.
QUICK = {"serde_json": ["regression"], "itoa": ["test"], "regex_json": ["bin:regex_json"]}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sh(cmd: list, cwd: Path | None = None, env: dict | None = None,
       timeout: float = 3600, check: bool = True) -> common.Result:
    return common.run(cmd, cwd=cwd, env=env, timeout=timeout, check=check)


def cargo_env() -> dict:
    return {
        "CARGO_PROFILE_RELEASE_LTO": "fat",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": "s",
        "CARGO_PROFILE_RELEASE_DEBUG": "false",
        "CARGO_PROFILE_RELEASE_INCREMENTAL": "false",
        "CARGO_TARGET_DIR": str(WORK / "target"),
        "CARGO_TERM_COLOR": "never",
        # Some crates' build scripts look at these; keep them out of the way.
        "RUSTFLAGS": "",
    }


def fetch(s: Suite) -> Path:
    """The crate's published source, copied to build/testsuites/src/NAME-VER (writable), made
    its own workspace, with the pinned Cargo.lock when there is one."""
    dest = WORK / "src" / f"{s.crate}-{s.version}"
    if s.path:
        # Ours: copied afresh each time, so that edits count.
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(HERE / s.path, dest)
        with open(dest / "Cargo.toml", "a") as f:
            f.write("\n[workspace]\n")
        lock = LOCKS / f"{s.crate}-{s.version}.lock"
        if lock.exists():
            shutil.copy(lock, dest / "Cargo.lock")
        return dest
    if (dest / "Cargo.toml").exists():
        for rel, text in s.files.items():
            (dest / rel).write_text(text)
        return dest
    f = WORK / "fetch" / f"{s.crate}-{s.version}"
    f.mkdir(parents=True, exist_ok=True)
    (f / "Cargo.toml").write_text(
        f'[package]\nname = "fetch-{s.crate}"\nversion = "0.0.0"\nedition = "2021"\n'
        f'[dependencies]\n{s.crate} = "={s.version}"\n[workspace]\n')
    (f / "src").mkdir(exist_ok=True)
    (f / "src" / "lib.rs").write_text("")
    sh(["cargo", "fetch"], cwd=f)
    meta = json.loads(sh(["cargo", "metadata", "--format-version", "1"], cwd=f).stdout)
    src = next(Path(p["manifest_path"]).parent for p in meta["packages"]
               if p["name"] == s.crate and p["version"] == s.version)
    tmp = dest.with_suffix(".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    for p in tmp.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)
    manifest = tmp / "Cargo.toml"
    text = manifest.read_text()
    if not re.search(r"^\[workspace\]", text, re.M):
        manifest.write_text(text + "\n[workspace]\n")
    lock = LOCKS / f"{s.crate}-{s.version}.lock"
    if lock.exists():
        shutil.copy(lock, tmp / "Cargo.lock")
    for rel, text in s.files.items():
        (tmp / rel).write_text(text)
    tmp.rename(dest)
    return dest


def built_executable(cargo_json: str, crate: str, program: bool):
    """The test executable (or, for `program`, the binary) of `crate` that cargo's
    `--message-format=json` output names last, and whether cargo found it fresh; (None, None)
    if it names none."""
    exe, fresh = None, None
    for line in cargo_json.splitlines():
        try:
            m = json.loads(line)
        except json.JSONDecodeError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") and \
                (m["profile"].get("test") or program) and crate in m["package_id"]:
            exe, fresh = Path(m["executable"]), m.get("fresh")
    return exe, fresh


def build(s: Suite, src: Path, target: str, update_locks: bool) -> Path:
    """Builds one test target as a fat-LTO module; returns the executable (EXE.bc and
    EXE.linkargs beside it)."""
    if target.startswith("bin:"):
        sel = ["--bin", target[4:]]
    else:
        sel = ["--lib"] if target == "lib" else ["--test", target]
    feats = ["--features", ",".join(s.features)] if s.features else []
    lock = LOCKS / f"{s.crate}-{s.version}.lock"
    locked = [] if update_locks or not lock.exists() else ["--locked"]
    # `--profile bench` is the release profile with the test harness (for a binary too, so a
    # program is built with `--release`).
    profile = ["--release"] if target.startswith("bin:") else ["--profile", "bench"]
    cmd = ["cargo", "rustc", *profile, *sel, *feats, *locked,
           "--message-format=json", "--", "--emit=llvm-bc,link", "-C", f"linker={LINKWRAP}"]
    p = sh(cmd, cwd=src, env=cargo_env(), check=False)
    exe, _ = built_executable(p.stdout, s.crate, target.startswith("bin:"))
    if p.returncode != 0 or exe is None:
        raise RuntimeError(f"building {s.crate} {target} failed:\n{p.stderr[-3000:]}")
    if update_locks or not lock.exists():
        LOCKS.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / "Cargo.lock", lock)
    if target.startswith("bin:") and not Path(str(exe) + ".bc").exists():
        # A binary is hard-linked out of deps/, where rustc wrote NAME-HASH(.bc, .linkargs).
        found = sorted(exe.parent.joinpath("deps").glob(f"{exe.name}-*.linkargs"),
                       key=lambda p: p.stat().st_mtime)
        if found:
            exe = found[-1].with_suffix("")
    for suffix in (".bc", ".linkargs"):
        if not Path(str(exe) + suffix).exists():
            raise RuntimeError(f"{exe}{suffix} missing (rustc did not emit it)")
    return exe


def relink(exe: Path, obj: Path, out: Path) -> None:
    """rustc's recorded link line with `obj` in place of rustc's own object file."""
    args = Path(str(exe) + ".linkargs").read_bytes().split(b"\0")[:-1]
    args = [a.decode() for a in args]
    cmd, i, replaced = ["cc"], 0, 0
    while i < len(args):
        a = args[i]
        if a.endswith(".rcgu.o"):
            if replaced == 0:
                cmd.append(str(obj))
            replaced += 1
        elif a == "-o":
            cmd += ["-o", str(out)]
            i += 1
        elif a == "-L" and i + 1 < len(args) and args[i + 1].endswith("raw-dylibs"):
            i += 1  # rustc's temporary directory, gone by now
        else:
            cmd.append(a)
        i += 1
    if replaced != 1:
        raise RuntimeError(f"{exe}: expected one rustc object on the link line, found {replaced}")
    sh(cmd)


def codegen(bc: Path, obj: Path) -> None:
    sh([LLC, "-O2", "-filetype=obj", "-relocation-model=pic", str(bc), "-o", str(obj)])


text_bytes = common.text_bytes


def run_tests(exe: Path, cwd: Path, skip: dict[str, str], wrapper: list[str] | None = None,
              timeout: float = 900, program: bool = False) -> dict:
    """Runs a test binary (or, with `program`, a program: its one outcome names a hash of
    its stdout, so output that changes shows as a difference)."""
    cmd = [*(wrapper or []), str(exe)]
    if not program:
        cmd += ["--test-threads", "2"]
    for t in skip:
        cmd += ["--skip", t]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "RUST_BACKTRACE": "0"}, errors="replace")
        status, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        status = "timeout"
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = ""
    outcomes = {}
    if program:
        digest = hashlib.sha256(out.encode()).hexdigest()[:16]
        outcomes[f"stdout {digest} ({len(out)} bytes)"] = "ok" if status == 0 else "FAILED"
    for m in TEST_LINE.finditer(out):
        outcomes[m.group(1)] = "ignored" if m.group(2).startswith("ignored") else m.group(2)
    return {"status": status, "outcomes": outcomes, "secs": round(time.time() - t0, 2),
            "stderr_tail": err[-2000:]}


def summarize(r: dict) -> dict:
    o = r["outcomes"].values()
    return {"status": r["status"], "passed": sum(v == "ok" for v in o),
            "failed": sum(v == "FAILED" for v in o), "ignored": sum(v == "ignored" for v in o),
            "secs": r["secs"]}


def differences(base: dict, got: dict) -> list[str]:
    d = []
    if base["status"] != got["status"]:
        d.append(f"exit status {base['status']} -> {got['status']}")
    for t in sorted(set(base["outcomes"]) | set(got["outcomes"])):
        a, b = base["outcomes"].get(t, "missing"), got["outcomes"].get(t, "missing")
        if a != b:
            d.append(f"{t}: {a} -> {b}")
    return d


def merge(fmerge: str, module: Path, d: Path, mode: str) -> tuple[dict, dict | None]:
    """`fmerge opt` of `module` in `mode` into d/MODE.bc, its report d/MODE.json: the mode's
    result so far, and the report (None if fmerge failed; the result says so)."""
    out, rep = d / f"{mode}.bc", d / f"{mode}.json"
    p = sh([fmerge, "opt", str(module), "-o", str(out), "--report", str(rep), *MODES[mode].args], check=False)
    m: dict = {"fmerge_secs": round(p.seconds, 1)}
    if p.returncode != 0:
        m["error"] = f"fmerge exited {p.returncode}: {p.stderr[-1500:]}"
        m["differences"] = ["fmerge failed"]
        log(f"  {mode}: FMERGE FAILED {p.stderr[-300:]}")
        return m, None
    r = json.loads(rep.read_text())
    m["merges"] = len(r.get("merges", []))
    return m, r


def run_target(s: Suite, src: Path, target: str, modes: list[str], fmerge: str,
               valgrind: bool, update_locks: bool) -> dict:
    res: dict = {"crate": s.crate, "version": s.version, "area": s.area, "target": target,
                 "modes": {}}
    prog = target.startswith("bin:")
    t0 = time.time()
    exe = build(s, src, target, update_locks)
    res["build_secs"] = round(time.time() - t0, 1)
    d = WORK / "runs" / f"{s.crate}-{s.version}" / target
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    bc = Path(str(exe) + ".bc")
    res["module_bytes"] = bc.stat().st_size
    codegen(bc, d / "base.o")
    relink(exe, d / "base.o", d / "base.exe")
    base = run_tests(d / "base.exe", src, s.skip, program=prog)
    res["baseline"] = summarize(base)
    res["text_before"] = text_bytes(d / "base.o")
    # The same tests must pass in the unmerged relinked build as in cargo's own binary;
    # otherwise the harness, not fmerge, is what differs.
    cargo_run = run_tests(exe, src, s.skip, program=prog)
    res["cargo_build_differs"] = differences(cargo_run, base)
    log(f"  {s.crate}/{target}: {res['baseline']['passed']} passed, "
        f"{res['baseline']['failed']} failed, {res['baseline']['ignored']} ignored "
        f"(status {base['status']})")
    for mode in modes:
        m, r = merge(fmerge, bc, d, mode)
        res["modes"][mode] = m
        if r is None:
            continue
        m["functions_before"] = r.get("functions_before")
        m["functions_after"] = r.get("functions_after")
        codegen(d / f"{mode}.bc", d / f"{mode}.o")
        m["text_after"] = text_bytes(d / f"{mode}.o")
        relink(exe, d / f"{mode}.o", d / f"{mode}.exe")
        got = run_tests(d / f"{mode}.exe", src, s.skip, program=prog)
        m.update(summarize(got))
        m["differences"] = differences(base, got)
        log(f"  {mode}: {m['merges']} merges, .text {res['text_before']} -> {m['text_after']}, "
            f"{m['passed']} passed, {m['failed']} failed, "
            f"{len(m['differences'])} differences ({m['fmerge_secs']} s)")
    if valgrind:
        def check(exe: Path) -> dict:
            vg = run_tests(exe, src, s.skip, wrapper=VALGRIND, timeout=1500, program=prog)
            v = {"status": vg["status"], "secs": vg["secs"]}
            # A memcheck report makes the run exit 99; a timeout or another status is
            # compared with the unmerged binary under valgrind.
            if vg["status"] == 0 and not differences(base, vg):
                v["result"] = "clean"
            else:
                bvg = run_tests(d / "base.exe", src, s.skip, wrapper=VALGRIND, timeout=1500,
                                program=prog)
                same = bvg["status"] == vg["status"] and not differences(bvg, vg)
                v["baseline_status"] = bvg["status"]
                v["result"] = "same as unmerged" if same else "ERRORS"
                v["stderr_tail"] = vg["stderr_tail"][-1500:]
                v["differences"] = differences(bvg, vg)
            return v
        valgrind_each(res, d, modes, check)
    res["secs"] = round(time.time() - t0, 1)
    return res


# Valgrind results of merged objects checked by earlier runs (--valgrind-known), by the
# object's sha256.
KNOWN_VALGRIND: dict[str, dict] = {}


def load_known_valgrind(files: list[str]) -> None:
    """Reads the valgrind results of earlier runs' merged objects (by their sha256; for results
    written before the hash was recorded, from the object still in the work directory)."""
    for f in files:
        data = json.loads(Path(f).read_text())
        for r in data["results"]:
            for mode, x in r.get("modes", {}).items():
                v = x.get("valgrind")
                if v is None and mode == "default" and r.get("valgrind"):
                    v = r["valgrind"]  # files from before every mode had its own
                if not v or "same_binary_as" in v or "known_from" in v:
                    continue
                h = x.get("object_sha256")
                o = WORK / "runs" / f"{r['crate']}-{r['version']}" / r["target"] / f"{mode}.o"
                if h is None and o.exists():
                    h = hashlib.sha256(o.read_bytes()).hexdigest()
                if h:
                    KNOWN_VALGRIND[h] = {"result": v["result"], "known_from": f"{f} {mode}"}


def valgrind_each(res: dict, d: Path, modes: list[str], check) -> None:
    """Runs every distinct merged binary of one target once under valgrind memcheck.

    `check(exe)` runs one binary and returns {"result": "clean" | "same as unmerged" |
    "ERRORS", ...}. Modes whose object file is byte for byte an earlier mode's (the default
    and --whole-program often are), or one an earlier run checked (--valgrind-known), share
    its result. res["valgrind"] is the worst result over the modes, with "binaries" = how many
    ran."""
    seen: dict[str, str] = {}
    for mode in modes:
        x = res["modes"].get(mode)
        if x is None or "error" in x:
            continue
        h = hashlib.sha256((d / f"{mode}.o").read_bytes()).hexdigest()
        x["object_sha256"] = h
        if h in seen:
            x["valgrind"] = {"result": res["modes"][seen[h]]["valgrind"]["result"],
                             "same_binary_as": seen[h]}
            continue
        if h in KNOWN_VALGRIND:
            x["valgrind"] = dict(KNOWN_VALGRIND[h])
            log(f"  valgrind ({mode}): {x['valgrind']['result']} (same object as "
                f"{x['valgrind']['known_from']})")
            continue
        seen[h] = mode
        x["valgrind"] = check(d / f"{mode}.exe")
        log(f"  valgrind ({mode}): {x['valgrind']['result']} ({x['valgrind'].get('secs')} s)")
    got = [x["valgrind"] for x in res["modes"].values() if "valgrind" in x]
    if got:
        res["valgrind"] = {**worst_valgrind(got), "binaries": len(seen)}


def worst_valgrind(results: list[dict]) -> dict:
    """The worst of several valgrind results: ERRORS, then "same as unmerged", then clean."""
    rank = {"ERRORS": 0, "same as unmerged": 1, "clean": 2}
    return min(results, key=lambda v: rank.get(v["result"], 0))


def larger(res: dict) -> list[str]:
    """The modes whose merged .text is larger than the unmerged build's ("never larger")."""
    return [m for m, x in res["modes"].items()
            if "text_after" in x and x["text_after"] > res.get("text_before", 0)]


def ok(res: dict) -> bool:
    if res.get("error"):
        return False
    if any(m.get("differences") for m in res["modes"].values()):
        return False
    if res.get("valgrind", {}).get("result") == "ERRORS":
        return False
    if larger(res):
        return False
    return True


def table(results: list[dict], modes: list[str]) -> str:
    """Markdown: one row per crate (its targets summed)."""
    rows = {}
    for r in results:
        k = (r["crate"], r["version"])
        row = rows.setdefault(k, {"area": r["area"], "targets": 0, "tests": 0, "base": 0,
                                  "modes": {m: [0, 0] for m in modes}, "vg": [],
                                  "before": 0, "after": {m: 0 for m in modes}, "err": [],
                                  "larger": [], "not_run": set()})
        if r.get("error"):
            row["err"].append(r["target"])
            continue
        row["targets"] += 1
        b = r["baseline"]
        row["tests"] += b["passed"] + b["failed"]
        row["base"] += b["passed"]
        row["before"] += r["text_before"]
        for m in modes:
            x = r["modes"].get(m)
            if x is None:  # a combined table: this mode ran in no file for this target
                row["not_run"].add(m)
                continue
            if "error" in x:
                row["modes"][m][1] += 1
                continue
            row["modes"][m][0] += x["passed"]
            row["modes"][m][1] += len(x["differences"])
            row["after"][m] += x["text_after"]
        row["vg"].append(r.get("valgrind", {}).get("result", "not run"))
        row["larger"] += [f"{r['target']} {m}" for m in larger(r)]
    head = ["crate", "area", "targets", "tests run", "passed (unmerged)"]
    head += [f"passed / diffs: {m}" for m in modes]
    sized = "default" if "default" in modes else modes[0]
    head += [f".text before → after ({sized})", "valgrind (each merged binary)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    tot = {"targets": 0, "tests": 0, "base": 0, "modes": {m: [0, 0] for m in modes}}
    for (c, v), row in rows.items():
        vg = set(row["vg"])
        vgs = "clean" if vg == {"clean"} else ", ".join(sorted(vg))
        cells = [f"{c} {v}", row["area"], str(row["targets"]), str(row["tests"]), str(row["base"])]
        for m in modes:
            p, dcount = row["modes"][m]
            cells.append("not run" if m in row["not_run"] else f"{p} / {dcount}")
            tot["modes"][m][0] += p
            tot["modes"][m][1] += dcount
        a = row["after"].get(sized, 0)
        pct = 100.0 * (row["before"] - a) / row["before"] if row["before"] else 0
        size = f"{row['before']:,} → {a:,} (-{pct:.1f}%)"
        if sized in row["not_run"]:
            size = "not run"
        if row["larger"]:
            size += f" LARGER: {', '.join(row['larger'])}"
        cells += [size, vgs]
        if row["err"]:
            cells[0] += f" (build failed: {', '.join(row['err'])})"
        lines.append("| " + " | ".join(cells) + " |")
        for k in ("targets", "tests", "base"):
            tot[k] += row[k]
    cells = ["**total**", "", str(tot["targets"]), str(tot["tests"]), str(tot["base"])]
    cells += [f"{tot['modes'][m][0]} / {tot['modes'][m][1]}" for m in modes]
    cells += ["", ""]
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def combine(files: list[str]) -> dict:
    """Results of several runs (e.g. one per mode) as one: a target's modes are joined, its
    valgrind result is the worst of the runs'; targets in SUITES' order."""
    modes: list[str] = []
    byk: dict = {}
    for f in files:
        data = json.loads(Path(f).read_text())
        modes += [m for m in data["modes"] if m not in modes]
        for r in data["results"]:
            k = (r["crate"], r["target"])
            if k not in byk or byk[k].get("error"):
                byk[k] = json.loads(json.dumps(r))
                continue
            old = byk[k]
            old["modes"].update(r["modes"])
            vs = [v for v in (old.get("valgrind"), r.get("valgrind")) if v]
            if vs:
                binaries = sum(v.get("binaries", 0) for v in vs)
                old["valgrind"] = {**worst_valgrind(vs), "binaries": binaries}
    order = {(s.crate, t): i for i, (s, t) in
             enumerate((s, t) for s in SUITES for t in s.targets)}
    res = sorted(byk.values(), key=lambda r: order.get((r["crate"], r["target"]), len(order)))
    return {"modes": modes, "results": res}


def main(argv: list[str]) -> int:
    if argv[:1] == ["table"]:
        data = combine(argv[1:])
        print(table(data["results"], data["modes"]))
        return 0
    ap = common.parser("testsuites", __doc__.split("\n")[0], fmerge=True)
    ap.add_argument("crates", nargs="*", help="only these crates (default: all)")
    ap.add_argument("--modes", default=",".join(RUN_MODES))
    ap.add_argument("--no-valgrind", action="store_true")
    ap.add_argument("--quick", action="store_true", help="the subset make test runs")
    ap.add_argument("--update-locks", action="store_true")
    ap.add_argument("--json", default=str(WORK / "results.json"))
    ap.add_argument("--valgrind-known", action="append", default=[], metavar="FILE",
                    help="an earlier run's results: merged objects it ran under valgrind "
                         "are not run again")
    ap.add_argument("--resume", action="store_true",
                    help="keep the targets already in the --json file (same modes), run the rest")
    a = ap.parse_args(argv)
    modes = parse_modes(a.modes, RUN_MODES)
    suites = SUITES
    if a.quick:
        suites = [dataclasses.replace(s, targets=QUICK[s.crate])
                  for s in SUITES if s.crate in QUICK]
    if a.crates:
        known = {s.crate for s in SUITES}
        for c in a.crates:
            if c not in known:
                ap.error(f"unknown crate {c}")
        suites = [s for s in suites if s.crate in a.crates]
    WORK.mkdir(parents=True, exist_ok=True)
    load_known_valgrind(a.valgrind_known)
    results: list[dict] = []
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if a.resume and out.exists():
        old = json.loads(out.read_text())
        if old.get("modes") == modes:
            done = {(r["crate"], r["target"]): r for r in old["results"] if not r.get("error")}
    t0 = time.time()
    for s in suites:
        log(f"{s.crate} {s.version}")
        try:
            src = fetch(s)
        except Exception as e:  # a crate that cannot be fetched is reported, not fatal
            results.append({"crate": s.crate, "version": s.version, "area": s.area,
                            "target": "*", "error": str(e), "modes": {}})
            log(f"  fetch failed: {e}")
            continue
        for t in s.targets:
            if (s.crate, t) in done:
                results.append(done[(s.crate, t)])
                log(f"  {t}: kept from {out}")
                continue
            try:
                results.append(run_target(s, src, t, modes, a.fmerge, not a.no_valgrind,
                                          a.update_locks))
            except Exception as e:
                results.append({"crate": s.crate, "version": s.version, "area": s.area,
                                "target": t, "error": str(e), "modes": {}})
                log(f"  {t}: ERROR {str(e)[:800]}")
            # Targets of crates this run did not select stay in the file.
            chosen = {x.crate for x in suites}
            others = [r for r in done.values() if r["crate"] not in chosen]
            out.write_text(json.dumps({"modes": modes, "fmerge": a.fmerge,
                                       "secs": round(time.time() - t0),
                                       "results": results + others}, indent=1))
    return report(results, modes, "targets", out, t0)


def report(results: list[dict], modes: list[str], noun: str, out: Path, t0: float, first: str = "crate") -> int:
    """The table of a run (its first column headed `first`), then every target with a problem;
    the exit status: 1 if there was one."""
    bad = [r for r in results if not ok(r)]
    print(table(results, modes).replace("| crate |", f"| {first} |", 1))
    print(f"\n{len(results)} {noun}, {len(bad)} with differences, errors or memory errors; "
          f"{round(time.time() - t0)} s; results in {out}")
    for r in bad:
        print(f"  {r['crate']}/{r['target']}: {r.get('error', '')[-400:]}")
        for m, x in r["modes"].items():
            for dd in x.get("differences", [])[:10]:
                print(f"    {m}: {dd}")
        if r.get("valgrind", {}).get("result") == "ERRORS":
            print(f"    valgrind: {r['valgrind'].get('stderr_tail', '')[-600:]}")
        if larger(r):
            print(f"    larger .text in: {', '.join(larger(r))}")
    return 1 if bad else 0
