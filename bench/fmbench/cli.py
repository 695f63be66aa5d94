"""The command line: `fmbench STUDY [ARGS...]`; each study parses its own arguments.

A study is a module with `main(argv) -> int` (its exit status). STUDIES lists them in the
order of bench/README.md, with the line `fmbench --help` shows.
"""

from __future__ import annotations

import importlib
import sys

STUDIES = {
    "corpus": ("corpus", "build the corpus programs, run their smoke workloads, link merged modules"),
    "sizes": ("sizes", "side-by-side .text and time of fmerge, LLVM's mergers, the outliner and ICF (make bench)"),
    "reliability": ("reliability", "every corpus program in every merge mode: verifier, smoke, valgrind"),
    "testsuites": ("rsuites", "Rust crates' own test suites, merged with fmerge opt and relinked"),
    "csuites": ("csuites", "C and C++ libraries' own test programs, merged with fmerge opt"),
    "plugin-suites": ("plugin_suites", "the Rust crates' test suites built through the lld pass plugin"),
    "plugin": ("plugin", "the C/C++ corpus linked by lld with full LTO, with and without the pass plugin"),
    "linkcost": ("linkcost", "what the pass plugin adds to full-LTO and ThinLTO links: wall time, peak memory"),
    "speed": ("speed", "runtime cost of merging: instructions and wall time, with and without a profile"),
    "profiling": ("profiling", "fmerge instrument: overhead, comparing builds online, the cost model fit"),
    "outline": ("outline", "merging and LLVM's machine outliner: whole-program, separate, machine verifier"),
    "global": ("globalmerge", "merging across modules: summarize/combine/apply against GlobalMergeFunc"),
    "thinlto": ("thinlto", "global merging in ThinLTO links through the plugin, in-process and distributed"),
    "estimate-check": ("estimate", "how often merges kept without measuring lose bytes"),
    "outputs": ("outputs", "whether two builds of fmerge write the same bytes on the corpus, in every mode"),
    "wasm": ("wasm", "wasm32-wasi programs: fmerge against and with Binaryen's wasm-opt, run under node:wasi"),
    "embedded": ("embedded", "Cortex-M4 and RV32 libraries: fmerge against mergefunc and the machine outliner"),
    "cost": ("cost", "fmerge's own time and memory against opt -Oz and llc on each corpus module"),
}
ALIASES = {"harness": "sizes"}


def usage() -> str:
    lines = ["usage: fmbench STUDY [ARGS...]   (fmbench STUDY --help for a study's options)", "", "studies:"]
    lines += [f"  {name:15} {what}" for name, (_, what) in STUDIES.items()]
    lines += ["", "bench/README.md: which make target runs which study, and what each measures."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name = ALIASES.get(argv[0], argv[0])
    if name not in STUDIES:
        print(f"fmbench: unknown study {argv[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"fmbench.{STUDIES[name][0]}")
    return module.main(argv[1:]) or 0
