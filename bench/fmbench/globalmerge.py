"""`fmbench global compare|bound|stale`: merging across modules (summarize, combine, apply).

The three studies are shell scripts in bench/global/ (each one a pipeline of tool commands
over a program's per-file modules; their header comments say what they measure); this runs
them with the package's fmerge binary ($FMERGE, common.fmerge_bin):

  compare PROGRAMS...  separate compilation, final linked .text: llc alone, LLVM's
                       GlobalMergeFunc with codegen data (two rounds), fmerge's
                       summarize/combine/apply; smoke workload of each executable
                       (bench/global/compare.sh; environment CORPUS)
  bound PROGRAMS...    how much merging across modules could add on top of merging each
                       module alone (bench/global/cross_module_bound.sh)
  stale                merge information from zstd 1.5.6 applied to zstd 1.5.7
                       (bench/global/stale.sh)

The corpus must be built with `fmbench corpus build --separate PROGRAMS...`.
"""

from __future__ import annotations

from . import common
from .common import BENCH

SCRIPTS = {"compare": "compare.sh", "bound": "cross_module_bound.sh", "stale": "stale.sh"}


def main(argv: list[str]) -> int:
    return common.subcommands("global", __doc__, {
        name: (lambda a, f=f: common.shell_study(BENCH / "global" / f, a)) for name, f in SCRIPTS.items()}, argv)
