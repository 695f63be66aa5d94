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
  fmerge        fmerge opt
  outliner      the module, machine outliner (llc-22's and clang -Oz's default here)
  mergefunc+out mergefunc, then the machine outliner
  fmerge+out    fmerge opt, then the machine outliner

No main, no run: the libraries are not programs (their behaviour under emulation is not checked
here). Work in --out (default build/embedded).

    fmbench embedded [LIBRARIES...] [--targets thumbv7em,rv32imac] [--out DIR] [--json FILE] [--md FILE]

Libraries: bzip2 (libbz2 with BZ_NO_STDIO), zstd (libzstd), lua (the Lua library, without lua.c
and luac.c), sqlite (the amalgamation with SQLITE_OS_OTHER: no operating system layer).
"""

from __future__ import annotations

import glob
import json
from pathlib import Path

from .common import BUILD, CLANG, LLC, LLVM_LINK, OPT, pmap, run, text_bytes, work_dir, parser
from .programs import crate_src

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
ORDER = ["plain", "mergefunc", "fmerge", "outliner", "mergefunc+out", "fmerge+out"]


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
    sizes = {}
    for name, module in (("plain", "lto"), ("mergefunc", "mergefunc"), ("fmerge", "fmerge"),
                         ("outliner", "lto"), ("mergefunc+out", "mergefunc"), ("fmerge+out", "fmerge")):
        obj = d / f"{name}.o"
        outline = [] if name.endswith("+out") or name == "outliner" else ["-enable-machine-outliner=never"]
        run([LLC, "-filetype=obj", *outline, d / f"{module}.bc", "-o", obj], echo=True)
        sizes[name] = text_bytes(obj)
    print(f"{target} {lib}: {sizes}", flush=True)
    return {"target": target, "library": lib, "text_bytes": sizes}


def markdown(results: list[dict]) -> str:
    lines = ["| target | library | " + " | ".join(ORDER) + " | " + " | ".join(ORDER[1:]) + " |",
             "|" + "---|" * (len(ORDER) + 6)]
    for r in results:
        s = r["text_bytes"]
        base = s["plain"]
        pct = [f"{100 * (s[k] - base) / base:+.2f}%" for k in ORDER[1:]]
        lines.append(f"| {r['target']} | {r['library']} | " + " | ".join(f"{s[k]:,}" for k in ORDER) +
                     " | " + " | ".join(pct) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = parser("embedded", __doc__, fmerge=True)
    ap.add_argument("libraries", nargs="*", default=list(LIBRARIES))
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--out", default=str(BUILD / "embedded"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args(argv)
    out = work_dir(a.out, "embedded")
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
