"""Separate compilation of a corpus program: its per-file modules, compiled one by one.

`fmbench corpus build` writes <corpus>/<prog>/modules.json: the program's modules in link
order (per-file bitcode for C/C++; with --separate, per-codegen-unit bitcode for Rust), the
archives and the libraries it links with. The studies of merging and outlining across modules
(globalmerge.py, outline.py) run a flow of tool commands over every module in a work
directory, link the objects with lld and measure and smoke-test the executable; Modules holds
the manifest and runs those commands there, one at a time, with the module names as relative
paths (as `cd W; llc-22 ... -o m.base.o` would).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from . import common
from .common import LLC

# Code generation of a module for linking with ICF: the corpus recipe with function sections.
LLC_SECTIONS = [LLC, "-O2", "-relocation-model=pic", "-function-sections", "-filetype=obj"]


class Modules:
    def __init__(self, corpus: Path, prog: str, work: Path):
        self.prog, self.corpus, self.work = prog, corpus, work
        man = json.loads((corpus / prog / "modules.json").read_text())
        self.src = corpus / prog / man["dir"]
        self.names: list[str] = man["modules"]
        self.libs: list[str] = man.get("libs", [])
        self.archives: list[str] = man.get("archives", [])
        shutil.rmtree(work, ignore_errors=True)
        for m in self.names:
            (work / m).parent.mkdir(parents=True, exist_ok=True)

    def run(self, cmd) -> common.Result:
        return common.run(cmd, cwd=self.work)

    def each(self, cmd_of) -> float:
        """cmd_of(module name, its bitcode) for every module, in order; the seconds it took."""
        t0 = time.time()
        for m in self.names:
            self.run(cmd_of(m, self.src / m))
        return time.time() - t0

    def files(self, pattern: str) -> list[str]:
        """`pattern` with {m} replaced by each module name, e.g. "{m}.base.o"."""
        return [pattern.format(m=m) for m in self.names]

    def link(self, linker: list, objs: list[str], exe: str) -> Path:
        """The objects (and the program's archives and libraries) linked with --icf=all."""
        group = ["-Wl,--start-group", *self.archives, "-Wl,--end-group"] if self.archives else []
        self.run([*linker, "-Wl,--icf=all", *objs, *group, "-o", exe, *self.libs])
        return self.work / exe

    def smoke(self, exe: Path, target: str = "x86_64") -> bool:
        """Whether the executable passes the program's smoke workload."""
        return common.smoke(self.prog, ["--exe", exe], target, self.corpus).ok
