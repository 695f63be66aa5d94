"""`fmbench speed`: the runtime cost of function merging, instructions and wall time of
corpus programs built with and without fmerge, with and without a PGO profile.

Method
======
For each program P of the corpus (build/corpus/P, made by `fmbench corpus build`):

Modules.  Every module is made from per-TU bitcode with the exact compile
commands of build/corpus/P/bc-commands.txt (clang-22 -Os ... -emit-llvm -c),
linked with llvm-link-22 in the order of modules.json:
  plain  the TU bitcode of build/corpus/P/bc/ (no profile);
  pgo    the same commands recompiled with -fprofile-use=train.profdata, where
         the profile comes from an instrumented build (the same commands without
         -emit-llvm, plus -fprofile-generate, linked with -fprofile-generate)
         run on the TRAINING workload and merged with llvm-profdata-22.

Builds.  Each build is `fmerge opt MODULE ARGS -o X.bc` followed by the
corpus' reference code generation, identical for all builds:
  llc-22 -O2 -relocation-model=pic -filetype=obj X.bc -o X.o
  clang-22 X.o -o X <libs of modules.json>
The baselines go through fmerge too, with `--bisect-limit 0 --no-measure`
(no merge committed), so every executable passes through the same reader,
writer and code generator:
  base          plain, --bisect-limit 0            (reference for fmerge)
  fmerge        plain, default fmerge
  pgo-base      pgo,   --bisect-limit 0            (reference for the pgo-* builds)
  pgo-fmerge    pgo,   default fmerge = profile-guided: merges priced by the work
                       they add, --max-slowdown 0.5 (% of the module's profiled work,
                       all merges) and --max-slowdown-per-kb 0.1 (% per KB saved, each)
  pgo-ignore    pgo,   --ignore-profile            (what merging costs without the guard)
  pgo-p99       pgo,   --hot-percentile 99, no budget: the earlier default, hot functions
                       cut out whatever a merge costs
  pgo-s0.1 ...  pgo,   --max-slowdown 0.1 / 1 / 2 and no limit per KB (the budget alone,
                       --budgets)
  pgo-k1 ...    pgo,   --max-slowdown-per-kb 1 ... (--per-kb, none by default)
  pgo-pP        pgo,   --hot-percentile P, no budget (--percentiles, none by default)
("No budget" and "no limit" are --max-slowdown 100 and --max-slowdown-per-kb 100.)

Measurements, all on the TIMING workload (different input from the training one):
  * .text bytes of the executable (llvm-size-22 -A, sum of .text* sections);
  * instructions executed: valgrind --tool=callgrind, "Collected : N" summed
    over the workload's commands (deterministic; the primary metric);
  * wall time and child CPU time (user+sys): R rounds, each round runs every
    build once in a rotated order; per round the ratio build/reference; the
    slowdown is the median ratio - 1 with a 95% bootstrap confidence interval
    of the median (2000 resamples, fixed seed).  The box is shared and small
    (2 cores, other jobs running): wall-time numbers are noisy, instruction
    counts are not.
  * instruction-count noise: --noise K extra callgrind runs of `base`; Lua
    (and others) seed string hashing from time(NULL) and addresses, so counts
    vary slightly from run to run even for the same executable.
  * behaviour: the stdout (and files written) and exit status of every command
    of the timing workload must equal the `base` build's; any difference is
    printed loudly and recorded (`output_ok`).
  * "bytes kept": of the bytes that merging saves on the pgo module when the
    profile is ignored (pgo-base - pgo-ignore), the fraction the profile-guided
    build still saves (pgo-base - pgo-X).
  * optionally (--annotate) per-function instruction deltas (callgrind_annotate)
    of the merged builds against their references, joined with the fmerge
    report's merges, to name the merges that cost the most instructions.

Usage:
  fmbench speed [PROG ...] [--rounds 11] [--json out.json] [--md out.md] [--annotate] [--jobs 2]
Programs: lua zstd bzip2 sqlite xz quickjs (default: all of them).
Work directory: build/speed/ (override with --out).  fmerge: build/speed/fmerge if it is there
(a snapshot: copy target/release/fmerge there first), else --fmerge, else $FMERGE.
Every command run is printed (and logged to OUT/commands.log).
"""

