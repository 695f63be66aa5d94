"""`fmbench reliability`: differential execution of the corpus, built with and without fmerge.

For every corpus program (already built by `fmbench corpus build`) and every merge mode, this
runs `fmerge opt` on the whole-program module, checks the result with `opt-22 -passes=verify`,
links it with the corpus' reference recipe and runs the program's smoke workload (`fmbench
corpus smoke PROG --bc OUT.bc`), which compares stdout, stderr and the exit status of every
case byte for byte with the reference build.  With `--twice`, fmerge runs a second time and
its output and report must be byte-identical to the first run's (determinism).

Modes (`--modes`, default all that apply; modes.py):

  identical      --merge identical
  constants      --merge identical,constants
  default        (fmerge's default: identical, constants, similar; hybrid profit; the old
                 name `all` still works)
  exact          --profit exact
  whole-program  --whole-program (Rust programs only: fd, tokei, whose only external symbols
                 are `main` and `rust_eh_personality`)
  outline        --emit obj --outline: fmerge's own object file, merged then outlined by LLVM's
                 machine outliner (AArch64: with frame helpers, fmerge's default), linked with
                 the reference recipe's link step (`fmbench corpus smoke --obj`). The module was
                 verified inside fmerge before code generation; `fmbench outline verify` runs
                 LLVM's machine verifier over outlined code.
  instrument     not a merge: `fmerge instrument` (optimal counters, promoted), the smoke
                 workload with every run appending its record, then `fmerge profile merge`:
                 besides the same outputs, every function's counts must fit its control flow
                 (multi-threaded programs are instrumented with --atomic: non-atomic counters
                 lose updates there)
  instrument-signal  the same with --write-on-signal (handlers for the signals that end a
                 process; a case ended by a signal still writes its record)

Examples:

  fmbench reliability                          # x86-64, all programs and modes
  fmbench reliability lua sqlite --modes default,exact --twice
  fmbench reliability --target aarch64 --modes default   # AArch64 under qemu-user
  fmbench reliability --json build/reliability/x86_64.json
  fmbench reliability table build/reliability/x86_64.json   # a Markdown table

Exit status 0 when every run merged, verified and passed its smoke workload (and was
deterministic with --twice, memcheck-clean with --valgrind, and, with --measure, not larger
than its input in .text), 1 otherwise.  This is a soak, not part of `make test`: it needs the
corpus (about 20 minutes to build) and takes tens of minutes.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from . import common, programs
from .common import OPT, REPO
from .modes import MODES
from .modes import parse as parse_modes

# The modes this study runs, in order (modes.py has their arguments).
RUN_MODES = ["identical", "constants", "default", "exact", "whole-program", "outline", "instrument",
             "instrument-signal"]
# Programs running threads (xz compresses with several since 5.6): instrumented with
# --atomic, since non-atomic counters would lose updates.
THREADED = {"xz", "leveldb", "fd", "tokei"}


def run(cmd: list, timeout: float) -> tuple:
    """(exit status, stdout, stderr, seconds); a timeout is exit status -999."""
    r = common.run(cmd, timeout=timeout, check=False)
    return (-999 if r.returncode is None else r.returncode), r.stdout, r.stderr, r.seconds


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()[:16]


def one(args, prog: str, mode: str, corpus_dir: Path, work: Path) -> dict:
    src = corpus_dir / prog / f"{prog}.bc"
    obj = MODES[mode].emits_object
    out = work / f"{prog}.{mode}.{'o' if obj else 'bc'}"
    rep = work / f"{prog}.{mode}.json"
    res: dict = {"program": prog, "mode": mode, "target": args.target}
    if MODES[mode].command == "instrument":
        return instrumented(args, prog, mode, src, out, res)
    cmd = [args.fmerge, "opt", str(src), "-o", str(out), "--report", str(rep), "-q", *MODES[mode].args]
    cmd.append("--measure" if args.measure else "--no-measure")
    code, _, err, dt = run(cmd, args.timeout)
    res.update(fmerge_exit=code, fmerge_seconds=round(dt, 1))
    if code != 0:
        res.update(ok=False, problem=f"fmerge exit {code}: {err.strip()[-2000:]}")
        return res
    report = json.loads(rep.read_text())
    res.update(
        merges=len(report["merges"]),
        functions_merged=sum(len(m["members"]) for m in report["merges"]),
        functions_before=report["functions_before"],
        functions_after=report["functions_after"],
        skipped=len(report["skipped"]),
        rolled_back=sum(s.get("rolled_back", 0) for s in report["stages"]),
        text_before=report.get("text_bytes_before"),
        text_after=report.get("text_bytes_after"),
    )
    problems = []
    # Never larger: with --measure the report holds the real .text of input and output.
    tb, ta = res["text_before"], res["text_after"]
    if tb is not None and ta is not None and ta > tb:
        problems.append(f".text grew: {tb} -> {ta} bytes")
    if args.twice:
        out2, rep2 = work / f"{prog}.{mode}.2.bc", work / f"{prog}.{mode}.2.json"
        cmd2 = [out2 if x == str(out) else rep2 if x == str(rep) else x for x in cmd]
        code2, _, err2, _ = run([str(x) for x in cmd2], args.timeout)
        same = code2 == 0 and out.read_bytes() == out2.read_bytes() and rep.read_bytes() == rep2.read_bytes()
        res["deterministic"] = same
        if not same:
            problems.append(f"second run differs (exit {code2}; bc {sha(out)} vs "
                            f"{sha(out2) if out2.exists() else '-'}; report {sha(rep)} vs "
                            f"{sha(rep2) if rep2.exists() else '-'})")
        for p in (out2, rep2):
            p.unlink(missing_ok=True)
    if obj:
        # fmerge verified the module before generating code from it (an error there writes
        # nothing, and the exit status above says so).
        code, err = 0, ""
    else:
        code, _, err, _ = run([OPT, "-passes=verify", "-disable-output", str(out)], args.timeout)
    res["verifies"] = code == 0
    if code != 0:
        problems.append(f"verifier: {err.strip()[-2000:]}")
    else:
        which = ["--obj" if obj else "--bc", str(out)]
        code, err = smoke_run(args, prog, which, res)
        if code != 0:
            problems.append(f"smoke exit {code}: {err.strip()[-3000:]}")
        elif args.valgrind and (prog, sha(out)) in args.valgrind_seen:
            # Byte for byte a module another mode wrote (identical and constants often are).
            res["valgrind"] = args.valgrind_seen[(prog, sha(out))]
            if res["valgrind"] == "FAIL":
                problems.append("under valgrind: as the same module in an earlier mode")
        elif args.valgrind:
            s = common.smoke(prog, which, args.target, args.corpus_dir, timeout=args.timeout, valgrind=True)
            code, err, dt = s.result.returncode, s.result.stderr, s.result.seconds
            failed = s.failing_cases(prog)
            # Cases that fail under valgrind for the unmerged build too (a program that
            # behaves differently under the emulation, not a memory error of fmerge's).
            same = failed - args.valgrind_baseline.get(prog, set())
            res.update(valgrind="clean" if code == 0 else "FAIL" if same else "as unmerged",
                       valgrind_seconds=round(dt, 1))
            if failed:
                res["valgrind_failing_cases"] = sorted(failed)
            if code != 0 and (same or not failed):
                problems.append(f"under valgrind: {err.strip()[-3000:]}")
            args.valgrind_seen[(prog, sha(out))] = res["valgrind"]
    res["ok"] = not problems
    if problems:
        res["problem"] = "; ".join(problems)
    elif not args.keep:
        out.unlink(missing_ok=True)
    return res


def instrumented(args, prog: str, mode: str, src: Path, out: Path, res: dict) -> dict:
    """An instrument mode: instrument, verify, run the smoke workload (same outputs as the
    reference), merge the records and check that every function's counts fit."""
    cmd = [args.fmerge, "instrument", str(src), "-o", str(out), "-q", *MODES[mode].args]
    if prog in THREADED:
        cmd.append("--atomic")
    code, _, err, dt = run(cmd, args.timeout)
    res.update(fmerge_exit=code, fmerge_seconds=round(dt, 1))
    problems = []
    if code != 0:
        problems.append(f"fmerge instrument exit {code}: {err.strip()[-2000:]}")
    else:
        code, _, err, _ = run([OPT, "-passes=verify", "-disable-output", str(out)], args.timeout)
        res["verifies"] = code == 0
        if code != 0:
            problems.append(f"verifier: {err.strip()[-2000:]}")
    if not problems:
        raw, prof = out.with_suffix(".profraw"), out.with_suffix(".fprof")
        raw.unlink(missing_ok=True)
        code, err = smoke_run(args, prog, ["--bc", str(out)], res, env={"FMERGE_PROFILE_FILE": str(raw.resolve())})
        if code != 0:
            problems.append(f"smoke exit {code}: {err.strip()[-3000:]}")
        elif args.valgrind:
            # Under memcheck, its records going elsewhere (valgrind changes nothing they count).
            s = common.smoke(prog, ["--bc", str(out)], args.target, args.corpus_dir, timeout=args.timeout,
                             valgrind=True, env={"FMERGE_PROFILE_FILE": str(raw.with_suffix(".vg.profraw").resolve())})
            code, err, dt = s.result.returncode, s.result.stderr, s.result.seconds
            failed = s.failing_cases(prog) - args.valgrind_baseline.get(prog, set())
            res.update(valgrind="clean" if code == 0 else "FAIL" if failed else "as unmerged",
                       valgrind_seconds=round(dt, 1))
            if code != 0 and failed:
                problems.append(f"under valgrind: {err.strip()[-3000:]}")
        code, _, err, _ = run([args.fmerge, "profile", "merge", str(raw), "--map",
                               str(out.with_suffix(".fpmap")), "-o", str(prof), "-q"], args.timeout)
        if code != 0:
            problems.append(f"profile merge exit {code}: {err.strip()[-2000:]}")
        else:
            p = json.loads(prof.read_text())
            res.update(runs=p["runs"], signal_runs=p.get("signal_runs", 0),
                       inconsistent=len(p["inconsistent"]),
                       counted_without_signal_runs=len(p.get("without_signal_runs", [])))
            if p["inconsistent"]:
                problems.append("counts that do not fit: " + "; ".join(
                    f"{n}: {why}" for n, why in p["inconsistent"][:5]))
    res["ok"] = not problems
    if problems:
        res["problem"] = "; ".join(problems)
    return res


