"""`fmbench embedded`: fmerge on microcontroller targets, against LLVM's MergeFunctions and the
machine outliner: `.text` of the corpus' C libraries built freestanding for

  thumbv7em  Cortex-M4 (`--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mthumb`), picolibc's headers
  rv32imac   RV32IMAC (`--target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32`), picolibc's headers

Each library's sources are compiled with `-Oz -flto -c` (bitcode), linked into one module by
llvm-link-22 and optimized by `opt-22 -passes='lto<Oz>'` (full LTO; a library keeps its public
functions, so nothing is internalized). Then, each compiled by `llc-22 -filetype=obj` (the
machine outliner off, `-enable-machine-outliner=never`, except in the `+out` columns, where
it runs as LLVM runs it by default on these targets: on every `minsize` function, that is on
all of an -Oz build), `.text*` bytes by llvm-size-22 -A:

  plain         the module
  mergefunc     opt-22 -passes=mergefunc
  fmerge        fmerge opt (the default: merges priced by counts estimated from the code)
  noest         fmerge opt --no-estimate (every merge that saves bytes)
  outliner      the module, machine outliner (llc-22's and clang -Oz's default here)
  mergefunc+out mergefunc, then the machine outliner
  fmerge+out    fmerge opt, then the machine outliner
  noest+out     fmerge opt --no-estimate, then the machine outliner

No main, no run: the libraries are not programs. Behaviour is checked on the nearest target
that runs under qemu user mode, `--run`: the corpus programs (bzip2, zstd, lua, sqlite: the
libraries with their command-line drivers) for Linux on Thumb-2 (`--target=arm-linux-gnueabihf
-march=armv7-a -mthumb`, the instruction set of the Cortex-M4 plus the A profile's; Debian's
gcc-arm-linux-gnueabihf provides the C library), `-Oz -flto`, linked by ld.lld-22 with
`--save-temps` (`lto`); the module it compiled (P.0.5.precodegen.bc) through `llc-22` alone
(`plain`), through `opt-22 -passes=mergefunc` + `llc-22` and through `fmerge opt --emit obj`,
each relinked without LTO (which links libgcc's division helpers into the executable, where the
LTO link did not: `plain` is what the other two are compared with), `.text` of the executables, and
every build's workload (the wasm study's, Lua's smoke scripts) run under `qemu-arm` must give
the output and exit status of the LTO build. RV32 is not run: Debian has no riscv32 Linux C
library. Work in --out (default build/embedded).

    fmbench embedded [LIBRARIES...] [--targets thumbv7em,rv32imac] [--out DIR] [--json FILE] [--md FILE]
    fmbench embedded --run [PROGRAMS...] [--out DIR] [--json FILE] [--md FILE]

Libraries: bzip2 (libbz2 with BZ_NO_STDIO), zstd (libzstd), lua (the Lua library, without lua.c
and luac.c), sqlite (the amalgamation with SQLITE_OS_OTHER: no operating system layer).
"""

from __future__ import annotations

import glob
import json
from pathlib import Path

from .common import BUILD, CLANG, LLC, LLVM_LINK, OPT, pmap, run, text_bytes, work_dir, parser
from .programs import SMOKE_DATA, crate_src, expand_units, get_program
from . import wasm

TARGETS = {
    "thumbv7em": ["--target=thumbv7em-none-eabi", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=soft",
                  "-isystem", "/usr/lib/picolibc/arm-none-eabi/include"],
    "rv32imac": ["--target=riscv32-unknown-elf", "-march=rv32imac", "-mabi=ilp32",
                 "-isystem", "/usr/lib/picolibc/riscv64-unknown-elf/include"],
}
ZSTD = ["-Izstd/lib", "-Izstd/lib/common", "-DZSTD_LIB_DEPRECATED=0", "-DXXH_PRIVATE_API",
        "-DZSTD_DISABLE_ASM", "-DZSTD_LEGACY_SUPPORT=0"]
LIBRARIES = {
    "bzip2": ("bzip2-sys", [f"bzip2-1.0.8/{f}.c" for f in
                            ("blocksort", "huffman", "crctable", "randtable", "compress", "decompress", "bzlib")],
              ["-DBZ_NO_STDIO", "-Ibzip2-1.0.8"]),
    "zstd": ("zstd-sys", ["zstd/lib/common/*.c", "zstd/lib/compress/*.c", "zstd/lib/decompress/*.c"], ZSTD),
    "lua": ("lua-src", ["lua-5.4.9/l*.c"], ["-Ilua-5.4.9", "-DLUA_COMPAT_5_3"]),
    "sqlite": ("libsqlite3-sys", ["sqlite3/sqlite3.c"],
               ["-Isqlite3", "-DSQLITE_OS_OTHER=1", "-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION",
                "-DSQLITE_OMIT_WAL", "-DSQLITE_ENABLE_FTS5", "-DSQLITE_ENABLE_RTREE", "-DSQLITE_ENABLE_JSON1"]),
}
SKIP = ("lua.c", "luac.c")
ORDER = ["plain", "mergefunc", "fmerge", "noest", "outliner", "mergefunc+out", "fmerge+out", "noest+out"]


