"""`fmbench cost`: what fmerge costs a build, next to LLVM's own `-Oz` pipeline and `llc`.

For each corpus program's whole-program module, back to back on the same machine: wall time and
peak memory (GNU time's maximum resident set) of `opt-22 -passes='default<Oz>'`, of
`llc-22 -O2 -filetype=obj`, of `fmerge opt --whole-program` (the default, with the size guard)
and of `fmerge opt --whole-program --no-measure`, each the best of `--repeat` runs; with
`--base OLD/fmerge`, the same two fmerge runs of another build as well, so a change is seen
before and after. Ratios are against `opt -Oz` on the same module. The `.text` bytes of each
fmerge output (compiled by `llc-22`) come with it: a faster fmerge must not save fewer bytes.

  fmbench cost                                   # every program built in the corpus
  fmbench cost lua zstd fd --repeat 3 --base OLD/fmerge --json cost.json

Programs run one after another (never two measurements at once); rerun on a quiet machine.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from . import common, programs


def timed(cmd: list) -> tuple[float, int]:
    """Wall seconds and peak resident kilobytes of one run (GNU time), or raises."""
    with tempfile.NamedTemporaryFile(suffix=".time") as tf:
        start = time.monotonic()
        common.run(["/usr/bin/time", "-f", "%M", "-o", tf.name, *cmd])
        wall = time.monotonic() - start
        kb = int(Path(tf.name).read_text().split()[-1])
    return wall, kb


def best(cmd: list, repeat: int) -> tuple[float, int]:
    runs = [timed(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def measure(prog: str, bc: Path, fm: str, base: str | None, repeat: int, work: Path) -> dict:
    row: dict = {"program": prog, "bitcode_bytes": bc.stat().st_size}
    row["opt_Oz"] = best([common.OPT, "-passes=default<Oz>", bc, "-o", work / "oz.bc"], repeat)
    row["llc"] = best([common.LLC, "-O2", "-filetype=obj", bc, "-o", work / "llc.o"], repeat)
    builds = [("new", fm)] + ([("base", base)] if base else [])
    for tag, binary in builds:
        for case, extra in [("default", []), ("no_measure", ["--no-measure"])]:
            out = work / f"{tag}.{case}.bc"
            row[f"{tag}_{case}"] = best([binary, "opt", bc, "--whole-program", *extra, "-q", "-o", out], repeat)
            obj = work / f"{tag}.{case}.o"
            common.run([common.LLC, "-O2", "-filetype=obj", out, "-o", obj])
            row[f"{tag}_{case}_text"] = common.text_bytes(obj)
    return row


def table(rows: list[dict], has_base: bool) -> str:
    def cell(row, key):
        t, kb = row[key]
        oz_t, oz_kb = row["opt_Oz"]
        return f"{t:.2f} s ({t / oz_t:.2f}x), {kb // 1024} MB ({kb / oz_kb:.2f}x)"

    cols = ["opt -Oz", "llc -O2", "fmerge (default)", "fmerge --no-measure"]
    keys = ["new_default", "new_no_measure"]
    if has_base:
        cols += ["before: default", "before: --no-measure"]
        keys += ["base_default", "base_no_measure"]
    lines = ["| module | " + " | ".join(cols) + " | `.text` default / --no-measure |",
             "|---|" + "---:|" * (len(cols) + 1)]
    for r in rows:
        oz_t, oz_kb = r["opt_Oz"]
        cells = [f"{oz_t:.2f} s, {oz_kb // 1024} MB", f"{r['llc'][0]:.2f} s, {r['llc'][1] // 1024} MB"]
        cells += [cell(r, k) for k in keys]
        text = f"{r['new_default_text']:,} / {r['new_no_measure_text']:,}"
        if has_base:
            text += f" (before {r['base_default_text']:,} / {r['base_no_measure_text']:,})"
        lines.append(f"| {r['program']} | " + " | ".join(cells) + f" | {text} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = common.parser("cost", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=programs.names())
    ap.add_argument("--base", help="another fmerge build to run the same way (before a change)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each command; the best is kept")
    ap.add_argument("--corpus", default=str(common.corpus_out()))
    ap.add_argument("--json", help="write the measurements here")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fmerge-cost-") as td:
        for prog in args.programs:
            bc = corpus / prog / f"{prog}.bc"
            if not bc.exists():
                common.log(f"{prog}: not built in {corpus}, skipped (fmbench corpus build {prog})")
                continue
            work = Path(td) / prog
            work.mkdir(parents=True)
            rows.append(measure(prog, bc, args.fmerge, args.base, args.repeat, work))
            common.log(f"{prog}: " + json.dumps(rows[-1]))
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows, bool(args.base)))
    return 0
