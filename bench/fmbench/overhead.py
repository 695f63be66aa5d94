"""`fmbench profiling overhead`: instrumentation overhead and exactness of `fmerge instrument`,
next to clang's two PGO instrumentations, on the corpus programs with real workloads.

Builds (all from the corpus' per-TU compile commands, build/corpus/P/bc-commands.txt, -Os):
  Module builds: the TU bitcode linked with llvm-link-22 into one module M, then
      [fmerge instrument M ...] -> clang-22 -Os -c -> clang-22 link
    base          M itself (reference of the module builds)
    blocks        fmerge instrument --probes blocks   (naive: a counter in every block)
    optimal       fmerge instrument                   (Ball-Larus optimal, exact through
                                                       exit/longjmp/exceptions)
    optimal-acr   fmerge instrument --assume-calls-return
    optimal-np    fmerge instrument --no-promote      (every counter update in memory: no
                                                       counter kept in a register through a loop)
    work          fmerge instrument --mode work       (the work metric)
    work-np       fmerge instrument --mode work --no-promote
    work-region   ... --relax region:5                (at most 5% of any pass through a region)
    work-whole    ... --relax whole:5 --profile T     (at most 5% of the training runs' work:
                                                       T = the optimal build on the TRAINING
                                                       workload)
    work-whole4   ... --relax whole:4 --profile T     (a margin for inputs unlike the training)
  Per-TU builds: each TU compiled to an object with its own command (minus -emit-llvm)
    tu-base       no instrumentation (reference of the clang builds)
    clang-fe      + -fprofile-instr-generate   (clang's front-end instrumentation)
    clang-ir      + -fprofile-generate         (LLVM's IR PGO instrumentation: MST edges)
    clang-ir-nopre  + -fprofile-generate -mllvm -disable-preinline (the same without the
                  pre-inliner IR PGO runs before instrumenting, which also changes the code
                  that is optimized: what the counters alone cost)

Measurements, on the speed benchmark's TIMING workload of each program (`fmbench speed`):
  * wall time: R rounds, every build once per round in a rotated order; overhead = median of
    the per-round ratios build/reference - 1, with a 95% bootstrap CI of the median;
  * with --layouts K: every timed build is also linked K times with its functions in a random
    order (objects compiled with -ffunction-sections, ld.lld --shuffle-sections=.text*=SEED,
    seeds 1..K, the same seeds for every build), each round runs every build in every layout,
    and a round's ratio is build/reference of the mean times over the K layouts. A program
    whose speed moves by several percent with its code layout (zstd) then compares builds
    instead of lucky and unlucky layouts. Behaviour, counts and instructions stay those of the
    default builds;
  * behaviour: stdout hashes and exit codes of every build equal the reference's;
  * counter increments executed per run: fmerge's from the raw records (sum of all
    counters); clang's from llvm-profdata-22 (sum of all counts);
  * with --callgrind: instructions executed by one run of the timing workload under
    `valgrind --tool=callgrind` (deterministic, unlike wall time on a shared machine), and the
    overhead in instructions against the reference;
  * exactness: builds `check` and `check-acr` carry the optimal counters and a counter in
    every block; `fmerge profile merge` checks, function by function, that the rebuilt block
    counts equal the counted ones in the same run (programs like Lua seed hashes from time
    and addresses, so two builds' runs differ and cannot be compared with each other).
Usage: fmbench profiling overhead [PROG ...] [--rounds 5] [--md OUT.md] [--json OUT.json]
       [--builds base,optimal,...] (a subset; references are added) [--callgrind] [--layouts K]
Programs: sqlite lua quickjs zstd bzip2 xz (default: all).  Work dir: build/profiling/.
"""

import json
import os
import shutil
import statistics
import time
from pathlib import Path

from . import common, speed
from .speed import CLANG, LINK, ROOT, CORPUS, run, log, run_workload, pmap, boot_median_ci, parse_commands, rewrite

MODULE_BUILDS = [("base", None), ("blocks", ["--probes", "blocks"]), ("optimal", []),
                 ("optimal-acr", ["--assume-calls-return"]),
                 ("optimal-np", ["--no-promote"]),
                 ("work", ["--mode", "work"]),
                 ("work-np", ["--mode", "work", "--no-promote"]),
                 ("work-region", ["--mode", "work", "--relax", "region:5"]),
                 # {train}: a counters profile of this module from the TRAINING workload
                 ("work-whole", ["--mode", "work", "--relax", "whole:5", "--profile", "{train}"]),
                 # the same with a margin: the bound holds on the training runs, not on others
                 ("work-whole4", ["--mode", "work", "--relax", "whole:4", "--profile", "{train}"]),
                 # exactness only (not timed): optimal counters and block counters in one program
                 ("check", ["--probes", "check"]), ("check-acr", ["--probes", "check", "--assume-calls-return"])]
