"""`fmbench linkcost`: what the fmerge pass plugin adds to a link: wall time and peak memory.

What it measures
----------------
For every corpus program with per-file bitcode (`fmbench corpus build P` leaves the modules
named in build/corpus/P/modules.json: the C/C++ translation units under bc/, compiled with
`clang-22 -Os -emit-llvm -c` as bc-commands.txt records; for the Rust programs the optimized
bitcode of every codegen unit of every crate under cgu/, with the sysroot's std rlibs as
native archives) this links the program with ld.lld-22, without the plugin and with each
plugin given (`--plugin`, default target/release/libfmerge_plugin.so), and records the wall
time and the peak resident memory of the link (the linker's, read with wait4).

 - full LTO, every program: the modules linked into one and optimized by lld's LTO pipeline;
   with the plugin, fmerge runs at the end of that pipeline on the whole program. rustc's
   codegen-unit bitcode carries a ThinLTO summary, which would make lld link it with
   ThinLTO, so for full LTO the Rust modules are first rewritten without it
   (`opt-22 M -o M'`: the same IR, no summary; kept in --work);
 - ThinLTO, the Rust programs: the codegen-unit modules as rustc wrote them (with their
   summaries); with the plugin, fmerge runs after the optimizer of each ThinLTO backend, on
   that backend's module (lld runs the backends on every core: --thinlto-jobs is lld's
   default).

The link command is the one clang-22's driver (clang++-22 for C++) runs for
`-Os -flto[=thin] -fuse-ld=lld` (`-###` gives it: crt files, library paths, `-plugin-opt=O2`,
`-pie`), with the placeholder object replaced by the modules (given to the driver, `.bc` files
would be compiled as sources one by one instead). The plugin is added as
`--load-pass-plugin=PLUGIN`; FMERGE_PLUGIN_OPTIONS is unset (the plugin's defaults: what a user
gets) unless --plugin-options sets it. Each configuration is linked --runs times (default 3);
in each round the configurations run one after another, so a change in the machine's load
hits them alike. The table shows the best wall time and the peak RSS of the best run, and the
plugin's addition to each in percent. Every run of one configuration must write the same
executable (checked), and a plugin link must print nothing (anything on stderr is listed).

Output: a Markdown table (stdout, or --markdown FILE) headed by the commands, and with --json
FILE every run's numbers; the JSON is rewritten after each program (a partial result survives
an interrupted run). Everything runs one link at a time (the machine has 2 shared cores).

Usage
-----
  fmbench linkcost                                   # every program built in --corpus
  fmbench linkcost zstd fd --modes full --json build/linkcost/r.json
  fmbench linkcost --plugin old=/path/a.so --plugin new=target/release/libfmerge_plugin.so
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import common, programs
from .common import REPO as ROOT, rel

PLACEHOLDER = "FMBENCH_MODULES.o"
# The goal: how much the plugin may add to a link's wall time, per LTO mode.
GOAL = {"full": 0.15, "thin": 0.20}


def driver_link_command(prog, thin: bool, exe: Path, archives: list[str], libs: list[str]) -> list[str]:
    """The ld.lld-22 command clang's driver would run, with PLACEHOLDER where the modules go."""
    group = ["-Wl,--start-group", *archives, "-Wl,--end-group"] if archives else []
    cmd = [prog.linker, "-###", "-Os", "-flto=thin" if thin else "-flto", "-fuse-ld=lld",
           f"--ld-path={shutil.which(common.LLD) or common.LLD}", PLACEHOLDER, *group, "-o", str(exe), *libs]
    (exe.parent / PLACEHOLDER).touch()  # -### wants its inputs to exist
    p = common.run(cmd, cwd=exe.parent)
    line = [ln for ln in p.stderr.splitlines() if PLACEHOLDER in ln][-1]
    return shlex.split(line)


def full_lto_copies(mods: list[Path], out: Path) -> list[Path]:
    """The modules without their ThinLTO summaries (rustc's), so that lld links them in full LTO."""
    res = []
    for m in mods:
        o = out / m.name
        if not o.exists() or o.stat().st_mtime < m.stat().st_mtime:
            o.parent.mkdir(parents=True, exist_ok=True)
            common.run([common.OPT, m, "-o", o.with_suffix(".tmp")])
            o.with_suffix(".tmp").rename(o)
        res.append(o)
    return res


def link_once(cmd: list[str], env_options: str | None, logdir: Path, tag: str) -> dict:
    """One link: wall time, peak RSS (wait4: the largest of the process tree), exit status."""
    env = {k: v for k, v in os.environ.items() if k != "FMERGE_PLUGIN_OPTIONS"}
    if env_options is not None:
        env["FMERGE_PLUGIN_OPTIONS"] = env_options
    logdir.mkdir(parents=True, exist_ok=True)
    out, err = logdir / f"{tag}.stdout", logdir / f"{tag}.stderr"
    with open(out, "w") as o, open(err, "w") as e:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=o, stderr=e, env=env, cwd="/tmp")
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024.0,
            "rc": p.returncode,
            "stderr": (err.read_text(errors="replace") + out.read_text(errors="replace"))[-20000:]}