import hashlib
import json
import os
import random
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import common
from .common import CLANG, LLC, PROFDATA, REPO as ROOT, WORKLOADS as WL, boot_median_ci, log, pmap, rotated_rounds
from .common import LLVM_LINK as LINK

CORPUS = common.corpus_out()


def run(cmd, quiet=False, **kw):
    """A build command, logged (printed and kept in OUT/commands.log) unless `quiet`."""
    return common.run(cmd, echo=not quiet, **kw)


# --------------------------------------------------------------------------- data

SYL = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qu", "an", "er", "in", "on", "us", "th", "st", "pr", "el", "or"]


def gen_text(seed, nbytes):
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choice(SYL) for _ in range(rng.randint(1, 4))) for _ in range(3000)})
    rng.shuffle(vocab)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    out, n = [], 0
    while n < nbytes:
        words = rng.choices(vocab, weights, k=rng.randint(5, 18))
        s = " ".join(words).capitalize() + rng.choice([". ", ", ", "; ", "! ", ".\n", "?\n"])
        if rng.random() < 0.05:
            s += "%d.%02d %s\n" % (rng.randint(0, 99999), rng.randint(0, 99), rng.choice(vocab).upper())
        out.append(s)
        n += len(s)
    return "".join(out).encode()[:nbytes]


def gen_binary(seed, nbytes):
    import struct
    rng = random.Random(seed)
    out, ctr = bytearray(), 0
    while len(out) < nbytes:
        ctr += rng.randint(1, 9)
        out += struct.pack("<IHhdB", ctr, rng.randint(0, 300), rng.randint(-50, 50), ctr / 3.0, rng.getrandbits(8) if rng.random() < 0.3 else 0)
        if rng.random() < 0.02:
            out += bytes(rng.getrandbits(8) for _ in range(rng.randint(8, 64)))
    return bytes(out[:nbytes])


def make_data(d, name, seed, text_bytes, bin_bytes):
    p = d / name
    if not p.exists():
        d.mkdir(parents=True, exist_ok=True)
        p.write_bytes(gen_text(seed, text_bytes) + gen_binary(seed + 1, bin_bytes))
    return p


# --------------------------------------------------------------------------- programs

# A workload is a list of steps (argv, stdin file or None, stdout file name or None).
# "{exe}" is the executable, "{w}" the workloads dir, "{d}" the data dir, "{s}" the
# per-run scratch dir.  Output files in {s} are compared between builds.

def compressor_steps(args_list, data):
    steps = []
    for i, (c_args, d_args) in enumerate(args_list):
        steps.append((["{exe}", *c_args], data, "{s}/c%d" % i))
        steps.append((["{exe}", *d_args], "{s}/c%d" % i, "{s}/d%d" % i))
    return steps


def workload_programs():
    """The programs with a training and a timing workload, in corpus order."""
    from . import programs as registry
    return [p for p in registry.names() if p in programs(Path("/nonexistent"))]


