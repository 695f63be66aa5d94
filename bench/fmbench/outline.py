"""`fmbench outline compare|verify|separate`: merging and LLVM's machine outliner.

compare   For every corpus program's whole-program module (build/corpus/P/P.bc, clang-22 -Os),
          the `.text` of four object files, all position independent as the modules ask
          (clang's default PIE), compiled by `llc-22 -O2 -relocation-model=pic` or by fmerge:

            plain       llc-22 P.bc
            outliner    llc-22 -enable-machine-outliner P.bc                  (the outliner alone)
            fmerge+out  fmerge opt P.bc -o M.bc; llc-22 -enable-machine-outliner M.bc
            --outline   fmerge opt P.bc --outline --emit obj                  (one command)

          `fmerge opt --outline` must be at least as small as the outliner alone and as fmerge
          followed by the outliner, on every program (it runs the same two steps in one process,
          so it should equal the third column).

              fmbench outline compare [PROGRAMS...] [--corpus DIR] [--json FILE]

verify    LLVM's machine verifier over outlined code: which modules of the per-file corpus fail
          `-verify-machineinstrs` with the machine outliner (and AArch64 frame helpers) on,
          before and after fmerge. For every per-file module M of each program
          (build/corpus*/P/modules.json), with the verifier after every code generation pass:

            llvm      llc-22 -O2 -relocation-model=pic -enable-machine-outliner
                      [-homogeneous-prolog-epilog] -verify-machineinstrs M   (LLVM alone)
            fmerge    fmerge opt M --emit obj --outline --verify-machine-code   (merged, then
                      outlined, frame helpers on: fmerge's default)

          LLVM stops at the first function with errors, so a module counts once whatever the
          number of bad functions in it. A failure both have is LLVM's. A module that fails after
          fmerge but not before is checked once more: fmerge's merged module (`fmerge opt M -o
          M.bc`, which LLVM's IR verifier accepted) through the llc-22 line above. If llc fails
          there too, on the same function, it is LLVM's code generation failing on another valid
          input; if not, it is fmerge's. Every failure is listed with its function and message.

              fmbench outline verify [--corpus DIR] [--whole] [PROGRAMS...] [--md OUT.md] [--json OUT.json]

          --whole: each program's whole-program module (P/P.bc) instead of its per-file modules.

separate  Outlining under separate compilation: per-file modules of corpus programs, each
          compiled on its own, linked with ld.lld --icf=all; final .text, smoke workload, build
          time, a Markdown table row per program (work in build/outline-separate[-aarch64]-CORPUS):

            base         llc-22 each module
            outline      + -enable-machine-outliner (each module on its own)
            llvm-global  LLVM's two-round global outlining: round 1 records codegen data
                         (-codegen-data-generate), llvm-cgdata-22 --merge, round 2 outlines with
                         it (-codegen-data-use-path, -append-content-hash-outlined-name)
            llvm-g+gmf   the same with GlobalMergeFunc (-enable-global-merge-func)
            fm           fmerge: opt + summarize each module, combine, apply --emit obj
            fm-outline   fm + apply --outline (each module on its own)
            fm-global    fm + global outlining: summarize --outline-data, combine
                         --outline-data, apply --outline --outline-data

          On AArch64 (--target aarch64) also, with frame helpers (-homogeneous-prolog-epilog; LLVM
          applies them to minsize functions only, so they change nothing in an -Os corpus):

            llvm-g+gmf+fh   llvm-g+gmf with frame helpers
            fm-global-nofh  fm-global without them (fmerge's flows have them by default)

              fmbench outline separate PROGRAMS... [--target T] [--corpus DIR]
              (the old environment variables TARGET and CORPUS still work)

The fmerge binary: --fmerge, default $FMERGE (common.fmerge_bin).
"""

from __future__ import annotations

import json
import os
import re
import time
import sys
from pathlib import Path

from . import common, programs
from .common import CGDATA, CLANGXX, LLC, LLVM_DIS, REPO
from .permodule import LLC_SECTIONS, Modules

LLC_PIC = [LLC, "-O2", "-relocation-model=pic", "-filetype=obj"]
BAD = re.compile(r"\*\*\* Bad machine code: (.*?) \*\*\*\n- function:\s+(\S+)")


