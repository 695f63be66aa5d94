#!/usr/bin/env python3
"""fmerge side-by-side benchmark harness.

For every program of the corpus (bench/corpus) and every target (x86_64,
aarch64) it optimises the whole-program module with `opt-22
-passes='default<Oz>'` (timed: the denominator of every time ratio) and runs,
on that same Oz module, LLVM's MergeFunctions, LLVM's GlobalMergeFunc
(monolithic, and linked with ld.lld --icf=all), the machine outliner, each
fmerge mode and combinations.  Every row records .text bytes, the change
against its reference, the time of the merging step alone and its ratio to
the Oz time (timed steps run FMERGE_BENCH_TIMING_RUNS times, default 3, and keep
their fastest run), the verifier result and the smoke-workload result.

  harness.py time --out DIR [--runs N]   (Oz and fmerge timed alternately, see cmd_time)
  harness.py run [--quick] [--programs P ...] [--targets T ...] [--configs C ...]
                 [--out DIR] [--no-smoke] [--publish]
  harness.py render DIR      rewrite DIR/results.md and DIR/chart-*.svg from DIR/results.csv
  harness.py publish DIR     copy DIR/results.md to bench/RESULTS.md and the charts to bench/

Python 3 standard library only.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS_PY = HERE / "corpus" / "corpus.py"

OPT = os.environ.get("FMERGE_OPT", "opt-22")
LLC = os.environ.get("FMERGE_LLC", "llc-22")
LLVM_SIZE = os.environ.get("FMERGE_LLVM_SIZE", "llvm-size-22")
LLD = os.environ.get("FMERGE_LLD", "ld.lld-22")
FMERGE = os.environ.get("FMERGE_BIN", str(REPO / "target" / "release" / "fmerge"))

PROGRAMS = ["sqlite", "lua", "quickjs", "zstd", "bzip2", "xz", "leveldb", "fd", "tokei"]
RUST = {"fd", "tokei"}
QUICK = ["lua", "bzip2"]
TARGETS = ["x86_64", "aarch64"]
TARGET_LABEL = {"x86_64": "x86-64", "aarch64": "AArch64"}
# where corpus.py --target T puts its output
CORPUS_OUT = {"x86_64": REPO / "build" / "corpus", "aarch64": REPO / "build" / "corpus-aarch64"}
WORK = REPO / "build" / "bench"
CMD_TIMEOUT = 1800  # seconds per command (a hang becomes an error row)


@dataclass
class Config:
    name: str
    kind: str  # "module": a module measured with `fmerge size`; "llc": codegen flag; "linked": executable
    desc: str
    base: str | None = None  # for llc/linked: the module config whose output is compiled
    llc_flags: list[str] = field(default_factory=list)
    icf: bool = False
    rust_only: bool = False


CONFIGS = [
    Config("baseline", "module", "the `default<Oz>` module as is (reference of the object-file rows)"),
    Config("mergefunc", "module", "`opt-22 -passes=mergefunc`"),
    Config("gmf", "module", "`opt-22 -passes=global-merge-func` (LLVM's GlobalMergeFunc, monolithic: "
           "no codegen data, merges within the module)"),
    Config("fmerge-id", "module", "`fmerge opt --merge identical`"),
    Config("fmerge-idc", "module", "`fmerge opt --merge identical,constants`"),
    Config("fmerge", "module", "`fmerge opt` (default: identical, constants, similar)"),
    Config("fmerge-wp", "module", "`fmerge opt --whole-program` (Rust programs only: their modules are "
           "internalized, only `main` is called from outside)", rust_only=True),
    Config("outliner", "llc", "baseline compiled with `llc-22 -enable-machine-outliner`", base="baseline",
           llc_flags=["-enable-machine-outliner"]),
    Config("fmerge+outliner", "llc", "fmerge's output compiled with `llc-22 -enable-machine-outliner`",
           base="fmerge", llc_flags=["-enable-machine-outliner"]),
    Config("lld", "linked", "baseline linked with ld.lld-22 without ICF (reference of the linked rows)",
           base="baseline"),
    Config("icf", "linked", "baseline linked with `ld.lld-22 --icf=all`", base="baseline", icf=True),
    Config("gmf+icf", "linked", "gmf's output linked with `ld.lld-22 --icf=all`", base="gmf", icf=True),
    Config("fmerge+icf", "linked", "fmerge's output linked with `ld.lld-22 --icf=all`", base="fmerge", icf=True),
]
CONFIG = {c.name: c for c in CONFIGS}
FMERGE_MODES = {"fmerge-id": ["--merge", "identical"], "fmerge-idc": ["--merge", "identical,constants"],
                "fmerge": [], "fmerge-wp": ["--whole-program"]}
# llc flags of the linked rows (on top of corpus.py's -O2 -relocation-model=pic)
LINK_LLC_FLAGS = ["-function-sections"]

FIELDS = ["target", "program", "config", "kind", "status", "text_bytes", "reference", "reference_bytes",
          "delta_bytes", "delta_pct", "merge_s", "oz_s", "time_ratio", "process_s", "verify", "smoke",
          "error", "command"]


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def rel(p) -> str:
    s = str(p)
    return s.replace(str(REPO) + "/", "")


def qcmd(cmd) -> str:
    cmd = ["python3" if str(c) == sys.executable else c for c in cmd]
    return " ".join(shlex.quote(rel(c)) for c in cmd)


class StepError(Exception):
    def __init__(self, msg: str, command: str = ""):
        super().__init__(msg)
        self.command = command


def run(cmd, logfile: Path | None = None, timeout: int | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """Run a command, return (process, wall seconds); raise StepError on failure."""
    timeout = timeout or CMD_TIMEOUT
    cmd = [str(c) for c in cmd]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StepError(f"timeout after {timeout} s", qcmd(cmd))
    except OSError as e:
        raise StepError(f"cannot run {cmd[0]}: {e}", qcmd(cmd))
    dt = time.perf_counter() - t0
    if logfile:
        logfile.parent.mkdir(parents=True, exist_ok=True)
        logfile.write_bytes(b"$ " + qcmd(cmd).encode() + b"\n" + p.stdout[-200000:] + p.stderr[-200000:])
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        tail = " | ".join(l.strip() for l in err[-3:])[-300:]
        sig = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        raise StepError(f"{Path(cmd[0]).name} failed ({sig}): {tail}", qcmd(cmd))
    return p, dt


# Timed steps (opt default<Oz>, mergefunc, GlobalMergeFunc, each fmerge mode) run this many
# times and keep their fastest run, both sides of every ratio alike: on a shared machine one
# run of the same work moves by up to 30%, and the minimum is the least disturbed measurement.
TIMING_RUNS = max(1, int(os.environ.get("FMERGE_BENCH_TIMING_RUNS", "3")))


def stage_seconds(report: Path) -> float:
    """fmerge's merging time: the sum of the stage times of its `--timings` report."""
    return sum(float(s.get("seconds") or 0) for s in json.loads(report.read_text()).get("stages", []))