def programs(data_dir):
    def data(name, seed, t, b):
        return lambda: str(make_data(data_dir, name, seed, t, b))
    return {
        "lua": dict(
            train=lambda: [(["{exe}", "{w}/lua_train.lua", "8"], None, None)],
            timing=lambda: [(["{exe}", "{w}/lua_time.lua", "10"], None, None)]),
        "sqlite": dict(
            train=lambda: [(["{exe}", ":memory:", "{w}/sqlite_train.sql"], None, None)],
            timing=lambda: [(["{exe}", ":memory:", "{w}/sqlite_time.sql"], None, None)]),
        "quickjs": dict(
            train=lambda: [(["{exe}", "{w}/qjs_train.js", "12"], None, None)],
            timing=lambda: [(["{exe}", "{w}/qjs_time.js", "5"], None, None)]),
        "zstd": dict(
            train=lambda: compressor_steps([(["-c", str(l)], ["-d"]) for l in (1, 6, 12)], data("zstd-train.dat", 11, 6 << 20, 2 << 20)()),
            timing=lambda: compressor_steps([(["-c", str(l)], ["-d"]) for l in (1, 6, 12)], data("zstd-time.dat", 21, 6 << 20, 2 << 20)())),
        "bzip2": dict(
            train=lambda: compressor_steps([(["-c", "-9"], ["-dc"])], data("bz-train.dat", 31, 2 << 20, 1 << 20)()),
            timing=lambda: compressor_steps([(["-c", "-9"], ["-dc"])], data("bz-time.dat", 41, 3 << 20, 1 << 20)())),
        "xz": dict(
            train=lambda: compressor_steps([(["-c", "-6"], ["-dc"])], data("xz-train.dat", 51, 768 << 10, 256 << 10)()),
            timing=lambda: compressor_steps([(["-c", "-6"], ["-dc"])], data("xz-time.dat", 61, 1 << 20, 256 << 10)())),
    }


BUILDS = [  # name, module, fmerge args (None: baseline), reference build
    ("base", "plain", None, None),
    ("fmerge", "plain", [], "base"),
    ("pgo-base", "pgo", None, "base"),
    ("pgo-fmerge", "pgo", [], "pgo-base"),
    ("pgo-ignore", "pgo", ["--ignore-profile"], "pgo-base"),
    ("pgo-p99", "pgo", ["--hot-percentile", "99", "--max-slowdown", "100", "--max-slowdown-per-kb", "100"],
     "pgo-base"),
]


def percentile_builds(pcts):
    return [("pgo-p%s" % p, "pgo", ["--hot-percentile", p, "--max-slowdown", "100", "--max-slowdown-per-kb", "100"],
             "pgo-base") for p in pcts]


def budget_builds(budgets):
    return [("pgo-s%s" % b, "pgo", ["--max-slowdown", b, "--max-slowdown-per-kb", "100"], "pgo-base")
            for b in budgets]


def per_kb_builds(rates):
    return [("pgo-k%s" % k, "pgo", ["--max-slowdown-per-kb", k], "pgo-base") for k in rates]


# --------------------------------------------------------------------------- running workloads

def expand(s, exe, scratch):
    return s.replace("{exe}", str(exe)).replace("{w}", str(WL)).replace("{s}", str(scratch))


def run_workload(steps, exe, scratch, wrapper=None, capture_stderr=False):
    """Run the steps; return (per-step (exit, sha256 of stdout), stderrs, wall, cpu)."""
    scratch.mkdir(parents=True, exist_ok=True)
    results, errs, wall = [], [], 0.0
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for argv, stdin, stdout in steps:
        argv = [expand(a, exe, scratch) for a in argv]
        if wrapper:
            argv = wrapper(argv) if callable(wrapper) else wrapper + argv
        fin = open(expand(stdin, exe, scratch), "rb") if stdin else subprocess.DEVNULL
        outp = Path(expand(stdout, exe, scratch)) if stdout else scratch / "stdout"
        with open(outp, "wb") as fout:
            t0 = time.perf_counter()
            r = subprocess.run(argv, stdin=fin, stdout=fout, stderr=subprocess.PIPE, env=ENV, cwd=scratch)
            wall += time.perf_counter() - t0
        if stdin:
            fin.close()
        results.append((r.returncode, hashlib.sha256(outp.read_bytes()).hexdigest()[:16]))
        errs.append(r.stderr.decode(errors="replace"))
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return results, errs, wall, cpu


ENV = dict(os.environ, LC_ALL="C", TZ="UTC")


def callgrind(steps, exe, scratch, outfile=None):
    total = 0
    for i, (argv, stdin, stdout) in enumerate(steps):
        of = "/dev/null" if outfile is None else "%s.%d" % (outfile, i)
        res, errs, _, _ = run_workload([(argv, stdin, stdout)], exe, scratch,
                                       wrapper=["valgrind", "--tool=callgrind", "--callgrind-out-file=" + of])
        m = re.search(r"Collected : (\d+)", errs[0])
        if not m:
            raise RuntimeError("no callgrind total for %s:\n%s" % (exe, errs[0][-2000:]))
        total += int(m.group(1))
    return total


