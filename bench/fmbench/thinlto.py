"""`fmbench thinlto PROGRAMS...`: global merging inside ThinLTO links, through the plugin.

Each C/C++ corpus program's sources are compiled again with `-flto=thin` (the corpus' own compile
commands, `-emit-llvm` replaced), then linked by ld.lld (x86-64) in these ways, each with and
without `--icf=all`:

  thinlto     ThinLTO, nothing else
  permodule   the fmerge plugin in every backend (each module merged alone)
  tworound    the plugin's two rounds: a link with -fmerge-summary-dir, `fmerge combine DIR`,
              a link with -fmerge-global-info (the number is the second link's)
  tworound-ns the same with `fmerge combine --no-similar` (functions equal up to constants only)
  permodule-ne, tworound-ne
              the same two with `-fmerge-estimate=false` in every link (round 1 included):
              every merge that saves bytes, where the default leaves out merges that would
              make likely hot code slower
  gmf         LLVM 22's GlobalMergeFunc with two codegen rounds inside the link
              (-enable-global-merge-func -codegen-data-thinlto-two-rounds)

and once more as a distributed ThinLTO build (`--thinlto-index-only`, one `clang -fthinlto-index`
backend per module, the plugin loaded with `-Xclang -load`, the function and data sections lld's
backends use), plain and with the two rounds' merge information, which must give the in-process
links' `.text`. Every executable runs the program's smoke workload. Prints one Markdown table per
program; raw data goes to OUT/<program>.json (--out, default bench/results/2026-11-27-thinlto).
Work in build/thinlto/<program>.

--stale: also merge information from an older version of a small program (the plugin tests'
tests/thinlto, with one kind of change per build: a changed body, a removed function, an added
function, a changed signature) against fresh information: bytes lost, and the program's output.

Options: --corpus DIR (default build/corpus, or $CORPUS), --fmerge (default $FMERGE), --plugin
(default the libfmerge_plugin.so next to the fmerge binary).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from pathlib import Path

from . import common
from .common import CLANGXX, REPO

MODES = ["thinlto", "permodule", "tworound", "tworound-ns", "permodule-ne", "tworound-ne", "gmf"]
NOEST = "-fmerge-estimate=false"
GMF = ["-Wl,-mllvm,-enable-global-merge-func=true", "-Wl,-mllvm,-codegen-data-thinlto-two-rounds"]


def thin_objects(corpus: Path, prog: str, work: Path) -> tuple[list[Path], list[str]]:
    """The program's sources compiled with -flto=thin into `work` (in modules.json's order),
    and the libraries its link needs."""
    man = json.loads((corpus / prog / "modules.json").read_text())
    if man.get("archives"):
        raise SystemExit(f"{prog}: programs with archives are not supported by this study")
    bc_dir = (corpus / prog / man["dir"]).resolve()
    commands = {}
    for line in (corpus / prog / "bc-commands.txt").read_text().splitlines():
        argv = shlex.split(line)
        if "-o" in argv:
            commands[Path(argv[argv.index("-o") + 1]).resolve()] = argv
    objs = []
    for m in man["modules"]:
        argv = list(commands[(bc_dir / m).resolve()])
        out = work / "obj" / (m.removesuffix(".bc") + ".o")
        out.parent.mkdir(parents=True, exist_ok=True)
        argv[argv.index("-o") + 1] = str(out)
        argv[argv.index("-emit-llvm")] = "-flto=thin"
        if not out.exists():
            common.run(argv)
        objs.append(out)
    return objs, man.get("libs", [])


def main(argv: list[str]) -> int:
    ap = common.parser("thinlto", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*")
    ap.add_argument("--stale", action="store_true", help="also the stale-information study")
    ap.add_argument("--corpus", default=os.environ.get("CORPUS") or str(common.corpus_out()))
    ap.add_argument("--plugin", default=None)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "2026-11-27-thinlto"))
    a = ap.parse_args(argv)
    corpus = Path(a.corpus).resolve()
    fmerge = Path(a.fmerge).resolve()
    plugin = Path(a.plugin).resolve() if a.plugin else fmerge.parent / "libfmerge_plugin.so"
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if a.stale:
        rows = stale(fmerge, plugin, out_dir)
        print("change | ThinLTO `--icf=all` | fresh information | stale information | bytes lost | same output")
        print("---|---:|---:|---:|---:|---")
        for e, r in rows.items():
            print(f"{e} | {r['plain']:,} | {r['fresh']:,} | {r['stale']:,} | {r['stale'] - r['fresh']:,} | "
                  f"{'yes' if r['same_output'] else 'NO'}")
    for prog in a.programs:
        work = REPO / "build" / "thinlto" / prog
        for sub in ["summaries", "summaries-ne", "dist"]:
            shutil.rmtree(work / sub, ignore_errors=True)
        work.mkdir(parents=True, exist_ok=True)
        objs, libs = thin_objects(corpus, prog, work)
        res: dict = {"program": prog, "modules": len(objs), "links": {}}

        def link(name: str, extra: list[str], env_opts: str | None, icf: bool) -> dict:
            exe = work / (name + ("-icf" if icf else ""))
            cmd = [CLANGXX, "-Os", "-flto=thin", "-fuse-ld=lld", *extra, *map(str, objs), "-o", str(exe), *libs]
            if icf:
                cmd.insert(1, "-Wl,--icf=all")
            env = None
            if env_opts is not None:
                cmd.insert(1, f"-Wl,--load-pass-plugin={plugin}")
                env = {"FMERGE_PLUGIN_OPTIONS": env_opts}
            t0 = time.time()
            common.run(cmd, env=env)
            r = {"seconds": round(time.time() - t0, 2), "text": common.text_bytes(exe, exact=True),
                 "smoke": common.smoke(prog, ["--exe", exe], "x86_64", corpus).ok}
            res["links"][exe.name] = r
            print(f"{prog} {exe.name}: .text {r['text']} smoke {'ok' if r['smoke'] else 'FAILED'}", flush=True)
            return r

        sums = work / "summaries"
        sums.mkdir()
        info = work / "merge.fmi"
        for icf in (False, True):
            link("thinlto", [], None, icf)
            link("permodule", [], "", icf)
            link("permodule-ne", [], NOEST, icf)
            link("gmf", GMF, None, icf)
        t0 = time.time()
        link("round1", [], f"-fmerge-summary-dir={sums}", True)
        common.run([fmerge, "combine", sums, "-o", info])
        res["round1_and_combine_seconds"] = round(time.time() - t0, 2)
        res["combine"] = common.run([fmerge, "combine", sums, "-o", work / "check.fmi"]).stdout.strip()
        info_ns = work / "merge-no-similar.fmi"
        common.run([fmerge, "combine", "--no-similar", sums, "-o", info_ns])
        sums_ne, info_ne = work / "summaries-ne", work / "merge-ne.fmi"
        sums_ne.mkdir()
        link("round1-ne", [], f"-fmerge-summary-dir={sums_ne} {NOEST}", True)
        common.run([fmerge, "combine", sums_ne, "-o", info_ne])
        for icf in (False, True):
            link("tworound", [], f"-fmerge-global-info={info}", icf)
            link("tworound-ns", [], f"-fmerge-global-info={info_ns}", icf)
            link("tworound-ne", [], f"-fmerge-global-info={info_ne} {NOEST}", icf)

        # Distributed: an index-only link, one backend per module, the final link.
        dist = work / "dist"
        dist.mkdir()
        common.run([CLANGXX, "-Os", "-flto=thin", "-fuse-ld=lld", "-Wl,--thinlto-index-only",
                    *map(str, objs), "-o", str(dist / "unused"), *libs])
        for name, flags in [("dist-thinlto", []),
                            ("dist-tworound", ["-Xclang", "-load", "-Xclang", str(plugin), "-mllvm",
                                               f"-fmerge-global-info={info}"])]:
            natives = []
            t0 = time.time()
            for o in objs:
                n = dist / (o.relative_to(work / "obj").as_posix().replace("/", "_") + f".{name}.o")
                common.run([CLANGXX, "-Os", "-ffunction-sections", "-fdata-sections", "-x", "ir", o,
                            f"-fthinlto-index={o}.thinlto.bc", *flags, "-c", "-o", n])
                natives.append(n)
            backends = round(time.time() - t0, 2)
            exe = dist / f"{name}-icf"
            common.run([CLANGXX, "-fuse-ld=lld", "-Wl,--icf=all", *natives, "-o", exe, *libs])
            r = {"backend_seconds": backends, "text": common.text_bytes(exe, exact=True),
                 "smoke": common.smoke(prog, ["--exe", exe], "x86_64", corpus).ok}
            res["links"][exe.name] = r
            print(f"{prog} {exe.name}: .text {r['text']} smoke {'ok' if r['smoke'] else 'FAILED'}", flush=True)
        (out_dir / f"{prog}.json").write_text(json.dumps(res, indent=1) + "\n")
        print(table(res))
    return 0


FIXTURE = REPO / "crates" / "fmerge-plugin" / "tests" / "thinlto"
EDITS = ["EDIT_BODY", "EDIT_REMOVE", "EDIT_ADD", "EDIT_SIGNATURE"]


def stale(fmerge: Path, plugin: Path, out_dir: Path) -> dict:
    """The plugin tests' program (tests/thinlto): merge information from its first version
    applied to each later one (one kind of change each), against fresh information; .text with
    --icf=all and whether the program prints what the unmerged build prints."""
    work = REPO / "build" / "thinlto" / "stale"
    shutil.rmtree(work, ignore_errors=True)

    def build(tag: str, edit: str | None) -> list[Path]:
        objs = []
        for src in ["m1.c", "m2.c", "m3.c", "main.c"]:
            o = work / tag / f"{src}.o"
            o.parent.mkdir(parents=True, exist_ok=True)
            common.run(["clang-22", "-Os", "-flto=thin", *([f"-D{edit}"] if edit else []), "-c", FIXTURE / src, "-o", o])
            objs.append(o)
        return objs

    def link(objs, exe: Path, opts: str | None) -> int:
        cmd = ["clang-22", "-flto=thin", "-fuse-ld=lld", "-Wl,--icf=all", *objs, "-o", exe]
        env = None
        if opts is not None:
            cmd.insert(1, f"-Wl,--load-pass-plugin={plugin}")
            env = {"FMERGE_PLUGIN_OPTIONS": opts}
        common.run(cmd, env=env)
        return common.text_bytes(exe, exact=True)

    def rounds(tag: str, objs) -> Path:
        sums = work / tag / "summaries"
        sums.mkdir()
        link(objs, work / tag / "round1", f"-fmerge-summary-dir={sums}")
        info = work / tag / "merge.fmi"
        common.run([fmerge, "combine", "-q", sums, "-o", info])
        return info

    old_info = rounds("old", build("old", None))
    rows = {}
    for edit in EDITS:
        objs = build(edit, edit)
        plain = link(objs, work / edit / "plain", None)
        fresh = link(objs, work / edit / "fresh", f"-fmerge-global-info={rounds(edit, objs)}")
        old = link(objs, work / edit / "stale", f"-fmerge-global-info={old_info}")
        outs = {k: common.run([work / edit / k]).stdout for k in ["plain", "fresh", "stale"]}
        rows[edit] = {"plain": plain, "fresh": fresh, "stale": old,
                      "same_output": outs["plain"] == outs["fresh"] == outs["stale"]}
        print(f"stale {edit}: {rows[edit]}", flush=True)
    (out_dir / "stale.json").write_text(json.dumps(rows, indent=1) + "\n")
    return rows


def table(res: dict) -> str:
    L = res["links"]
    base = L["thinlto"]["text"]
    names = {"thinlto": "ThinLTO", "permodule": "ThinLTO + fmerge plugin (each module)",
             "gmf": "LLVM 22 GlobalMergeFunc, two codegen rounds",
             "tworound": "ThinLTO + fmerge plugin, two rounds (global merging)",
             "tworound-ns": "the same, merge information without similar groups",
             "permodule-ne": "ThinLTO + fmerge plugin (each module), -fmerge-estimate=false",
             "tworound-ne": "ThinLTO + fmerge plugin, two rounds, -fmerge-estimate=false"}
    rows = [f"{res['program']} ({res['modules']} modules) | `.text` | change | `--icf=all` | change | smoke",
            "---|---:|---:|---:|---:|---"]
    for m in MODES:
        a, b = L[m], L[m + "-icf"]
        ok = "ok" if a["smoke"] and b["smoke"] else "FAILED"
        rows.append(f"{names[m]} | {a['text']:,} | {100 * (a['text'] - base) / base:+.1f}% | {b['text']:,} | "
                    f"{100 * (b['text'] - base) / base:+.1f}% | {ok}")
    for d, m in [("dist-thinlto-icf", "thinlto-icf"), ("dist-tworound-icf", "tworound-icf")]:
        same = "same as in-process" if L[d]["text"] == L[m]["text"] else f"in-process: {L[m]['text']:,}"
        rows.append(f"distributed: {d.removeprefix('dist-').removesuffix('-icf')} | | | {L[d]['text']:,} "
                    f"({same}) | | {'ok' if L[d]['smoke'] else 'FAILED'}")
    return "\n".join(rows)