def run_timed(cmd, logfile: Path | None = None, seconds=None) -> tuple[subprocess.CompletedProcess, float, float | None]:
    """Run `cmd` TIMING_RUNS times (same output each time); return the last process, the
    fastest wall time, and the fastest of `seconds(process)` (a time the command reports
    itself, or None)."""
    best_dt, best_s, p = None, None, None
    for _ in range(TIMING_RUNS):
        p, dt = run(cmd, logfile)
        best_dt = dt if best_dt is None else min(best_dt, dt)
        t = seconds(p) if seconds else None
        if t is not None:
            best_s = t if best_s is None else min(best_s, t)
    return p, best_dt, best_s


def text_of(objfile: Path) -> int:
    p, _ = run([LLVM_SIZE, "-A", objfile])
    return sum(int(m.group(1)) for m in re.finditer(r"^\.text\S*\s+(\d+)", p.stdout.decode(), re.M))


def pass_time(report: str, name: str) -> float | None:
    """Wall seconds of pass NAME in a -time-passes report (sum over its lines)."""
    total, found = 0.0, False
    for line in report.splitlines():
        line = line.rstrip()
        if line.endswith("  " + name):
            nums = re.findall(r"([\d.]+) \(\s*[\d.]+%\)", line)
            if nums:
                total += float(nums[-1])
                found = True
    return total if found else None


def fmt_s(x) -> str:
    return "" if x is None or x == "" else f"{float(x):.4f}"


# ---------------------------------------------------------------------------
# one program on one target