# --------------------------------------------------------------------------- building

def parse_commands(prog):
    """[(argv, src, out_rel)] from bc-commands.txt (out_rel relative to bc/)."""
    bcdir = CORPUS / prog / "bc"
    cmds = []
    for line in (CORPUS / prog / "bc-commands.txt").read_text().splitlines():
        if not line.strip():
            continue
        argv = shlex.split(line)
        o = argv.index("-o")
        out = Path(argv[o + 1])
        cmds.append((argv, out.relative_to(bcdir.resolve()) if out.is_absolute() else out))
    return cmds


def rewrite(argv, out, drop_emit=False, extra=()):
    argv = list(argv)
    o = argv.index("-o")
    argv[o + 1] = str(out)
    if drop_emit:
        argv.remove("-emit-llvm")
    return argv[:1] + list(extra) + argv[1:]


def build_program(prog, wd, fmerge, builds, jobs, train_steps):
    meta = json.loads((CORPUS / prog / "modules.json").read_text())
    libs = meta.get("libs", [])
    mods = meta["modules"]
    cmds = parse_commands(prog)
    by_rel = {str(rel): argv for argv, rel in cmds}
    missing = [m for m in mods if m not in by_rel]
    if missing:
        raise RuntimeError("no compile command for %s" % missing)
    info = {}

    # plain module
    plain = wd / "plain.bc"
    if not plain.exists():
        run([LINK, *[CORPUS / prog / "bc" / m for m in mods], "-o", plain])

    # instrumented build + training run -> profile
    prof = wd / "train.profdata"
    need_pgo = any(b[1] == "pgo" for b in builds)
    if need_pgo and not prof.exists():
        gen = wd / "gen"

        def cc_gen(m):
            o = gen / (m[:-3] + ".o")
            o.parent.mkdir(parents=True, exist_ok=True)
            run(rewrite(by_rel[m], o, drop_emit=True, extra=["-fprofile-generate"]))
            return o
        objs = pmap(jobs, cc_gen, mods)
        genexe = wd / ("%s-instr" % prog)
        run([CLANG, "-fprofile-generate", *objs, "-o", genexe, *libs])
        rawdir = wd / "profraw"
        shutil.rmtree(rawdir, ignore_errors=True)
        rawdir.mkdir()
        ENV["LLVM_PROFILE_FILE"] = str(rawdir / "%p.profraw")
        log("# training run: %s" % " ".join(" ".join(a) for a, _, _ in train_steps))
        t0 = time.perf_counter()
        res, errs, _, _ = run_workload(train_steps, genexe, wd / "scratch-train")
        info["train_seconds_instrumented"] = round(time.perf_counter() - t0, 3)
        del ENV["LLVM_PROFILE_FILE"]
        if any(rc != 0 for rc, _ in res):
            raise RuntimeError("training run failed: %s %s" % (res, errs))
        run([PROFDATA, "merge", "-o", prof, *sorted(rawdir.glob("*.profraw"))])

    # PGO module
    pgo = wd / "pgo.bc"
    if need_pgo and not pgo.exists():
        pbc = wd / "pgo-bc"

        def cc_use(m):
            o = pbc / m
            o.parent.mkdir(parents=True, exist_ok=True)
            run(rewrite(by_rel[m], o, extra=["-fprofile-use=%s" % prof]))
            return o
        run([LINK, *pmap(jobs, cc_use, mods), "-o", pgo])

    # builds
    modules = {"plain": plain, "pgo": pgo}
    exes = {}

    def one(b):
        name, mod, args, _ = b
        bc, obj, exe, rep = wd / (name + ".bc"), wd / (name + ".o"), wd / name, wd / (name + ".report.json")
        if not exe.exists():
            words = [] if args is None else [a for a in args if not a.startswith("@")]
            env = dict(a[1:].split("=", 1) for a in (args or []) if a.startswith("@"))
            extra = ["--bisect-limit", "0", "--no-measure"] if args is None else ["--report", rep] + words
            t0 = time.perf_counter()
            run([fmerge, "opt", modules[mod], *extra, "-q", "-o", bc], env=dict(ENV, **env))
            (wd / (name + ".fmerge-seconds")).write_text("%.3f" % (time.perf_counter() - t0))
            run([LLC, "-O2", "-relocation-model=pic", "-filetype=obj", bc, "-o", obj])
            run([CLANG, obj, "-o", exe, *libs])
        return name, exe
    # fmerge itself is multi-threaded: run the builds one after the other
    for b in builds:
        exes.update([one(b)])
    return exes, info


