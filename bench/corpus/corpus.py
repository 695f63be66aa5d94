#!/usr/bin/env python3
"""fmerge benchmark corpus: real programs as LLVM 22 bitcode.

Subcommands (see README.md next to this file):
  fetch [PROGRAM...]            download + verify + extract the pinned crates
  build [PROGRAM...]            per-file .bc, linked <prog>.bc, executable,
                                native reference build and expected/ outputs
  smoke PROGRAM [--exe E | --bc M | --obj O]
                                run the smoke workload, compare with expected/
  link PROGRAM IN.bc -o EXE     turn a (merged) whole-program module into an
                                executable with the reference link recipe
  link-modules PROGRAM [--dir D] -o EXE
                                separate compilation: llc-22 each module of
                                <out>/<prog>/modules.json (from D if given), link
  stats PROGRAM [--bc M]        module statistics (functions, instructions,
                                .text bytes of llc-22 -filetype=obj)
  list                          programs and their artifacts
  report                        Markdown table of module statistics

Global option --target x86_64|aarch64 (default x86_64, or $FMERGE_CORPUS_TARGET):
aarch64 cross-compiles with clang-22 --target=aarch64-linux-gnu (Debian's
libc6-dev-arm64-cross + gcc/g++-aarch64-linux-gnu) and cargo --target
aarch64-unknown-linux-gnu, writes to build/corpus-aarch64, and runs the
executables under qemu-aarch64 (Debian's qemu-user).

Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import dataclasses
import concurrent.futures
import difflib
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DRIVERS = HERE / "drivers"
SMOKE_DATA = HERE / "smoke"

CLANG = os.environ.get("FMERGE_CLANG", "clang-22")
CLANGXX = os.environ.get("FMERGE_CLANGXX", "clang++-22")
LLVM_LINK = os.environ.get("FMERGE_LLVM_LINK", "llvm-link-22")
OPT = os.environ.get("FMERGE_OPT", "opt-22")
LLC = os.environ.get("FMERGE_LLC", "llc-22")
LLVM_SIZE = os.environ.get("FMERGE_LLVM_SIZE", "llvm-size-22")
LLVM_DIS = os.environ.get("FMERGE_LLVM_DIS", "llvm-dis-22")

# Optimization level of every compile: -Os, or -Oz ($FMERGE_CORPUS_OPT=z) for the builds that
# want minsize functions (AArch64's frame helpers apply only there). Give an -Oz corpus its
# own --out directory.
OPT_LEVEL = os.environ.get("FMERGE_CORPUS_OPT", "s")
if OPT_LEVEL not in ("s", "z"):
    sys.exit(f"corpus: FMERGE_CORPUS_OPT must be s or z, not {OPT_LEVEL!r}")
# Flags shared by every C/C++ compile (bitcode and native reference build).
BASE_CFLAGS = [f"-O{OPT_LEVEL}", "-g0", "-w"]
# Targets.  x86_64 is the host.  Other targets are cross-compiled and their
# executables run under qemu-user; their reference outputs (expected/) are
# recorded from their own native cross build, run under the same emulator.
TARGETS = {
    "x86_64": {"clang": None, "rust": None, "runner": None, "out": "corpus"},
    "aarch64": {"clang": "aarch64-linux-gnu", "rust": "aarch64-unknown-linux-gnu",
                "runner": [os.environ.get("FMERGE_QEMU_AARCH64", "qemu-aarch64"), "-L", "/usr/aarch64-linux-gnu"],
                "out": "corpus-aarch64"},
}
TARGET = os.environ.get("FMERGE_CORPUS_TARGET", "x86_64")


def target_flags() -> list[str]:
    """clang driver flags selecting the target (none for the host)."""
    t = TARGETS[TARGET]["clang"]
    return [f"--target={t}"] if t else []


# Code generation for a whole-program module: llc's default -O2 pipeline
# (function attributes such as optsize/minsize come from the module itself).
LLC_FLAGS = ["-O2", "-relocation-model=pic"]


def log(msg: str) -> None:
    print(f"[corpus] {msg}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("FMERGE_CORPUS_CACHE", "~/.cache/fmerge-corpus")).expanduser()


def default_out() -> Path:
    """$FMERGE_CORPUS_OUT, else build/corpus (x86_64) or build/corpus-<target>."""
    return Path(os.environ.get("FMERGE_CORPUS_OUT", REPO / "build" / TARGETS[TARGET]["out"]))


def load_crates() -> dict:
    with open(HERE / "programs.toml", "rb") as f:
        return tomllib.load(f)["crate"]


CRATES = load_crates()


def crate_src(crate: str) -> Path:
    return cache_dir() / "src" / f"{crate}-{CRATES[crate]['version']}"


def run(cmd, **kw) -> subprocess.CompletedProcess:
    """Run a build command, raising with its output on failure."""
    cmd = [str(c) for c in cmd]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    if p.returncode != 0:
        out = p.stdout.decode(errors="replace")
        raise BuildError(f"command failed ({p.returncode}): {' '.join(cmd)}\n{out[-6000:]}")
    return p


class BuildError(Exception):
    pass


# ---------------------------------------------------------------------------
# Deterministic input generators for the smoke workloads


WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there one all we their can has been if more "
    "when will would who so no merge function module bitcode size linkage symbol thunk"
).split()


def gen_text(n: int, seed: int) -> bytes:
    r = random.Random(seed)
    out, size = [], 0
    while size < n:
        line = " ".join(r.choice(WORDS) for _ in range(r.randint(3, 14)))
        if r.random() < 0.1:
            line = line.capitalize() + "."
        out.append(line)
        size += len(line) + 1
    return ("\n".join(out) + "\n").encode()[:n]


def gen_binary(n: int, seed: int) -> bytes:
    """Compressible binary: repeated records with random fields."""
    r = random.Random(seed)
    out = bytearray()
    while len(out) < n:
        rec = bytes([r.randrange(8), 0, 0, r.randrange(256)]) + r.randrange(1 << 32).to_bytes(4, "little")
        out += rec * r.randint(1, 6)
        if r.random() < 0.05:
            out += bytes(r.randrange(256) for _ in range(r.randint(1, 64)))
    return bytes(out[:n])


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# ---------------------------------------------------------------------------
# Smoke workload description


@dataclass
class Case:
    """One command of a smoke workload.

    argv entries may use {exe}, {tmp} (the per-run scratch dir), {data}
    (bench/corpus/smoke/<prog>) and {src} (the crate source dir).  `pipe`
    lists further commands fed with the previous stdout.  The recorded output
    is stdout (normalised), stderr and the exit status of every command.
    `expect_file` additionally requires the final stdout to equal that file,
    `expect_exit` the exit status of every command (independent checks that
    do not depend on the reference build)."""

    name: str
    argv: list[str]
    stdin: str | None = None
    pipe: list[list[str]] = field(default_factory=list)
    cwd: str = "{tmp}"
    normalize: str | None = None  # None | "sort" (lines) | "sort0" | "words" | "json"
    expect_file: str | None = None
    expect_exit: int | None = 0  # required exit status of every command (None: any)
    env: dict[str, str] = field(default_factory=dict)
    timeout: int = 300
    # (regex, replacement) applied to every command's stderr (multiline mode)
    stderr_re: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Program:
    name: str
    crate: str
    kind: str  # "c" | "c++" | "rust"
    description: str
    # C/C++: list of (files, extra flags); file paths are relative to the crate
    # source dir, or start with "drivers/" for files of this directory.
    units: list[tuple[list[str], list[str]]] = field(default_factory=list)
    gen_headers: Callable[[Path, Path], None] | None = None  # (src, gendir)
    libs: list[str] = field(default_factory=list)
    # Rust
    cargo_args: list[str] = field(default_factory=list)
    rust_bin: str = ""
    # smoke workload
    prepare: Callable[[Path, Path], None] | None = None  # (tmp, src)
    cases: Callable[[], list[Case]] = lambda: []
    quick: bool = False

    @property
    def src(self) -> Path:
        return crate_src(self.crate)

    @property
    def linker(self) -> str:
        return CLANGXX if self.kind == "c++" else CLANG


def expand_units(prog: Program) -> list[tuple[Path, str, list[str]]]:
    """-> [(absolute source path, relative name, flags)]"""
    res = []
    for files, flags in prog.units:
        for f in files:
            if f.startswith("drivers/"):
                res.append((HERE / f, f, flags))
                continue
            if any(ch in f for ch in "*?["):
                matches = sorted(prog.src.glob(f))
                if not matches:
                    raise BuildError(f"{prog.name}: no files match {f}")
                for m in matches:
                    res.append((m, str(m.relative_to(prog.src)), flags))
            else:
                res.append((prog.src / f, f, flags))
    return res


# ---------------------------------------------------------------------------
# Program definitions

# --- SQLite ---------------------------------------------------------------

SQLITE_FLAGS = [
    # exactly the defines libsqlite3-sys' build.rs passes for the bundled build
    "-DSQLITE_CORE", "-DSQLITE_DEFAULT_FOREIGN_KEYS=1", "-DSQLITE_ENABLE_API_ARMOR",
    "-DSQLITE_ENABLE_COLUMN_METADATA", "-DSQLITE_ENABLE_DBSTAT_VTAB", "-DSQLITE_ENABLE_FTS3",
    "-DSQLITE_ENABLE_FTS3_PARENTHESIS", "-DSQLITE_ENABLE_FTS5", "-DSQLITE_ENABLE_JSON1",
    "-DSQLITE_ENABLE_LOAD_EXTENSION=1", "-DSQLITE_ENABLE_RTREE", "-DSQLITE_ENABLE_STAT4",
    "-DSQLITE_SOUNDEX", "-DSQLITE_THREADSAFE=1", "-DSQLITE_USE_URI", "-DHAVE_USLEEP=1",
    "-DHAVE_ISNAN", "-D_POSIX_THREAD_SAFE_FUNCTIONS", "-DHAVE_LOCALTIME_R",
]


def sqlite_cases() -> list[Case]:
    cases = []
    for sql in sorted(SMOKE_DATA.glob("sqlite/*.sql")):
        cases.append(Case(sql.stem, ["{exe}", "{tmp}/%s.db" % sql.stem, "{data}/" + sql.name]))
    cases.append(Case("memory_db", ["{exe}", ":memory:", "{data}/01_relational.sql", "{data}/02_features.sql"]))
    cases.append(Case("missing_script", ["{exe}", ":memory:", "{tmp}/does-not-exist.sql"], expect_exit=1))
    return cases


# --- Lua ------------------------------------------------------------------


def lua_cases() -> list[Case]:
    cases = [Case(s.stem, ["{exe}", "{data}/" + s.name, "a1", "b2"], expect_exit=1 if "uncaught" in s.stem else 0)
             for s in sorted(SMOKE_DATA.glob("lua/*.lua"))]
    return cases


# --- QuickJS ----------------------------------------------------------------

QJS_FLAGS = ["-D_GNU_SOURCE", "-DQUICKJS_NG_BUILD", "-funsigned-char", "-Iquickjs"]
# Files of the QuickJS-ng test suite shipped in rquickjs-sys (quickjs/tests/)
# that pass standalone with `qjs FILE` (exit 0, identical output on two runs).
# Not included: test_builtin.js (needs the `qjs` host object that
# run-test262.c provides), test_worker_module.js and fixture_*.js (helpers
# loaded by other tests), microbench.js (a benchmark), bug1354.js bug1661.js
# bug648.js bug775.js bug776.js (exit 1 under plain qjs; upstream runs them
# through run-test262 -c tests.conf).
QJS_UPSTREAM_TESTS = [
    "array-fromasync-enumerable.js", "array-sort-identical-values.js", "atomics-store-leak.js", "bug1296.js",
    "bug1297.js", "bug1301.js", "bug1302.js", "bug1305.js", "bug1318.js", "bug1352.js", "bug1355.js",
    "bug1368.js", "bug1430.js", "bug1468.js", "bug1498.js", "bug1552.js", "bug1557.js", "bug1562.js",
    "bug1564.js", "bug1565.js", "bug1571.js", "bug1572.js", "bug1591.js", "bug1598.js", "bug1625.js",
    "bug1626.js", "bug1627.js", "bug1628.js", "bug1683.js", "bug1690.js", "bug1691.js", "bug1693.js",
    "bug488-upstream.js", "bug492.js", "bug493.js", "bug567.js", "bug652.js", "bug741.js", "bug832.js",
    "bug858.js", "bug904.js", "bug988.js", "bug999.js", "callsite-isconstructor.js",
    "callsite-native-position.js", "destructured-export.js", "dynamic_import_rejection_handled.js",
    "fix_set_array_length-uaf.js", "for-await-normal-close.js", "function_source.js", "global-reference-column.js",
    "import-attributes-identity.js", "iterator-filter-leak.js", "iterator-tostringtag-setter.js",
    "null_or_undefined.js", "parse-error-column.js", "reexport-error-module.js",
    "resize_array_buffer_index_valueOf.js", "str-pad-leak.js", "suspended-coroutine-closure-gc.js",
    "suspended-coroutine-mapped-arguments-gc.js", "suspended-generator-closure-gc.js", "test_array_to_gc.js",
    "test_base64.js", "test_bigint.js", "test_bjson.js", "test_closure.js", "test_domexception.js",
    "test_for_of_line_numbers.js", "test_language.js", "test_loop.js", "test_queue_microtask.js",
    "test_std.js", "test_string_exports.js", "test_worker.js", "typedarray-lastindexof-shrink.js",
    "typedarray-set-invalid-index.js", "typedarray-slice-overlap.js", "typedarray-subarray-species.js",
]


def qjs_cases() -> list[Case]:
    cases = [Case(s.stem, ["{exe}", "{data}/" + s.name], expect_exit=1 if "uncaught" in s.stem else 0)
             for s in sorted(SMOKE_DATA.glob("quickjs/*.js"))]
    for t in QJS_UPSTREAM_TESTS:
        cases.append(Case("upstream_" + t[:-3], ["{exe}", "{src}/quickjs/tests/" + t]))
    return cases


# --- compression -------------------------------------------------------------


def compression_inputs(tmp: Path, src: Path) -> None:
    write(tmp / "in" / "text.txt", gen_text(400_000, 1))
    write(tmp / "in" / "binary.dat", gen_binary(300_000, 2))
    write(tmp / "in" / "small.txt", gen_text(3_000, 3))
    write(tmp / "in" / "empty.dat", b"")


def zstd_cases() -> list[Case]:
    cases = [Case("workload", ["{exe}"])]
    for f in ("text.txt", "binary.dat", "small.txt", "empty.dat"):
        cases.append(Case(f"compress_{f}", ["{exe}", "-c", "7"], stdin="{tmp}/in/" + f))
        cases.append(Case(f"roundtrip_{f}", ["{exe}", "-c", "19"], stdin="{tmp}/in/" + f,
                          pipe=[["{exe}", "-d"]], expect_file="{tmp}/in/" + f))
    cases.append(Case("decompress_garbage", ["{exe}", "-d"], stdin="{tmp}/in/small.txt", expect_exit=1))
    return cases


BZ2_LIB = ["blocksort.c", "huffman.c", "crctable.c", "randtable.c", "compress.c", "decompress.c", "bzlib.c"]


def bzip2_cases() -> list[Case]:
    d = "{src}/bzip2-1.0.8/"
    cases = []
    # the same checks as bzip2's own `make test`
    for i, lvl in ((1, "-1"), (2, "-2"), (3, "-3")):
        cases.append(Case(f"compress_sample{i}", ["{exe}", lvl], stdin=f"{d}sample{i}.ref",
                          expect_file=f"{d}sample{i}.bz2"))
        cases.append(Case(f"decompress_sample{i}", ["{exe}", "-d"], stdin=f"{d}sample{i}.bz2",
                          expect_file=f"{d}sample{i}.ref"))
    cases.append(Case("decompress_sample3_small", ["{exe}", "-ds"], stdin=d + "sample3.bz2",
                      expect_file=d + "sample3.ref"))
    for f in ("text.txt", "binary.dat", "empty.dat"):
        cases.append(Case(f"compress_{f}", ["{exe}", "-9c"], stdin="{tmp}/in/" + f))
        cases.append(Case(f"roundtrip_{f}", ["{exe}", "-c", "-5"], stdin="{tmp}/in/" + f,
                          pipe=[["{exe}", "-dc"]], expect_file="{tmp}/in/" + f))
    cases.append(Case("test_integrity", ["{exe}", "-tvv", d + "sample1.bz2", d + "sample2.bz2"]))
    cases.append(Case("corrupt_input", ["{exe}", "-dc"], stdin="{tmp}/in/small.txt", expect_exit=2))
    return cases


XZ_LIB_DIRS = ["common", "lzma", "lz", "check", "delta", "rangecoder", "simple"]
XZ_SKIP = ("crc32_small", "crc64_small", "tablegen")


def xz_units(src: Path | None = None) -> list[tuple[list[str], list[str]]]:
    base = crate_src("lzma-sys")
    lib = []
    for d in XZ_LIB_DIRS:
        for f in sorted((base / "xz-5.2/src/liblzma" / d).glob("*.c")):
            if not any(s in f.stem for s in XZ_SKIP):
                lib.append(str(f.relative_to(base)))
    lib += ["xz-5.2/src/common/tuklib_cpucores.c", "xz-5.2/src/common/tuklib_physmem.c"]
    incs = ["-Ixz-5.2/src/liblzma/" + d for d in ["api", "lzma", "lz", "check", "simple", "delta", "common", "rangecoder"]]
    lib_flags = ["-DHAVE_CONFIG_H=1", *incs, "-Ixz-5.2/src/common", "-I.", "-std=c99", "-pthread"]
    cli = [f"xz-5.2/src/xz/{n}.c" for n in
           ("args", "coder", "file_io", "hardware", "list", "main", "message", "mytime", "options",
            "signals", "suffix", "util")]
    cli += [f"xz-5.2/src/common/tuklib_{n}.c" for n in ("open_stdxxx", "progname", "exit", "mbstr_width", "mbstr_fw")]
    cli_flags = ["-DHAVE_CONFIG_H=1", "-I{gen}", "-Ixz-5.2/src/liblzma/api", "-Ixz-5.2/src/common", "-std=gnu99", "-pthread"]
    return [(lib, lib_flags), (cli, cli_flags)]


XZ_CLI_CONFIG = """\
/* Generated by bench/corpus/corpus.py: configuration for the xz command-line
 * tool (lzma-sys's config.h only covers liblzma). */