class Bench:
    def __init__(self, program: str, target: str, configs: list[str], smoke: bool, corpus_out: Path):
        self.p, self.t = program, target
        self.corpus_out = corpus_out
        self.on_progress = None  # called with the rows so far after every configuration
        self.configs = configs
        self.do_smoke = smoke
        self.dir = WORK / target / program
        self.rows: dict[str, dict] = {}
        self.modules: dict[str, Path] = {}  # config -> module
        self.merge_s: dict[str, float] = {}
        self.verify: dict[str, str] = {}
        self.triple = ""
        self.oz_s: float | None = None

    def corpus(self, *args) -> list[str]:
        return [sys.executable, CORPUS_PY, "--target", self.t, "--out", self.corpus_out, *args]

    def row(self, config: str, **kw) -> dict:
        c = CONFIG[config]
        r = {f: "" for f in FIELDS}
        r.update(target=self.t, program=self.p, config=config, kind=c.kind)
        r.update(kw)
        self.rows[config] = r
        return r

    def fail_all(self, msg: str, command: str = "") -> None:
        for c in self.configs:
            self.row(c, status="error", error=msg, command=command, verify="n/a", smoke="n/a")

    # -- steps --

    def smoke(self, args: list[str], name: str) -> str:
        if not self.do_smoke:
            return "skipped"
        cmd = self.corpus("smoke", self.p, *args)
        try:
            p, dt = run(cmd, self.dir / f"{name}.smoke.log")
            out = p.stderr.decode(errors="replace")
        except StepError as e:
            log_text = (self.dir / f"{name}.smoke.log").read_text(errors="replace")
            m = re.findall(r"^\S+: (\d+) passed, (\d+) failed$", log_text, re.M)
            if m:
                ok, bad = map(int, m[-1])
                return f"FAIL ({bad} of {ok + bad} cases differ; {qcmd(cmd)})"
            return f"FAIL ({e}; {qcmd(cmd)})"
        m = re.findall(r"^\S+: (\d+) passed, (\d+) failed$", out, re.M)
        return f"pass ({m[-1][0]}/{m[-1][0]})" if m else "pass"

    def verify_module(self, m: Path, name: str) -> str:
        try:
            run([OPT, "-passes=verify", "-disable-output", m], self.dir / f"{name}.verify.log")
            return "ok"
        except StepError as e:
            return f"FAIL ({e})"

    def size_module(self, m: Path) -> int:
        cmd = [FMERGE, "size", m, "--json", "--top", "1"]
        if self.triple:
            cmd += ["--target", self.triple]
        p, _ = run(cmd)
        j = json.loads(p.stdout)
        if not self.triple:
            self.triple = j["target"]
        return int(j["text_bytes"])

    def run_all(self) -> list[dict]:
        src = self.corpus_out / self.p / f"{self.p}.bc"
        if not (src.exists() and (src.parent / "stats.json").exists()):
            how = f"python3 bench/corpus/corpus.py --target {self.t} build {self.p}"
            self.fail_all(f"corpus module {rel(src)} missing (not built: `{how}`)")
            return self.ordered()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        oz = self.dir / "baseline.bc"
        cmd = [OPT, "-passes=default<Oz>", src, "-o", oz]
        try:
            _, self.oz_s, _ = run_timed(cmd, self.dir / "oz.log")
        except StepError as e:
            self.fail_all(f"opt default<Oz> failed: {e}", e.command)
            return self.ordered()
        self.modules["baseline"] = oz
        oz_cmd = qcmd(cmd)
        for c in self.configs:
            cfg = CONFIG[c]
            log(f"{self.t} {self.p} {c}")
            try:
                if cfg.rust_only and self.p not in RUST:
                    self.row(c, status="n/a", verify="n/a", smoke="n/a",
                             error="C/C++ module is not internalized: --whole-program would delete its unused "
                                   "external functions, which the baseline keeps")
                    continue
                if cfg.kind == "module":
                    self.do_module(cfg, oz_cmd)
                elif cfg.kind == "llc":
                    self.do_llc(cfg)
                else:
                    self.do_linked(cfg)
            except StepError as e:
                r = self.rows.get(c) or self.row(c)
                r.update(status="error", error=str(e), command=r.get("command") or e.command)
                r["verify"] = r["verify"] or "n/a"
                r["smoke"] = r["smoke"] or "n/a"
            if self.on_progress:
                self.finish()
                self.on_progress(self.ordered())
        self.finish()
        return self.ordered()

    def do_module(self, cfg: Config, oz_cmd: str) -> None:
        c = cfg.name
        oz = self.modules["baseline"]
        out = self.dir / f"{c}.bc"
        r = self.row(c)
        if c == "baseline":
            out = oz
            r.update(command=oz_cmd, process_s=fmt_s(self.oz_s))
        elif c in ("mergefunc", "gmf"):
            pname = {"mergefunc": "mergefunc", "gmf": "global-merge-func"}[c]
            cmd = [OPT, f"-passes={pname}", "-time-passes", oz, "-o", out]
            r["command"] = qcmd(cmd)
            pass_name = {"mergefunc": "MergeFunctionsPass", "gmf": "GlobalMergeFuncPass"}[c]
            p, dt, t = run_timed(cmd, self.dir / f"{c}.log",
                                 lambda p: pass_time(p.stderr.decode(errors="replace"), pass_name))
            r["process_s"] = fmt_s(dt)
            self.merge_s[c] = t if t is not None else dt
        else:
            rep = self.dir / f"{c}.report.json"
            cmd = [FMERGE, "opt", oz, "-o", out, "--no-measure", "--timings", "--report", rep, "-q",
                   *FMERGE_MODES[c]]
            r["command"] = qcmd(cmd)
            _, dt, self.merge_s[c] = run_timed(cmd, self.dir / f"{c}.log", lambda _p: stage_seconds(rep))
            r["process_s"] = fmt_s(dt)
        self.modules[c] = out
        r["verify"] = self.verify[c] = self.verify_module(out, c)
        r["text_bytes"] = self.size_module(out)
        if c == "baseline":
            # the ruler: `fmerge size` must equal llc-22 -filetype=obj + llvm-size-22
            obj = self.dir / "baseline.o"
            run([LLC, f"-mtriple={self.triple}", "-filetype=obj", oz, "-o", obj])
            llc_text = text_of(obj)
            if llc_text != r["text_bytes"]:
                r["error"] = f"ruler mismatch: fmerge size {r['text_bytes']} != llc-22 {llc_text}"
        if c in self.merge_s:
            r["merge_s"] = fmt_s(self.merge_s[c])
        r["status"] = "ok"
        r["smoke"] = self.smoke(["--bc", out], c)

    def base_module(self, cfg: Config) -> Path:
        if cfg.base not in self.modules:
            raise StepError(f"needs the {cfg.base} module, which failed or was not run")
        return self.modules[cfg.base]

    def do_llc(self, cfg: Config) -> None:
        c = cfg.name
        r = self.row(c)
        m = self.base_module(cfg)
        obj = self.dir / f"{c}.o"
        cmd = [LLC, f"-mtriple={self.triple}", "-filetype=obj", *cfg.llc_flags, "-time-passes", m, "-o", obj]
        r["command"] = qcmd(cmd)
        p, dt = run(cmd, self.dir / f"{c}.log")
        r["process_s"] = fmt_s(dt)
        t = pass_time(p.stderr.decode(errors="replace"), "Machine Outliner")
        if t is None:
            raise StepError("llc -time-passes reported no 'Machine Outliner' pass", r["command"])
        r["merge_s"] = fmt_s(t + self.merge_s.get(cfg.base, 0.0))
        r["text_bytes"] = text_of(obj)
        r["verify"] = self.verify.get(cfg.base, "n/a")
        r["status"] = "ok"
        r["smoke"] = self.smoke(["--bc", m, *[f"--llc-flag={f}" for f in cfg.llc_flags]], c)

    def do_linked(self, cfg: Config) -> None:
        c = cfg.name
        r = self.row(c)
        m = self.base_module(cfg)
        exe = self.dir / f"{c}.exe"
        trace = self.dir / f"{c}.time-trace.json"
        lld = shutil.which(LLD) or LLD
        link_flags = [f"--ld-path={lld}", f"-Wl,--icf={'all' if cfg.icf else 'none'}", f"-Wl,--time-trace={trace}"]
        cmd = self.corpus("link", self.p, m, "-o", exe, *[f"--llc-flag={f}" for f in LINK_LLC_FLAGS],
                          *[f"--link-flag={f}" for f in link_flags])
        r["command"] = qcmd(cmd)
        _, dt = run(cmd, self.dir / f"{c}.log")
        r["process_s"] = fmt_s(dt)
        if cfg.icf:
            ev = json.loads(trace.read_text()).get("traceEvents", [])
            icf_us = sum(e.get("dur", 0) for e in ev if e.get("name") == "Total ICF")
            r["merge_s"] = fmt_s(icf_us / 1e6 + self.merge_s.get(cfg.base, 0.0))
        r["text_bytes"] = text_of(exe)
        r["verify"] = self.verify.get(cfg.base, "n/a")
        r["status"] = "ok"
        r["smoke"] = self.smoke(["--exe", exe], c)

    def finish(self) -> None:
        refs = {"module": "baseline", "llc": "baseline", "linked": "lld"}
        for c, r in self.rows.items():
            r["oz_s"] = fmt_s(self.oz_s)
            if r["merge_s"] and self.oz_s:
                r["time_ratio"] = f"{float(r['merge_s']) / self.oz_s:.4f}"
            ref = refs[r["kind"]]
            r["reference"] = ref
            rr = self.rows.get(ref)
            if rr and rr["text_bytes"] != "" and r["text_bytes"] != "":
                r["reference_bytes"] = rr["text_bytes"]
                d = int(r["text_bytes"]) - int(rr["text_bytes"])
                r["delta_bytes"] = d
                r["delta_pct"] = f"{100.0 * d / int(rr['text_bytes']):.3f}"

    def ordered(self) -> list[dict]:
        return [self.rows[c] for c in self.configs if c in self.rows]