def report_summary(wd, name):
    p = wd / (name + ".report.json")
    if not p.exists():
        return None
    r = json.loads(p.read_text())
    ms = r.get("merges", [])
    by_stage = {}
    for m in ms:
        by_stage[m["stage"]] = by_stage.get(m["stage"], 0) + 1
    return dict(merges=len(ms), by_stage=by_stage, profile=r.get("profile"),
                functions_before=r.get("functions_before"), functions_after=r.get("functions_after"))


# --------------------------------------------------------------------------- annotate

def annotate(prog, wd, exes, steps, pairs, jobs, top=12):
    """Per-function Ir deltas (callgrind_annotate) of merged builds vs references."""
    outs = {}

    def cg(name):
        f = wd / ("cg." + name)  # written by the instruction-count run
        per = {}
        for i in range(len(steps)):
            txt = run(["callgrind_annotate", "--threshold=100", "--inclusive=no", "%s.%d" % (f, i)], quiet=True).stdout
            for line in txt.splitlines():
                m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(\S+)", line) or re.match(r"\s*([\d,]+)\s+\S*?:(\S+)", line)
                if m:
                    fn = re.sub(r"'\d+$", "", m.group(2))  # callgrind recursion-depth suffix
                    per[fn] = per.get(fn, 0) + int(m.group(1).replace(",", ""))
        return name, per
    names = sorted({n for p in pairs for n in p})
    outs = dict(pmap(jobs, cg, names))
    result = {}
    for merged, ref in pairs:
        rep = json.loads((wd / (merged + ".report.json")).read_text())
        owner = {}
        for m in rep.get("merges", []):
            desc = "%s#%d %s" % (m["stage"], m["seq"], "+".join(m["originals"]))
            owner[m["body"]] = desc
            for mem in m.get("members", []):
                owner.setdefault(mem["name"], desc)
        a, b = outs[ref], outs[merged]
        # attribute each merge's cost: Ir of its body + thunks in merged - Ir of originals in ref
        per_merge = []
        for m in rep.get("merges", []):
            names_m = set(m["originals"]) | {m["body"]} | {x["name"] for x in m.get("members", [])}
            after = sum(b.get(n, 0) for n in names_m)
            before = sum(a.get(n, 0) for n in m["originals"])
            if after or before:
                per_merge.append(dict(seq=m["seq"], stage=m["stage"], originals=m["originals"], body=m["body"],
                                      entry_counts=m.get("entry_counts"), ir_before=before, ir_after=after,
                                      delta=after - before))
        per_merge.sort(key=lambda x: -x["delta"])
        fdelta = sorted(((b.get(f, 0) - a.get(f, 0), f) for f in set(a) | set(b)), reverse=True)
        result["%s vs %s" % (merged, ref)] = dict(
            merges=per_merge[:top],
            functions=[dict(function=f, delta=d, before=a.get(f, 0), after=b.get(f, 0), merge=owner.get(f))
                       for d, f in fdelta[:top]])
    return result


# --------------------------------------------------------------------------- main

