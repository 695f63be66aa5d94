"""The corpus programs: one registry, read by every study.

A program is a crates.io package pinned in bench/corpus/programs.toml (version and sha256 of
the `.crate`) plus its recipe here: which files make it and with which flags (C/C++), which
cargo features (Rust), the libraries it links with, and its smoke workload: commands whose
outputs are recorded from the reference build and compared byte for byte afterwards.
PROGRAMS keeps the corpus order (the order of every table); `names()` selects from it.
"""

from __future__ import annotations

import os
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .common import CLANG, CLANGXX, CORPUS_DATA

SMOKE_DATA = CORPUS_DATA / "smoke"
HERE = CORPUS_DATA  # drivers/ is relative to it


def cache_dir() -> Path:
    """Downloads, extracted sources and the CARGO_HOME of the Rust programs."""
    return Path(os.environ.get("FMERGE_CORPUS_CACHE", "~/.cache/fmerge-corpus")).expanduser()


def load_crates() -> dict:
    with open(CORPUS_DATA / "programs.toml", "rb") as f:
        return tomllib.load(f)["crate"]


CRATES = load_crates()


def crate_src(crate: str) -> Path:
    return cache_dir() / "src" / f"{crate}-{CRATES[crate]['version']}"


class BuildError(Exception):
    pass


# Targets.  x86_64 is the host.  Other targets are cross-compiled and their
# executables run under qemu-user; their reference outputs (expected/) are
# recorded from their own native cross build, run under the same emulator.
TARGETS = {
    "x86_64": {"clang": None, "rust": None, "runner": None, "out": "corpus"},
    "aarch64": {"clang": "aarch64-linux-gnu", "rust": "aarch64-unknown-linux-gnu",
                "runner": [os.environ.get("FMERGE_QEMU_AARCH64", "qemu-aarch64"), "-L", "/usr/aarch64-linux-gnu"],
                "out": "corpus-aarch64"},
}
# The target of this process's corpus commands (`fmbench corpus --target`).
TARGET = os.environ.get("FMERGE_CORPUS_TARGET", "x86_64")


def target_flags() -> list[str]:
    """clang driver flags selecting the target (none for the host)."""
    t = TARGETS[TARGET]["clang"]
    return [f"--target={t}"] if t else []

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
/* Generated by bench/fmbench (corpus build): configuration for the xz command-line
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


def names(*kinds: str) -> list[str]:
    """The programs of these kinds (`c`, `c++`, `rust`; all without), in corpus order."""
    return [n for n, p in PROGRAMS.items() if not kinds or p.kind in kinds]


RUST = names("rust")
C_CXX = names("c", "c++")
