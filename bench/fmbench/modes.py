"""The merge modes the studies run fmerge in: one name per mode, with its arguments.

`fmerge opt IN -o OUT <args>` makes a mode's output. The side-by-side benchmark names its
rows after configurations (`fmerge-id` is the mode `identical`, and so on: see
sizes.CONFIGS); every other study names the mode itself. `instrument` and
`instrument-signal` are not merges: `fmerge instrument IN -o OUT <args>` (the reliability
run's check of the instrumentation).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    name: str
    args: tuple[str, ...]
    what: str
    command: str = "opt"  # or "instrument"
    emits_object: bool = False  # the output is an object file, not a module
    rust_only: bool = False  # only for modules whose external symbols are main and co.


MODES = {m.name: m for m in [
    Mode("identical", ("--merge", "identical"), "identical functions only"),
    Mode("constants", ("--merge", "identical,constants"), "identical functions and those that differ in constants"),
    Mode("default", (), "fmerge's default: identical, constants, similar; hybrid profit"),
    Mode("exact", ("--profit", "exact"), "every merge priced by compiling it"),
    Mode("exhaustive", ("--search", "exhaustive"), "every pair of candidates compared"),
    Mode("whole-program", ("--whole-program",), "the module is the whole program (deletes unused functions)",
         rust_only=True),
    Mode("outline", ("--emit", "obj", "--outline"),
         "fmerge's own object file, merged then outlined by LLVM's machine outliner", emits_object=True),
    Mode("instrument", (), "`fmerge instrument` (optimal counters, promoted)", command="instrument"),
    Mode("instrument-signal", ("--write-on-signal",), "the same, writing on the signals that end a process",
         command="instrument"),
]}
# Names earlier versions of the studies used.
ALIASES = {"all": "default"}


def mode(name: str) -> Mode:
    return MODES[ALIASES.get(name, name)]


def parse(spec: str, allowed: list[str]) -> list[str]:
    """A comma-separated list of mode names (aliases accepted) -> the canonical names; a name
    outside `allowed` is an error (SystemExit)."""
    out = []
    for n in (x for x in spec.split(",") if x):
        n = ALIASES.get(n, n)
        if n not in allowed:
            raise SystemExit(f"unknown mode {n} (modes: {', '.join(allowed)})")
        out.append(n)
    return out