UNTIMED = {"check", "check-acr"}
TU_BUILDS = [("tu-base", []), ("clang-fe", ["-fprofile-instr-generate"]), ("clang-ir", ["-fprofile-generate"]),
             ("clang-ir-nopre", ["-fprofile-generate", "-mllvm", "-disable-preinline"])]
REF = {"blocks": "base", "optimal": "base", "optimal-acr": "base", "optimal-np": "base", "work": "base",
       "work-np": "base", "work-region": "base",
       "work-whole4": "base", "work-whole": "base", "clang-fe": "tu-base", "clang-ir": "tu-base", "clang-ir-nopre": "tu-base"}


def selected(builds, only):
    """The builds of `only` (all if None), with their references and what they need."""
    if only is None:
        return builds
    need = set(only)
    for n in list(need):
        if n in REF:
            need.add(REF[n])
        if n.startswith("work-whole"):
            need.add("optimal")
    return [b for b in builds if b[0] in need]


def build(prog, wd, fmerge, jobs, train_steps, only=None, layouts=0):
    """The executables of every selected build; with `layouts`, also each timed build linked
    in `layouts` shuffled function orders (`exes[name + ".L" + seed]`)."""
    meta = json.loads((CORPUS / prog / "modules.json").read_text())
    libs, mods = meta.get("libs", []), meta["modules"]
    by_rel = {str(rel): argv for argv, rel in parse_commands(prog)}
    exes, maps = {}, {}
    module = wd / "module.bc"
    if not module.exists():
        run([LINK, *[CORPUS / prog / "bc" / m for m in mods], "-o", module])
    for name, args in selected(MODULE_BUILDS, only):
        exe = wd / name
        bc = module
        if args is not None:
            bc = wd / (name + ".bc")
            maps[name] = bc.with_suffix(".fpmap")
        if args and "{train}" in args:
            train = wd / "train.fprof"
            if not train.exists():
                # the optimal counters build on the training workload
                raw = wd / "train.profraw"
                raw.unlink(missing_ok=True)
                speed.ENV["FMERGE_PROFILE_FILE"] = str(raw)
                run_workload(train_steps, exes["optimal"], wd / "scratch-train")
                del speed.ENV["FMERGE_PROFILE_FILE"]
                run([fmerge, "profile", "merge", raw, "--map", maps["optimal"], "-o", train, "-q"])
            args = [str(train) if a == "{train}" else a for a in args]
        if not exe.exists():
            if args is not None:
                run([fmerge, "instrument", module, "-o", bc, "-q", *args])
            obj = wd / (name + ".o")
            run([CLANG, "-Os", "-c", bc, "-o", obj])
            run([CLANG, obj, "-o", exe, *libs])
        exes[name] = exe
        if layouts and name not in UNTIMED:
            obj = wd / (name + ".fs.o")
            if not obj.exists():
                run([CLANG, "-Os", "-ffunction-sections", "-c", bc, "-o", obj])
            exes.update(shuffled(wd, name, [obj], libs, [], layouts))
    def objects(objdir, flags, reuse):
        """Every TU compiled with its own command plus `flags` into `objdir` (with `reuse`, an
        object already there is kept)."""
        def cc(m):
            o = objdir / (m[:-3] + ".o")
            if not (reuse and o.exists()):
                o.parent.mkdir(parents=True, exist_ok=True)
                run(rewrite(by_rel[m], o, drop_emit=True, extra=flags))
            return o
        return pmap(jobs, cc, mods)

    for name, flags in selected(TU_BUILDS, only):
        exe = wd / name
        if not exe.exists():
            objs = objects(wd / (name + "-obj"), flags, reuse=False)
            run([CLANG, *flags, *objs, "-o", exe, *libs])
        exes[name] = exe
        if layouts:
            objs = objects(wd / (name + "-fs-obj"), [*flags, "-ffunction-sections"], reuse=True)
            exes.update(shuffled(wd, name, objs, libs, flags, layouts))
    return exes, maps