def main(argv):
    ap = common.parser("speed", __doc__.split("\n")[0])
    ap.add_argument("programs", nargs="*", default=workload_programs())
    ap.add_argument("--out", default=str(ROOT / "build" / "speed"))
    ap.add_argument("--fmerge", default=None, help="fmerge binary (default OUT/fmerge if there, else $FMERGE)")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--percentiles", default="", help="extra --hot-percentile builds, comma-separated")
    ap.add_argument("--budgets", default="0.1,1,2", help="extra --max-slowdown builds ('' for none)")
    ap.add_argument("--per-kb", default="", help="extra --max-slowdown-per-kb builds, comma-separated")
    ap.add_argument("--only-pgo", action="store_true",
                    help="leave out the builds without a profile (base, fmerge): pgo-base is then the first "
                         "build, the reference of the behaviour check and of --noise")
    ap.add_argument("--no-pgo", action="store_true",
                    help="leave out the profile and every build that needs it (only base, fmerge and --extra)")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=ARGS",
                    help="one more build of the module without a profile: fmerge opt ARGS (shell words; a word "
                         "@VAR=VALUE sets VAR in fmerge's environment), against base; repeatable")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--annotate", action="store_true", help="per-function/per-merge Ir deltas (callgrind_annotate)")
    ap.add_argument("--noise", type=int, default=2,
                    help="extra callgrind runs of the base build: the run-to-run spread of the instruction count "
                         "(programs that seed hashes from time/addresses, like Lua, are not exactly repeatable)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)

    out = common.work_dir(args.out, "speed")
    log("# %s  %s" % (time.strftime("%Y-%m-%d %H:%M:%S"), " ".join(map(shlex.quote, sys.argv))))
    snapshot = out / "fmerge"
    fmerge = Path(args.fmerge or (snapshot if snapshot.exists() else common.fmerge_bin())).resolve()
    builds = (BUILDS + budget_builds([b for b in args.budgets.split(",") if b])
              + per_kb_builds([k for k in args.per_kb.split(",") if k])
              + percentile_builds([p for p in args.percentiles.split(",") if p]))
    for e in args.extra:
        name, _, words = e.partition("=")
        builds.append((name, "plain", shlex.split(words), "base"))
    if args.only_pgo:
        builds = [(n, m, a, None if r == "base" else r) for n, m, a, r in builds if m == "pgo"]
    if args.no_pgo:
        builds = [b for b in builds if b[1] == "plain"]
    progs = programs(out / "data")
    t_start = time.time()
    all_res = dict(machine=dict(nproc=os.cpu_count(), loadavg=os.getloadavg(), uname=" ".join(os.uname())),
                   fmerge=str(fmerge), rounds=args.rounds, programs={})

    for prog in args.programs:
        wd = out / prog
        wd.mkdir(parents=True, exist_ok=True)
        log("\n## %s" % prog)
        t0 = time.time()
        spec = progs[prog]
        try:
            train, timing = spec["train"](), spec["timing"]()
            exes, info = build_program(prog, wd, fmerge, builds, args.jobs, train)
        except Exception as e:  # keep going with the other programs
            log("!!! %s: build failed: %s" % (prog, e))
            all_res["programs"][prog] = dict(error=str(e))
            continue
        pr = dict(info=info, training=[" ".join(a) for a, _, _ in train], timing=[" ".join(a) for a, _, _ in timing],
                  builds={})
        # behaviour check + .text
        ref_out = None
        for name, mod, fargs, ref in builds:
            res, errs, wall, _ = run_workload(timing, exes[name], wd / ("scratch-" + name))
            if ref_out is None:
                ref_out = res
            ok = res == ref_out and all(rc == 0 for rc, _ in res)
            if not ok:
                log("!!!!!!!! OUTPUT DIFFERS: %s %s: %s vs base %s\n%s" % (prog, name, res, ref_out, "".join(errs)[-2000:]))
            fs = wd / (name + ".fmerge-seconds")
            pr["builds"][name] = dict(module=mod, fmerge_args=fargs, reference=ref, text=common.text_bytes(exes[name]),
                                      output_ok=ok, outputs=res, report=report_summary(wd, name),
                                      fmerge_seconds=float(fs.read_text()) if fs.exists() else None)
        # instructions
        if not args.no_callgrind:
            log("# callgrind (valgrind --tool=callgrind --callgrind-out-file=/dev/null, or OUT/P/cg.BUILD.N with --annotate) on %d builds" % len(builds))
            counts = dict(pmap(args.jobs, lambda b: (b[0], callgrind(timing, exes[b[0]], wd / ("scratch-cg-" + b[0]),
                                                                   outfile=wd / ("cg." + b[0]) if args.annotate else None)), builds))
            for n, c in counts.items():
                pr["builds"][n]["instructions"] = c
            if args.noise:
                first = builds[0][0]
                rep = pmap(args.jobs, lambda i: callgrind(timing, exes[first], wd / ("scratch-noise%d" % i)), range(args.noise))
                allc = [counts[first]] + rep
                pr["instructions_noise"] = dict(base_runs=allc, spread=(max(allc) - min(allc)) / min(allc))
        # wall time: rotate the order every round
        names = [b[0] for b in builds]
        walls = {n: [] for n in names}
        cpus = {n: [] for n in names}
        for n in rotated_rounds(names, args.rounds):
            _, _, w, c = run_workload(timing, exes[n], wd / ("scratch-" + n))
            walls[n].append(w)
            cpus[n].append(c)
        for name, mod, fargs, ref in builds:
            b = pr["builds"][name]
            b["wall"] = walls[name]
            b["cpu"] = cpus[name]
            b["wall_median"] = statistics.median(walls[name]) if walls[name] else 0.0
            b["cpu_median"] = statistics.median(cpus[name]) if cpus[name] else 0.0
            if ref and walls[name]:
                for key, ts in (("wall", walls), ("cpu", cpus)):
                    ratios = [x / y for x, y in zip(ts[name], ts[ref])]
                    lo, hi = boot_median_ci(ratios)
                    b[key + "_ratio_median"] = statistics.median(ratios)
                    b[key + "_ratio_ci95"] = [lo, hi]
        if args.annotate and not args.no_callgrind:
            pairs = [("fmerge", "base"), ("pgo-ignore", "pgo-base"), ("pgo-fmerge", "pgo-base")]
            pairs += [(b[0], "base") for b in builds if b[0] not in ("base", "fmerge") and b[1] == "plain"]
            pairs = [p for p in pairs if p[0] in exes and p[1] in exes]
            pr["annotate"] = annotate(prog, wd, exes, timing, pairs, args.jobs)
        pr["seconds"] = round(time.time() - t0, 1)
        all_res["programs"][prog] = pr
        log(render_program(prog, pr))
        if args.json:
            Path(args.json).write_text(json.dumps(all_res, indent=1))

    all_res["seconds"] = round(time.time() - t_start, 1)
    md = render_all(all_res)
    log(md)
    if args.json:
        Path(args.json).write_text(json.dumps(all_res, indent=1))
    if args.md:
        Path(args.md).write_text(md)


def pct(x):
    return "%+.2f%%" % (100 * x)


def render_program(prog, pr):
    B = pr["builds"]
    lines = ["\n### %s\n" % prog,
             "timing: `%s`; training: `%s`\n" % ("; ".join(pr["timing"]), "; ".join(pr["training"])),
             "| build | vs | merges | .text | saved | bytes kept | instructions | instr. change | wall median (s) | wall slowdown [95% CI] | cpu slowdown [95% CI] | output |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    ign = B.get("pgo-ignore")
    for n, b in B.items():
        ref = B.get(b["reference"]) if b["reference"] else None
        saved = ref["text"] - b["text"] if ref else None
        kept = ""
        if n.startswith("pgo-") and n not in ("pgo-base",) and ign and ref:
            full = ref["text"] - ign["text"]
            kept = "%.1f%%" % (100 * saved / full) if full else "n/a"
        ins = b.get("instructions")
        dins = pct(ins / ref["instructions"] - 1) if ref and ins and ref.get("instructions") else ""
        ws = cs = ""
        if ref and "wall_ratio_median" in b:
            ws = "%s [%s, %s]" % (pct(b["wall_ratio_median"] - 1), pct(b["wall_ratio_ci95"][0] - 1), pct(b["wall_ratio_ci95"][1] - 1))
            cs = "%s [%s, %s]" % (pct(b["cpu_ratio_median"] - 1), pct(b["cpu_ratio_ci95"][0] - 1), pct(b["cpu_ratio_ci95"][1] - 1))
        rep = b.get("report")
        lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %.3f | %s | %s | %s |" % (
            n, b["reference"] or "", rep["merges"] if rep else 0, b["text"], "" if saved is None else saved, kept,
            "{:,}".format(ins) if ins else "", dins, b["wall_median"], ws, cs, "ok" if b["output_ok"] else "**DIFFERS**"))
    if pr.get("instructions_noise"):
        lines.append("\nrun-to-run spread of the base build's instruction count (%d callgrind runs): %.3f%%" % (
            len(pr["instructions_noise"]["base_runs"]), 100 * pr["instructions_noise"]["spread"]))
    prof = (B.get("pgo-fmerge", {}).get("report") or {}).get("profile")
    if prof:
        lines.append("\nprofile record (pgo-fmerge): `%s`" % json.dumps(prof)[:600])
    if "annotate" in pr:
        for k, v in pr["annotate"].items():
            lines.append("\nmost expensive merges, %s (Ir of body+thunks after - Ir of originals before):\n" % k)
            for m in v["merges"][:8]:
                lines.append("- #%d %s %s -> %s: %+d Ir (%d -> %d) entry_counts=%s" % (
                    m["seq"], m["stage"], "+".join(m["originals"]), m["body"], m["delta"], m["ir_before"], m["ir_after"], m["entry_counts"]))
    return "\n".join(lines)


