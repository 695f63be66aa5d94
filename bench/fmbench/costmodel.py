"""`fmbench profiling costmodel`: fit the work metric's cost table for this machine.

For each training program (corpus programs with input generators: lua, quickjs, zstd,
bzip2, xz), the per-TU bitcode is recompiled WITHOUT optimisation (the corpus commands with
-O0 -Xclang -disable-O0-optnone), linked into one module M0, and built twice:
  counters  fmerge instrument M0 (counters)  -> clang-22 -O0 -> executable
  plain     M0                               -> clang-22 -O0 -> executable
Every training input runs once on `counters` (its profile gives X_i: instructions of each
class executed, `fmerge profile merge` -> "executed") and REPEAT times on `plain` (median
wall time t). `fmerge profile fit` fits t = eps + sum_i w_i X_i with non-negative w_i.

Reported: the fit on all runs (MAE, mean relative error, R^2), and leave-one-program-out
cross-validation: fit without program P, predict P's run times (the honest error on code
the fit has not seen). Writes the table (default
crates/fmerge-core/src/profiling/costs_x86_64.json, the table fmerge ships) and OUT/report.md.

Usage: fmbench profiling costmodel [--repeat 3] [--table PATH] [--out DIR]
"""

import json
import statistics
import subprocess
import time
from pathlib import Path

from . import common, speed
from .speed import CLANG, LINK, ROOT, CORPUS, run, log, parse_commands, rewrite, pmap, make_data, WL

CLASSES = ["load", "store", "call", "branch", "compare", "int-alu", "int-mul", "int-div", "fp-arith",
           "fp-div", "address", "alloca", "phi", "select", "cast", "return", "vector", "other"]


def inputs(prog, data_dir):
    """[(label, argv with {exe}, stdin or None)]: distinct inputs of a program."""
    out = []
    if prog == "lua":
        for script in ("lua_train.lua", "lua_time.lua"):
            for n in (1, 2, 3, 4):
                out.append(("%s:%d" % (script, n), ["{exe}", str(WL / script), str(n)], None))
    elif prog == "quickjs":
        for script in ("qjs_train.js", "qjs_time.js"):
            for n in (1, 2, 3):
                out.append(("%s:%d" % (script, n), ["{exe}", str(WL / script), str(n)], None))
    else:
        comp, _ = COMPRESSORS[prog]
        for k, (t, b) in enumerate([(96 << 10, 32 << 10), (256 << 10, 64 << 10), (512 << 10, 128 << 10)]):
            data = make_data(data_dir, "%s-fit%d.dat" % (prog, k), 700 + k, t, b)
            for c in comp:
                out.append(("%s c%d" % (" ".join(c), k), ["{exe}", *c], str(data)))
            out.append(("decompress c%d" % k, ["{decomp}"], str(data)))
    return out


# compression argument lists, decompression arguments (the corpus' zstd driver takes a level
# number after -c; bzip2 and xz are the real programs)
COMPRESSORS = {
    "zstd": ([["-c", "1"], ["-c", "3"], ["-c", "9"]], ["-d"]),
    "bzip2": ([["-c", "-1"], ["-c", "-9"]], ["-dc"]),
    "xz": ([["-c", "-0"], ["-c", "-3"]], ["-dc"]),
}


def training_programs():
    """The programs with training inputs (`inputs`), in corpus order."""
    from . import programs as registry
    return [p for p in registry.names() if p in ("lua", "quickjs") or p in COMPRESSORS]


def build(prog, wd, fmerge, jobs):
    meta = json.loads((CORPUS / prog / "modules.json").read_text())
    libs, mods = meta.get("libs", []), meta["modules"]
    by_rel = {str(rel): argv for argv, rel in parse_commands(prog)}
    m0 = wd / "m0.bc"
    if not m0.exists():
        def cc(m):
            o = wd / "bc0" / m
            o.parent.mkdir(parents=True, exist_ok=True)
            argv = [a for a in rewrite(by_rel[m], o) if not a.startswith("-O")]
            run(argv[:1] + ["-O0", "-Xclang", "-disable-O0-optnone"] + argv[1:])
            return o
        run([LINK, *pmap(jobs, cc, mods), "-o", m0])
    exes = {}
    for name in ("plain", "counters"):
        exe = wd / name
        if not exe.exists():
            bc = m0
            if name == "counters":
                bc = wd / "counters.bc"
                run([fmerge, "instrument", m0, "-o", bc, "-q"])
            run([CLANG, "-O0", bc, "-o", exe, *libs])
        exes[name] = exe
    return exes


def run_once(argv, stdin, env=None):
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    t = time.perf_counter() - t0
    if stdin:
        fin.close()
    return r.returncode, r.stdout, t


def predict(table, executed):
    return table["fit"]["intercept_seconds"] + sum(table["ps"][c] * 1e-12 * executed.get(c, 0) for c in CLASSES)