def build(lib: str, target: str, out: Path, fmerge: str, jobs: int) -> dict:
    crate, globs, flags = LIBRARIES[lib]
    src = crate_src(crate)
    d = out / target / lib
    (d / "bc").mkdir(parents=True, exist_ok=True)
    files = [f for g in globs for f in sorted(glob.glob(str(src / g))) if Path(f).name not in SKIP]
    cmds = [[CLANG, *TARGETS[target], "-Oz", "-flto", "-c", *flags, f, "-o", d / "bc" / (Path(f).stem + ".bc")]
            for f in files]
    pmap(jobs, lambda c: None if Path(c[-1]).exists() else run(c, cwd=src, echo=True), cmds)
    run([LLVM_LINK, *sorted((d / "bc").glob("*.bc")), "-o", d / "linked.bc"], echo=True)
    run([OPT, "-passes=lto<Oz>", d / "linked.bc", "-o", d / "lto.bc"], echo=True)
    run([OPT, "-passes=mergefunc", d / "lto.bc", "-o", d / "mergefunc.bc"], echo=True)
    run([fmerge, "opt", "-q", d / "lto.bc", "-o", d / "fmerge.bc", "--report", d / "fmerge.json"], echo=True)
    run([fmerge, "opt", "-q", "--no-estimate", d / "lto.bc", "-o", d / "noest.bc", "--report", d / "noest.json"],
        echo=True)
    sizes = {}
    for name, module in (("plain", "lto"), ("mergefunc", "mergefunc"), ("fmerge", "fmerge"), ("noest", "noest"),
                         ("outliner", "lto"), ("mergefunc+out", "mergefunc"), ("fmerge+out", "fmerge"),
                         ("noest+out", "noest")):
        obj = d / f"{name}.o"
        outline = [] if name.endswith("+out") or name == "outliner" else ["-enable-machine-outliner=never"]
        run([LLC, "-filetype=obj", *outline, d / f"{module}.bc", "-o", obj], echo=True)
        sizes[name] = text_bytes(obj)
    print(f"{target} {lib}: {sizes}", flush=True)
    return {"target": target, "library": lib, "text_bytes": sizes}


def markdown(results: list[dict]) -> str:
    lines = ["| target | library | " + " | ".join(ORDER) + " | " + " | ".join(f"{k} vs plain" for k in ORDER[1:]) + " |",
             "|" + "---|" * (2 * len(ORDER) + 1)]
    for r in results:
        s = r["text_bytes"]
        base = s["plain"]
        pct = [f"{100 * (s[k] - base) / base:+.2f}%" for k in ORDER[1:]]
        lines.append(f"| {r['target']} | {r['library']} | " + " | ".join(f"{s[k]:,}" for k in ORDER) +
                     " | " + " | ".join(pct) + " |")
    return "\n".join(lines) + "\n"


THUMB_LINUX = ["--target=arm-linux-gnueabihf", "-march=armv7-a", "-mthumb"]
QEMU = ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf"]
RUN_PROGRAMS = ["bzip2", "zstd", "lua", "sqlite"]
RUN_ORDER = ["lto", "plain", "mergefunc", "fmerge", "noest"]


def cases(name: str, tmp: Path) -> list:
    if name == "lua":
        return [(s.stem, [str(s), "a1", "b2"], None, None) for s in sorted((SMOKE_DATA / "lua").glob("*.lua"))]
    return wasm.workload(name, tmp)