def render_all(res):
    out = ["# fmerge runtime cost (fmbench speed)\n",
           "machine: %s, %d CPUs, load average at start %s (shared box: wall times are noisy; instructions are exact)\n" % (
               res["machine"]["uname"], res["machine"]["nproc"], "/".join("%.1f" % x for x in res["machine"]["loadavg"])),
           "rounds: %d; total run time %s s\n" % (res["rounds"], res.get("seconds", "?"))]
    for prog, pr in res["programs"].items():
        out.append(render_program(prog, pr) if "builds" in pr else "\n### %s\n\nFAILED: %s\n" % (prog, pr["error"][:500]))
    # corpus totals
    tot = {}
    for prog, pr in res["programs"].items():
        if "builds" not in pr:
            continue
        for n, b in pr["builds"].items():
            tot.setdefault(n, 0)
            tot[n] += b["text"]
    if "pgo-ignore" in tot:
        full = tot["pgo-base"] - tot["pgo-ignore"]
        out.append("\n### corpus total (programs above)\n\n| build | .text | saved vs its reference | bytes kept | worst instr. change | worst wall slowdown (median) |\n|---|---:|---:|---:|---:|---:|")
        for n in tot:
            ref = {"fmerge": "base", "pgo-base": "base"}.get(n, "pgo-base") if n != "base" else None
            ref = ref if ref in tot else None  # --only-pgo: no base
            saved = tot[ref] - tot[n] if ref else None
            kept = "%.1f%%" % (100 * saved / full) if n.startswith("pgo-") and n != "pgo-base" and full else ""
            worst_i = worst_w = None
            for prog, pr in res["programs"].items():
                b = pr.get("builds", {}).get(n)
                if not b or not ref:
                    continue
                r = pr["builds"][ref]
                if b.get("instructions") and r.get("instructions"):
                    x = b["instructions"] / r["instructions"] - 1
                    if worst_i is None or x > worst_i[0]:
                        worst_i = (x, prog)
                x = b["wall_ratio_median"] - 1
                if worst_w is None or x > worst_w[0]:
                    worst_w = (x, prog)
            out.append("| %s | %d | %s | %s | %s | %s |" % (n, tot[n], "" if saved is None else saved, kept,
                       "%s (%s)" % (pct(worst_i[0]), worst_i[1]) if worst_i else "",
                       "%s (%s)" % (pct(worst_w[0]), worst_w[1]) if worst_w else ""))
    return "\n".join(out)

