"""`fmbench sizes` (also `fmbench harness`): fmerge side by side with LLVM's mergers (make bench).

For every program of the corpus and every target (x86_64, aarch64) it optimises the
whole-program module with `opt-22 -passes='default<Oz>'` (timed: the denominator of every time
ratio) and runs, on that same Oz module, LLVM's MergeFunctions, LLVM's GlobalMergeFunc
(monolithic, and linked with ld.lld --icf=all), the machine outliner, each fmerge mode and
combinations (sizes_report.CONFIGS).  Every row records .text bytes, the change against its
reference, the time of the merging step alone and its ratio to the Oz time (timed steps run
FMERGE_BENCH_TIMING_RUNS times, default 3, and keep their fastest run), the verifier result
and the smoke-workload result.

  fmbench sizes time --out DIR [--runs N]   (Oz and fmerge timed alternately, see cmd_time)
  fmbench sizes run [--quick] [--programs P ...] [--targets T ...] [--configs C ...]
                    [--out DIR] [--no-smoke] [--publish]
  fmbench sizes render DIR      rewrite DIR/results.md and DIR/chart-*.svg from DIR/results.csv
  fmbench sizes publish DIR     copy DIR/results.md to bench/RESULTS.md and the charts to bench/

See bench/README.md.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import sys
import time
from pathlib import Path

from . import common, programs
from .common import BENCH, LLC, LLD, OPT, REPO, CommandError, log, qcmd, rel
from .modes import MODES
from .sizes_report import CONFIG, CONFIGS, FIELDS, LINK_LLC_FLAGS, PROGRAMS, TARGETS, Config, correct, publish, \
    read_csv, render, write_csv

FMERGE = common.fmerge_bin()
RUST = set(programs.RUST)
QUICK = ["lua", "bzip2"]
CORPUS_OUT = {t: common.corpus_out(t) for t in TARGETS}
WORK = REPO / "build" / "bench"
CMD_TIMEOUT = 1800  # seconds per command (a hang becomes an error row)


class StepError(Exception):
    """A step that failed for another reason than a command's exit status."""

    def __init__(self, msg: str, command: str = ""):
        super().__init__(msg)
        self.brief = msg
        self.command = command


def run(cmd, logfile: Path | None = None) -> tuple[common.Result, float]:
    """Run a command, return (result, wall seconds); raise CommandError on failure."""
    r = common.run(cmd, timeout=CMD_TIMEOUT, logfile=logfile)
    return r, r.seconds


# Timed steps (opt default<Oz>, mergefunc, GlobalMergeFunc, each fmerge mode) run this many
# times and keep their fastest run, both sides of every ratio alike: on a shared machine one
# run of the same work moves by up to 30%, and the minimum is the least disturbed measurement.
TIMING_RUNS = max(1, int(os.environ.get("FMERGE_BENCH_TIMING_RUNS", "3")))


def stage_seconds(report: Path) -> float:
    """fmerge's merging time: the sum of the stage times of its `--timings` report."""
    return sum(float(s.get("seconds") or 0) for s in json.loads(report.read_text()).get("stages", []))


def run_timed(cmd, logfile: Path | None = None, seconds=None) -> tuple[common.Result, float, float | None]:
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

    def corpus(self, *args) -> list:
        return [*common.FMBENCH, "corpus", "--target", self.t, "--out", self.corpus_out, *args]

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
        s = common.smoke(self.p, args, self.t, self.corpus_out, timeout=CMD_TIMEOUT,
                         logfile=self.dir / f"{name}.smoke.log")
        cmd = qcmd(s.result.cmd)
        if s.ok:
            return f"pass ({s.passed}/{s.passed})" if s.passed is not None else "pass"
        if s.passed is not None:
            return f"FAIL ({s.failed} of {s.passed + s.failed} cases differ; {cmd})"
        return f"FAIL ({CommandError(s.result).brief}; {cmd})"

    def verify_module(self, m: Path, name: str) -> str:
        try:
            run([OPT, "-passes=verify", "-disable-output", m], self.dir / f"{name}.verify.log")
            return "ok"
        except CommandError as e:
            return f"FAIL ({e.brief})"

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
            how = f"python3 bench/fmbench corpus --target {self.t} build {self.p}"
            self.fail_all(f"corpus module {rel(src)} missing (not built: `{how}`)")
            return self.ordered()
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        oz = self.dir / "baseline.bc"
        cmd = [OPT, "-passes=default<Oz>", src, "-o", oz]
        try:
            _, self.oz_s, _ = run_timed(cmd, self.dir / "oz.log")
        except CommandError as e:
            self.fail_all(f"opt default<Oz> failed: {e.brief}", e.command)
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
            except (StepError, CommandError) as e:
                r = self.rows.get(c) or self.row(c)
                r.update(status="error", error=e.brief, command=r.get("command") or e.command)
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
                                 lambda p: pass_time(p.stderr, pass_name))
            r["process_s"] = fmt_s(dt)
            self.merge_s[c] = t if t is not None else dt
        else:
            rep = self.dir / f"{c}.report.json"
            cmd = [FMERGE, "opt", oz, "-o", out, "--no-measure", "--timings", "--report", rep, "-q",
                   *MODES[cfg.mode].args]
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
            llc_text = common.text_bytes(obj)
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
        t = pass_time(p.stderr, "Machine Outliner")
        if t is None:
            raise StepError("llc -time-passes reported no 'Machine Outliner' pass", r["command"])
        r["merge_s"] = fmt_s(t + self.merge_s.get(cfg.base, 0.0))
        r["text_bytes"] = common.text_bytes(obj)
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
        r["text_bytes"] = common.text_bytes(exe)
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
    """A command's stdout, stripped; empty if it cannot run."""
    return common.run(cmd, cwd=REPO, check=False).stdout.strip()


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


def cmd_run(args, argv: list[str]) -> int:
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
    outdir = Path(args.out) if args.out else BENCH / "results" / (date + ("-quick" if args.quick else ""))
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
                command="python3 bench/fmbench sizes " + " ".join(shlex.quote(a) for a in argv))
    meta["started"] = datetime.datetime.now().isoformat(timespec="seconds")
    meta["fmerge_sha256"] = hashlib.sha256(Path(FMERGE).read_bytes()).hexdigest()
    meta["commands"] = [meta["command"]]
    if old_meta:
        if old_meta.get("fmerge_sha256") != meta["fmerge_sha256"]:
            raise SystemExit("--append: the fmerge binary differs from the one of the existing results "
                             f"({old_meta.get('fmerge_sha256')}); set FMERGE to that binary or start afresh")
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
    common.setup_log("bench")
    ap = common.parser("sizes", __doc__)
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
        return cmd_run(args, sys.argv[1:] if argv is None else argv)
    if args.cmd == "time":
        return cmd_time(args)
    if args.cmd == "render":
        render(Path(args.dir))
        return 0
    publish(Path(args.dir))
    return 0
