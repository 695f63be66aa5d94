"""`fmbench profiling compare`: which build is faster, from runs on different inputs:
`fmerge profile compare` against repeated timing on fixed inputs.

For each program (zstd, bzip2: inputs are easy to make distinct), the unoptimized module M0
(`fmbench profiling costmodel`'s, rebuilt here if missing) is instrumented once in work mode,
`fmerge instrument M0 --mode work` (the fitted cost table fmerge ships, or --costs), and
every build is made from that one instrumented module, so that the work of an input is the
same in every build:
  O1          clang-22 -O1
  O2          clang-22 -O2
  Oz          clang-22 -Oz
  Oz+fmerge   opt-22 -Oz, fmerge opt --whole-program, clang-22 -Oz
Online comparison: each build runs once on each of its own K inputs (input k of each build
has the same size and level but its own data: no input is run twice; the builds take turns);
`fmerge profile compare` (CPU time) gives the ratio of mean work per second with a 95%
bootstrap interval and a verdict.
Ground truth: the same (instrumented) builds, CPU time on one fixed input set, R rounds in
rotated order; median of the per-round time ratios with a 95% bootstrap CI and a verdict.
The builds made from M0 without instrumentation are timed alongside (what users run: merging
an instrumented module can merge differently).
The two verdicts should agree (or the online one say "undecided").

Usage: fmbench profiling compare [zstd bzip2] [--inputs 12] [--rounds 7] [--md OUT]
"""

import json
import statistics
import resource
import subprocess
from pathlib import Path

from . import common, speed
from . import costmodel
from .speed import CLANG, ROOT, CORPUS, run, log, make_data, boot_median_ci

BUILDS = ["O1", "O2", "Oz", "Oz+fmerge"]
PAIRS = [("O1", "O2"), ("O2", "Oz"), ("Oz", "Oz+fmerge")]


def make_builds(prog, wd, m0, fmerge, costs):
    libs = json.loads((CORPUS / prog / "modules.json").read_text()).get("libs", [])
    work = wd / "work.bc"
    if not work.exists():
        run([fmerge, "instrument", m0, "-o", work, "--mode", "work", "-q", *(["--costs", costs] if costs else [])])
    exes = {}
    for tag, src in (("w", work), ("p", m0)):
        for b in BUILDS:
            exe = wd / ("%s-%s" % (tag, b.replace("+", "-")))
            if not exe.exists():
                if b == "Oz+fmerge":
                    oz = wd / ("%s-oz.bc" % tag)
                    run(["opt-22", "-Oz", src, "-o", oz])
                    merged = wd / ("%s-ozf.bc" % tag)
                    run([fmerge, "opt", oz, "--whole-program", "-q", "-o", merged])
                    run([CLANG, "-Oz", merged, "-o", exe, *libs])
                else:
                    run([CLANG, "-" + b, src, "-o", exe, *libs])
            exes[(tag, b)] = exe
    return exes