def size(bc: Path, outline: bool, work: Path) -> int:
    obj = work / (bc.stem + (".outlined" if outline else "") + ".llc.o")
    common.run([*LLC_PIC, bc, "-o", obj, *(["-enable-machine-outliner"] if outline else [])])
    return common.text_bytes(obj)


def opt(fmerge: str, bc: Path, out: Path, outline: bool) -> float:
    return common.run([fmerge, "opt", bc, "-o", out, "-q",
                       *(["--outline", "--emit", "obj"] if outline else [])]).seconds


def compare(argv: list[str]) -> int:
    ap = common.parser("outline compare", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=programs.names())
    ap.add_argument("--corpus", default=str(common.corpus_out()))
    ap.add_argument("--work", default=str(REPO / "build/outline"))
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, worst = [], 0
    print("| program | plain | outliner alone | fmerge, then outliner | `fmerge opt --outline` | fmerge s | `--outline` s | smallest? |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for p in a.programs:
        bc = Path(a.corpus) / p / f"{p}.bc"
        if not bc.exists():
            print(f"| {p} | not built | | | | | | |")
            continue
        m, o = work / f"{p}.fmerge.bc", work / f"{p}.outline.o"
        tm, to = opt(a.fmerge, bc, m, False), opt(a.fmerge, bc, o, True)
        r = dict(program=p, plain=size(bc, False, work), outliner=size(bc, True, work),
                 fmerge_then_outliner=size(m, True, work), fmerge_outline=common.text_bytes(o),
                 fmerge_seconds=round(tm, 1), outline_seconds=round(to, 1))
        best = min(r["outliner"], r["fmerge_then_outliner"])
        ok = r["fmerge_outline"] <= best
        worst += not ok
        pct = lambda v: f"{v:,} ({100 * (v - r['plain']) / r['plain']:+.2f}%)"  # noqa: E731
        print(f"| {p} | {r['plain']:,} | {pct(r['outliner'])} | {pct(r['fmerge_then_outliner'])} | "
              f"{pct(r['fmerge_outline'])} | {tm:.1f} | {to:.1f} | {'yes' if ok else 'NO: +' + str(r['fmerge_outline'] - best)} |")
        sys.stdout.flush()
        rows.append(r)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 1 if worst else 0


def check(cmd: list) -> dict:
    r = common.run(cmd, check=False)
    if r.ok:
        return {"ok": True}
    bad = BAD.findall(r.stderr)
    if not bad:
        return {"ok": False, "error": r.stderr.strip()[-500:]}
    # The first function LLVM stopped at, and the messages about it.
    fn = bad[0][1]
    return {"ok": False, "function": fn, "messages": sorted({m for m, f in bad if f == fn})}


def triple_of(bc: Path) -> str:
    out = common.run([LLVM_DIS, bc, "-o", "-"], check=False).stdout
    m = re.search(r'^target triple = "([^"]+)"', out, re.M)
    return m.group(1) if m else ""


def verify(argv: list[str]) -> int:
    ap = common.parser("outline verify", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=programs.C_CXX)
    ap.add_argument("--corpus", default=str(common.corpus_out()))
    ap.add_argument("--work", default=str(REPO / "build/outline-verify"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--whole", action="store_true", help="the whole-program modules P/P.bc")
    ap.add_argument("--md")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    corpus, work = Path(a.corpus).resolve(), Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, failures = [], []
    for prog in a.programs:
        man = corpus / prog / "modules.json"
        if not man.exists():
            common.log(f"{prog}: not built in {corpus}")
            continue
        meta = json.loads(man.read_text())
        mods = ([corpus / prog / f"{prog}.bc"] if a.whole else
                [corpus / prog / meta["dir"] / m for m in meta["modules"]])
        aarch64 = triple_of(mods[0]).startswith("aarch64")
        llc = [*LLC_PIC, "-enable-machine-outliner", "-verify-machineinstrs",
               *(["-homogeneous-prolog-epilog"] if aarch64 else [])]

        def one(i_m):
            i, m = i_m
            out = work / f"{prog}.{i}.o"
            r_llvm = check(llc + [m, "-o", out])
            r_fm = check([a.fmerge, "opt", m, "--emit", "obj", "--outline", "--verify-machine-code",
                          "-q", "--no-measure", "-o", out])
            if r_llvm["ok"] and not r_fm["ok"]:
                merged = work / f"{prog}.{i}.merged.bc"
                common.run([a.fmerge, "opt", m, "-q", "--no-measure", "-o", merged])
                r_llc = check(llc + [merged, "-o", out])
                r_fm["llc_on_merged"] = ("passes" if r_llc["ok"] else
                                         f"fails too, in {r_llc.get('function', '?')}")
                merged.unlink(missing_ok=True)
            out.unlink(missing_ok=True)
            return m, r_llvm, r_fm

        res = common.pmap(a.jobs, one, enumerate(mods))
        n_llvm = sum(not r["ok"] for _, r, _ in res)
        n_fm = sum(not r["ok"] for _, _, r in res)
        only_fm = [m for m, rl, rf in res if rl["ok"] and not rf["ok"]]
        # ... and not LLVM's on fmerge's module either.
        fm_own = [m for m, rl, rf in res if rl["ok"] and not rf["ok"] and rf.get("llc_on_merged") == "passes"]
        for m, rl, rf in res:
            for who, r in (("llvm", rl), ("fmerge", rf)):
                if not r["ok"]:
                    failures.append({"program": prog, "module": str(m.relative_to(corpus)), "flow": who, **r})
        rows.append({"program": prog, "target": "aarch64" if aarch64 else "x86_64", "modules": len(mods),
                     "llvm_failing": n_llvm, "fmerge_failing": n_fm,
                     "fmerge_only": [str(m.relative_to(corpus)) for m in only_fm],
                     "fmerge_own": [str(m.relative_to(corpus)) for m in fm_own]})
        common.log(f"{prog}: {len(mods)} modules, LLVM alone fails {n_llvm}, fmerge fails {n_fm}, "
                   f"fmerge only {len(only_fm)}, of which llc-22 passes fmerge's module {len(fm_own)}")
    lines = [f"Corpus: `{corpus.relative_to(REPO) if corpus.is_relative_to(REPO) else corpus}`", "",
             "| program | target | modules | fail, LLVM alone | fail, fmerge | fail only after fmerge "
             "| of which llc-22 passes fmerge's module |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['program']} | {r['target']} | {r['modules']} | {r['llvm_failing']} | "
                     f"{r['fmerge_failing']} | {len(r['fmerge_only'])} | {len(r['fmerge_own'])} |")
    if failures:
        lines += ["", "| program | module | flow | first function | verifier says | llc-22 on fmerge's module |",
                  "|---|---|---|---|---|---|"]
        for f in failures:
            lines.append(f"| {f['program']} | {f['module']} | {f['flow']} | {f.get('function', '-')} | "
                         f"{'; '.join(f.get('messages', [])) or f.get('error', '')[:200]} | "
                         f"{f.get('llc_on_merged', '')} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if a.md:
        Path(a.md).write_text(md)
    if a.json:
        Path(a.json).write_text(json.dumps({"rows": rows, "failures": failures}, indent=1))
    return 1 if any(r["fmerge_own"] for r in rows) else 0


# The flows of `separate`, per target: (name, what it runs).
SEPARATE_FLOWS = {
    "x86_64": ["base", "outline", "llvm-global", "llvm-g+gmf", "fm", "fm-outline", "fm-global"],
    "aarch64": ["base", "outline", "llvm-global", "llvm-g+gmf", "llvm-g+gmf+fh", "fm", "fm-outline",
                "fm-global-nofh", "fm-global"],
}


def separate(argv: list[str]) -> int:
    """Outlining under separate compilation (see `flows` below): per-file modules of corpus
    programs, each compiled on its own, linked with ld.lld --icf=all; final .text, smoke
    workload, build time of every flow, one Markdown table row per program."""
    ap = common.parser("outline separate", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="+")
    ap.add_argument("--target", choices=sorted(SEPARATE_FLOWS), default=os.environ.get("TARGET", "x86_64"))
    ap.add_argument("--corpus", default=os.environ.get("CORPUS"),
                    help="default build/corpus, or build/corpus-aarch64; an -Oz corpus is built with "
                         "FMERGE_CORPUS_OPT=z fmbench corpus --out DIR build ...")
    a = ap.parse_args(argv)
    F, target = a.fmerge, a.target
    corpus = Path(a.corpus or common.corpus_out(target)).resolve()
    flows = SEPARATE_FLOWS[target]
    link = [CLANGXX, *(["--target=aarch64-linux-gnu"] if target == "aarch64" else []), "-fuse-ld=lld"]
    workdir = ("outline-separate" if target == "x86_64" else "outline-separate-aarch64") + "-" + corpus.name
    print("| program |" + "".join(f" {f} |" for f in flows) + " smoke |")
    print("|---|" + "---:|" * len(flows) + "---|")
    for prog in a.programs:
        M = Modules(corpus, prog, REPO / "build" / workdir / prog)
        T = {"base": M.each(lambda m, src: [*LLC_SECTIONS, src, "-o", f"{m}.base.o"]),
             "outline": M.each(lambda m, src: [*LLC_SECTIONS, "-enable-machine-outliner", src, "-o", f"{m}.outline.o"])}
        # LLVM's two-round global outlining: round 1 records codegen data, llvm-cgdata-22 merges
        # it, round 2 outlines with it (optionally with GlobalMergeFunc and frame helpers).
        for tag, extra in (("llvm-global", []), ("llvm-g+gmf", ["-enable-global-merge-func=true"]),
                           ("llvm-g+gmf+fh", ["-enable-global-merge-func=true", "-homogeneous-prolog-epilog"])):
            if tag not in flows:
                continue
            llc = [*LLC_SECTIONS, "-enable-machine-outliner", *extra]
            t0 = time.time()
            M.each(lambda m, src: [*llc, "-codegen-data-generate=true", src, "-o", f"{m}.{tag}.r1.o"])
            M.run([CGDATA, "--merge", *M.files("{m}.%s.r1.o" % tag), "-o", f"{tag}.cgdata"])
            M.each(lambda m, src: [*llc, f"-codegen-data-use-path={tag}.cgdata", "-append-content-hash-outlined-name",
                                   src, "-o", f"{m}.{tag}.o"])
            T[tag] = time.time() - t0
        # fmerge: opt, summarize, combine, apply (+ --outline; + global outlining data)
        t_opt = M.each(lambda m, src: [F, "opt", src, "-o", f"{m}.opt.bc", "-q", "--no-measure"])
        t0 = time.time()
        M.each(lambda m, src: [F, "summarize", f"{m}.opt.bc", "-o", f"{m}.fms"])
        M.run([F, "combine", "-q", *M.files("{m}.fms"), "-o", "merge.fmi"])
        M.each(lambda m, src: [F, "apply", f"{m}.opt.bc", "--info", "merge.fmi", "--emit", "obj", "-o", f"{m}.fm.o"])
        T["fm"] = time.time() - t0 + t_opt
        T["fm-outline"] = M.each(lambda m, src: [F, "apply", f"{m}.opt.bc", "--info", "merge.fmi", "--emit", "obj",
                                                 "--outline", "-o", f"{m}.fm-outline.o"]) + T["fm"]
        for tag, nofh in (("fm-global-nofh", ["--no-frame-helpers"]), ("fm-global", [])):
            if tag not in flows:
                continue
            t0 = time.time()
            M.each(lambda m, src: [F, "summarize", f"{m}.opt.bc", "-o", f"{m}.{tag}.fms", "--outline-data",
                                   f"{m}.{tag}.cgo", *nofh])
            M.run([F, "combine", "-q", *M.files("{m}.%s.fms" % tag), "-o", f"{tag}.fmi", "--outline-data",
                   *M.files("{m}.%s.cgo" % tag)])
            M.each(lambda m, src: [F, "apply", f"{m}.opt.bc", "--info", f"{tag}.fmi", "--emit", "obj", "--outline",
                                   "--outline-data", f"{tag}.cgdata", *nofh, "-o", f"{m}.{tag}.o"])
            T[tag] = time.time() - t0 + t_opt
        row, smoke, base = f"| {prog} |", "", None
        for v in flows:
            exe = M.link(link, M.files("{m}.%s.o" % v), f"{prog}.{v}")
            t = common.text_bytes(exe, exact=True)
            base = base or t
            row += f" {t} ({100 * (t - base) / base:+.2f}%, {T[v]:.0f} s) |"
            smoke += "p" if M.smoke(exe, target) else "F"
        print(f"{row} {smoke} |", flush=True)
    return 0


def main(argv: list[str]) -> int:
    return common.subcommands("outline", __doc__, {"compare": compare, "verify": verify, "separate": separate},
                              argv)