# ---------------------------------------------------------------------------
# environment


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              cwd=REPO).stdout.strip()
    except OSError:
        return ""


def environment() -> dict:
    cpu = ""
    try:
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    except OSError:
        pass
    mem = ""
    try:
        kb = int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")))
        mem = f"{kb / 1048576:.0f} GiB"
    except (OSError, StopIteration):
        pass
    osname = ""
    try:
        osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release")
                       if l.startswith("PRETTY_NAME=")), "")
    except OSError:
        pass
    dirty = sh(["git", "status", "--porcelain", "--", "crates", "Cargo.toml", "Cargo.lock"])
    return {
        "commit": sh(["git", "rev-parse", "--short=12", "HEAD"]),
        "fmerge_sources_dirty": bool(dirty),
        "fmerge_dirty_files": dirty.splitlines(),
        "fmerge_version": sh([FMERGE, "--version"]),
        "llvm": next((l.strip() for l in sh([OPT, "--version"]).splitlines() if "LLVM version" in l), ""),
        "rustc": (sh(["rustc", "-vV"]).splitlines() or [""])[0],
        "qemu": (sh(["qemu-aarch64", "--version"]).splitlines() or [""])[0],
        "machine": f"{osname}, {os.cpu_count()} cores ({cpu}), {mem}, {platform.machine()}",
        "python": platform.python_version(),
    }


# ---------------------------------------------------------------------------
# outputs


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ok(r: dict) -> bool:
    return r["status"] == "ok" and r["text_bytes"] != ""


def correct(r: dict) -> bool:
    return r["verify"] in ("ok", "n/a") and (r["smoke"].startswith("pass") or r["smoke"] in ("skipped", "n/a"))


def cell_pct(r: dict | None) -> str:
    if r is None:
        return ""
    if r["status"] == "n/a":
        return "n/a"
    if not ok(r):
        return "**error**"
    s = f"{float(r['delta_pct']):+.2f}%" if r["delta_pct"] != "" else ""
    if r["config"] in ("baseline", "lld"):
        s = f"{int(r['text_bytes']):,}"
    if r["verify"].startswith("FAIL"):
        s += " **verifier FAIL**"
    if r["smoke"].startswith("FAIL"):
        s += " **smoke FAIL**"
    return s