def behaviour(name: str, out: Path, fmerge: str, jobs: int) -> dict:
    import hashlib
    import subprocess
    prog = get_program(name)
    d = out / "thumb-linux" / name
    (d / "bc").mkdir(parents=True, exist_ok=True)
    (d / "lto").mkdir(exist_ok=True)
    cmds = [[CLANG, *THUMB_LINUX, "-Oz", "-flto", "-c", *flags, src, "-o", d / "bc" / (rel.replace("/", "_") + ".o")]
            for src, rel, flags in expand_units(prog)]
    pmap(jobs, lambda c: None if Path(c[-1]).exists() else run(c, cwd=prog.src, echo=True), cmds)
    link = [CLANG, *THUMB_LINUX, "-fuse-ld=lld"]
    exes = {"lto": d / "lto" / name}
    run([*link, "-flto", *sorted((d / "bc").glob("*.o")), "-o", exes["lto"], "-Wl,--save-temps", *prog.libs],
        cwd=d / "lto", echo=True)
    module = d / "lto" / f"{name}.0.5.precodegen.bc"
    run([fmerge, "opt", "-q", module, "--emit", "obj", "-o", d / "fmerge.o", "--report", d / "fmerge.json"], echo=True)
    run([fmerge, "opt", "-q", "--no-estimate", module, "--emit", "obj", "-o", d / "noest.o", "--report",
         d / "noest.json"], echo=True)
    run([OPT, "-passes=mergefunc", module, "-o", d / "mergefunc.bc"], echo=True)
    run([LLC, "-filetype=obj", "-relocation-model=pic", d / "mergefunc.bc", "-o", d / "mergefunc.o"], echo=True)
    run([LLC, "-filetype=obj", "-relocation-model=pic", module, "-o", d / "plain.o"], echo=True)
    for k in ("plain", "fmerge", "noest", "mergefunc"):
        exes[k] = d / k
        run([*link, d / f"{k}.o", "-o", exes[k], *prog.libs], echo=True)
    result = {"program": name, "builds": {}}
    reference = {}
    for k in RUN_ORDER:
        mismatches, tmp = [], d / "run"
        todo = cases(name, out / "inputs")
        for case, args, stdin, expect in todo:
            tmp.mkdir(exist_ok=True)
            for db in tmp.glob("*.db"):
                db.unlink()
            argv = [a.replace("{tmp}", str(tmp)) for a in args]
            with open(stdin, "rb") if stdin else open("/dev/null", "rb") as inp:
                p = subprocess.run([*QEMU, exes[k], *argv], stdin=inp, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=tmp, timeout=900)
            got = (p.returncode, hashlib.sha256(p.stdout).hexdigest())
            if k == "lto":
                reference[case] = got
                if expect is not None and p.stdout != expect.read_bytes():
                    mismatches.append(f"{case}: output differs from {expect.name}")
            elif got != reference[case]:
                mismatches.append(f"{case}: exit {got[0]} (reference {reference[case][0]})")
        result["builds"][k] = {"text_bytes": text_bytes(exes[k]), "runs": len(todo), "mismatches": mismatches}
        print(f"thumb-linux {name} {k}: {result['builds'][k]}", flush=True)
    return result


def run_markdown(results: list[dict]) -> str:
    lines = ["| program | " + " | ".join(RUN_ORDER) + " | " + " | ".join(f"{k} vs plain" for k in RUN_ORDER[2:]) +
             " | runs |", "|" + "---|" * (2 * len(RUN_ORDER))]
    for r in results:
        b = r["builds"]
        base = b["plain"]["text_bytes"]
        ok = all(not b[k]["mismatches"] for k in RUN_ORDER)
        lines.append(f"| {r['program']} | " + " | ".join(f"{b[k]['text_bytes']:,}" for k in RUN_ORDER) + " | " +
                     " | ".join(f"{100 * (b[k]['text_bytes'] - base) / base:+.2f}%" for k in RUN_ORDER[2:]) +
                     f" | {b['lto']['runs']} × {len(RUN_ORDER)}, {'all same' if ok else 'MISMATCH'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = parser("embedded", __doc__, fmerge=True)
    ap.add_argument("libraries", nargs="*", default=None)
    ap.add_argument("--run", action="store_true", help="the Thumb-2 Linux programs under qemu-arm")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--out", default=str(BUILD / "embedded"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args(argv)
    out = work_dir(a.out, "embedded")
    if a.run:
        runs = [behaviour(p, out, a.fmerge, a.jobs) for p in (a.libraries or RUN_PROGRAMS)]
        md = run_markdown(runs)
        print(md)
        if a.json:
            Path(a.json).write_text(json.dumps(runs, indent=1) + "\n")
        if a.md:
            Path(a.md).write_text(md)
        return 1 if any(b["mismatches"] for r in runs for b in r["builds"].values()) else 0
    a.libraries = a.libraries or list(LIBRARIES)
    results, failed = [], []
    for t in a.targets.split(","):
        for lib in a.libraries:
            try:
                results.append(build(lib, t, out, a.fmerge, a.jobs))
            except Exception as e:  # one library that does not build must not hide the others
                failed.append(f"{t} {lib}: {str(e).splitlines()[0][:300]}")
    md = markdown(results) + "".join(f"\nnot built: {f}\n" for f in failed)
    print(md)
    if a.json:
        Path(a.json).write_text(json.dumps({"results": results, "failed": failed}, indent=1) + "\n")
    if a.md:
        Path(a.md).write_text(md)
    return 1 if failed else 0
