"""`fmbench plugin`: fmerge as an lld pass plugin: code size, link time and behaviour on the C/C++ corpus.

What it measures
----------------
For every C/C++ program of the benchmark corpus (`fmbench corpus`; sqlite, lua, quickjs, zstd,
bzip2, xz, leveldb -- whichever have been built under build/corpus/) this

 1. recompiles the program's translation units as LLVM bitcode: every native compile command
    recorded in build/corpus/P/native-commands.txt (`clang-22 -Os -g0 -w ... -c SRC -o OBJ`)
    is run again with `-flto` added and `-o` redirected into build/plugin-bench/P/obj/;
 2. links them with full LTO in lld, exactly as the corpus links the native program (same
    driver -- clang-22, or clang++-22 for C++ -- same object order, same libraries) plus
    `-Os -flto -fuse-ld=lld`, twice:
        base:   clang-22 -Os -flto -fuse-ld=lld OBJS -o P.base LIBS
        plugin: clang-22 -Os -flto -fuse-ld=lld -Wl,--load-pass-plugin=PLUGIN OBJS -o P.plugin LIBS
    With the plugin, fmerge runs at the end of lld's full-LTO optimization pipeline, before
    code generation.  Its options travel in the environment variable FMERGE_PLUGIN_OPTIONS
    (lld parses -mllvm before it loads plugins); this script sets
    "-fmerge-verbose -fmerge-report=build/plugin-bench/P/report.json" (plus --plugin-options)
    for the plugin links and removes the variable for the base links.
    Each link is run --runs times (default 3), base and plugin alternating, and the best and
    the median wall time are recorded.  The machine is shared (2 cores), so link times are
    noisy: compare the best-of-N numbers and treat differences under ~5% as noise.  Every run
    of a link must produce a byte-identical executable (checked; a difference is reported as
    nondeterminism).
 3. reads the size of the .text section of both executables (parsed from the ELF section
    headers, read by llvm-size-22 -A; only .text, not .plt/.init/.fini).  Optionally (default on, --no-icf to skip)
    both links are repeated once with `-Wl,--icf=all` (lld's identical code folding; lld
    always uses per-function sections in LTO code generation) to show how much of fmerge's
    saving overlaps with ICF.  The ICF executables are measured, not smoke-tested.
 4. runs the program's smoke workload on both executables with the corpus' own checker:
        python3 bench/fmbench corpus --out build/corpus smoke P --exe EXE
    which runs every case of bench/corpus/smoke/ + the program's built-in cases and compares
    stdout, stderr and exit status byte for byte with the reference outputs recorded from the
    native build (build/corpus/P/expected/).  Both executables are compared with the same
    reference, so "all passed" for both means their observable behaviour is identical.  Any
    failing case is printed verbatim and makes the exit status 1.

Output: a Markdown table (stdout, or --markdown FILE) headed by the exact commands used, and
with --json FILE the raw numbers (every run's time, section sizes, lld's stderr, smoke
output).  Exit status 0 when every link succeeded and every smoke case passed, 1 otherwise.

Usage
-----
  fmbench plugin                       # all built C/C++ programs
  fmbench plugin lua sqlite --runs 5 --json build/plugin-bench/r.json
  fmbench plugin --plugin /path/libfmerge_plugin.so --no-icf

The plugin is copied from target/release/libfmerge_plugin.so to
build/plugin-bench/libfmerge_plugin.so at start (so that a concurrent `cargo build` cannot
change it mid-run) unless --plugin names one to use as is.  The bitcode objects are reused
when the recorded compile commands are unchanged (--rebuild forces recompiling).  The corpus
must be built first (`fmbench corpus build P`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

from . import common, programs
from .common import REPO as ROOT, rel

C_PROGRAMS = programs.C_CXX
VERBOSE_LINE = re.compile(r"^fmerge: .*$", re.M)
FMERGE_SECONDS = re.compile(r", ([\d.]+)s$")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------
# step 1: bitcode objects


def lto_compile_commands(name: str, corpus_out: Path, objdir: Path) -> list[tuple[list[str], Path]]:
    """The native compile commands of the corpus with -flto added and -o redirected."""
    native_obj = corpus_out / name / "native" / "obj"
    res = []
    for line in (corpus_out / name / "native-commands.txt").read_text().splitlines():
        if not line.strip():
            continue
        argv = shlex.split(line)
        i = argv.index("-o")
        out = objdir / Path(argv[i + 1]).relative_to(native_obj)
        argv = [argv[0], "-flto", *argv[1:i], "-o", str(out), *argv[i + 2:]]
        res.append((argv, out))
    return res


def compile_objects(name: str, cmds: list[tuple[list[str], Path]], src: Path, pdir: Path,
                    jobs: int, rebuild: bool) -> tuple[float, bool]:
    """-> (seconds, reused).  Reuses the objects when the commands are unchanged."""
    stamp = pdir / "lto-commands.txt"
    text = "".join(shlex.join(c) + "\n" for c, _ in cmds)
    if not rebuild and stamp.exists() and stamp.read_text() == text and all(o.exists() for _, o in cmds):
        common.log(f"{name}: reusing {len(cmds)} bitcode objects (commands unchanged)")
        return 0.0, True
    common.log(f"{name}: compiling {len(cmds)} translation units with -flto")
    stamp.unlink(missing_ok=True)
    for _, o in cmds:
        o.parent.mkdir(parents=True, exist_ok=True)

    t0 = time.time()
    common.pmap(jobs, lambda c: common.run(c[0], cwd=src, merge_stderr=True), cmds)
    stamp.write_text(text)
    return time.time() - t0, False


# ---------------------------------------------------------------------------
# step 2: links


def link_command(prog, objs: list[Path], exe: Path, plugin: Path | None, icf: bool) -> list[str]:
    cmd = [prog.linker, "-Os", "-flto", "-fuse-ld=lld"]
    if plugin:
        cmd.append(f"-Wl,--load-pass-plugin={plugin}")
    if icf:
        cmd.append("-Wl,--icf=all")
    return [*cmd, *map(str, objs), "-o", str(exe), *prog.libs]


def link_once(cmd: list[str], plugin_options: str | None, cwd: Path) -> dict:
    """One link, FMERGE_PLUGIN_OPTIONS set to `plugin_options` (None: unset)."""
    p = common.run(cmd, cwd=cwd, env={"FMERGE_PLUGIN_OPTIONS": plugin_options}, check=False)
    return {"seconds": p.seconds, "rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


# ---------------------------------------------------------------------------
# step 4: smoke


def run_smoke(name: str, exe: Path, corpus_out: Path) -> dict:
    s = common.smoke(name, ["--exe", exe], out=corpus_out)
    res = {"rc": s.result.returncode, "seconds": s.result.seconds, "passed": s.passed, "failed": s.failed,
           "output": s.result.stderr + s.result.stdout}
    res["ok"] = s.ok and s.passed is not None and s.failed == 0
    return res


# ---------------------------------------------------------------------------


def bench_program(name: str, args, plugin: Path) -> dict:
    prog = programs.get_program(name)
    corpus_out = Path(args.corpus).resolve()
    pdir = Path(args.work).resolve() / name
    objdir = pdir / "obj"
    pdir.mkdir(parents=True, exist_ok=True)
    r: dict = {"program": name, "kind": prog.kind, "errors": []}

    cmds = lto_compile_commands(name, corpus_out, objdir)
    r["compile_s"], r["compile_reused"] = compile_objects(name, cmds, prog.src, pdir, args.jobs, args.rebuild)
    r["translation_units"] = len(cmds)
    objs = [o for _, o in cmds]

    report = pdir / "report.json"
    opts = f"-fmerge-verbose -fmerge-report={report}" + (f" {args.plugin_options}" if args.plugin_options else "")
    variants = {"base": (None, False), "plugin": (plugin, False)}
    if args.icf:
        variants |= {"base_icf": (None, True), "plugin_icf": (plugin, True)}
    r["variants"] = {}
    for v, (plug, icf) in variants.items():
        exe = pdir / f"{name}.{v}"
        exe.unlink(missing_ok=True)
        r["variants"][v] = {"command": link_command(prog, objs, exe, plug, icf), "exe": str(exe),
                            "env": {"FMERGE_PLUGIN_OPTIONS": opts} if plug else {}, "runs": []}

    # base and plugin alternate so that a change in machine load hits both alike; the ICF
    # variants are linked once (sizes only)
    order = []
    for i in range(args.runs):
        order += ["base", "plugin"]
        if i == 0 and args.icf:
            order += ["base_icf", "plugin_icf"]
    for v in order:
        d = r["variants"][v]
        if d.get("failed"):
            continue
        run = link_once(d["command"], opts if v.startswith("plugin") else None, prog.src)
        common.log(f"{name}: link {v:10} {run['seconds']:7.2f}s" + ("" if run["rc"] == 0 else f"  FAILED rc={run['rc']}"))
        exe = Path(d["exe"])
        if run["rc"] == 0:
            run["sha256"] = sha256(exe)
        d["runs"].append(run)
        if run["rc"] != 0:
            d["failed"] = True
            r["errors"].append(f"{v} link failed (rc {run['rc']}): {shlex.join(d['command'])}\n"
                               f"{run['stderr']}{run['stdout']}")

    for v, d in r["variants"].items():
        ok = [x for x in d["runs"] if x["rc"] == 0]
        if not ok or d.get("failed"):
            continue
        times = [x["seconds"] for x in ok]
        d["link_s_best"], d["link_s_median"] = min(times), statistics.median(times)
        if len({x["sha256"] for x in ok}) > 1:
            r["errors"].append(f"{v}: links are not deterministic (sha256 {sorted({x['sha256'] for x in ok})})")
        secs = common.sections(Path(d["exe"]))
        d["sections"] = secs
        d["text_bytes"] = secs.get(".text", 0)
        d["file_bytes"] = Path(d["exe"]).stat().st_size
        # anything lld / the plugin printed besides fmerge's own -fmerge-verbose summary line
        d["fmerge_lines"] = [VERBOSE_LINE.findall(x["stderr"]) for x in ok]  # per run
        d["other_stderr"] = sorted({ln for x in ok for ln in x["stderr"].splitlines()
                                    if ln.strip() and not VERBOSE_LINE.fullmatch(ln)})
    if report.exists():
        try:
            rep = json.loads(report.read_text())
            # fmerge's own view of the module: function counts, its .text measurement
            r["report"] = {k: rep.get(k) for k in ("functions_before", "functions_after",
                                                    "text_bytes_before", "text_bytes_after")}
            r["report"]["merges"] = len(rep.get("merges", []))
        except ValueError as e:
            r["errors"].append(f"cannot parse {report}: {e}")

    if not args.no_smoke:
        r["smoke"] = {}
        for v in ("base", "plugin"):
            d = r["variants"][v]
            if d.get("failed"):
                continue
            common.log(f"{name}: smoke workload on {name}.{v}")
            s = run_smoke(name, Path(d["exe"]), corpus_out)
            r["smoke"][v] = s
            if not s["ok"]:
                r["errors"].append(f"{v}: smoke workload FAILED (rc {s['rc']}, {s['passed']} passed, "
                                   f"{s['failed']} failed):\n{s['output']}")
    return r


def pct(a: int, b: int) -> str:
    return f"{(b - a) * 100.0 / a:+.2f}%" if a else "n/a"


def markdown(results: list[dict], args, plugin: Path, total_s: float) -> str:
    work = Path(args.work).resolve()
    lines = [
        "# fmerge lld pass plugin on the C/C++ corpus",
        "",
        f"Plugin: `{rel(plugin)}` (sha256 {sha256(plugin)[:16]}). "
        f"Runs per link: {args.runs} (base and plugin alternating; best and median wall time). "
        f"Machine: {os.cpu_count()} cores, shared, so link times are noisy. Total run time {total_s:.0f} s.",
        "",
        "Commands (per program P; OBJS = the objects below, LIBS = the corpus' libraries for P, "
        "the driver is clang++-22 for C++ programs):",
        "",
        "```sh",
        "# 1. bitcode objects: every line of build/corpus/P/native-commands.txt with -flto added",
        f"clang-22 -flto -Os -g0 -w FLAGS... -c SRC -o {rel(work)}/P/obj/REL.o",
        "# 2. links",
        f"clang-22 -Os -flto -fuse-ld=lld OBJS -o {rel(work)}/P/P.base LIBS",
        f"FMERGE_PLUGIN_OPTIONS='-fmerge-verbose -fmerge-report={rel(work)}/P/report.json"
        + (f" {args.plugin_options}" if args.plugin_options else "") + "' \\",
        f"  clang-22 -Os -flto -fuse-ld=lld -Wl,--load-pass-plugin={plugin} OBJS -o {rel(work)}/P/P.plugin LIBS",
    ]
    if args.icf:
        lines.append("#    and both again with -Wl,--icf=all (P.base_icf, P.plugin_icf; linked once, not smoke-tested)")
    lines += [
        "# 3. .text = size of the .text section (llvm-size-22 -A)",
        "# 4. behaviour: compare with the native build's reference outputs",
        f"python3 bench/fmbench corpus --out {rel(args.corpus)} smoke P --exe {rel(work)}/P/P.base   # and P.plugin",
        "```",
        "",
        "| program | .text without | .text with | change | link s without | link s with | smoke passed (without / with) |"
        + (" .text ICF without | .text ICF with | change (ICF) |" if args.icf else ""),
        "|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if args.icf else ""),
    ]

    def t(d: dict, k: str, fmt: str = "{}") -> str:
        return fmt.format(d[k]) if k in d else "FAILED"

    def smoke_cell(r: dict, v: str) -> str:
        s = r.get("smoke", {}).get(v)
        if s is None:
            return "not run"
        if s["passed"] is None:
            return f"ERROR rc={s['rc']}"
        n = s["passed"] + s["failed"]
        return f"{s['passed']}/{n}" + ("" if s["failed"] == 0 else " **FAIL**")

    for r in results:
        if "variants" not in r:
            lines.append(f"| {r['program']} | ERROR | | | | | |" + (" | | |" if args.icf else ""))
            continue
        b, p = r["variants"]["base"], r["variants"]["plugin"]
        change = pct(b["text_bytes"], p["text_bytes"]) if "text_bytes" in b and "text_bytes" in p else "-"
        link = lambda d: (f"{d['link_s_best']:.2f} (med {d['link_s_median']:.2f})"  # noqa: E731
                          if "link_s_best" in d else "FAILED")
        row = (f"| {r['program']} | {t(b, 'text_bytes')} | {t(p, 'text_bytes')} | {change} | {link(b)} | {link(p)} "
               f"| {smoke_cell(r, 'base')} / {smoke_cell(r, 'plugin')} |")
        if args.icf:
            bi, pi = r["variants"]["base_icf"], r["variants"]["plugin_icf"]
            ci = pct(bi["text_bytes"], pi["text_bytes"]) if "text_bytes" in bi and "text_bytes" in pi else "-"
            row += f" {t(bi, 'text_bytes')} | {t(pi, 'text_bytes')} | {ci} |"
        lines.append(row)
    tot = [r for r in results if all("text_bytes" in r.get("variants", {}).get(v, {}) for v in ("base", "plugin"))]
    if tot:
        sb = sum(r["variants"]["base"]["text_bytes"] for r in tot)
        sp = sum(r["variants"]["plugin"]["text_bytes"] for r in tot)
        lines.append(f"| **total** | {sb} | {sp} | {pct(sb, sp)} | | | |" + (" | | |" if args.icf else ""))
    lines += ["", "fmerge's summary lines (-fmerge-verbose) from the plugin links:", ""]
    for r in results:
        runs = r.get("variants", {}).get("plugin", {}).get("fmerge_lines", [])
        if not runs:
            continue
        # the last run's line; the time fmerge reports differs from run to run: list them all
        secs = [m.group(1) for run in runs for ln in run if (m := FMERGE_SECONDS.search(ln))]
        for ln in runs[-1]:
            lines.append(f"- {r['program']}: `{ln}`" + (f" (fmerge s in the {len(secs)} runs: {', '.join(secs)})"
                                                       if len(secs) > 1 else ""))
    other = [(r["program"], v, ln) for r in results for v, d in r.get("variants", {}).items()
             for ln in d.get("other_stderr", [])]
    lines += ["", "Other linker/plugin stderr output: " + ("none." if not other else "")]
    for prog, v, ln in other:
        lines.append(f"- {prog} ({v}): `{ln}`")
    errs = [(r["program"], e) for r in results for e in r.get("errors", [])]
    lines += ["", "Errors: " + ("none." if not errs else f"**{len(errs)}**")]
    for prog, e in errs:
        lines += ["", f"{prog}:", "```", e.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    common.setup_log("plugin-bench")
    ap = common.parser("plugin", __doc__)
    ap.add_argument("programs", nargs="*", help=f"default: those of {' '.join(C_PROGRAMS)} built in --corpus")
    ap.add_argument("--plugin", help="use this plugin as is (default: a copy of target/release/libfmerge_plugin.so "
                    "in --work)")
    ap.add_argument("--corpus", default=str(common.corpus_out()), help="corpus build dir (default: %(default)s)")
    ap.add_argument("--work", default=str(ROOT / "build" / "plugin-bench"), help="work dir (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=3, help="links per variant (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel compiles (default: %(default)s)")
    ap.add_argument("--plugin-options", default="", help="extra FMERGE_PLUGIN_OPTIONS for the plugin links")
    ap.add_argument("--no-icf", dest="icf", action="store_false", help="skip the -Wl,--icf=all variants")
    ap.add_argument("--no-smoke", action="store_true", help="skip the smoke workloads")
    ap.add_argument("--rebuild", action="store_true", help="recompile the bitcode objects even if unchanged")
    ap.add_argument("--json", help="write the raw numbers here")
    ap.add_argument("--markdown", help="write the Markdown table here (default: stdout)")
    args = ap.parse_args(argv)

    t_start = time.time()
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.plugin:
        plugin = Path(args.plugin).resolve()
    else:
        src = common.plugin_lib()
        plugin = work / "libfmerge_plugin.so"
        shutil.copy2(src, plugin)
        common.log(f"copied {rel(src)} -> {rel(plugin)}")
    if not plugin.exists():
        raise SystemExit(f"plugin {plugin} not found")

    corpus_out = Path(args.corpus).resolve()
    names = args.programs or [n for n in C_PROGRAMS if (corpus_out / n / "native-commands.txt").exists()]
    for n in names:
        if n not in C_PROGRAMS:
            raise SystemExit(f"{n}: only the C/C++ programs can be linked this way ({' '.join(C_PROGRAMS)})")
        if not (corpus_out / n / "native-commands.txt").exists() or not (corpus_out / n / "expected").exists():
            raise SystemExit(f"{n}: not built in {corpus_out} (run: python3 bench/fmbench corpus build {n})")
    common.log(f"programs: {' '.join(names)}; plugin {plugin} (sha256 {sha256(plugin)[:16]})")

    results = []
    for n in names:
        t0 = time.time()
        try:
            r = bench_program(n, args, plugin)
        except Exception as e:  # a compile error etc.: report it, go on with the next program
            r = {"program": n, "errors": [f"{type(e).__name__}: {e}"]}
        r["total_s"] = time.time() - t0
        for e in r["errors"]:
            common.log(f"{n}: ERROR: {e}")
        results.append(r)
    total = time.time() - t_start

    md = markdown(results, args, plugin, total)
    if args.markdown:
        Path(args.markdown).write_text(md)
        common.log(f"wrote {args.markdown}")
    print(md)
    if args.json:
        doc = {"plugin": str(plugin), "plugin_sha256": sha256(plugin), "runs": args.runs, "cpus": os.cpu_count(),
               "argv": sys.argv, "total_s": total, "results": results}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
        common.log(f"wrote {args.json}")
    failed = [r["program"] for r in results if r["errors"]]
    if failed:
        common.log(f"FAILED: {' '.join(failed)}")
    common.log(f"total {total:.0f}s")
    return 1 if failed else 0