def md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(rows: list[dict], meta: dict, outdir: Path, chart_prefix: str = "") -> str:
    targets = [t for t in TARGETS if any(r["target"] == t for r in rows)]
    configs = [c.name for c in CONFIGS if any(r["config"] == c.name for r in rows)]
    programs = [p for p in PROGRAMS if any(r["program"] == p for r in rows)]
    idx = {(r["target"], r["program"], r["config"]): r for r in rows}
    L = []
    quick = " (quick subset)" if meta.get("quick") else ""
    L.append(f"# fmerge benchmark results{quick}")
    L.append("")
    L.append(f"- Date: {meta.get('date', '')}; harness wall time {meta.get('wall_min', '?')} min.")
    dirty = " (working tree with uncommitted fmerge changes: " + ", ".join(
        f.strip() for f in meta.get("fmerge_dirty_files", [])) + ")" if meta.get("fmerge_sources_dirty") else ""
    L.append(f"- fmerge commit: `{meta.get('commit', '')}`{dirty}; `{meta.get('fmerge_version', '')}`, "
             "`target/release/fmerge` built by `cargo build --release -p fmerge` just before the run.")
    L.append(f"- Machine: {meta.get('machine', '')}. Shared with another engineer's builds: times vary by "
             "tens of percent between runs; ratios within one row are measured back to back.")
    L.append(f"- Tools: {meta.get('llvm', '')} (`opt-22`, `llc-22`, `clang-22`, `ld.lld-22`, `llvm-size-22`); "
             f"{meta.get('rustc', '')}; {meta.get('qemu', '')} for the AArch64 smoke runs.")
    L.append(f"- Command: `{meta.get('command', '')}`. Raw data: `results.csv` (one row per target × program × "
             "configuration, with the exact command of each row).")
    L.append("")
    L.append("## How to read this")
    L.append("")
    L.append(
        "Every program's whole-program module is first optimised with `opt-22 -passes='default<Oz>'`; that "
        "module is the **baseline** of every configuration. **Object rows** (`baseline`, `mergefunc`, `gmf`, "
        "`fmerge*`, `outliner`, `fmerge+outliner`) give the `.text*` bytes of `llc-22 -filetype=obj` for the "
        "module (`fmerge size`; the outliner rows add `-enable-machine-outliner`), and their change is against "
        "`baseline`. **Linked rows** (`lld`, `icf`, `gmf+icf`, `fmerge+icf`) give the `.text` bytes of the "
        "executable linked by `ld.lld-22` from `llc-22 -O2 -relocation-model=pic -function-sections` objects "
        "(the corpus link recipe, crt files and libc stubs included), and their change is against `lld`, the "
        "baseline linked the same way without ICF. Negative is smaller. "
        "**merge s** is the merging step alone: fmerge's stage times (`stages[].seconds` of its report), the "
        "`MergeFunctionsPass`/`GlobalMergeFuncPass` line of `opt-22 -time-passes`, the `Machine Outliner` line "
        "of `llc-22 -time-passes`, lld's `ICF` phase (`--time-trace`); combinations add their parts. "
        "**ratio** is merge s / the wall time of `opt-22 -passes='default<Oz>'` on the same module in the same "
        "run (lower is cheaper). `opt default<Oz>`, `mergefunc`, `gmf` and the fmerge modes run "
        f"{meta.get('timing_runs', 1)} time(s) each and keep their fastest run (both sides of the ratio alike; "
        "`FMERGE_BENCH_TIMING_RUNS`). **process s** is the wall time of the whole tool process (parsing, writing, "
        "code generation for the llc/linked rows). **verify** is `opt-22 -passes=verify` on the produced "
        "module (llc/linked rows inherit their module's). **smoke** is the program's smoke workload "
        "(`bench/corpus`, outputs compared byte for byte with the reference build; AArch64 under qemu-user). "
        "A failed configuration is a row with its error, never a missing row.")
    L.append("")
    for t in targets:
        lab = TARGET_LABEL[t]
        L.append(f"## {lab}: `.text` change")
        L.append("")
        L.append(f"![.text reduction, {lab}]({chart_prefix}chart-{t}.svg)")
        L.append("")
        L.append("`baseline` and `lld` columns are bytes; the others are the change against `baseline` "
                 "(object columns) or `lld` (linked columns, right of `lld`).")
        L.append("")
        L.append("| program | " + " | ".join(f"`{c}`" for c in configs) + " |")
        L.append("|---|" + "---:|" * len(configs))
        for p in programs:
            L.append(f"| {p} | " + " | ".join(cell_pct(idx.get((t, p, c))) for c in configs) + " |")
        L.append("")
        L.append(f"## {lab}: merging time / `opt default<Oz>` time")
        L.append("")
        tc = [c for c in configs if c not in ("baseline", "lld")]
        L.append("| program | Oz s | " + " | ".join(f"`{c}`" for c in tc) + " |")
        L.append("|---|---:|" + "---:|" * len(tc))
        for p in programs:
            base = idx.get((t, p, "baseline"))
            cells = []
            for c in tc:
                r = idx.get((t, p, c))
                cells.append(f"{float(r['time_ratio']):.3f}" if r and r["time_ratio"] else
                             ("n/a" if r and r["status"] == "n/a" else ("**error**" if r and r["status"] == "error" else "")))
            L.append(f"| {p} | {float(base['oz_s']):.2f} | " if base and base["oz_s"] else f"| {p} | | ")
            L[-1] += " | ".join(cells) + " |"
        L.append("")
        L.append(f"## {lab}: details")
        L.append("")
        L.append("| program | config | .text bytes | Δ bytes | Δ % | merge s | ratio | process s | verify | smoke |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
        for p in programs:
            for c in configs:
                r = idx.get((t, p, c))
                if not r:
                    continue
                if r["status"] != "ok":
                    msg = "n/a" if r["status"] == "n/a" else "**error**"
                    L.append(f"| {p} | `{c}` | {msg} | | | | | | {r['verify']} | "
                             f"{'n/a: ' if r['status'] == 'n/a' else ''}{md_escape(r['error'])[:300]} |")
                    continue
                pct = f"{float(r['delta_pct']):+.3f}" if r["delta_pct"] != "" else ""
                smoke = r["smoke"] if not r["smoke"].startswith("FAIL") else "**" + r["smoke"].split(";")[0] + ")**"
                ver = r["verify"] if r["verify"] in ("ok", "n/a") else "**" + md_escape(r["verify"])[:120] + "**"
                db = f"{int(r['delta_bytes']):+,}" if r["delta_bytes"] != "" else ""
                L.append(f"| {p} | `{c}` | {int(r['text_bytes']):,} | {db} | {pct} | "
                         f"{float(r['merge_s']):.3f} | " if r["merge_s"] else
                         f"| {p} | `{c}` | {int(r['text_bytes']):,} | {db} | {pct} | | ")
                L[-1] += (f"{float(r['time_ratio']):.3f} | " if r["time_ratio"] else " | ")
                L[-1] += f"{float(r['process_s']):.2f} | {ver} | {md_escape(smoke)} |" if r["process_s"] else \
                    f" | {ver} | {md_escape(smoke)} |"
        L.append("")
    bad = [r for r in rows if r["status"] == "error" or not correct(r) or
           (r["config"] == "baseline" and r["error"])]
    L.append("## Failures")
    L.append("")
    if not bad:
        L.append("None: every configuration ran, verified and passed its smoke workload.")
    for r in bad:
        what = r["error"] if r["status"] == "error" else "; ".join(
            x for x in (r["verify"] if r["verify"].startswith("FAIL") else "",
                        r["smoke"] if r["smoke"].startswith("FAIL") else "", r["error"]) if x)
        L.append(f"- {TARGET_LABEL[r['target']]} {r['program']} `{r['config']}`: {md_escape(what)}  ")
        L.append(f"  reproduce: `{r['command']}`" if r["command"] else "")
    L.append("")
    L.append("## Configurations and exact commands")
    L.append("")
    L.append("`IN` = `build/corpus/<p>/<p>.bc` (x86-64) or `build/corpus-aarch64/<p>/<p>.bc` (AArch64), built by "
             "`bench/corpus/corpus.py [--target aarch64] build <p>`; `W` = `build/bench/<target>/<p>`; "
             "`T` = the module's target triple.")
    L.append("")
    L.append("| config | what | command |")
    L.append("|---|---|---|")
    cmds = {
        "baseline": "`opt-22 -passes='default<Oz>' IN -o W/baseline.bc` (timed: the ratio's denominator)",
        "mergefunc": "`opt-22 -passes=mergefunc -time-passes W/baseline.bc -o W/mergefunc.bc`",
        "gmf": "`opt-22 -passes=global-merge-func -time-passes W/baseline.bc -o W/gmf.bc`",
        "fmerge-id": "`fmerge opt W/baseline.bc -o W/fmerge-id.bc --no-measure --timings --report R.json -q --merge identical`",
        "fmerge-idc": "`fmerge opt W/baseline.bc -o W/fmerge-idc.bc --no-measure --timings --report R.json -q --merge identical,constants`",
        "fmerge": "`fmerge opt W/baseline.bc -o W/fmerge.bc --no-measure --timings --report R.json -q`",
        "fmerge-wp": "`fmerge opt W/baseline.bc -o W/fmerge-wp.bc --no-measure --timings --report R.json -q --whole-program`",
        "outliner": "`llc-22 -mtriple=T -filetype=obj -enable-machine-outliner -time-passes W/baseline.bc -o W/outliner.o`",
        "fmerge+outliner": "`llc-22 -mtriple=T -filetype=obj -enable-machine-outliner -time-passes W/fmerge.bc -o W/fmerge+outliner.o`",
        "lld": "`corpus.py --target <t> link <p> W/baseline.bc -o W/lld.exe --llc-flag=-function-sections --link-flag=--ld-path=/usr/bin/ld.lld-22 --link-flag=-Wl,--icf=none`",
        "icf": "the same as `lld` with `-Wl,--icf=all`",
        "gmf+icf": "the same as `icf` on `W/gmf.bc`",
        "fmerge+icf": "the same as `icf` on `W/fmerge.bc`",
    }
    for c in configs:
        L.append(f"| `{c}` | {md_escape(CONFIG[c].desc)} | {md_escape(cmds[c])} |")
    L.append("")
    L.append("Sizes of object rows: `fmerge size M.bc --json --target T` (checked against `llc-22 -mtriple=T "
             "-filetype=obj` + `llvm-size-22 -A` on every baseline); outliner rows: `llvm-size-22 -A` of the "
             "object, sum of `.text*`; linked rows: `llvm-size-22 -A` of the executable, `.text`. Verifier: "
             "`opt-22 -passes=verify -disable-output M.bc`. Smoke: `corpus.py --target <t> smoke <p> --bc M.bc` "
             "(outliner rows add `--llc-flag=-enable-machine-outliner`; linked rows: `--exe W/<config>.exe`).")
    L.append("")
    return "\n".join(L)


# one colour per configuration: LLVM's mergers blue/orange, fmerge greens, outliner purples, ICF rows
# grey/red/brown
COLOURS = {"mergefunc": "#4e79a7", "gmf": "#f28e2b", "fmerge-id": "#a6d96a", "fmerge-idc": "#66bd63",
           "fmerge": "#1a9850", "fmerge-wp": "#006837", "outliner": "#c2a5cf", "fmerge+outliner": "#762a83",
           "icf": "#9e9e9e", "gmf+icf": "#e15759", "fmerge+icf": "#8c564b"}


def esc(s: str) -> str:
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_svg(rows: list[dict], target: str) -> str:
    rows = [r for r in rows if r["target"] == target]
    configs = [c.name for c in CONFIGS if c.name not in ("baseline", "lld") and any(r["config"] == c.name for r in rows)]
    programs = [p for p in PROGRAMS if any(r["program"] == p for r in rows)]
    idx = {(r["program"], r["config"]): r for r in rows}
    vals = {}
    for k, r in idx.items():
        if ok(r) and r["delta_pct"] != "" and k[1] in configs:
            vals[k] = -float(r["delta_pct"])  # reduction: positive = smaller
    hi = max([0.5, *vals.values()])
    lo = min([0.0, *vals.values()])
    step = next(s for s in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50) if (hi - lo) / s <= 10)
    hi = step * -(-hi // step)
    lo = step * (lo // step)
    bw, gap = 9, 16
    gw = bw * len(configs) + gap
    left, top, ph = 64, 70, 300
    legend_rows = -(-len(configs) // 5)
    width = max(left + gw * max(1, len(programs)) + 20, 980)
    height = top + ph + 40 + 20 * legend_rows + 16

    def y(v: float) -> float:
        return top + ph * (hi - v) / (hi - lo)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
         f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="{left}" y="20" font-size="14" font-weight="bold">{esc(TARGET_LABEL[target])}: .text reduction '
         f'per program and configuration (%, higher is smaller code)</text>',
         f'<text x="{left}" y="36" fill="#555">object-file configurations against the default&lt;Oz&gt; baseline; '
         f'icf configurations: linked executables against the baseline linked by ld.lld without ICF</text>',
         f'<text x="{left}" y="50" fill="#555">× = error, verifier or smoke failure (see RESULTS.md); '
         f'no bar and no × = not applicable</text>']
    v = lo
    while v <= hi + 1e-9:
        yy = y(v)
        o.append(f'<line x1="{left}" x2="{width - 20}" y1="{yy:.1f}" y2="{yy:.1f}" '
                 f'stroke="{"#333" if abs(v) < 1e-9 else "#ddd"}" stroke-width="1"/>')
        o.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}%</text>')
        v += step
    for i, p in enumerate(programs):
        x0 = left + i * gw + gap / 2
        for j, c in enumerate(configs):
            x = x0 + j * bw
            r = idx.get((p, c))
            if (p, c) in vals:
                val = vals[(p, c)]
                y1, y2 = sorted((y(0), y(val)))
                o.append(f'<rect x="{x:.1f}" y="{y1:.1f}" width="{bw - 1}" height="{max(y2 - y1, 0.5):.1f}" '
                         f'fill="{COLOURS.get(c, "#333")}"><title>{esc(p)} {esc(c)}: {-val:+.3f}% '
                         f'({esc(r["text_bytes"])} bytes)</title></rect>')
                if not correct(r):
                    o.append(f'<text x="{x + bw / 2 - 0.5:.1f}" y="{min(y1, y(0)) - 3:.1f}" text-anchor="middle" '
                             f'fill="#c00" font-weight="bold">×</text>')
            elif r is not None and r["status"] == "error":
                o.append(f'<text x="{x + bw / 2 - 0.5:.1f}" y="{y(0) - 3:.1f}" text-anchor="middle" fill="#c00" '
                         f'font-weight="bold"><title>{esc(p)} {esc(c)}: {esc(r["error"][:200])}</title>×</text>')
        o.append(f'<text x="{x0 + (gw - gap) / 2:.1f}" y="{top + ph + 16}" text-anchor="middle">{esc(p)}</text>')
    ly = top + ph + 36
    for j, c in enumerate(configs):
        lx = left + (j % 5) * 150
        yy = ly + (j // 5) * 20
        o.append(f'<rect x="{lx}" y="{yy - 9}" width="10" height="10" fill="{COLOURS.get(c, "#333")}"/>')
        o.append(f'<text x="{lx + 14}" y="{yy}">{esc(c)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def complete(rows: list[dict], meta: dict) -> list[dict]:
    """Rows for every planned target x program x configuration: a run stopped before the end
    leaves rows that say so instead of missing rows."""
    have = {(r["target"], r["program"], r["config"]) for r in rows}
    out = list(rows)
    for t in meta.get("targets", []):
        for p in meta.get("programs", []):
            for c in meta.get("configs", []):
                if (t, p, c) not in have:
                    r = {f: "" for f in FIELDS}
                    r.update(target=t, program=p, config=c, kind=CONFIG[c].kind, status="error", verify="n/a",
                             smoke="n/a", error=meta.get("stopped_reason") or "not run (the run did not reach it)")
                    out.append(r)
    return out


def load(outdir: Path, meta: dict | None = None) -> tuple[list[dict], dict]:
    meta = meta or json.loads((outdir / "meta.json").read_text())
    return complete(read_csv(outdir / "results.csv"), meta), meta


def render(outdir: Path, meta: dict | None = None, chart_prefix: str = "") -> None:
    rows, meta = load(outdir, meta)
    for t in TARGETS:
        if any(r["target"] == t for r in rows):
            (outdir / f"chart-{t}.svg").write_text(render_svg(rows, t))
    (outdir / "results.md").write_text(render_md(rows, meta, outdir, chart_prefix))


def publish(outdir: Path) -> None:
    rows, meta = load(outdir)
    md = render_md(rows, meta, outdir)
    notes = outdir / "notes.md"
    if notes.exists():  # observations written by a person about this run, published with it
        md = md.replace("\n## How to read this\n", "\n" + notes.read_text().strip() + "\n\n## How to read this\n", 1)
    note = (f"<!-- generated by `python3 bench/harness.py publish {rel(outdir)}` from {rel(outdir)}/results.csv; "
            f"refresh with `make bench` whenever a change moves the numbers -->\n")
    (HERE / "RESULTS.md").write_text(note + md)
    for t in TARGETS:
        f = outdir / f"chart-{t}.svg"
        if f.exists():
            shutil.copy2(f, HERE / f"chart-{t}.svg")
    log(f"published {rel(outdir)} to bench/RESULTS.md")


# ---------------------------------------------------------------------------


def cmd_time(args) -> int:
    """Interleaved timing: for each target x program, `opt-22 default<Oz>` on the corpus module
    and `fmerge opt` on its Oz module, one after the other, `--runs` times; the ratio of the
    fastest runs. Both sides of each ratio are measured seconds apart, so a slow period of a
    shared machine slows both (in `run`, minutes of code generation and smoke runs separate
    them). Needs the Oz modules of an earlier `run` (build/bench/T/P/baseline.bc)."""
    programs = args.programs or PROGRAMS
    targets = args.targets or TARGETS
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = WORK / "timing"
    tmp.mkdir(parents=True, exist_ok=True)
    # the binary of the last `run` (its snapshot), so both describe the same fmerge
    fmerge = str(WORK / "fmerge") if (WORK / "fmerge").exists() else FMERGE
    rows = []
    for t in targets:
        for prog in programs:
            src = CORPUS_OUT[t] / prog / f"{prog}.bc"
            oz = WORK / t / prog / "baseline.bc"
            if not (src.exists() and oz.exists()):
                log(f"{t} {prog}: no corpus or Oz module (run the benchmark first); skipped")
                continue
            rep = tmp / "report.json"
            oz_s, stage_s, proc_s = [], [], []
            for _ in range(args.runs):
                _, dt = run([OPT, "-passes=default<Oz>", src, "-o", tmp / "oz.bc"])
                oz_s.append(dt)
                _, dt = run([fmerge, "opt", oz, "-o", tmp / "out.bc", "--no-measure", "--timings",
                             "--report", rep, "-q"])
                proc_s.append(dt)
                stage_s.append(stage_seconds(rep))
            ratios = sorted(m / o for m, o in zip(stage_s, oz_s))
            rows.append({"target": t, "program": prog, "runs": args.runs,
                         "oz_s_min": fmt_s(min(oz_s)), "merge_s_min": fmt_s(min(stage_s)),
                         "ratio_of_minima": f"{min(stage_s) / min(oz_s):.4f}",
                         "ratio_median": f"{ratios[len(ratios) // 2]:.4f}",
                         "ratio_max": f"{ratios[-1]:.4f}",
                         "process_s_min": fmt_s(min(proc_s)),
                         "process_ratio": f"{min(proc_s) / min(oz_s):.4f}"})
            log(f"{t} {prog}: ratio {rows[-1]['ratio_of_minima']} (median {rows[-1]['ratio_median']})")
    with open(out / "timing.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["target"])
        w.writeheader()
        w.writerows(rows)
    L = ["| target | program | Oz s (min) | fmerge merge s (min) | ratio of minima | median ratio | "
         "worst ratio | fmerge process s (min) | process / Oz |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        L.append(f"| {r['target']} | {r['program']} | {float(r['oz_s_min']):.2f} | {float(r['merge_s_min']):.2f} | "
                 f"{float(r['ratio_of_minima']):.3f} | {float(r['ratio_median']):.3f} | {float(r['ratio_max']):.3f} | "
                 f"{float(r['process_s_min']):.2f} | {float(r['process_ratio']):.3f} |")
    (out / "timing.md").write_text("\n".join(L) + "\n")
    log(f"wrote {rel(out)}/timing.csv and timing.md")
    return 0


def cmd_run(args) -> int:
    global CMD_TIMEOUT
    CMD_TIMEOUT = args.timeout
    programs = args.programs or (QUICK if args.quick else PROGRAMS)
    targets = args.targets or TARGETS
    configs = args.configs or [c.name for c in CONFIGS]
    for c in configs:
        if c not in CONFIG:
            raise SystemExit(f"unknown configuration {c!r}; known: {', '.join(CONFIG)}")
    # the llc/linked configurations need the modules they compile
    for c in list(configs):
        b = CONFIG[c].base
        if b and b not in configs:
            configs.insert(0, b)
    configs = [c.name for c in CONFIGS if c.name in configs]
    corpus_out = dict(CORPUS_OUT)
    for spec in args.corpus or []:
        t, _, d = spec.partition("=")
        if t not in TARGETS or not d:
            raise SystemExit(f"--corpus wants TARGET=DIR with TARGET one of {', '.join(TARGETS)}")
        corpus_out[t] = Path(d).resolve()
    date = datetime.date.today().isoformat()
    outdir = Path(args.out) if args.out else HERE / "results" / (date + ("-quick" if args.quick else ""))
    outdir.mkdir(parents=True, exist_ok=True)
    global FMERGE
    if not Path(FMERGE).exists():
        raise SystemExit(f"{FMERGE} not found: run `cargo build --release -p fmerge` (or `make build`) first")
    old_rows: list[dict] = []
    old_meta: dict = {}
    if args.append and (outdir / "results.csv").exists():
        done = {(t, p) for t in targets for p in programs}
        old_rows = [r for r in read_csv(outdir / "results.csv") if (r["target"], r["program"]) not in done]
        old_meta = json.loads((outdir / "meta.json").read_text())
    meta = environment()
    # one fmerge binary for the whole run, even if target/release/fmerge is rebuilt meanwhile
    WORK.mkdir(parents=True, exist_ok=True)
    snap = WORK / "fmerge"
    shutil.copy2(FMERGE, snap)
    meta["fmerge_binary"] = f"{rel(FMERGE)} (mtime {datetime.datetime.fromtimestamp(Path(FMERGE).stat().st_mtime).isoformat(timespec='seconds')}), copied to {rel(snap)} for the run"
    FMERGE = str(snap)
    meta.update(timing_runs=TIMING_RUNS, date=date, quick=args.quick, programs=programs, targets=targets, configs=configs,
                command="python3 bench/harness.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    meta["started"] = datetime.datetime.now().isoformat(timespec="seconds")
    meta["fmerge_sha256"] = hashlib.sha256(Path(FMERGE).read_bytes()).hexdigest()
    meta["commands"] = [meta["command"]]
    if old_meta:
        if old_meta.get("fmerge_sha256") != meta["fmerge_sha256"]:
            raise SystemExit("--append: the fmerge binary differs from the one of the existing results "
                             f"({old_meta.get('fmerge_sha256')}); set FMERGE_BIN to that binary or start afresh")
        for k in ("programs", "targets", "configs"):
            meta[k] = [x for x in old_meta.get(k, []) if x not in meta[k]] + meta[k]
        meta["commands"] = old_meta.get("commands", [old_meta.get("command", "")]) + meta["commands"]
        meta["command"] = " ; ".join(meta["commands"])
        meta["started"] = old_meta.get("started", meta["started"])
        meta["commit"] = old_meta.get("commit", meta["commit"])
        meta["wall_min_before"] = float(old_meta.get("wall_min") or 0)
    (outdir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    t0 = time.time()
    rows: list[dict] = list(old_rows)
    # C/C++ programs on every target first, the (much slower) Rust programs last
    jobs = sorted(((p in RUST, ti, pi) for ti, t in enumerate(targets) for pi, p in enumerate(programs)))
    for _, ti, pi in jobs:
        t, p = targets[ti], programs[pi]
        tp = time.time()
        log(f"=== {t} {p}")
        b = Bench(p, t, configs, not args.no_smoke, corpus_out[t])
        b.on_progress = lambda part, before=list(rows): write_csv(before + part, outdir / "results.csv")
        rows += b.run_all()
        log(f"=== {t} {p}: {time.time() - tp:.0f} s")
        write_csv(rows, outdir / "results.csv")
    meta["wall_min"] = f"{(time.time() - t0) / 60 + meta.get('wall_min_before', 0):.1f}"
    (outdir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    write_csv(rows, outdir / "results.csv")
    render(outdir, meta)
    log(f"wrote {rel(outdir)}/results.csv, results.md, chart-*.svg in {meta['wall_min']} min")
    if args.publish:
        publish(outdir)
    bad = [r for r in rows if r["status"] == "error" or not correct(r)]
    for r in bad:
        log(f"problem: {r['target']} {r['program']} {r['config']}: {r['error'] or r['verify'] or r['smoke']}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = ap.add_subparsers(dest="cmd", required=True)
    r = sp.add_parser("run", help="run the benchmark")
    r.add_argument("--quick", action="store_true", help=f"only {' '.join(QUICK)}; results go to results/<date>-quick")
    r.add_argument("--programs", nargs="+", choices=PROGRAMS)
    r.add_argument("--targets", nargs="+", choices=TARGETS)
    r.add_argument("--configs", nargs="+", help="configurations (default: all): " + " ".join(CONFIG))
    r.add_argument("--out", help="results directory (default: bench/results/<date>[-quick])")
    r.add_argument("--no-smoke", action="store_true")
    r.add_argument("--append", action="store_true",
                   help="keep the rows of other programs/targets already in the results directory "
                        "(the fmerge binary must be the same)")
    r.add_argument("--timeout", type=int, default=CMD_TIMEOUT,
                   help="seconds one command may take before its row records a timeout (default: %(default)s)")
    r.add_argument("--corpus", action="append", metavar="TARGET=DIR",
                   help="corpus output directory of a target (default: build/corpus, build/corpus-aarch64)")
    r.add_argument("--publish", action="store_true", help="also copy the results to bench/RESULTS.md and charts")
    tm = sp.add_parser("time", help="interleaved Oz / fmerge timing on the Oz modules of an earlier run")
    tm.add_argument("--programs", nargs="+", choices=PROGRAMS)
    tm.add_argument("--targets", nargs="+", choices=TARGETS)
    tm.add_argument("--runs", type=int, default=5)
    tm.add_argument("--out", required=True, help="directory for timing.csv and timing.md")
    g = sp.add_parser("render", help="rewrite results.md and the charts from results.csv")
    g.add_argument("dir")
    u = sp.add_parser("publish", help="copy a results directory to bench/RESULTS.md and bench/chart-*.svg")
    u.add_argument("dir")
    args = ap.parse_args(argv)
    if args.cmd == "run":
        return cmd_run(args)
    if args.cmd == "time":
        return cmd_time(args)
    if args.cmd == "render":
        render(Path(args.dir))
        return 0
    publish(Path(args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
