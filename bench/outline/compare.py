#!/usr/bin/env python3
"""Merging and LLVM's machine outliner in one module (issue 17, first part).

For every corpus program's whole-program module (build/corpus/P/P.bc, clang-22 -Os), the
`.text` of four object files, all position independent as the modules ask (clang's default
PIE), compiled by `llc-22 -O2 -relocation-model=pic` or by fmerge itself:

  plain       llc-22 P.bc
  outliner    llc-22 -enable-machine-outliner P.bc                  (the outliner alone)
  fmerge+out  fmerge opt P.bc -o M.bc; llc-22 -enable-machine-outliner M.bc
  --outline   fmerge opt P.bc --outline --emit obj                  (one command)

`fmerge opt --outline` must be at least as small as the outliner alone and as fmerge followed
by the outliner, on every program (it runs the same two steps in one process, so it should
equal the third column).

    python3 bench/outline/compare.py [PROGRAMS...] [--corpus DIR] [--json FILE]
    (the fmerge binary: $FMERGE, default target/release/fmerge)
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FMERGE = Path(os.environ.get("FMERGE", REPO / "target/release/fmerge"))
PROGRAMS = ["lua", "zstd", "bzip2", "sqlite", "xz", "quickjs", "leveldb", "fd", "tokei"]


def size(bc: Path, outline: bool, work: Path) -> int:
    obj = work / (bc.stem + (".outlined" if outline else "") + ".llc.o")
    cmd = ["llc-22", "-O2", "-relocation-model=pic", "-filetype=obj", str(bc), "-o", str(obj)]
    subprocess.run(cmd + (["-enable-machine-outliner"] if outline else []), check=True)
    return object_text(obj)


def object_text(obj: Path) -> int:
    """Executable sections' bytes, as the size ruler counts them (llvm-size-22 -A: .text*)."""
    out = subprocess.run(["llvm-size-22", "-A", str(obj)], check=True, capture_output=True, text=True).stdout
    return sum(int(l.split()[1]) for l in out.splitlines() if l.startswith(".text"))


def opt(bc: Path, out: Path, outline: bool) -> float:
    cmd = [str(FMERGE), "opt", str(bc), "-o", str(out), "-q"] + (["--outline", "--emit", "obj"] if outline else [])
    t = time.time()
    subprocess.run(cmd, check=True)
    return time.time() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    ap.add_argument("--corpus", default=str(REPO / "build/corpus"))
    ap.add_argument("--work", default=str(REPO / "build/outline"))
    ap.add_argument("--json")
    a = ap.parse_args()
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
        tm, to = opt(bc, m, False), opt(bc, o, True)
        r = dict(program=p, plain=size(bc, False, work), outliner=size(bc, True, work),
                 fmerge_then_outliner=size(m, True, work), fmerge_outline=object_text(o),
                 fmerge_seconds=round(tm, 1), outline_seconds=round(to, 1))
        best = min(r["outliner"], r["fmerge_then_outliner"])
        ok = r["fmerge_outline"] <= best
        worst += not ok
        pct = lambda v: f"{v:,} ({100 * (v - r['plain']) / r['plain']:+.2f}%)"
        print(f"| {p} | {r['plain']:,} | {pct(r['outliner'])} | {pct(r['fmerge_then_outliner'])} | "
              f"{pct(r['fmerge_outline'])} | {tm:.1f} | {to:.1f} | {'yes' if ok else 'NO: +' + str(r['fmerge_outline'] - best)} |")
        sys.stdout.flush()
        rows.append(r)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main())
