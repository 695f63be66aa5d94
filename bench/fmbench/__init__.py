"""fmbench: every benchmark and soak of fmerge, as one package (Python 3.11 standard library).

Run it as `python3 bench/fmbench STUDY ...` from the repository root (or `python3 -m fmbench`
from bench/); `python3 bench/fmbench --help` lists the studies, bench/README.md says which
make target runs which and what it measures.

Layout: common.py (paths, tools, the fmerge binary, running commands, .text sizes, smoke runs,
statistics), programs.py (the corpus programs: programs.toml plus the build recipes and smoke
workloads), modes.py (the merge modes), smoke.py (the smoke runner), and one module per study
(cli.STUDIES), each a thin `main(argv)` over those.
"""