def shuffled(wd, name, objs, libs, flags, layouts):
    """`name` linked `layouts` times by ld.lld with its functions in a random order (seeds
    1..layouts): {name.L<seed>: executable}."""
    out = {}
    for seed in range(1, layouts + 1):
        exe = wd / ("%s.L%d" % (name, seed))
        if not exe.exists():
            run([CLANG, *flags, "-fuse-ld=lld", "-Wl,--shuffle-sections=.text*=%d" % seed,
                 *objs, "-o", exe, *libs])
        out[exe.name] = exe
    return out


def increments_fmerge(fmerge, raw, fpmap, wd, tag):
    """Counter increments of one run (sum of the raw record's counters) and the profile."""
    data = raw.read_bytes()
    words = [int.from_bytes(data[i:i + 8], "little") for i in range(0, len(data), 8)]
    header = 7  # fmerge_core::profiling::files::RAW_HEADER_WORDS
    total, at = 0, 0
    while at < len(words):
        n = words[at + 2]
        total += sum(words[at + header: at + header + n])
        at += header + n
    prof = wd / (tag + ".fprof")
    run([fmerge, "profile", "merge", raw, "--map", fpmap, "-o", prof, "-q"])
    return total, json.loads(prof.read_text())


def increments_clang(rawdir, wd, tag):
    raws = sorted(rawdir.glob("*.profraw"))
    prof = wd / (tag + ".profdata")
    run([speed.PROFDATA, "merge", "-o", prof, *raws])
    out = run([speed.PROFDATA, "show", "--all-functions", "--counts", prof], quiet=True).stdout
    total = 0
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Block counts: ["):
            total += sum(int(x) for x in line[len("Block counts: ["):-1].split(",") if x.strip())
    return total


def main(argv):
    ap = common.parser("profiling overhead", __doc__.split("\n")[0], fmerge=True)
    ap.add_argument("programs", nargs="*", default=speed.workload_programs())
    ap.add_argument("--out", default=str(ROOT / "build" / "profiling"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--builds", default=None, help="comma-separated subset of the builds (references are added)")
    ap.add_argument("--layouts", type=int, default=0,
                    help="time every build in K shuffled function orders (see the header)")
    ap.add_argument("--callgrind", action="store_true",
                    help="also count the instructions of one timing run of every timed build (valgrind)")
    args = ap.parse_args(argv)
    only = args.builds.split(",") if args.builds else None
    out = common.work_dir(args.out, "profiling")
    fmerge = Path(args.fmerge).resolve()
    progs = speed.programs(out / "data")
    results = dict(machine=dict(nproc=os.cpu_count(), loadavg=os.getloadavg(), uname=" ".join(os.uname())),
                   rounds=args.rounds, layouts=args.layouts, programs={})
    t_start = time.time()
    for prog in args.programs:
        wd = out / prog
        wd.mkdir(parents=True, exist_ok=True)
        log("\n## %s" % prog)
        timing = progs[prog]["timing"]()
        exes, maps = build(prog, wd, fmerge, args.jobs, progs[prog]["train"](), only, args.layouts)
        pr = dict(timing=[" ".join(a) for a, _, _ in timing], builds={})
        names = [n for n in exes if ".L" not in n]
        # behaviour, counter increments and exactness: one run each with its profile file
        ref_out = {}
        profiles = {}
        for n in names:
            scratch = wd / ("scratch-" + n)
            shutil.rmtree(scratch, ignore_errors=True)
            raw = wd / (n + ".profraw")
            rawdir = wd / (n + "-profraw")
            raw.unlink(missing_ok=True)
            shutil.rmtree(rawdir, ignore_errors=True)
            rawdir.mkdir()
            speed.ENV["FMERGE_PROFILE_FILE"] = str(raw)
            speed.ENV["LLVM_PROFILE_FILE"] = str(rawdir / "%p.profraw")
            res, errs, _, _ = run_workload(timing, exes[n], scratch)
            del speed.ENV["FMERGE_PROFILE_FILE"], speed.ENV["LLVM_PROFILE_FILE"]
            b = dict(outputs=res)
            ref = REF.get(n)
            ref_out[n] = res
            if ref:
                b["output_ok"] = res == ref_out[ref]
                if not b["output_ok"]:
                    log("!!! %s %s: OUTPUT DIFFERS from %s: %s vs %s" % (prog, n, ref, res, ref_out[ref]))
            if n in maps:
                b["increments"], profiles[n] = increments_fmerge(fmerge, raw, maps[n], wd, n)
                b["work"] = sum(profiles[n].get("work", []))
                fpmap = json.loads(maps[n].read_text())
                b["counters"] = fpmap["counters"]
                b["functions"] = len(fpmap["functions"])
                b["per_block_fallbacks"] = sum(1 for f in fpmap["functions"] if f.get("fallback"))
                b["inconsistent"] = len(profiles[n]["inconsistent"])
            elif n.startswith("clang"):
                b["increments"] = increments_clang(rawdir, wd, n)
            pr["builds"][n] = b
        # work lost by the relaxed builds, against the exact work build on the same workload
        for n in ("work-region", "work-whole", "work-whole4"):
            if n not in pr["builds"]:
                continue
            exact = pr["builds"]["work"]["work"]
            pr["builds"][n]["work_error"] = (exact - pr["builds"][n]["work"]) / exact if exact else None
        # exactness: the checking builds' inconsistent functions
        for n in ("check", "check-acr"):
            if n not in pr["builds"]:
                continue
            pr["builds"][n]["failed_examples"] = [x[0] for x in profiles[n]["inconsistent"][:5]]
        # timing rounds
        timed = [n for n in names if n not in UNTIMED]
        if args.callgrind:
            for n in timed:
                pr["builds"][n]["instructions"] = speed.callgrind(timing, exes[n], wd / ("scratch-" + n))
                log("%s %s: %d instructions" % (prog, n, pr["builds"][n]["instructions"]))
            for n in timed:
                ref = REF.get(n)
                if ref:
                    b = pr["builds"][n]
                    b["instr_overhead"] = b["instructions"] / pr["builds"][ref]["instructions"] - 1
        # timed units: the builds, or each build in each shuffled layout
        seeds = ["L%d" % s for s in range(1, args.layouts + 1)]
        units = ["%s.%s" % (n, s) for n in timed for s in seeds] if seeds else timed
        unit_walls = {u: [] for u in units}
        for u in speed.rotated_rounds(units, args.rounds):
            _, _, w, _ = run_workload(timing, exes[u], wd / ("scratch-" + u.split(".")[0]))
            unit_walls[u].append(w)
        if seeds:
            walls = {n: [statistics.mean(unit_walls["%s.%s" % (n, s)][r] for s in seeds)
                         for r in range(args.rounds)] for n in timed}
            for n in timed:
                pr["builds"][n]["layout_walls"] = {s: unit_walls["%s.%s" % (n, s)] for s in seeds}
        else:
            walls = unit_walls
        for n in timed:
            b = pr["builds"][n]
            b["wall_median"] = statistics.median(walls[n])
            ref = REF.get(n)
            if ref:
                ratios = [a / b_ for a, b_ in zip(walls[n], walls[ref])]
                med = statistics.median(ratios)
                lo, hi = boot_median_ci(ratios)
                b["overhead"] = med - 1
                b["overhead_ci"] = [lo - 1, hi - 1]
        results["programs"][prog] = pr
        log(json.dumps(pr["builds"], indent=1)[:3000])
    results["seconds"] = round(time.time() - t_start, 1)
    text = json.dumps(results, indent=1)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text)
    md = render(results) if only is None else render_subset(results)
    if args.md:
        Path(args.md).write_text(md)
    print(md)


def machine_line(res):
    """Where and how long the run was: the header line of both tables."""
    m = res["machine"]
    layouts = res.get("layouts", 0)
    return "machine: %s, %d CPUs, load %s; %d rounds%s; %.0f s" % (
        m["uname"], m["nproc"], "/".join("%.1f" % x for x in m["loadavg"]), res["rounds"],
        ", each build in %d shuffled layouts (mean per round)" % layouts if layouts else "",
        res.get("seconds", 0))


def render(res):
    lines = ["# Instrumentation overhead (fmbench profiling overhead)", "",
             machine_line(res), "",
             "Wall-time overhead against the build's reference (module builds: the same module without "
             "counters; clang builds: the same per-TU build without instrumentation), median of per-round "
             "ratios [95% CI]; counter increments executed in one run of the timing workload.", "",
             "| program | counters: a counter per block | counters: optimal | counters: optimal, calls assumed to return | work: optimal | work: region-relaxed 5% | work: whole-program-relaxed 5% | clang -fprofile-instr-generate | clang -fprofile-generate (IR) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for prog, pr in res["programs"].items():
        cells = []
        for n in ("blocks", "optimal", "optimal-acr", "work", "work-region", "work-whole", "clang-fe", "clang-ir"):
            b = pr["builds"][n]
            ok = "" if b.get("output_ok", True) else " **OUTPUT DIFFERS**"
            extra = ""
            if n.startswith("work-"):
                extra = "<br>work error %+.2f%%" % (100 * b["work_error"]) if b.get("work_error") is not None else ""
            elif not n.startswith("work"):
                extra = "<br>%s incr." % "{:,}".format(b["increments"])
            cells.append("%+.1f%% [%+.1f, %+.1f]%s%s" % (
                100 * b["overhead"], 100 * b["overhead_ci"][0], 100 * b["overhead_ci"][1], extra, ok))
        lines.append("| %s | %s |" % (prog, " | ".join(cells)))
    lines += ["", "Exactness: in one program, optimal counters and a counter in every block; functions whose "
              "rebuilt block counts differ from the counted ones in the same run (`--probes check`):", "",
              "| program | functions | static counters: blocks / optimal / calls assumed to return | counted per block (fallback) | check failures: optimal / calls assumed to return |",
              "|---|---:|---|---:|---|"]
    for prog, pr in res["programs"].items():
        b = pr["builds"]
        lines.append("| %s | %d | %s / %s / %s | %d | %d / %d |" % (
            prog, b["optimal"]["functions"], "{:,}".format(b["blocks"]["counters"]),
            "{:,}".format(b["optimal"]["counters"]), "{:,}".format(b["optimal-acr"]["counters"]),
            b["optimal"]["per_block_fallbacks"], b["check"]["inconsistent"], b["check-acr"]["inconsistent"]))
    return "\n".join(lines) + "\n"


def render_subset(res):
    """The builds a --builds run made: wall-time and (with --callgrind) instruction overhead,
    counter increments, exactness of the checking builds."""
    lines = ["# Instrumentation overhead (fmbench profiling overhead --builds ...)", "",
             machine_line(res), "",
             "Per build: wall-time overhead against its reference (median of per-round ratios [95% CI]); "
             "instructions executed by one run under callgrind and their overhead against the reference; "
             "counter increments executed in one run.", ""]
    order = [n for n, _ in MODULE_BUILDS + TU_BUILDS if n in REF]
    shown = [n for n in order if any(n in pr["builds"] for pr in res["programs"].values())]
    lines.append("| program | " + " | ".join(shown) + " |")
    lines.append("|---|" + "---:|" * len(shown))
    for prog, pr in res["programs"].items():
        cells = []
        for n in shown:
            b = pr["builds"].get(n)
            if not b or "overhead" not in b:
                cells.append("")
                continue
            c = "%+.1f%% [%+.1f, %+.1f]" % (100 * b["overhead"], 100 * b["overhead_ci"][0], 100 * b["overhead_ci"][1])
            if "instr_overhead" in b:
                c += "<br>instr. %+.2f%% (%s)" % (100 * b["instr_overhead"], "{:,}".format(b["instructions"]))
            if "increments" in b:
                c += "<br>%s incr." % "{:,}".format(b["increments"])
            if not b.get("output_ok", True):
                c += " **OUTPUT DIFFERS**"
            cells.append(c)
        lines.append("| %s | %s |" % (prog, " | ".join(cells)))
    refs = sorted({REF[n] for n in shown})
    lines += ["", "References: " + ", ".join(
        "%s: %s" % (prog, ", ".join("%s %.3f s%s" % (r, pr["builds"][r]["wall_median"],
                                                      " / %s instr." % "{:,}".format(pr["builds"][r]["instructions"])
                                                      if "instructions" in pr["builds"][r] else "")
                                    for r in refs if r in pr["builds"]))
        for prog, pr in res["programs"].items()), ""]
    checks = [n for n in ("check", "check-acr") if any(n in pr["builds"] for pr in res["programs"].values())]
    if checks:
        lines += ["Exactness (`--probes check`: optimal counters and a counter per block in one program; "
                  "functions whose rebuilt block counts differ from the counted ones):", "",
                  "| program | functions | " + " | ".join(checks) + " |", "|---|---:|" + "---:|" * len(checks)]
        for prog, pr in res["programs"].items():
            b = pr["builds"]
            lines.append("| %s | %s | %s |" % (prog, b[checks[0]]["functions"],
                                                " | ".join(str(b[c]["inconsistent"]) for c in checks)))
    return "\n".join(lines) + "\n"