#include "%(crate_config)s"
#undef _POSIX_C_SOURCE
#define _GNU_SOURCE 1
#define PACKAGE_NAME "XZ Utils"
#define PACKAGE_URL "https://tukaani.org/xz/"
#define PACKAGE_BUGREPORT "lasse.collin@tukaani.org"
#define HAVE_ENCODERS 1
#define HAVE_DECODERS 1
#define HAVE_DECL_PROGRAM_INVOCATION_NAME 1
#define HAVE_FUTIMENS 1
#define HAVE_STRUCT_STAT_ST_ATIM_TV_NSEC 1
#define HAVE_POSIX_FADVISE 1
#define HAVE_CLOCK_GETTIME 1
#define HAVE_DECL_CLOCK_MONOTONIC 1
#define HAVE_PTHREAD_CONDATTR_SETCLOCK 1
#define ASSUME_RAM 128
#define HAVE_WCWIDTH 1
#define HAVE_MBRTOWC 1
"""


def xz_gen(src: Path, gen: Path) -> None:
    write(gen / "config.h", XZ_CLI_CONFIG % {"crate_config": src / "config.h"})


def xz_cases() -> list[Case]:
    cases = [Case("version", ["{exe}", "--robot", "--version"])]
    variants = {
        "default": [],
        "preset0": ["-0"],
        "preset9e": ["-9e"],
        "sha256": ["-3", "--check=sha256"],
        "crc32": ["-2", "--check=crc32"],
        "lzma_alone": ["--format=lzma", "-4"],
        "raw_lzma1": ["--format=raw", "--lzma1=preset=2"],
        "x86_filter": ["--x86", "--lzma2=preset=5"],
        "delta_filter": ["--delta=dist=4", "--lzma2=preset=1,lc=1,lp=2,pb=2"],
        "sparc_filter": ["--sparc", "--lzma2=preset=3,nice=128,mf=hc4"],
        "blocks": ["-6", "--block-size=65536"],
        "threads": ["-4", "-T2", "--block-size=100000"],
    }
    for name, opts in variants.items():
        dec = ["{exe}", "-dc", *[o for o in opts if o.startswith("--format") or o.startswith("--lzma1")]]
        for f in ("text.txt", "binary.dat"):
            cases.append(Case(f"{name}_{f}", ["{exe}", "-c", *opts], stdin="{tmp}/in/" + f))
            cases.append(Case(f"{name}_{f}_roundtrip", ["{exe}", "-c", *opts], stdin="{tmp}/in/" + f,
                              pipe=[dec], expect_file="{tmp}/in/" + f))
    # -v appends the elapsed time (", 0:01") when a file takes a second or more (it does
    # under qemu-user), and the speed too (", 35 KiB/s, 0:11") when it takes longer still
    # (on a loaded machine): drop both
    cases.append(Case("compress_files", ["{exe}", "-k", "-v", "-7", "{tmp}/in/small.txt", "{tmp}/in/text.txt"],
                      stderr_re=[(r"(= \d\.\d\d\d)(, [\d.]+ [KMG]?i?B/s)?, \d+:\d\d$", r"\1")]))
    cases.append(Case("list", ["{exe}", "-lvv", "{tmp}/in/small.txt.xz", "{tmp}/in/text.txt.xz"]))
    cases.append(Case("list_robot", ["{exe}", "--robot", "-lvv", "{tmp}/in/text.txt.xz"]))
    cases.append(Case("test_files", ["{exe}", "-tv", "{tmp}/in/small.txt.xz", "{tmp}/in/text.txt.xz"]))
    cases.append(Case("corrupt_input", ["{exe}", "-dc"], stdin="{tmp}/in/small.txt", expect_exit=1))
    cases.append(Case("empty_roundtrip", ["{exe}", "-c"], stdin="{tmp}/in/empty.dat",
                      pipe=[["{exe}", "-dc"]], expect_file="{tmp}/in/empty.dat"))
    return cases


# --- LevelDB -------------------------------------------------------------------

LEVELDB = "deps/leveldb-1.22/"
SNAPPY = "deps/snappy-1.1.7/"


def leveldb_gen(src: Path, gen: Path) -> None:
    write(gen / "port" / "port_config.h", "\n".join([
        "#ifndef STORAGE_LEVELDB_PORT_PORT_CONFIG_H_", "#define STORAGE_LEVELDB_PORT_PORT_CONFIG_H_",
        "#define HAVE_FDATASYNC 1", "#define HAVE_FULLFSYNC 0", "#define HAVE_CRC32C 0",
        "#define HAVE_SNAPPY 1", "#define LEVELDB_IS_BIG_ENDIAN 0", "#endif", ""]))
    write(gen / "snappy" / "config.h", "\n".join([
        "#ifndef THIRD_PARTY_SNAPPY_OPENSOURCE_CMAKE_CONFIG_H_",
        "#define THIRD_PARTY_SNAPPY_OPENSOURCE_CMAKE_CONFIG_H_",
        *[f"#define {d} 1" for d in (
            "HAVE_BUILTIN_CTZ", "HAVE_BUILTIN_EXPECT", "HAVE_BYTESWAP_H", "HAVE_FUNC_MMAP",
            "HAVE_FUNC_SYSCONF", "HAVE_STDDEF_H", "HAVE_STDINT_H", "HAVE_SYS_MMAN_H",
            "HAVE_SYS_RESOURCE_H", "HAVE_SYS_TIME_H", "HAVE_SYS_UIO_H", "HAVE_UNISTD_H")],
        "#endif", ""]))
    tmpl = (src / SNAPPY / "snappy-stubs-public.h.in").read_text()
    for k, v in {"HAVE_STDINT_H_01": "1", "HAVE_STDDEF_H_01": "1", "HAVE_SYS_UIO_H_01": "1",
                 "SNAPPY_MAJOR": "1", "SNAPPY_MINOR": "1", "SNAPPY_PATCHLEVEL": "7"}.items():
        tmpl = tmpl.replace("${%s}" % k, v)
    write(gen / "snappy" / "snappy-stubs-public.h", tmpl)


def leveldb_units() -> list[tuple[list[str], list[str]]]:
    lv = [LEVELDB + f for f in (
        "db/builder.cc db/c.cc db/db_impl.cc db/db_iter.cc db/dbformat.cc db/dumpfile.cc "
        "db/filename.cc db/log_reader.cc db/log_writer.cc db/memtable.cc db/repair.cc "
        "db/table_cache.cc db/version_edit.cc db/version_set.cc db/write_batch.cc "
        "table/block_builder.cc table/block.cc table/filter_block.cc table/format.cc "
        "table/iterator.cc table/merger.cc table/table_builder.cc table/table.cc "
        "table/two_level_iterator.cc util/arena.cc util/bloom.cc util/cache.cc util/coding.cc "
        "util/comparator.cc util/crc32c.cc util/env.cc util/filter_policy.cc util/hash.cc "
        "util/logging.cc util/options.cc util/status.cc util/env_posix.cc "
        "helpers/memenv/memenv.cc").split()]
    sn = [SNAPPY + f for f in ("snappy.cc", "snappy-sinksource.cc", "snappy-stubs-internal.cc", "snappy-c.cc")]
    cxx = ["-std=c++11", "-pthread"]
    lv_flags = [*cxx, "-DLEVELDB_PLATFORM_POSIX=1", "-DLEVELDB_COMPILE_LIBRARY", "-DLEVELDB_HAS_PORT_CONFIG_H=1",
                "-I{gen}", "-I" + LEVELDB, "-I" + LEVELDB + "include", "-I{gen}/snappy", "-I" + SNAPPY]
    sn_flags = [*cxx, "-DHAVE_CONFIG_H", "-I{gen}/snappy", "-I" + SNAPPY]
    drv_flags = ["-std=c++14", "-pthread", "-I" + LEVELDB + "include", "-I{gen}/snappy", "-I" + SNAPPY]
    return [(sn, sn_flags), (lv, lv_flags), (["drivers/leveldb_host.cc"], drv_flags)]


# --- Rust programs -----------------------------------------------------------


def gen_source_tree(root: Path, seed: int, nfiles: int = 160) -> None:
    """A deterministic directory tree of small source files in several
    languages (used by the fd and tokei workloads)."""
    r = random.Random(seed)
    exts = {
        "rs": ("// ", "/* ", " */", 'fn f{i}() -> u32 {{ let s = "// not a comment"; {i} }}'),
        "c": ("// ", "/* ", " */", 'int f{i}(void) {{ const char *s = "/* no */"; return {i}; }}'),
        "py": ("# ", '"""', '"""', "def f{i}():\n    return {i}  # trailing"),
        "js": ("// ", "/* ", " */", "function f{i}() {{ return `${{{i}}}`; }}"),
        "sh": ("# ", None, None, "f{i}() {{ echo {i}; }}"),
        "md": (None, None, None, "Paragraph {i} with `code` and *emphasis*."),
        "toml": ("# ", None, None, "key{i} = {i}"),
        "txt": (None, None, None, "plain text line {i}"),
        "h": ("// ", "/* ", " */", "#define F{i} {i}"),
        "go": ("// ", "/* ", " */", "func f{i}() int {{ return {i} }}"),
    }
    dirs = ["src", "src/core", "src/util", "lib", "lib/deep/er/est", "docs", "scripts", "test", "test/data",
            ".hidden", "build", "vendor/pkg"]
    write(root / ".ignore", "build/\n*.log\n")
    write(root / "build" / "output.rs", "fn ignored() {}\n")
    write(root / "debug.log", "ignored log\n")
    write(root / "README.md", "# Tree\n\nGenerated for the fmerge corpus.\n")
    write(root / "empty.txt", "")
    write(root / "Makefile", "all:\n\techo ok\n")
    for i in range(nfiles):
        ext = r.choice(sorted(exts))
        d = r.choice(dirs)
        name = r.choice(["main", "util", "test_mod", "parser", "lexer", "io", "net", "data", "config", "Helper"])
        line_c, blk_o, blk_c, code = exts[ext]
        lines = []
        for j in range(r.randint(0, 60)):
            k = r.random()
            if k < 0.15:
                lines.append("")
            elif k < 0.3 and line_c:
                lines.append(f"{line_c}comment {j}")
            elif k < 0.35 and blk_o:
                lines += [f"{blk_o}block", f"comment line {j}", f"end{blk_c}"]
            else:
                lines.append(code.format(i=i * 100 + j))
        body = "\n".join(lines) + ("\n" if lines else "")
        write(root / d / f"{name}_{i}.{ext}", body * r.choice([1, 1, 1, 3, 20]))


def fd_prepare(tmp: Path, src: Path) -> None:
    gen_source_tree(tmp / "tree", 7)


def fd_cases() -> list[Case]:
    t = "{tmp}/tree"
    s = "sort"
    return [
        Case("version", ["{exe}", "--version"]),
        Case("all", ["{exe}"], cwd=t, normalize=s),
        Case("hidden_noignore", ["{exe}", "-H", "-I"], cwd=t, normalize=s),
        Case("ext_rs", ["{exe}", "-e", "rs"], cwd=t, normalize=s),
        Case("regex", ["{exe}", "-H", "^(test|util)_[0-9]+\\.(c|h)$"], cwd=t, normalize=s),
        Case("glob_md_files", ["{exe}", "-g", "*.md", "-t", "f"], cwd=t, normalize=s),
        Case("dirs", ["{exe}", "-H", "-t", "d"], cwd=t, normalize=s),
        Case("empty", ["{exe}", "-t", "e"], cwd=t, normalize=s),
        Case("size_gt_1k", ["{exe}", "-S", "+1k", "-t", "f"], cwd=t, normalize=s),
        Case("max_depth", ["{exe}", "-d", "2", "-a"], cwd=t, normalize=s),
        Case("case_sensitive", ["{exe}", "-s", "Helper"], cwd=t, normalize=s),
        Case("full_path", ["{exe}", "-p", "deep/.*\\.(py|js)$"], cwd=t, normalize=s),
        Case("exclude", ["{exe}", "-E", "src", "-E", "*.txt", "-t", "f"], cwd=t, normalize=s),
        Case("exec", ["{exe}", "-e", "toml", "-x", "echo", "{{/.}}"], cwd=t, normalize=s),
        Case("exec_batch", ["{exe}", "-e", "sh", "-X", "echo"], cwd=t, normalize="words"),
        Case("format", ["{exe}", "-e", "go", "--format", "{{//}} {{/}} {{.}}"], cwd=t, normalize=s),
        Case("search_path", ["{exe}", "lexer", "src", "lib"], cwd=t, normalize=s),
        Case("null_separated", ["{exe}", "-0", "-e", "h"], cwd=t, normalize="sort0"),
        Case("bad_regex", ["{exe}", "["], cwd=t, expect_exit=1),
    ]


def tokei_prepare(tmp: Path, src: Path) -> None:
    gen_source_tree(tmp / "tree", 11, nfiles=220)


def tokei_cases() -> list[Case]:
    t = "{tmp}/tree"
    return [
        Case("version", ["{exe}", "--version"]),
        Case("json", ["{exe}", "--output", "json", "."], cwd=t, normalize="json"),
        Case("table_sorted", ["{exe}", "--sort", "code", "--columns", "100", "."], cwd=t),
        Case("types", ["{exe}", "-t", "Rust,C,Python", "--sort", "lines", "--columns", "100", "."], cwd=t),
        Case("files_json", ["{exe}", "--files", "--output", "json", "-t", "Go,JavaScript", "."], cwd=t, normalize="json"),
        Case("exclude_hidden", ["{exe}", "--hidden", "-e", "src", "--sort", "files", "--columns", "100", "."], cwd=t),
        Case("languages", ["{exe}", "--languages"]),
    ]


# ---------------------------------------------------------------------------

PROGRAMS: dict[str, Program] = {}


def _add(p: Program) -> None:
    PROGRAMS[p.name] = p


_add(Program(
    "sqlite", "libsqlite3-sys", "c",
    "SQLite amalgamation + drivers/sqlite_host.c (SQL script runner)",
    units=[(["sqlite3/sqlite3.c"], SQLITE_FLAGS + ["-Isqlite3"]),
           (["drivers/sqlite_host.c"], ["-Isqlite3"])],
    libs=["-lm", "-lpthread", "-ldl"], cases=sqlite_cases, quick=True))

_add(Program(
    "lua", "lua-src", "c",
    "Lua 5.4.9 (all lua-5.4.9/*.c) + drivers/lua_host.c (stand-in for lua.c)",
    units=[(["lua-5.4.9/*.c"], ["-DLUA_USE_LINUX", "-DLUA_COMPAT_5_3", "-fno-common", "-Ilua-5.4.9"]),
           (["drivers/lua_host.c"], ["-Ilua-5.4.9"])],
    libs=["-lm", "-ldl"], cases=lua_cases, quick=True))

_add(Program(
    "quickjs", "rquickjs-sys", "c",
    "QuickJS-ng library + quickjs-libc + the qjs command-line interpreter",
    units=[(["quickjs/dtoa.c", "quickjs/libregexp.c", "quickjs/libunicode.c", "quickjs/quickjs.c",
             "quickjs/quickjs-libc.c", "quickjs/qjs.c", "quickjs/gen/repl.c", "quickjs/gen/standalone.c"],
            QJS_FLAGS)],
    libs=["-lm", "-ldl", "-lpthread"], cases=qjs_cases))

_add(Program(
    "zstd", "zstd-sys", "c",
    "libzstd (common, compress, decompress, dictBuilder, legacy) + drivers/zstd_host.c",
    units=[(["zstd/lib/common/*.c", "zstd/lib/compress/*.c", "zstd/lib/decompress/*.c",
             "zstd/lib/dictBuilder/*.c", "zstd/lib/legacy/*.c"],
            ["-Izstd/lib", "-Izstd/lib/common", "-Izstd/lib/legacy", "-DZSTD_LIB_DEPRECATED=0",
             "-DXXH_PRIVATE_API", "-DZSTDLIB_VISIBILITY=", "-DZDICTLIB_VISIBILITY=",
             "-DZSTDERRORLIB_VISIBILITY=", "-DZSTD_LEGACY_SUPPORT=1", "-DZSTD_DISABLE_ASM"]),
           (["drivers/zstd_host.c"], ["-Izstd/lib"])],
    libs=[], prepare=compression_inputs, cases=zstd_cases, quick=True))

_add(Program(
    "bzip2", "bzip2-sys", "c",
    "libbz2 + the bzip2 command-line program (bzip2.c)",
    units=[([f"bzip2-1.0.8/{f}" for f in BZ2_LIB + ["bzip2.c"]], ["-D_FILE_OFFSET_BITS=64", "-Ibzip2-1.0.8"])],
    libs=[], prepare=compression_inputs, cases=bzip2_cases, quick=True))

_add(Program(
    "xz", "lzma-sys", "c",
    "liblzma (the file set lzma-sys compiles) + the xz command-line program",
    units=[], gen_headers=xz_gen, libs=["-lpthread"], prepare=compression_inputs, cases=xz_cases))

_add(Program(
    "leveldb", "leveldb-sys", "c++",
    "LevelDB 1.22 + Snappy 1.1.7 (C++) + drivers/leveldb_host.cc",
    units=[], gen_headers=leveldb_gen, libs=["-lpthread"], cases=lambda: [
        Case("workload", ["{exe}", "{tmp}/db"])]))

_add(Program(
    "fd", "fd-find", "rust",
    "fd (Rust, fat LTO incl. std), built without the jemalloc feature",
    cargo_args=["--no-default-features", "--features", "completions"], rust_bin="fd",
    libs=["-lc", "-lm", "-lpthread", "-ldl", "-lgcc_s"], prepare=fd_prepare, cases=fd_cases))

_add(Program(
    "tokei", "tokei", "rust",
    "tokei (Rust, fat LTO incl. std), default features",
    cargo_args=[], rust_bin="tokei",
    libs=["-lc", "-lm", "-lpthread", "-ldl", "-lgcc_s"], prepare=tokei_prepare, cases=tokei_cases))

# units that need the crate to be present to be computed
_LAZY_UNITS = {"xz": xz_units, "leveldb": leveldb_units}


def get_program(name: str) -> Program:
    if name not in PROGRAMS:
        raise SystemExit(f"unknown program {name!r}; known: {', '.join(PROGRAMS)}")
    p = PROGRAMS[name]
    if name in _LAZY_UNITS and not p.units:
        p.units = _LAZY_UNITS[name]()
    return p


# ---------------------------------------------------------------------------
# fetch


def fetch_crate(crate: str) -> Path:
    info = CRATES[crate]
    ver, want = info["version"], info["sha256"]
    cdir = cache_dir()
    archive = cdir / "crates" / f"{crate}-{ver}.crate"
    dest = crate_src(crate)
    marker = dest / ".fmerge-extracted"
    if marker.exists() and marker.read_text().strip() == want:
        return dest
    if not archive.exists() or hashlib.sha256(archive.read_bytes()).hexdigest() != want:
        url = f"https://static.crates.io/crates/{crate}/{crate}-{ver}.crate"
        log(f"downloading {url}")
        archive.parent.mkdir(parents=True, exist_ok=True)
        tmp = archive.with_suffix(".part")
        with urllib.request.urlopen(url, timeout=120) as resp, open(tmp, "wb") as f:
            shutil.copyfileobj(resp, f)
        got = hashlib.sha256(tmp.read_bytes()).hexdigest()
        if got != want:
            tmp.unlink()
            raise BuildError(f"{crate}-{ver}: sha256 mismatch: got {got}, want {want}")
        tmp.rename(archive)
    log(f"extracting {archive.name}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tf:
        top = f"{crate}-{ver}/"
        for m in tf.getmembers():
            if not (m.name + "/").startswith(top) or ".." in Path(m.name).parts or m.issym() or m.islnk():
                raise BuildError(f"unexpected tar member {m.name}")
        tf.extractall(dest.parent, filter="data")
    marker.write_text(want + "\n")
    return dest


def cargo_env() -> dict:
    env = dict(os.environ)
    env["CARGO_HOME"] = str(cache_dir() / "cargo-home")
    return env


def cmd_fetch(args) -> int:
    progs = [get_program(n) for n in (args.programs or PROGRAMS)]
    for crate in sorted({p.crate for p in progs}):
        fetch_crate(crate)
    for p in progs:
        if p.kind == "rust":
            log(f"cargo fetch for {p.name}")
            run(["cargo", "fetch", "--locked"], cwd=p.src, env=cargo_env())
    log("fetch done")
    return 0


# ---------------------------------------------------------------------------
# build


def subst_flags(flags: list[str], prog: Program, gen: Path) -> list[str]:
    res = []
    for f in flags:
        f = f.replace("{gen}", str(gen))
        if f.startswith("-I") and not f.startswith("-I/"):
            f = "-I" + str(prog.src / f[2:])
        res.append(f)
    return res


def compile_all(prog: Program, pdir: Path, jobs: int, native: bool) -> float:
    gen = pdir / "gen"
    if prog.gen_headers:
        prog.gen_headers(prog.src, gen)
    units = expand_units(prog)
    tasks = []
    for path, rel, flags in units:
        cc = CLANGXX if path.suffix in (".cc", ".cpp", ".cxx") else CLANG
        fl = BASE_CFLAGS + subst_flags(flags, prog, gen)
        if native:
            out = pdir / "native" / "obj" / (rel + ".o")
            cmd = [cc, *target_flags(), *fl, "-c", path, "-o", out]
        else:
            out = pdir / "bc" / (rel + ".bc")
            cmd = [cc, *target_flags(), *fl, "-emit-llvm", "-c", path, "-o", out]
        out.parent.mkdir(parents=True, exist_ok=True)
        tasks.append((cmd, out))
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for f in [ex.submit(run, cmd, cwd=prog.src) for cmd, _ in tasks]:
            f.result()
    # record the exact commands for reproduction
    (pdir / ("native-commands.txt" if native else "bc-commands.txt")).write_text(
        "".join(" ".join(map(str, c)) + "\n" for c, _ in tasks))
    return time.time() - t0


def bc_files(prog: Program, pdir: Path) -> list[Path]:
    return [pdir / "bc" / (rel + ".bc") for _, rel, _ in expand_units(prog)]


def link_exe(prog: Program, module: Path, exe: Path, codegen: str = "llc",
             llc_flags: list[str] = (), link_flags: list[str] = ()) -> None:
    """The reference recipe turning a whole-program module into an executable.
    llc_flags are appended to llc's flags, link_flags to the link driver's
    (e.g. the benchmark harness: -enable-machine-outliner, or
    -function-sections with --ld-path=ld.lld-22 -Wl,--icf=all)."""
    run([OPT, "-passes=verify", "-disable-output", module])
    exe.parent.mkdir(parents=True, exist_ok=True)
    if codegen == "llc":
        obj = exe.with_name(exe.name + ".o")
        run([LLC, *LLC_FLAGS, *llc_flags, "-filetype=obj", module, "-o", obj])
        run([prog.linker, *target_flags(), obj, "-o", exe, *link_flags, *prog.libs])
    elif codegen == "clang-Os":
        run([prog.linker, *target_flags(), "-Os", module, "-o", exe, *link_flags, *prog.libs])
    else:
        raise BuildError(f"unknown codegen mode {codegen}")


def build_c(prog: Program, pdir: Path, jobs: int, native: bool) -> dict:
    times = {}
    log(f"{prog.name}: compiling {len(expand_units(prog))} files to bitcode")
    times["compile_bc_s"] = compile_all(prog, pdir, jobs, native=False)
    t0 = time.time()
    module = pdir / f"{prog.name}.bc"
    run([LLVM_LINK, *bc_files(prog, pdir), "-o", module])
    times["llvm_link_s"] = time.time() - t0
    t0 = time.time()
    link_exe(prog, module, pdir / prog.name)
    times["codegen_link_s"] = time.time() - t0
    write_manifest(pdir, "bc", [rel + ".bc" for _, rel, _ in expand_units(prog)], [], prog.libs)
    if native:
        log(f"{prog.name}: native reference build")
        times["compile_native_s"] = compile_all(prog, pdir, jobs, native=True)
        objs = [pdir / "native" / "obj" / (rel + ".o") for _, rel, _ in expand_units(prog)]
        run([prog.linker, *target_flags(), *objs, "-o", pdir / "native" / prog.name, *prog.libs])
    return times


def build_rust(prog: Program, pdir: Path, jobs: int, native: bool) -> dict:
    env = cargo_env()
    target = pdir / "cargo-target"
    env.update({
        "CARGO_TARGET_DIR": str(target),
        "CARGO_PROFILE_RELEASE_LTO": "fat",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": OPT_LEVEL,
        "CARGO_PROFILE_RELEASE_STRIP": "false",
        "CARGO_PROFILE_RELEASE_DEBUG": "0",
        "CARGO_PROFILE_RELEASE_INCREMENTAL": "false",
    })
    triple = TARGETS[TARGET]["rust"]
    tgt_args = []
    if triple:
        check_rust_target(triple)
        tgt_args = ["--target", triple]
        cross_gcc = TARGETS[TARGET]["clang"] + "-gcc"
        env[f"CARGO_TARGET_{triple.upper().replace('-', '_')}_LINKER"] = cross_gcc
        env[f"CC_{triple.replace('-', '_')}"] = cross_gcc
    cmd = ["cargo", "rustc", "--release", "--locked", f"-j{jobs}", *tgt_args, *prog.cargo_args, "--bin", prog.rust_bin,
           "--", "--emit=llvm-bc,link"]
    log(f"{prog.name}: {' '.join(cmd)}")
    t0 = time.time()
    run(cmd, cwd=prog.src, env=env)
    times = {"cargo_s": time.time() - t0}
    deps = target / (triple or "") / "release" / "deps"
    bcs = sorted(deps.glob(f"{prog.rust_bin.replace('-', '_')}-*.bc"), key=lambda p: p.stat().st_mtime)
    if not bcs:
        raise BuildError(f"{prog.name}: no bitcode found in {deps}")
    module = pdir / f"{prog.name}.bc"
    shutil.copy2(bcs[-1], module)
    exe_native = bcs[-1].with_suffix("")
    (pdir / "native").mkdir(exist_ok=True)
    shutil.copy2(exe_native, pdir / "native" / prog.name)
    (pdir / "bc-commands.txt").write_text(
        "cd %s && %s %s\n" % (prog.src, " ".join(f"{k}={env[k]}" for k in sorted(env)
                                              if k.startswith(("CARGO_", "CC_"))),
                              " ".join(cmd)))
    t0 = time.time()
    link_exe(prog, module, pdir / prog.name)
    times["codegen_link_s"] = time.time() - t0
    return times


RUST_LINK_LIB = re.compile(r"^-l[\w+-]+$")


def build_rust_cgu(prog: Program, pdir: Path, jobs: int) -> dict:
    """Separate-compilation flavour of a Rust program: no LTO, 16 codegen
    units per crate, the optimised bitcode of every codegen unit of every
    crate linked into the program (std stays native: the sysroot rlibs).
    Writes <pdir>/cgu/*.bc and <pdir>/modules.json."""
    if TARGETS[TARGET]["rust"]:
        raise BuildError(f"{prog.name}: the per-codegen-unit flavour is only implemented for x86_64")
    env = cargo_env()
    env.update({
        "CARGO_TARGET_DIR": str(pdir / "cargo-target-cgu"),
        "CARGO_PROFILE_RELEASE_LTO": "off",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": OPT_LEVEL,
        "CARGO_PROFILE_RELEASE_STRIP": "false",
        "CARGO_PROFILE_RELEASE_DEBUG": "0",
        "CARGO_PROFILE_RELEASE_INCREMENTAL": "false",
        "RUSTFLAGS": "--emit=llvm-bc,link",
    })
    # --print link-args tells which rlibs/objects make up the program;
    # -C save-temps keeps the bitcode of the allocator shim module
    cmd = ["cargo", "rustc", "--release", "--locked", f"-j{jobs}", *prog.cargo_args, "--bin", prog.rust_bin,
           "--", "--print", "link-args", "-C", "save-temps"]
    log(f"{prog.name}: per-codegen-unit build: RUSTFLAGS=--emit=llvm-bc,link {' '.join(cmd)}")
    t0 = time.time()
    # the link line is printed only when rustc actually runs for the binary
    run(["cargo", "clean", "--release", "-p", prog.crate], cwd=prog.src, env=env)
    p = subprocess.run(cmd, cwd=prog.src, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise BuildError(f"{prog.name}: per-CGU cargo build failed\n{p.stderr[-6000:]}")
    deps = pdir / "cargo-target-cgu" / "release" / "deps"
    linkline = next((l for l in p.stdout.splitlines() if '"-nodefaultlibs"' in l or ".rlib" in l), None)
    if linkline is None:
        raise BuildError(f"{prog.name}: no link line in rustc --print link-args output")
    args = [a for a in shlex.split(linkline)]
    bcs, archives, libs = [], [], []
    for a in args:
        ap = Path(a)
        if a.endswith(".rlib"):
            if ap.parent == deps:
                found = sorted(deps.glob(ap.name[3:-5] + ".*.rcgu.bc"))
                if not found:
                    raise BuildError(f"{prog.name}: no bitcode for {ap.name}")
                bcs += found
            else:
                archives.append(a)  # std & co. from the sysroot
        elif a.endswith(".rcgu.o") and ap.parent == deps:
            bcs.append(Path(a[:-2] + ".bc"))
        elif RUST_LINK_LIB.match(a) and a not in libs:
            libs.append(a)
    cdir = pdir / "cgu"
    shutil.rmtree(cdir, ignore_errors=True)
    cdir.mkdir()
    for b in bcs:
        shutil.copy2(b, cdir / b.name)
    write_manifest(pdir, "cgu", [b.name for b in bcs], archives, libs)
    (pdir / "cgu-commands.txt").write_text("cd %s && %s %s\n" % (
        prog.src, " ".join(f"{k}={shlex.quote(env[k])}" for k in sorted(env)
                           if k.startswith("CARGO_") or k == "RUSTFLAGS"), " ".join(cmd)))
    return {"cargo_cgu_s": time.time() - t0}


def check_rust_target(triple: str) -> None:
    p = subprocess.run(["rustc", "--print", "target-libdir", "--target", triple], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    libdir = Path(p.stdout.strip()) if p.returncode == 0 else None
    if libdir is None or not any(libdir.glob("libstd-*.rlib")):
        raise BuildError(f"Rust standard library for {triple} is not installed "
                         f"(`rustup target add {triple}`)")


def write_manifest(pdir: Path, dirname: str, modules: list[str], archives: list[str], libs: list[str]) -> None:
    (pdir / "modules.json").write_text(json.dumps(
        {"dir": dirname, "modules": modules, "archives": archives, "libs": libs}, indent=1) + "\n")


def link_modules(prog: Program, pdir: Path, exe: Path, mdir: Path | None = None, jobs: int = 2) -> int:
    """Separate compilation: llc-22 every module listed in modules.json
    (taken from MDIR if given, e.g. a directory of merged modules with the
    same names), then link the objects (+ sysroot archives for Rust).
    Returns the summed .text bytes of the objects."""
    man = json.loads((pdir / "modules.json").read_text())
    mdir = mdir or pdir / man["dir"]
    objdir = exe.parent / (exe.name + ".objs")
    shutil.rmtree(objdir, ignore_errors=True)

    def llc(m: str) -> Path:
        o = objdir / (m + ".o")
        o.parent.mkdir(parents=True, exist_ok=True)
        run([LLC, *LLC_FLAGS, "-filetype=obj", mdir / m, "-o", o])
        return o

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        objs = list(ex.map(llc, man["modules"]))
    group = ["-Wl,--start-group", *man["archives"], "-Wl,--end-group"] if man["archives"] else []
    run([prog.linker, *target_flags(), *objs, *group, "-o", exe, *man["libs"]])
    text = 0
    for i in range(0, len(objs), 200):
        out = run([LLVM_SIZE, "-A", *objs[i:i + 200]]).stdout.decode()
        text += sum(int(m.group(1)) for m in re.finditer(r"^\.text\S*\s+(\d+)", out, re.M))
    return text


def module_stats(module: Path, obj: Path | None = None) -> dict:
    """Defined/declared functions, basic blocks and instructions (from the
    llvm-dis text) and the .text size of the llc-22 object."""
    p = subprocess.Popen([LLVM_DIS, str(module), "-o", "-"], stdout=subprocess.PIPE, text=True, errors="replace")
    defined = declared = insts = blocks = external = 0
    in_fn = False
    label = re.compile(r"^[\w.$\"-]+:")
    # one instruction per line indented by exactly two spaces; switch cases,
    # landingpad clauses etc. continue on lines indented further, "  ]" ends
    # a switch
    inst = re.compile(r"^  [^ \];]")
    first = False
    for line in p.stdout:
        if in_fn:
            if line.startswith("}"):
                in_fn = False
            elif inst.match(line):
                insts += 1
                if first:  # unnamed entry block
                    blocks += 1
                first = False
            elif label.match(line):
                blocks += 1
                first = False
        elif line.startswith("define "):
            defined += 1
            if not line.startswith(("define internal ", "define private ")):
                external += 1
            in_fn = first = True
        elif line.startswith("declare "):
            declared += 1
    p.wait()
    if p.returncode != 0:
        raise BuildError(f"llvm-dis failed on {module}")
    st = {"functions_defined": defined, "functions_defined_external": external,
          "functions_declared": declared, "basic_blocks": blocks,
          "instructions": insts, "bitcode_bytes": module.stat().st_size}
    with tempfile.TemporaryDirectory() as td:
        o = obj if obj and obj.exists() and obj.stat().st_mtime >= module.stat().st_mtime else Path(td) / "m.o"
        if o.parent == Path(td):
            run([LLC, *LLC_FLAGS, "-filetype=obj", module, "-o", o])
        out = run([LLVM_SIZE, "-A", o]).stdout.decode()
        text = sum(int(m.group(1)) for m in re.finditer(r"^\.text\S*\s+(\d+)", out, re.M))
        st["text_bytes"] = text
    return st


def cmd_build(args) -> int:
    out = Path(args.out)
    names = args.programs or [n for n in PROGRAMS if (not args.quick or PROGRAMS[n].quick)]
    failed = []
    for name in names:
        prog = get_program(name)
        pdir = out / name
        try:
            fetch_crate(prog.crate)
            t_start = time.time()
            if pdir.exists():
                for sub in ("bc", "native", "gen", "expected", "separate"):
                    shutil.rmtree(pdir / sub, ignore_errors=True)
            pdir.mkdir(parents=True, exist_ok=True)
            if prog.kind == "rust":
                times = build_rust(prog, pdir, args.jobs, native=True)
            else:
                times = build_c(prog, pdir, args.jobs, native=not args.no_native)
            times["total_build_s"] = time.time() - t_start
            log(f"{prog.name}: module statistics")
            stats = module_stats(pdir / f"{name}.bc", pdir / f"{name}.o")
            stats["exe_bytes"] = (pdir / name).stat().st_size
            stats["per_file_bitcode"] = len(list((pdir / "bc").rglob("*.bc"))) if (pdir / "bc").exists() else 0
            native_exe = pdir / "native" / name
            ref_exe = native_exe if native_exe.exists() else pdir / name
            log(f"{prog.name}: recording reference outputs with {ref_exe.relative_to(out)}")
            t0 = time.time()
            if smoke(prog, ref_exe, out, record=True) != 0:
                raise BuildError(f"{name}: independent checks failed for the reference build")
            times["smoke_s"] = time.time() - t0
            if ref_exe != pdir / name:
                log(f"{prog.name}: determinism check (reference executable again)")
                if smoke(prog, ref_exe, out) != 0:
                    raise BuildError(f"{name}: smoke output of the reference build is not deterministic")
            log(f"{prog.name}: checking the executable built from {name}.bc")
            if smoke(prog, pdir / name, out) != 0:
                raise BuildError(f"{name}: executable built from the bitcode does not match the reference")
            if args.separate:
                if prog.kind == "rust":
                    times.update(build_rust_cgu(prog, pdir, args.jobs))
                t0 = time.time()
                sep = pdir / "separate" / name
                shutil.rmtree(sep.parent, ignore_errors=True)
                sep.parent.mkdir()
                text = link_modules(prog, pdir, sep, jobs=args.jobs)
                times["separate_codegen_link_s"] = time.time() - t0
                man = json.loads((pdir / "modules.json").read_text())
                stats["separate"] = {"modules": len(man["modules"]), "text_bytes": text,
                                     "bitcode_bytes": sum((pdir / man["dir"] / m).stat().st_size
                                                          for m in man["modules"]),
                                     "exe_bytes": sep.stat().st_size}
                log(f"{prog.name}: checking the separately compiled executable")
                if smoke(prog, sep, out) != 0:
                    raise BuildError(f"{name}: separately compiled executable does not match the reference")
            info = {"program": name, "crate": prog.crate, "version": CRATES[prog.crate]["version"],
                    "kind": prog.kind, "reference": str(ref_exe.relative_to(pdir)), "times": times, **stats}
            (pdir / "stats.json").write_text(json.dumps(info, indent=1) + "\n")
            log(f"{prog.name}: OK {json.dumps(info)}")
        except BuildError as e:
            log(f"{name}: FAILED\n{e}")
            failed.append(name)
            if not args.keep_going:
                break
    if failed:
        log("failed: " + " ".join(failed))
        return 1
    return 0


# ---------------------------------------------------------------------------
# smoke


def normalize_output(data: bytes, how: str | None, reps: list[tuple[str, str]]) -> bytes:
    for old, new in reps:
        data = data.replace(old.encode(), new.encode())
    if how == "sort":
        lines = data.split(b"\n")
        trailing = lines and lines[-1] == b""
        body = sorted(lines[:-1] if trailing else lines)
        data = b"\n".join(body) + (b"\n" if trailing else b"")
    elif how == "words":
        data = b"\n".join(sorted(data.split())) + b"\n"
    elif how == "sort0":
        parts = [x for x in data.split(b"\0") if x]
        data = b"\0".join(sorted(parts)) + b"\0"
    elif how == "json":
        try:
            doc = json.loads(data)
        except ValueError:
            return data
        data = (json.dumps(canon_json(doc), indent=1, sort_keys=True) + "\n").encode()
    return data


def canon_json(x):
    """Sort lists of objects by their serialisation (tokei emits per-file
    reports in directory-walk order, which is not deterministic)."""
    if isinstance(x, dict):
        return {k: canon_json(v) for k, v in x.items()}
    if isinstance(x, list):
        items = [canon_json(v) for v in x]
        if all(isinstance(v, dict) for v in items):
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return items
    return x


def run_case(case: Case, ctx: dict, reps) -> tuple[bytes, bytes | None]:
    def sub(s: str) -> str:
        return s.format(**ctx)

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C", "TZ": "UTC",
           "HOME": ctx["tmp"], "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "100"}
    # Where a program built by `fmerge instrument` appends its records (bench/reliability.py).
    if "FMERGE_PROFILE_FILE" in os.environ:
        env["FMERGE_PROFILE_FILE"] = os.environ["FMERGE_PROFILE_FILE"]
    env.update(case.env)
    cmds = [case.argv, *case.pipe]
    stdin_data = Path(sub(case.stdin)).read_bytes() if case.stdin else b""
    record = b""
    data = stdin_data
    exit_ok = True
    for i, argv in enumerate(cmds):
        argv = [sub(a) for a in argv]
        try:
            p = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=sub(case.cwd), env=env, timeout=case.timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = "timeout", b"", b""
        if case.expect_exit is not None and rc != case.expect_exit:
            exit_ok = False
        for pat, repl in case.stderr_re:
            err = re.sub(pat.encode(), repl.encode(), err, flags=re.M)
        record += b"=== command %d stderr\n" % i + normalize_output(err, None, reps)
        record += b"\n=== command %d exit %s\n" % (i, str(rc).encode())
        data = out
    final = normalize_output(data, case.normalize, reps)
    indep = None if case.expect_exit is None else exit_ok
    if case.expect_file:
        indep = (indep is not False) and data == Path(sub(case.expect_file)).read_bytes()
    return b"=== stdout\n" + final + b"\n" + record, indep


def describe_diff(want: bytes, got: bytes) -> str:
    n = next((i for i, (x, y) in enumerate(zip(want, got)) if x != y), min(len(want), len(got)))
    head = f"expected {len(want)} bytes, got {len(got)}, first difference at byte {n}"
    if any(x[:65536].count(0) * 100 > len(x[:65536]) for x in (want, got)):
        return "binary output differs: " + head
    a = want.decode(errors="backslashreplace").splitlines()
    b = got.decode(errors="backslashreplace").splitlines()
    d = list(difflib.unified_diff(a, b, "expected", "got", lineterm="", n=2))
    return head + "\n" + "\n".join(d[:60]) + ("\n..." if len(d) > 60 else "")


def smoke(prog: Program, exe: Path, out: Path, record: bool = False, verbose: bool = False) -> int:
    exe = exe.resolve()
    expdir = out / prog.name / "expected"
    if not record and not expdir.exists():
        log(f"{prog.name}: no reference outputs in {expdir}; run `build {prog.name}` first")
        return 2
    if record:
        shutil.rmtree(expdir, ignore_errors=True)
        expdir.mkdir(parents=True)
    fails = 0
    with tempfile.TemporaryDirectory(prefix=f"fmerge-smoke-{prog.name}-") as td:
        tmp = Path(td).resolve()
        # run through a symlink named after the program, so that messages
        # containing argv[0] do not depend on where the executable lives
        link = tmp / "bin" / prog.name
        link.parent.mkdir()
        runner = TARGETS[TARGET]["runner"]
        if runner:
            # an emulator wrapper; -0 keeps argv[0] the same as with the symlink
            link.write_text("#!/bin/sh\nexec %s -0 \"$0\" %s \"$@\"\n"
                            % (" ".join(map(shlex.quote, runner)), shlex.quote(str(exe))))
            link.chmod(0o755)
        else:
            link.symlink_to(exe)
        entry = link
        wrapper = os.environ.get("FMERGE_SMOKE_WRAPPER")
        if wrapper:
            # e.g. "valgrind -q --error-exitcode=99": every run goes through it; a report it
            # prints (stderr) or its exit status makes the case differ from the reference.
            entry = tmp / "wrapped" / prog.name
            entry.parent.mkdir()
            entry.write_text("#!/bin/sh\nexec %s %s \"$@\"\n" % (wrapper, shlex.quote(str(link))))
            entry.chmod(0o755)
        ctx = {"exe": str(entry), "tmp": str(tmp), "data": str(SMOKE_DATA / prog.name), "src": str(prog.src)}
        reps = [(str(entry), "{exe}"), (str(link), "{exe}"), (str(tmp), "{tmp}"),
                (str(SMOKE_DATA / prog.name), "{data}"), (str(prog.src), "{src}")]
        if prog.prepare:
            prog.prepare(tmp, prog.src)
        cases = prog.cases()
        names = set()
        for i, case in enumerate(cases):
            assert case.name not in names, case.name
            names.add(case.name)
            t0 = time.time()
            if wrapper:
                case = dataclasses.replace(case, timeout=case.timeout * 30 if case.timeout else None)
            got, indep = run_case(case, ctx, reps)
            dt = time.time() - t0
            f = expdir / f"{i:02d}_{case.name}.out"
            problems = []
            if indep is False:
                problems.append("independent check failed: exit status != %s or stdout != %s"
                                % (case.expect_exit, case.expect_file))
            if record:
                f.write_bytes(got)
            else:
                want = f.read_bytes() if f.exists() else None
                if want is None:
                    problems.append("no reference output %s" % f.name)
                elif want != got:
                    problems.append("differs from reference")
                    print(f"--- {prog.name}/{case.name}:\n{describe_diff(want, got)}", file=sys.stderr)
            fails += bool(problems)
            if verbose or problems:
                print(f"{prog.name:8} {case.name:32} {dt:6.2f}s {'FAIL (' + '; '.join(problems) + ')' if problems else 'ok'}",
                      file=sys.stderr)
        if not record:
            extra = sorted(p.name for p in expdir.glob("*.out")
                           if p.name not in {f"{i:02d}_{c.name}.out" for i, c in enumerate(cases)})
            if extra:
                print(f"{prog.name}: stale reference files {extra}", file=sys.stderr)
                fails += 1
    word = "recorded" if record else "passed"
    print(f"{prog.name}: {len(cases) - fails} {word}, {fails} failed", file=sys.stderr)
    return 1 if fails else 0


def cmd_smoke(args) -> int:
    prog = get_program(args.program)
    out = Path(args.out)
    if args.modules_dir:
        with tempfile.TemporaryDirectory(prefix="fmerge-link-") as td:
            exe = Path(td) / prog.name
            try:
                link_modules(prog, out / prog.name, exe, Path(args.modules_dir).resolve())
            except BuildError as e:
                log(str(e))
                return 3
            return smoke(prog, exe, out, verbose=args.verbose)
    if args.obj:
        # An object file of the whole program made elsewhere (e.g. `fmerge opt --emit obj`):
        # the reference recipe's link step only.
        with tempfile.TemporaryDirectory(prefix="fmerge-link-") as td:
            exe = Path(td) / prog.name
            try:
                run([prog.linker, *target_flags(), Path(args.obj).resolve(), "-o", exe, *args.link_flag,
                     *prog.libs])
            except BuildError as e:
                log(str(e))
                return 3
            return smoke(prog, exe, out, verbose=args.verbose)
    if args.bc:
        with tempfile.TemporaryDirectory(prefix="fmerge-link-") as td:
            exe = Path(td) / prog.name
            try:
                link_exe(prog, Path(args.bc).resolve(), exe, args.codegen, args.llc_flag, args.link_flag)
            except BuildError as e:
                log(str(e))
                return 3
            return smoke(prog, exe, out, verbose=args.verbose)
    if args.record:
        # re-record the reference outputs (default: with the native build)
        exe = Path(args.exe) if args.exe else out / prog.name / "native" / prog.name
        return smoke(prog, exe, out, record=True, verbose=args.verbose)
    exe = Path(args.exe) if args.exe else out / prog.name / prog.name
    if not exe.exists():
        log(f"{exe} does not exist")
        return 2
    return smoke(prog, exe, out, verbose=args.verbose)


def cmd_link_modules(args) -> int:
    prog = get_program(args.program)
    pdir = Path(args.out) / prog.name
    try:
        text = link_modules(prog, pdir, Path(args.o).resolve(), Path(args.dir).resolve() if args.dir else None,
                            args.jobs)
    except BuildError as e:
        log(str(e))
        return 1
    print(json.dumps({"text_bytes": text}))
    return 0


def cmd_link(args) -> int:
    prog = get_program(args.program)
    try:
        link_exe(prog, Path(args.input).resolve(), Path(args.o).resolve(), args.codegen, args.llc_flag,
                 args.link_flag)
    except BuildError as e:
        log(str(e))
        return 1
    return 0


def cmd_stats(args) -> int:
    prog = get_program(args.program)
    pdir = Path(args.out) / prog.name
    module = Path(args.bc) if args.bc else pdir / f"{prog.name}.bc"
    obj = None if args.bc else pdir / f"{prog.name}.o"
    st = module_stats(module, obj)
    print(json.dumps(st, indent=1))
    if args.update and not args.bc:
        f = pdir / "stats.json"
        info = json.loads(f.read_text())
        info.update(st)
        f.write_text(json.dumps(info, indent=1) + "\n")
    return 0


def cmd_list(args) -> int:
    out = Path(args.out)
    for name, prog in PROGRAMS.items():
        info = CRATES[prog.crate]
        pdir = out / name
        st = pdir / "stats.json"
        status = "built" if st.exists() else "not built"
        print(f"{name:8} {prog.kind:5} {prog.crate} {info['version']}  [{status}]{'  (quick)' if prog.quick else ''}")
        print(f"         {prog.description}")
        if st.exists():
            s = json.loads(st.read_text())
            print(f"         module   {pdir / (name + '.bc')}  ({s['functions_defined']} functions, "
                  f"{s['instructions']} instructions, .text {s['text_bytes']} bytes)")
            print(f"         exe      {pdir / name}")
            if (pdir / "native" / name).exists():
                print(f"         native   {pdir / 'native' / name}")
            if (pdir / "bc").exists():
                print(f"         per-file {pdir / 'bc'}/ ({s['per_file_bitcode']} .bc files)")
            if (pdir / "cgu").exists():
                print(f"         per-CGU  {pdir / 'cgu'}/ ({len(list((pdir / 'cgu').glob('*.bc')))} .bc files)")
            if (pdir / "separate" / name).exists():
                print(f"         separate {pdir / 'separate' / name}  (from the modules in {pdir / 'modules.json'})")
            print(f"         expected {pdir / 'expected'}/ ({len(list((pdir / 'expected').glob('*.out')))} cases)")
    return 0


def cmd_report(args) -> int:
    """Markdown table of the recorded statistics (used for README.md)."""
    out = Path(args.out)
    print("| program | crate version | kind | per-file .bc | functions defined (non-internal) | basic blocks "
          "| instructions | bitcode bytes | .text bytes (llc-22) | exe bytes | build s | smoke cases |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in PROGRAMS:
        st = out / name / "stats.json"
        if not st.exists():
            continue
        s = json.loads(st.read_text())
        ncases = len(list((out / name / "expected").glob("*.out")))
        print(f"| {name} | {s['crate']} {s['version']} | {s['kind']} | {s['per_file_bitcode']} | "
              f"{s['functions_defined']} ({s.get('functions_defined_external', '?')}) | {s['basic_blocks']} | {s['instructions']} | {s['bitcode_bytes']} | "
              f"{s['text_bytes']} | {s['exe_bytes']} | {s['times']['total_build_s']:.0f} | {ncases} |")
    print()
    print("| program | separate modules | bitcode bytes (sum) | .text bytes (sum of llc-22 objects) | exe bytes |")
    print("|---|---:|---:|---:|---:|")
    for name in PROGRAMS:
        st = out / name / "stats.json"
        if st.exists() and "separate" in (s := json.loads(st.read_text())):
            sp = s["separate"]
            print(f"| {name} | {sp['modules']} | {sp['bitcode_bytes']} | {sp['text_bytes']} | {sp['exe_bytes']} |")
    return 0


def main(argv=None) -> int:
    global TARGET
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output dir (default: build/corpus, build/corpus-aarch64 for --target aarch64, "
                    "or $FMERGE_CORPUS_OUT)")
    ap.add_argument("--target", choices=sorted(TARGETS), default=TARGET,
                    help="target architecture (default: %(default)s; $FMERGE_CORPUS_TARGET)")
    sp = ap.add_subparsers(dest="cmd", required=True)
    f = sp.add_parser("fetch")
    f.add_argument("programs", nargs="*")
    b = sp.add_parser("build")
    b.add_argument("programs", nargs="*")
    b.add_argument("-j", "--jobs", type=int, default=2)
    b.add_argument("--quick", action="store_true", help="only the quick subset")
    b.add_argument("--no-native", action="store_true",
                   help="C/C++: skip the native reference build (reference outputs then come from the bitcode build)")
    b.add_argument("-k", "--keep-going", action="store_true")
    b.add_argument("--separate", action="store_true",
                   help="also build and smoke-test the separate-compilation executable (per-file .bc for C/C++; "
                        "a second, per-codegen-unit cargo build for Rust)")
    s = sp.add_parser("smoke")
    s.add_argument("program")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--exe")
    g.add_argument("--bc", help="link this whole-program module first (same recipe as `link`)")
    g.add_argument("--obj", help="link this whole-program object file first (the recipe's link step)")
    g.add_argument("--modules-dir", help="separate compilation: link the modules of modules.json found in this "
                   "directory first (same recipe as `link-modules`)")
    s.add_argument("--codegen", choices=["llc", "clang-Os"], default="llc")
    s.add_argument("--llc-flag", action="append", default=[], help="with --bc: extra llc-22 flag (repeatable; "
                   "write --llc-flag=-X)")
    s.add_argument("--link-flag", action="append", default=[], help="with --bc or --obj: extra link driver flag "
                   "(repeatable)")
    s.add_argument("-v", "--verbose", action="store_true")
    s.add_argument("--record", action="store_true",
                   help="re-record the reference outputs (with --exe, or the native build) instead of comparing")
    lk = sp.add_parser("link")
    lk.add_argument("program")
    lk.add_argument("input")
    lk.add_argument("-o", required=True)
    lk.add_argument("--codegen", choices=["llc", "clang-Os"], default="llc")
    lk.add_argument("--llc-flag", action="append", default=[], help="extra llc-22 flag (repeatable; write --llc-flag=-X)")
    lk.add_argument("--link-flag", action="append", default=[], help="extra link driver flag (repeatable)")
    lm = sp.add_parser("link-modules")
    lm.add_argument("program")
    lm.add_argument("--dir", help="directory holding the modules named in modules.json (default: the build's)")
    lm.add_argument("-o", required=True)
    lm.add_argument("-j", "--jobs", type=int, default=2)
    st = sp.add_parser("stats")
    st.add_argument("program")
    st.add_argument("--bc")
    st.add_argument("--update", action="store_true", help="store the numbers in <out>/<prog>/stats.json")
    sp.add_parser("list")
    sp.add_parser("report", help="Markdown table of module statistics")
    args = ap.parse_args(argv)
    TARGET = args.target
    args.out = str(Path(args.out or default_out()).resolve())  # commands run in the crate source dirs
    try:
        return {"fetch": cmd_fetch, "build": cmd_build, "smoke": cmd_smoke, "link": cmd_link,
                "stats": cmd_stats, "list": cmd_list, "link-modules": cmd_link_modules,
                "report": cmd_report}[args.cmd](args)
    except BuildError as e:
        log(str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
