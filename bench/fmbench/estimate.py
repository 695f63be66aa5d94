"""`fmbench estimate-check`: how often does fmerge keep a merge that loses bytes when it does not measure?

With `--no-measure` nothing is compiled after the stages, so merges decided on an estimate
(clear estimates, and close calls past the measuring budget) stand even when their generated
code is larger than what they replaced. This script measures that on real modules: for each
program it runs `fmerge opt --no-measure --report`, measures the input and the output with
`fmerge size --json --top 0`, and reads every merge's effect off the per-function sizes the
same way the size guard does (merges that share a function form one group; a group loses when
its functions are larger afterwards). It prints, per program and in total, the groups by what
decided them (`decided_on` in the report: `estimate`, `over-budget`, `measured`; merges of
identical functions are not priced) and how many of each lost bytes, and how many.

  fmbench estimate-check                      # the corpus programs, x86-64
  fmbench estimate-check lua zstd --args --whole-program
  fmbench estimate-check --module my.bc       # any module
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from . import common, programs


def sizes(fm: str, bc: Path) -> dict:
    return json.loads(common.run([fm, "size", bc, "--json", "--top", "0"]).stdout)


def groups(report: dict) -> list[dict]:
    """Merges that share a function, as the size guard groups them."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    def names(m: dict) -> set[str]:
        return set(m["originals"]) | {m["body"]} | {x["name"] for x in m["members"]}

    for m in report["merges"]:
        ns = sorted(names(m))
        for n in ns[1:]:
            parent[find(n)] = find(ns[0])
    out: dict[str, dict] = {}
    for m in report["merges"]:
        g = out.setdefault(find(m["body"]), {"names": set(), "bases": set(), "merges": 0})
        g["names"] |= names(m)
        g["bases"].add(m.get("decided_on") or "identical")
        g["merges"] += 1
    return list(out.values())


def basis_of(g: dict) -> str:
    """One label per group: the weakest basis among its merges."""
    for b in ("over-budget", "estimate", "measured", "identical"):
        if b in g["bases"]:
            return b
    return "?"


def check(fm: str, name: str, bc: Path, extra: list[str], work: Path) -> dict:
    out, rep = work / f"{name}.bc", work / f"{name}.json"
    common.run([fm, "opt", bc, "-o", out, "--no-measure", "-q", "--report", rep, *extra])
    report = json.loads(rep.read_text())
    before, after = sizes(fm, bc), sizes(fm, out)
    f0, f1 = before["functions"], after["functions"]
    rows: dict[str, dict] = {}
    for g in groups(report):
        saving = sum(f0.get(n, 0) for n in g["names"]) - sum(f1.get(n, 0) for n in g["names"])
        r = rows.setdefault(basis_of(g), {"groups": 0, "losing": 0, "bytes_lost": 0, "bytes_saved": 0})
        r["groups"] += 1
        if saving <= 0:
            r["losing"] += 1
            r["bytes_lost"] += -saving
        else:
            r["bytes_saved"] += saving
    return {"program": name, "text_before": before["text_bytes"], "text_after": after["text_bytes"],
            "merges": len(report["merges"]), "by_basis": rows}


def main(argv: list[str]) -> int:
    ap = common.parser("estimate-check", __doc__)
    ap.add_argument("programs", nargs="*", default=programs.names())
    ap.add_argument("--module", action="append", default=[], help="a module to check (repeatable)")
    ap.add_argument("--corpus", default=str(common.corpus_out()))
    ap.add_argument("--args", nargs=argparse.REMAINDER, default=[], help="options for fmerge opt")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    fm = common.fmerge_bin()
    inputs = [(Path(m).stem, Path(m)) for m in args.module]
    if not args.module:
        inputs = [(p, Path(args.corpus) / p / f"{p}.bc") for p in args.programs]
    results = []
    total: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="fmerge-estimate-") as td:
        for name, bc in inputs:
            if not bc.exists():
                common.log(f"{name}: {bc} not built, skipped")
                continue
            r = check(fm, name, bc, args.args, Path(td))
            results.append(r)
            cells = []
            for b, row in sorted(r["by_basis"].items()):
                cells.append(f"{b} {row['losing']}/{row['groups']} lose {row['bytes_lost']} B")
                t = total.setdefault(b, {"groups": 0, "losing": 0, "bytes_lost": 0, "bytes_saved": 0})
                for k in t:
                    t[k] += row[k]
            d = r["text_before"] - r["text_after"]
            print(f"{name:10} .text {r['text_before']} -> {r['text_after']} ({-d:+}), {r['merges']} merges; "
                  + "; ".join(cells), flush=True)
    print("total: " + "; ".join(
        f"{b}: {t['losing']} of {t['groups']} groups lost {t['bytes_lost']} B (the others saved {t['bytes_saved']} B)"
        for b, t in sorted(total.items())))
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "total": total}, indent=1) + "\n")
    return 0