def options_for(args, config: str) -> str | None:
    """FMERGE_PLUGIN_OPTIONS of a plugin configuration: its own `--plugin-options NAME=...`, else
    the one given without a name, else unset."""
    given = dict(o.split("=", 1) if o.split("=", 1)[0] in args.labels else ("", o) for o in args.plugin_options)
    return given.get(config, given.get(""))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bench_mode(name: str, mode: str, mods: list[Path], man: dict, plugins: dict[str, Path], args) -> dict:
    prog = programs.get_program(name)
    pdir = Path(args.work).resolve() / name / mode
    pdir.mkdir(parents=True, exist_ok=True)
    r: dict = {"program": name, "mode": mode, "modules": len(mods), "errors": [], "configs": {}}
    configs = {"none": None, **plugins}
    for c, plugin in configs.items():
        exe = pdir / f"{name}.{c}"
        cmd = driver_link_command(prog, mode == "thin", exe, man["archives"], man["libs"])
        i = cmd.index(PLACEHOLDER)
        cmd[i:i + 1] = [str(m) for m in mods]
        if plugin:
            cmd.insert(1, f"--load-pass-plugin={plugin}")
        r["configs"][c] = {"command": cmd, "exe": str(exe), "runs": []}
    for k in range(args.runs):
        for c, d in r["configs"].items():
            if d.get("failed"):
                continue
            Path(d["exe"]).unlink(missing_ok=True)
            run = link_once(d["command"], options_for(args, c) if configs[c] else None, pdir / "logs", f"{c}.{k}")
            common.log(f"{name} {mode:4} {c:8} run {k + 1}: {run['seconds']:7.2f} s {run['cpu_s']:7.2f} s CPU "
                       f"{run['rss_mb']:7.0f} MB"
                       + ("" if run["rc"] == 0 else f"  FAILED rc={run['rc']}"))
            if run["rc"] == 0:
                run["sha256"] = sha256(Path(d["exe"]))
            else:
                d["failed"] = True
                r["errors"].append(f"{c}: link failed (rc {run['rc']}): {run['stderr'][-3000:]}")
            d["runs"].append(run)
    for c, d in r["configs"].items():
        ok = [x for x in d["runs"] if x["rc"] == 0]
        if not ok or d.get("failed"):
            continue
        best = min(ok, key=lambda x: x["seconds"])
        d["best_s"], d["best_rss_mb"] = best["seconds"], best["rss_mb"]
        d["best_cpu_s"] = min(x["cpu_s"] for x in ok)
        d["max_rss_mb"] = max(x["rss_mb"] for x in ok)
        d["stderr"] = sorted({ln for x in ok for ln in x["stderr"].splitlines() if ln.strip()})
        if len({x["sha256"] for x in ok}) > 1:
            r["errors"].append(f"{c}: the links are not deterministic")
        d["text_bytes"] = common.sections(Path(d["exe"])).get(".text", 0)
    return r


def pct(a: float, b: float) -> str:
    return f"{(b - a) * 100.0 / a:+.0f}%" if a else "n/a"


