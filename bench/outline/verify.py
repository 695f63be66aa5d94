#!/usr/bin/env python3
"""LLVM's machine verifier over outlined code (issue 17): which modules of the per-file corpus
fail `-verify-machineinstrs` with the machine outliner (and AArch64 frame helpers) on, before
and after fmerge.

For every per-file module M of each program (build/corpus*/P/modules.json), with the
verifier after every code generation pass:

  llvm      llc-22 -O2 -relocation-model=pic -enable-machine-outliner [-homogeneous-prolog-epilog]
            -verify-machineinstrs M                          (LLVM alone, the unmerged module)
  fmerge    fmerge opt M --emit obj --outline --verify-machine-code   (merged, then outlined,
            frame helpers on: fmerge's default; the same checks in fmerge's own code generation)

LLVM stops at the first function with errors, so a module counts once whatever the number of
bad functions in it. A failure both have is LLVM's. A module that fails after fmerge but not
before is checked once more: fmerge's merged module (`fmerge opt M -o M.bc`, which LLVM's IR
verifier accepted) through the llc-22 line above. If llc fails there too, on the same function,
it is LLVM's code generation failing on another valid input; if not, it is fmerge's. Every
failure is listed with its function and the verifier's message.

    python3 bench/outline/verify.py [--corpus DIR] [--whole] [PROGRAMS...] [--md OUT.md] [--json OUT.json]

--whole: each program's whole-program module (P/P.bc) instead of its per-file modules.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = ["lua", "zstd", "bzip2", "sqlite", "xz", "quickjs", "leveldb"]
BAD = re.compile(r"\*\*\* Bad machine code: (.*?) \*\*\*\n- function:\s+(\S+)")


def check(cmd: list[str]) -> dict:
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if p.returncode == 0:
        return {"ok": True}
    bad = BAD.findall(p.stderr)
    if not bad:
        return {"ok": False, "error": p.stderr.strip()[-500:]}
    # The first function LLVM stopped at, and the messages about it.
    fn = bad[0][1]
    return {"ok": False, "function": fn, "messages": sorted({m for m, f in bad if f == fn})}


def triple_of(bc: Path) -> str:
    out = subprocess.run(["llvm-dis-22", str(bc), "-o", "-"], capture_output=True, text=True).stdout
    m = re.search(r'^target triple = "([^"]+)"', out, re.M)
    return m.group(1) if m else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    ap.add_argument("--corpus", default=str(REPO / "build/corpus"))
    ap.add_argument("--fmerge", default=os.environ.get("FMERGE", str(REPO / "target/release/fmerge")))
    ap.add_argument("--work", default=str(REPO / "build/outline-verify"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--whole", action="store_true", help="the whole-program modules P/P.bc")
    ap.add_argument("--md")
    ap.add_argument("--json")
    a = ap.parse_args()
    corpus, work = Path(a.corpus).resolve(), Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, failures = [], []
    for prog in a.programs:
        man = corpus / prog / "modules.json"
        if not man.exists():
            print(f"{prog}: not built in {corpus}", file=sys.stderr)
            continue
        meta = json.loads(man.read_text())
        mods = ([corpus / prog / f"{prog}.bc"] if a.whole else
                [corpus / prog / meta["dir"] / m for m in meta["modules"]])
        aarch64 = triple_of(mods[0]).startswith("aarch64")
        llc = ["llc-22", "-O2", "-relocation-model=pic", "-filetype=obj", "-enable-machine-outliner",
               "-verify-machineinstrs"] + (["-homogeneous-prolog-epilog"] if aarch64 else [])

        def one(i_m):
            i, m = i_m
            out = work / f"{prog}.{i}.o"
            r_llvm = check(llc + [str(m), "-o", str(out)])
            r_fm = check([a.fmerge, "opt", str(m), "--emit", "obj", "--outline", "--verify-machine-code",
                          "-q", "--no-measure", "-o", str(out)])
            if r_llvm["ok"] and not r_fm["ok"]:
                merged = work / f"{prog}.{i}.merged.bc"
                subprocess.run([a.fmerge, "opt", str(m), "-q", "--no-measure", "-o", str(merged)], check=True)
                r_llc = check(llc + [str(merged), "-o", str(out)])
                r_fm["llc_on_merged"] = ("passes" if r_llc["ok"] else
                                         f"fails too, in {r_llc.get('function', '?')}")
                merged.unlink(missing_ok=True)
            out.unlink(missing_ok=True)
            return m, r_llvm, r_fm

        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(one, enumerate(mods)))
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
        print(f"{prog}: {len(mods)} modules, LLVM alone fails {n_llvm}, fmerge fails {n_fm}, "
              f"fmerge only {len(only_fm)}, of which llc-22 passes fmerge's module {len(fm_own)}",
              file=sys.stderr, flush=True)
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


if __name__ == "__main__":
    sys.exit(main())