def run_input(exe, argv, stdin, env):
    """Runs one input; returns the CPU time (user + system) of the process."""
    fin = open(stdin, "rb")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([str(exe), *argv], stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    fin.close()
    if r.returncode != 0:
        raise RuntimeError("%s %s failed" % (exe, argv))
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main(argv):
    ap = common.parser("profiling compare", __doc__.split("\n")[0], fmerge=True)
    ap.add_argument("programs", nargs="*", default=["zstd", "bzip2"])
    ap.add_argument("--out", default=str(ROOT / "build" / "compare"))
    ap.add_argument("--m0", default=str(ROOT / "build" / "costmodel"), help="the cost model's work dir (M0 modules)")
    ap.add_argument("--costs", default=None)
    ap.add_argument("--inputs", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--md", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = common.work_dir(args.out, "profiling")
    fmerge = Path(args.fmerge).resolve()
    results = {}
    for prog in args.programs:
        wd = out / prog
        wd.mkdir(parents=True, exist_ok=True)
        log("\n## %s" % prog)
        m0dir = Path(args.m0) / prog
        m0dir.mkdir(parents=True, exist_ok=True)
        costmodel.build(prog, m0dir, fmerge, 2)
        exes = make_builds(prog, wd, m0dir / "m0.bc", fmerge, args.costs)
        comp, _ = costmodel.COMPRESSORS[prog]
        # online: every build gets its own inputs
        profiles = {}
        raws = {b: wd / ("%s.profraw" % b.replace("+", "-")) for b in BUILDS}
        for r in raws.values():
            r.unlink(missing_ok=True)
        # Input k of every build: different data (seed), the same size and level, so the
        # builds see inputs of the same kind but never the same input. The builds take turns
        # (rotated) so that a change in the machine's load hits them alike.
        for k in range(args.inputs):
            order = list(range(len(BUILDS)))
            order = order[k % len(order):] + order[:k % len(order)]
            for bi in order:
                b = BUILDS[bi]
                seed = 10_000 + 1000 * bi + k
                size = (1024 + 512 * (k % 4)) << 10
                data = make_data(out / "data", "%s-%d.dat" % (prog, seed), seed, size, size // 4)
                run_input(exes[("w", b)], comp[k % len(comp)], data, dict(speed.ENV, FMERGE_PROFILE_FILE=str(raws[b])))
        for b in BUILDS:
            prof = wd / ("%s.fprof" % b.replace("+", "-"))
            run([fmerge, "profile", "merge", raws[b], "--map", wd / "work.fpmap", "-o", prof, "-q"])
            profiles[b] = prof
        # ground truth: fixed inputs, uninstrumented builds
        fixed = [make_data(out / "data", "%s-fixed%d.dat" % (prog, k), 900 + k, 1536 << 10, 384 << 10) for k in range(3)]
        # The same builds (instrumented: the online method ranks these), and the builds made
        # without instrumentation (what users run; their merges can differ).
        times = {(t, b): [] for t in ("w", "p") for b in BUILDS}
        keys = list(times)
        for key in speed.rotated_rounds(keys, args.rounds):
            env = dict(speed.ENV, FMERGE_PROFILE_FILE=str(wd / "timed.profraw"))
            times[key].append(sum(run_input(exes[key], comp[k % len(comp)], d, env) for k, d in enumerate(fixed)))
        pr = {}
        for a, b in PAIRS:
            cmp = json.loads(run([fmerge, "profile", "compare", profiles[a], profiles[b], "--json"], quiet=True).stdout)
            def timed(tag):
                ratios = [ta / tb for ta, tb in zip(times[(tag, a)], times[(tag, b)])]  # > 1: b is faster
                lo, hi = boot_median_ci(ratios)
                verdict = "B is faster" if lo > 1 else "A is faster" if hi < 1 else "undecided"
                return statistics.median(ratios), [lo, hi], verdict
            med, ci, truth = timed("w")
            pmed, pci, ptruth = timed("p")
            online = cmp["verdict"].split(":")[0]
            pr["%s vs %s" % (a, b)] = dict(
                online_ratio=cmp["comparison"]["ratio"], online_ci=cmp["comparison"]["ci"], online=cmp["verdict"],
                timed_speedup=med, timed_ci=ci, timed=truth,
                plain_speedup=pmed, plain_ci=pci, plain=ptruth,
                agree="yes" if online == truth else "online undecided" if online.startswith("undecided")
                else "timed undecided" if truth == "undecided" else "**no**")
            log("%s %s vs %s: online %s | timed %.3f %s %s | uninstrumented %.3f %s %s" % (
                prog, a, b, cmp["verdict"], med, ci, truth, pmed, pci, ptruth))
        results[prog] = pr
    lines = ["# Comparing builds from runs on different inputs (fmbench profiling compare)", "",
             "Online: each build ran once on each of its own %d inputs; ratio B/A of mean work per CPU "
             "second [95%% CI]. Timed: the same instrumented builds on one fixed input set, %d rounds; "
             "median of the per-round CPU time ratios A / B [95%% CI] (above 1: B faster); the builds "
             "made without instrumentation alongside." % (args.inputs, args.rounds), "",
             "| program | A vs B | online: B/A work per second | online verdict | timed (same builds): A/B time | timed verdict | agree | uninstrumented builds: A/B time |",
             "|---|---|---|---|---|---|---|---|"]
    for prog, pr in results.items():
        for pair, r in pr.items():
            lines.append("| %s | %s | %.3f [%.3f, %.3f] | %s | %.3f [%.3f, %.3f] | %s | %s | %.3f [%.3f, %.3f] %s |" % (
                prog, pair, r["online_ratio"], r["online_ci"][0], r["online_ci"][1], r["online"],
                r["timed_speedup"], r["timed_ci"][0], r["timed_ci"][1], r["timed"], r["agree"],
                r["plain_speedup"], r["plain_ci"][0], r["plain_ci"][1], r["plain"]))
    md = "\n".join(lines) + "\n"
    if args.md:
        Path(args.md).write_text(md)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(md)