def smoke_run(args, prog: str, which: list[str], res: dict, env: dict | None = None) -> tuple[int, str]:
    """The smoke workload of `prog` (`which`: `--bc M` or `--obj O`), with `env` added; its exit
    status, time and cases passed and failed go into `res`. Returns (exit status, stderr)."""
    s = common.smoke(prog, which, args.target, args.corpus_dir, env=env, timeout=args.timeout)
    code = -999 if s.result.returncode is None else s.result.returncode
    res.update(smoke_exit=code, smoke_seconds=round(s.result.seconds, 1))
    if s.passed is not None:
        res.update(smoke_passed=s.passed, smoke_failed=s.failed)
    return code, s.result.stderr


def table(results: list[dict]) -> str:
    """Markdown: one row per program and mode (for docs/RELIABILITY.md)."""
    lines = ["| program | mode | functions merged away | merges | verifier | smoke cases passed "
             "| .text before → after | valgrind | result |", "|---|---|---:|---:|---|---|---|---|---|"]
    for r in results:
        if r["mode"] == "unmerged-valgrind":
            continue
        smoke = f"{r.get('smoke_passed', '?')}/{r.get('smoke_passed', 0) + r.get('smoke_failed', 0)}"
        tb, ta = r.get("text_before"), r.get("text_after")
        size = f"{tb:,} → {ta:,}" if tb is not None and ta is not None else "not measured"
        lines.append(f"| {r['program']} | {r['mode']} | {r.get('functions_merged', '-')} | "
                     f"{r.get('merges', '-')} | {'ok' if r.get('verifies') else 'FAIL'} | {smoke} | "
                     f"{size} | {r.get('valgrind', 'not run')} | {'ok' if r['ok'] else 'FAIL'} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["table"]:
        for f in argv[1:]:
            print(table(json.loads(Path(f).read_text())["results"]))
        return 0
    ap = common.parser("reliability", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=programs.names())
    ap.add_argument("--modes", default=",".join(RUN_MODES), help="comma-separated (default: %(default)s)")
    ap.add_argument("--target", choices=["x86_64", "aarch64"], default="x86_64")
    ap.add_argument("--corpus", help="corpus output dir (default: build/corpus or build/corpus-aarch64)")
    ap.add_argument("--work", help="where merged modules and reports go (default: build/reliability/TARGET)")
    ap.add_argument("--twice", action="store_true", help="run fmerge twice, compare output and report bytes")
    ap.add_argument("--measure", action="store_true", help="let fmerge measure .text (default: --no-measure)")
    ap.add_argument("--keep", action="store_true", help="keep merged modules that passed")
    ap.add_argument("--valgrind", action="store_true",
                    help="also run the smoke workload of the unmerged build and of every distinct merged "
                         "or instrumented module under valgrind memcheck")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--json", help="write all results here (default: WORK/results.json)")
    args = ap.parse_args(argv)
    args.valgrind_baseline = {}
    args.valgrind_seen = {}
    corpus_dir = args.corpus_dir = Path(args.corpus or common.corpus_out(args.target)).resolve()
    work = Path(args.work or REPO / "build" / "reliability" / args.target)
    work.mkdir(parents=True, exist_ok=True)
    modes = parse_modes(args.modes, RUN_MODES)
    results = []
    t0 = time.time()
    for prog in args.programs:
        if not (corpus_dir / prog / f"{prog}.bc").exists():
            common.log(f"{prog}: not built in {corpus_dir}, skipped")
            continue
        if args.valgrind:
            # The unmerged build under memcheck: an error here is not fmerge's.
            s = common.smoke(prog, [], args.target, corpus_dir, timeout=args.timeout, valgrind=True)
            code, err, dt = s.result.returncode, s.result.stderr, s.result.seconds
            args.valgrind_baseline[prog] = s.failing_cases(prog)
            # Not a failure of fmerge's: merged builds are compared with it.
            r = {"program": prog, "mode": "unmerged-valgrind", "target": args.target, "ok": True,
                 "valgrind": "clean" if code == 0 else "FAIL", "valgrind_seconds": round(dt, 1),
                 "fmerge_seconds": 0.0, "valgrind_failing_cases": sorted(args.valgrind_baseline[prog])}
            if code != 0:
                r["note"] = f"the unmerged build under valgrind: {err.strip()[-3000:]}"
            results.append(r)
            print(f"{prog:8} unmerged build under valgrind: {r['valgrind']} ({dt:.0f} s)"
                  f"{'; failing cases ' + ', '.join(r['valgrind_failing_cases']) if r['valgrind_failing_cases'] else ''}",
                  flush=True)
        for mode in modes:
            if MODES[mode].rust_only and prog not in programs.RUST:
                continue
            r = one(args, prog, mode, corpus_dir, work)
            results.append(r)
            smoke = f"{r.get('smoke_passed', '?')}/{r.get('smoke_passed', 0) + r.get('smoke_failed', 0)}"
            what = (f"records {r.get('runs', '-')} ({r.get('signal_runs', '-')} by a signal), "
                    f"{r.get('inconsistent', '-')} inconsistent" if MODES[mode].command == "instrument" else
                    f"merged {r.get('functions_merged', '-'):>5} fns in {r.get('merges', '-'):>4} merges")
            print(f"{prog:8} {mode:14} {what}, fmerge {r['fmerge_seconds']:7.1f}s, "
                  f"verify {'ok' if r.get('verifies') else 'FAIL'}, smoke {smoke}"
                  f"{', deterministic' if r.get('deterministic') else ''}"
                  f"{', valgrind ' + r['valgrind'] if 'valgrind' in r else ''}  {'ok' if r['ok'] else 'FAIL'}",
                  flush=True)
            if not r["ok"]:
                print(f"    {r['problem'][:4000]}", flush=True)
            Path(args.json or work / "results.json").write_text(json.dumps(
                {"fmerge": args.fmerge, "target": args.target, "seconds": round(time.time() - t0),
                 "results": results}, indent=1) + "\n")
    bad = [r for r in results if not r["ok"]]
    cases = sum(r.get("smoke_passed", 0) + r.get("smoke_failed", 0) for r in results)
    print(f"{len(results)} runs, {cases} smoke cases, {len(bad)} failed runs, "
          f"{round(time.time() - t0)} s", flush=True)
    return 1 if bad else 0
