"""`fmbench outputs`: do two builds of fmerge write the same bytes?

A change that should not change behaviour (a refactoring, a faster data structure) is checked
by this study: both builds run on every corpus program in every way fmerge writes something,
and every output is compared byte for byte: merged modules and their JSON reports (`opt` in the
default mode, not whole-program, `--no-measure`, `--emit obj`, `--jobs 1`; on the C programs
also `--profit exact`, `--search exhaustive` and `--merge identical`), `fmerge instrument`'s
module and probe map, the pass plugin inside `opt-22 -passes=fmerge`, and global merging over
the program's per-file modules (every summary, the merge information, every applied module).

  fmbench outputs --base OLD/fmerge                       # this checkout's build against OLD
  fmbench outputs --base OLD/fmerge --base-plugin OLD/libfmerge_plugin.so lua zstd
  fmbench outputs --base OLD/fmerge --json diff.json      # every output's hash, both builds

The exit status is 1 when any output differs (the table names it), 0 when all are the same.
Reports are compared whole, without `--timings`, so they are deterministic. The instrumented
module holds the profile runtime, so it differs whenever the runtime changes; its probe map
must not.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from . import common, programs

# (case, fmerge arguments after the input); `-o OUT --report OUT.json` are added.
OPT_CASES = [
    ("default", ["--whole-program"]),
    ("not-whole-program", []),
    ("no-measure", ["--whole-program", "--no-measure"]),
    ("obj", ["--whole-program", "--emit", "obj"]),
    ("jobs-1", ["--whole-program", "--jobs", "1"]),
]
# Slower cases, run on the C programs only (the Rust modules take minutes each in them).
C_CASES = [
    ("exact", ["--whole-program", "--profit", "exact"]),
    ("exhaustive", ["--whole-program", "--search", "exhaustive"]),
    ("identical", ["--merge", "identical"]),
]


def digest(path: Path) -> str:
    if not path.exists():
        return "missing"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def outputs(fm: str, plugin: Path, prog: str, corpus: Path, work: Path) -> dict[str, str]:
    """Every output of one build on one program: case -> hash (or the exit status if it failed)."""
    bc = corpus / prog / f"{prog}.bc"
    work.mkdir(parents=True, exist_ok=True)
    out: dict[str, str] = {}

    def record(case: str, cmd: list, *files: Path) -> None:
        r = common.run(cmd, check=False)
        out[case] = " ".join(digest(f) for f in files) if r.ok else f"exit {r.returncode}"

    is_c = programs.get_program(prog).kind == "c"
    cases = OPT_CASES + (C_CASES if is_c else [])
    for case, args in cases:
        o, rep = work / f"{case}.out", work / f"{case}.json"
        record(f"opt {case}", [fm, "opt", bc, *args, "-o", o, "--report", rep], o, rep)
    if is_c:
        o, m = work / "instrument.bc", work / "instrument.fpmap"
        record("instrument", [fm, "instrument", bc, "-o", o, "--map", m], o, m)
    o = work / "plugin.bc"
    record("plugin in opt", [common.OPT, f"-load-pass-plugin={plugin}", "-passes=fmerge", bc, "-o", o], o)

    layout = corpus / prog / "modules.json"
    if layout.exists():
        j = json.loads(layout.read_text())
        mods = [corpus / prog / j["dir"] / m for m in j["modules"]]
        sums = [work / f"m{i}.fms" for i in range(len(mods))]
        for m, s in zip(mods, sums):
            record(f"summarize {m.name}", [fm, "summarize", m, "-o", s], s)
        info = work / "merge.fmi"
        record("combine", [fm, "combine", *sums, "-o", info], info)
        for i, m in enumerate(mods):
            a = work / f"m{i}.apply.bc"
            record(f"apply {m.name}", [fm, "apply", "--info", info, m, "-o", a], a)
    return out


def main(argv: list[str]) -> int:
    ap = common.parser("outputs", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=programs.names())
    ap.add_argument("--base", required=True, help="the fmerge binary to compare with")
    ap.add_argument("--plugin", default=str(common.plugin_lib()), help="the plugin of --fmerge's build")
    ap.add_argument("--base-plugin", help="the plugin of --base's build (default: next to --base)")
    ap.add_argument("--corpus", default=str(common.corpus_out()))
    ap.add_argument("--json", help="write every output's hash, both builds, here")
    args = ap.parse_args(argv)
    base_plugin = Path(args.base_plugin or Path(args.base).parent / "libfmerge_plugin.so")
    corpus = Path(args.corpus)
    results, differ = {}, 0
    with tempfile.TemporaryDirectory(prefix="fmerge-outputs-") as td:
        for prog in args.programs:
            if not (corpus / prog / f"{prog}.bc").exists():
                common.log(f"{prog}: not built in {corpus}, skipped (fmbench corpus build {prog})")
                continue
            new = outputs(args.fmerge, Path(args.plugin), prog, corpus, Path(td) / prog / "new")
            old = outputs(args.base, base_plugin, prog, corpus, Path(td) / prog / "base")
            results[prog] = {"base": old, "new": new}
            diff = sorted(c for c in set(old) | set(new) if old.get(c) != new.get(c))
            differ += len(diff)
            common.log(f"{prog}: {len(new) - len(diff)} of {len(new)} outputs the same"
                       + "".join(f"\n  differs: {c}: {old.get(c)} -> {new.get(c)}" for c in diff))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    common.log(f"{differ} outputs differ" if differ else "every output is the same")
    return 1 if differ else 0