def markdown(results: list[dict], plugins: dict[str, Path], args, load: list[float], total: float) -> str:
    names = ", ".join(f"`{c}` = `{rel(p)}` (sha256 {sha256(p)[:12]})" for c, p in plugins.items())
    lines = [
        "# What the fmerge pass plugin adds to a link",
        "",
        f"Plugins: {names}. FMERGE_PLUGIN_OPTIONS: "
        + (", ".join(f"{c}: `{options_for(args, c)}`" for c in plugins if options_for(args, c) is not None)
           or "unset") + ". "
        f"Best of {args.runs} (configurations alternating in each round): wall time, CPU time (user + system, "
        "all threads: less sensitive to the machine's load), peak RSS of the fastest run. "
        f"Machine: {os.cpu_count()} cores, shared; load average at the start "
        f"{' '.join(f'{x:.2f}' for x in load)}. Total {total:.0f} s.",
        "",
        "```sh",
        "# MODULES: build/corpus/P/<modules.json's dir>/<its modules> (Rust full LTO: each through `opt-22 M -o M'`)",
        "# LINK: the ld.lld-22 command of `clang-22 -### -Os -flto[=thin] -fuse-ld=lld --ld-path=ld.lld-22 "
        "MODULES -Wl,--start-group ARCHIVES -Wl,--end-group -o P LIBS` (clang++-22 for C++)",
        "ld.lld-22 LINK                                   # none",
        "ld.lld-22 --load-pass-plugin=PLUGIN LINK        # each plugin",
        "```",
        "",
    ]
    cols = list(plugins)

    def cells(cf: dict, key: str, fmt: str, goal: float | None) -> str:
        """The base's value, then each plugin's value and its addition in percent."""
        n = cf.get("none", {})
        row = f" {fmt.format(n[key]) if key in n else 'FAILED'} |"
        for c in cols:
            d = cf.get(c, {})
            if key not in d or key not in n:
                row += " FAILED | |"
                continue
            over = (d[key] - n[key]) / n[key] if n[key] else 0.0
            mark = " ✗" if goal is not None and over > goal else ""
            row += f" {fmt.format(d[key])} | {pct(n[key], d[key])}{mark} |"
        return row

    head = "| program | LTO | modules |"
    for what in ("wall s", "CPU s", "peak MB"):
        head += f" {what} none |" + "".join(f" {what} {c} | + |" for c in cols)
    head += " .text none |" + "".join(f" .text {c} |" for c in cols)
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        cf = r.get("configs", {})
        row = f"| {r['program']} | {r['mode']} | {r.get('modules', '')} |"
        row += cells(cf, "best_s", "{:.2f}", GOAL[r["mode"]])
        row += cells(cf, "best_cpu_s", "{:.2f}", None)
        row += cells(cf, "best_rss_mb", "{:.0f}", None)
        row += "".join(f" {cf.get(c, {}).get('text_bytes', '')} |" for c in ["none", *cols])
        lines.append(row)
    lines += ["", f"✗: over the goal (+{GOAL['full']:.0%} full LTO, +{GOAL['thin']:.0%} ThinLTO)."]
    other = [(r["program"], r["mode"], c, ln) for r in results for c, d in r.get("configs", {}).items()
             for ln in d.get("stderr", [])]
    lines += ["", "Printed by the links: " + ("nothing." if not other else "")]
    lines += [f"- {p} {m} {c}: `{ln}`" for p, m, c, ln in other[:40]]
    errs = [(r["program"], r["mode"], e) for r in results for e in r.get("errors", [])]
    lines += ["", "Errors: " + ("none." if not errs else f"**{len(errs)}**")]
    for p, m, e in errs:
        lines += ["", f"{p} ({m}):", "```", e.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    common.setup_log("linkcost")
    ap = common.parser("linkcost", __doc__)
    ap.add_argument("programs", nargs="*", help="default: every corpus program built in --corpus")
    ap.add_argument("--plugin", action="append", default=[],
                    help="NAME=PATH or PATH (repeatable; default: plugin=target/release/libfmerge_plugin.so, "
                    "copied into --work first)")
    ap.add_argument("--modes", nargs="+", choices=("full", "thin"), default=["full", "thin"],
                    help="full LTO (every program), ThinLTO (Rust programs) (default: both)")
    ap.add_argument("--corpus", default=str(common.corpus_out()), help="corpus build dir (default: %(default)s)")
    ap.add_argument("--work", default=str(ROOT / "build" / "linkcost"), help="work dir (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=3, help="links per configuration (default: %(default)s)")
    ap.add_argument("--plugin-options", action="append", default=[],
                    help="FMERGE_PLUGIN_OPTIONS for the plugin links (default: unset); NAME=OPTIONS: for plugin "
                    "NAME only (repeatable: e.g. --plugin new=P --plugin noguard=P --plugin-options "
                    "noguard=-fmerge-guard=false)")
    ap.add_argument("--json", help="write every run's numbers here (after each program)")
    ap.add_argument("--markdown", help="write the table here (default: stdout)")
    args = ap.parse_args(argv)

    t_start = time.time()
    load = list(os.getloadavg())
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    plugins: dict[str, Path] = {}
    for spec in args.plugin:
        label, _, path = spec.rpartition("=")
        plugins[label or f"plugin{len(plugins) + 1}"] = Path(path).resolve()
    if not plugins:
        plugins["plugin"] = work / "libfmerge_plugin.so"
        shutil.copy2(common.plugin_lib(), plugins["plugin"])
    args.labels = set(plugins)
    for p in plugins.values():
        if not p.exists():
            raise SystemExit(f"plugin {p} not found")

    corpus = Path(args.corpus).resolve()
    names = args.programs or [n for n in programs.PROGRAMS if (corpus / n / "modules.json").exists()]
    results: list[dict] = []

    def save() -> None:
        if args.json:
            doc = {"plugins": {c: str(p) for c, p in plugins.items()}, "runs": args.runs, "cpus": os.cpu_count(),
                   "load": load, "argv": sys.argv, "results": results}
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")

    for n in names:
        man_path = corpus / n / "modules.json"
        if not man_path.exists():
            raise SystemExit(f"{n}: no per-file bitcode in {corpus} (run: python3 bench/fmbench corpus build {n})")
        man = json.loads(man_path.read_text())
        mods = [corpus / n / man["dir"] / m for m in man["modules"]]
        rust = programs.get_program(n).kind == "rust"
        for mode in args.modes:
            if mode == "thin" and not rust:
                continue
            try:
                use = full_lto_copies(mods, work / n / "full-modules") if rust and mode == "full" else mods
                r = bench_mode(n, mode, use, man, plugins, args)
            except Exception as e:  # a failing command: report it, go on with the next one
                r = {"program": n, "mode": mode, "errors": [f"{type(e).__name__}: {e}"]}
            results.append(r)
            save()
    md = markdown(results, plugins, args, load, time.time() - t_start)
    if args.markdown:
        Path(args.markdown).write_text(md)
    print(md)
    return 1 if any(r["errors"] for r in results) else 0