def main(argv):
    ap = common.parser("profiling costmodel", __doc__.split("\n")[0], fmerge=True)
    ap.add_argument("programs", nargs="*", default=training_programs())
    ap.add_argument("--out", default=str(ROOT / "build" / "costmodel"))
    ap.add_argument("--table", default=str(ROOT / "crates" / "fmerge-core" / "src" / "profiling" / "costs_x86_64.json"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ridges", default="0,0.001,0.01,0.1,1,10", help="ridge strengths tried (leave-one-program-out)")
    ap.add_argument("--reuse", action="store_true", help="refit the runs of an earlier invocation (OUT/runs.jsonl)")
    args = ap.parse_args(argv)
    out = common.work_dir(args.out, "profiling")
    fmerge = Path(args.fmerge).resolve()
    runs = []
    if args.reuse:
        runs = [json.loads(l) for l in (out / "runs.jsonl").read_text().splitlines() if l.strip()]
        for r in runs:
            r["program"] = r["label"].split()[0]
    for prog in ([] if args.reuse else args.programs):
        wd = out / prog
        wd.mkdir(parents=True, exist_ok=True)
        log("\n## %s" % prog)
        exes = build(prog, wd, fmerge, args.jobs)
        fpmap = wd / "counters.fpmap"
        for label, argv, stdin in inputs(prog, out / "data"):
            # a decompression input is the plain build's own compressed output
            if argv[0] == "{decomp}":
                comp = wd / "comp.bin"
                comp_args, decomp_args = COMPRESSORS[prog]
                rc, data, _ = run_once([str(exes["plain"]), *comp_args[0]], stdin)
                comp.write_bytes(data)
                argv, stdin = ["{exe}", *decomp_args], str(comp)
            raw = wd / "run.profraw"
            raw.unlink(missing_ok=True)
            env = dict(speed.ENV, FMERGE_PROFILE_FILE=str(raw))
            rc_c, out_c, _ = run_once([a.replace("{exe}", str(exes["counters"])) for a in argv], stdin, env)
            times = []
            for _ in range(args.repeat):
                rc_p, out_p, t = run_once([a.replace("{exe}", str(exes["plain"])) for a in argv], stdin, speed.ENV)
                times.append(t)
            if (rc_c, out_c) != (rc_p, out_p):
                raise RuntimeError("%s %s: the instrumented build behaves differently" % (prog, label))
            prof = wd / "run.fprof"
            run([fmerge, "profile", "merge", raw, "--map", fpmap, "-o", prof, "-q"], quiet=True)
            p = json.loads(prof.read_text())
            if p["inconsistent"]:
                raise RuntimeError("%s %s: inconsistent counts %s" % (prog, label, p["inconsistent"][:3]))
            runs.append(dict(label="%s %s" % (prog, label), program=prog, executed=p["executed"],
                             seconds=statistics.median(times)))
            log("%-40s %.3f s  %d instructions" % (runs[-1]["label"], runs[-1]["seconds"], sum(p["executed"].values())))
    jl = out / "runs.jsonl"
    if not args.reuse:
        jl.write_text("".join(json.dumps(dict(label=r["label"], executed=r["executed"], seconds=r["seconds"])) + "\n"
                              for r in runs))
    programs = sorted({r["program"] for r in runs}, key=[r["program"] for r in runs].index)

    def lopo(ridge):
        # leave one program out: fit without it, predict its runs
        cv = []
        for prog in programs:
            rest = [r for r in runs if r["program"] != prog]
            mine = [r for r in runs if r["program"] == prog]
            tj = out / ("cv-%s.jsonl" % prog)
            tj.write_text("".join(json.dumps(dict(label=r["label"], executed=r["executed"], seconds=r["seconds"])) + "\n"
                                  for r in rest))
            tt = out / ("cv-%s.json" % prog)
            run([fmerge, "profile", "fit", tj, "-o", tt, "--ridge", str(ridge)], quiet=True)
            t = json.loads(tt.read_text())
            errs = [abs(predict(t, r["executed"]) - r["seconds"]) / r["seconds"] for r in mine]
            cv.append((prog, statistics.mean(errs), max(errs)))
        return cv
    grid = [(float(x), lopo(float(x))) for x in args.ridges.split(",")]
    best_ridge, cv = min(grid, key=lambda g: statistics.mean(e for _, e, _ in g[1]))
    source = ("fitted on %d runs of %s, unoptimized (-O0), x86-64, ridge %g chosen by leave-one-program-out "
              "(fmbench profiling costmodel)" % (len(runs), ", ".join(programs), best_ridge))
    run([fmerge, "profile", "fit", jl, "-o", args.table, "--source", source, "--ridge", str(best_ridge)])
    table = json.loads(Path(args.table).read_text())
    lines = ["# Cost model fit (fmbench profiling costmodel)", "",
             source, "",
             "fit on all runs: intercept %.4f s, MAE %.4f s, mean relative error %.1f%%, R^2 %.4f" % (
                 table["fit"]["intercept_seconds"], table["fit"]["mae_seconds"],
                 100 * table["fit"]["mean_relative_error"], table["fit"]["r_squared"]), "",
             "| class | cost (ps) |", "|---|---:|"]
    lines += ["| %s | %d |" % (c, table["ps"][c]) for c in CLASSES]
    lines += ["", "Ridge strength against the leave-one-program-out error (mean over programs of the mean "
              "relative error of the held-out program's runs):", "", "| ridge | LOPO error |", "|---:|---:|"]
    lines += ["| %g | %.1f%% |" % (r, 100 * statistics.mean(e for _, e, _ in c)) for r, c in grid]
    lines += ["", "Leave-one-program-out with ridge %g: fit without the program, predict its runs:" % best_ridge, "",
              "| program | runs | mean relative error | worst |", "|---|---:|---:|---:|"]
    for prog, mean_e, max_e in cv:
        n = sum(1 for r in runs if r["program"] == prog)
        lines.append("| %s | %d | %.1f%% | %.1f%% |" % (prog, n, 100 * mean_e, 100 * max_e))
    lines += ["", "| run | seconds | predicted |", "|---|---:|---:|"]
    lines += ["| %s | %.3f | %.3f |" % (r["label"], r["seconds"], predict(table, r["executed"])) for r in runs]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

