"""`fmbench profiling overhead|compare|costmodel`: studies of `fmerge instrument`.

  overhead   instrumentation overhead and exactness, next to clang's instrumentations
             (overhead.py)
  compare    which build is faster, from runs on different inputs: `fmerge profile compare`
             against repeated timing (buildcompare.py)
  costmodel  fit the work metric's cost table for this machine (costmodel.py)

`fmbench profiling SUB --help` for each one's options.
"""

from __future__ import annotations

from . import common


def main(argv: list[str]) -> int:
    from . import buildcompare, costmodel, overhead
    return common.subcommands("profiling", __doc__, {
        "overhead": overhead.main, "compare": buildcompare.main, "costmodel": costmodel.main}, argv) or 0
