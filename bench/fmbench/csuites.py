"""`fmbench csuites`: C and C++ test suites we did not write, run under fmerge.

The Rust side is `fmbench testsuites` (rsuites.py); this is the same check for C and C++ code. Every suite is a
library's published source with the test programs its authors ship:

    oniguruma 6.9 (C)   the regex library's API tests (UTF-8, syntax, options, EUC-JP, POSIX,
                        regset, backward search), source from the onig_sys crate
    expat 2.1 (C, C++)  the XML parser's minicheck suite, as C and as C++ (runtestspp.cpp),
                        source from the expat-sys crate
    liblzma 5.2 (C)     xz's unit tests (checks, stream/block headers, filter flags, index,
                        BCJ), source from the lzma-sys crate
    googletest 1.12 (C++) gtest's and gmock's own tests and the samples, source from Debian's
                        `googletest` package (/usr/src/googletest)

Each test program is one whole-program module, built the way bench/corpus builds its C
programs (every file `clang-22 -Os -emit-llvm -c`, then `llvm-link-22`), then for the unmerged
module and for `fmerge opt` in every mode:

    llc-22 -O2 -filetype=obj -relocation-model=pic M.bc -o M.o && clang(++)-22 M.o -o M.exe

and run. Every check's outcome (gtest: each test; oniguruma: each pattern line; minicheck:
the checks and failures; liblzma: the exit status), the exit status and, except for gtest
(whose output holds timings), the whole standard output must be those of the unmerged build.
No mode's .text may be larger than the unmerged build's. Every distinct merged binary also
runs under valgrind memcheck: a memory error counts unless the unmerged binary has the same
one.

    fmbench csuites                         # everything (make reliability)
    fmbench csuites oniguruma --modes default
    fmbench csuites table build/testsuites/c-results.json

Work files go to build/testsuites/c/ (FMERGE_TESTSUITES_WORK moves build/testsuites). Exit
status 0 when every program behaved like its unmerged build in every mode, 1 otherwise.
Needs cargo (to fetch the crates), clang-22, llvm-link-22, llc-22, valgrind, and for
googletest Debian's `googletest` package (`apt-get install googletest`).
"""

from __future__ import annotations

import glob
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import common
from . import rsuites as ts  # fetching crates, running fmerge, .text, the table's style
from .common import CLANG, CLANGXX, LLVM_LINK
from .modes import parse as parse_modes

WORK = ts.WORK / "c"
CFLAGS = ["-Os", "-g0", "-w"]
GTEST_SRC = Path("/usr/src/googletest")


@dataclass
class Program:
    name: str
    # Sources of the test program itself (globs, relative to the suite's source root).
    sources: list[str]
    args: list[str] = field(default_factory=list)
    cxx: bool = False


@dataclass
class CSuite:
    name: str
    lang: str
    area: str
    # Where the source comes from: ("crate", NAME, VERSION, SUBDIR) or ("dir", PATH).
    origin: tuple
    lib: list[str]
    flags: list[str]
    programs: list[Program]
    # How a run's output becomes per-check outcomes: gtest, onig, minicheck, exit.
    parser: str
    # Files written into the source root before building (config headers).
    files: dict[str, str] = field(default_factory=dict)
    libs: list[str] = field(default_factory=list)
    # Files the globs match that the library's own build leaves out.
    exclude: list[str] = field(default_factory=list)


ONIG_CONFIG = """#define HAVE_PROTOTYPES 1
#define STDC_HEADERS 1
#define HAVE_STRING_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_LIMITS_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_ALLOCA_H 1
#define SIZEOF_INT 4
#define SIZEOF_SHORT 2
#define SIZEOF_LONG 8
#define SIZEOF_VOIDP 8
#define SIZEOF_LONG_LONG 8
#define USE_POSIX_API 1
"""

EXPAT_CONFIG = """#define BYTEORDER 1234
#define HAVE_MEMMOVE 1
#define HAVE_UNISTD_H 1
#define HAVE_FCNTL_H 1
#define XML_CONTEXT_BYTES 1024
#define XML_DTD 1
#define XML_NS 1
"""

ONIG_LIB = [f"src/{f}.c" for f in (
    "regparse regcomp regexec regenc regerror regext regsyntax regtrav regversion st reggnu "
    "regposix regposerr unicode unicode_unfold_key unicode_fold1_key unicode_fold2_key "
    "unicode_fold3_key ascii utf8 utf16_be utf16_le utf32_be utf32_le euc_jp euc_jp_prop sjis "
    "sjis_prop iso8859_1 iso8859_2 iso8859_3 iso8859_4 iso8859_5 iso8859_6 iso8859_7 iso8859_8 "
    "iso8859_9 iso8859_10 iso8859_11 iso8859_13 iso8859_14 iso8859_15 iso8859_16 euc_tw euc_kr "
    "big5 gb18030 koi8_r cp1251 onig_init").split()]

LZMA_DIRS = ["common", "lzma", "lz", "check", "delta", "rangecoder", "simple"]

GTEST_FLAGS = ["-std=c++17", "-pthread", "-Igoogletest/include", "-Igoogletest",
               "-Igooglemock/include", "-Igooglemock"]

SUITES = [
    CSuite("oniguruma", "C", "regex", ("crate", "onig_sys", "69.9.3", "oniguruma"),
           ONIG_LIB, ["-Isrc", "-DHAVE_CONFIG_H"],
           [Program(n, [f"test/{n}.c"]) for n in
            ("test_utf8", "test_syntax", "test_options", "testc", "testp", "test_regset",
             "test_back")],
           "onig", files={"src/config.h": ONIG_CONFIG}),
    CSuite("expat", "C, C++", "XML", ("crate", "expat-sys", "2.1.6", "expat"),
           ["lib/xmlparse.c", "lib/xmlrole.c", "lib/xmltok.c"],
           ["-Ilib", "-I.", "-DHAVE_EXPAT_CONFIG_H"],
           [Program("runtests", ["tests/runtests.c", "tests/chardata.c", "tests/minicheck.c"]),
            Program("runtestspp", ["tests/runtestspp.cpp", "tests/chardata.c",
                                   "tests/minicheck.c"], cxx=True)],
           "minicheck", files={"expat_config.h": EXPAT_CONFIG}),
    CSuite("liblzma", "C", "compression", ("crate", "lzma-sys", "0.1.20", "."),
           [f"xz-5.2/src/liblzma/{d}/*.c" for d in LZMA_DIRS]
           + ["xz-5.2/src/common/tuklib_cpucores.c", "xz-5.2/src/common/tuklib_physmem.c"],
           # lzma-sys's config.h enables only the x86 and SPARC filters; the tests also
           # use PowerPC's (test_bcj_exact_size), so all of them are on.
           ["-std=c99", "-pthread", "-DHAVE_CONFIG_H", "-I."]
           + [f"-DHAVE_{c}_{f}=1" for c in ("ENCODER", "DECODER")
              for f in ("POWERPC", "IA64", "ARM", "ARMTHUMB")]
           + [f"-Ixz-5.2/src/liblzma/{d}" for d in ["api", *LZMA_DIRS]]
           + ["-Ixz-5.2/src/common"],
           [Program(n, [f"xz-5.2/tests/{n}.c"]) for n in
            ("test_check", "test_stream_flags", "test_filter_flags", "test_block_header",
             "test_index", "test_bcj_exact_size")],
           "exit", libs=["-pthread"], exclude=["crc32_small.c", "crc64_small.c", "crc32_tablegen.c",
                                              "crc64_tablegen.c", "fastpos_tablegen.c",
                                              "price_tablegen.c"]),
    CSuite("googletest", "C++", "testing", ("dir", GTEST_SRC),
           ["googletest/src/gtest-all.cc"], GTEST_FLAGS,
           [Program("gtest_unittest", ["googletest/test/gtest_unittest.cc",
                                       "googletest/src/gtest_main.cc"], cxx=True),
            Program("printers_test", ["googletest/test/googletest-printers-test.cc",
                                      "googletest/src/gtest_main.cc"], cxx=True),
            Program("samples", [f"googletest/samples/sample{i}.cc" for i in (1, 2, 4)]
                    + [f"googletest/samples/sample{i}_unittest.cc" for i in range(1, 9)]
                    + ["googletest/src/gtest_main.cc"], cxx=True),
            Program("gmock_actions", ["googlemock/test/gmock-actions_test.cc",
                                      "googlemock/src/gmock-all.cc",
                                      "googlemock/src/gmock_main.cc"], cxx=True),
            # This test has its own main().
            Program("gmock_spec_builders", ["googlemock/test/gmock-spec-builders_test.cc",
                                            "googlemock/src/gmock-all.cc"], cxx=True),
            Program("gmock_matchers", ["googlemock/test/gmock-matchers-comparisons_test.cc",
                                       "googlemock/src/gmock-all.cc",
                                       "googlemock/src/gmock_main.cc"], cxx=True)],
           "gtest", libs=["-pthread"]),
]

GTEST_LINE = re.compile(r"^\[\s+(OK|FAILED)\s+\] (\S+\.\S+)", re.M)
ONIG_LINE = re.compile(r"^(OK|FAIL)[^:]*: (.*?)\s*$", re.M)
MINICHECK = re.compile(r"Checks: (\d+), Failed: (\d+)")
TIMING = re.compile(r"\(\d+ ms( total)?\)")
# The first line of each memcheck report ("Invalid read of size 4", "Conditional jump or move
# depends on uninitialised value(s)"): what two runs' reports are compared by.
VG_HEAD = re.compile(r"^==\d+== (\S.*)$", re.M)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def gtest_version() -> str:
    p = ts.sh(["dpkg-query", "-W", "-f=${Version}", "googletest"], check=False)
    return p.stdout.strip() or "?"


def fetch(s: CSuite) -> tuple[Path, str]:
    """The suite's source root (a writable copy with its config headers) and its version."""
    if s.origin[0] == "crate":
        _, crate, ver, sub = s.origin
        root = ts.fetch(ts.Suite(crate, ver, s.area, [])) / sub
        version = f"(crate {crate} {ver})"
    else:
        src = Path(s.origin[1])
        if not (src / "googletest").exists():
            raise RuntimeError(f"{src} missing: install Debian's googletest package "
                               "(apt-get install googletest)")
        version = gtest_version()
        root = WORK / "src" / f"googletest-{version}"
        if not root.exists():
            shutil.copytree(src, root.with_suffix(".tmp"), dirs_exist_ok=True)
            root.with_suffix(".tmp").rename(root)
    for rel, text in s.files.items():
        (root / rel).write_text(text)
    return root, version


def expand(root: Path, pats: list[str], exclude: list[str]) -> list[Path]:
    out = []
    for p in pats:
        hits = sorted(Path(h) for h in glob.glob(str(root / p)) if Path(h).name not in exclude)
        if not hits:
            raise RuntimeError(f"{root}: no file matches {p}")
        out += hits
    return out


def compile_bc(s: CSuite, root: Path, src: Path, bcdir: Path) -> Path:
    out = bcdir / (src.relative_to(root).as_posix().replace("/", "__") + ".bc")
    if not out.exists():
        cxx = src.suffix in (".cc", ".cpp")
        cc = CLANGXX if cxx else CLANG
        lang = [] if cxx else ["-x", "c"]
        flags = [f for f in s.flags if not (f.startswith("-std=c++") and not cxx)]
        if cxx:
            flags = [f for f in flags if f != "-std=c99"]
        ts.sh([cc, *CFLAGS, *flags, *lang, "-emit-llvm", "-c", str(src), "-o", str(out)],
              cwd=root)
    return out


def run(exe: Path, cwd: Path, args: list[str], wrapper: list[str] | None = None,
        timeout: float = 900) -> dict:
    t0 = time.time()
    try:
        p = subprocess.run([*(wrapper or []), str(exe), *args], cwd=cwd, capture_output=True,
                           text=True, timeout=timeout, errors="replace")
        status, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        status, out, err = "timeout", "", ""
    heads = sorted(h for h in VG_HEAD.findall(err)
                   if not h.startswith(("at 0x", "by 0x", "Address 0x", "Block was", "Uninit")))
    return {"status": status, "stdout": TIMING.sub("(T)", out), "stderr_tail": err[-2000:],
            "secs": round(time.time() - t0, 2), "memcheck": heads}


def outcomes(parser: str, name: str, r: dict) -> dict[str, str]:
    out = r["stdout"]
    if parser == "gtest":
        return {m.group(2): "ok" if m.group(1) == "OK" else "FAILED"
                for m in GTEST_LINE.finditer(out)}
    if parser == "onig":
        return {f"{i}: {m.group(2)}": "ok" if m.group(1) == "OK" else "FAILED"
                for i, m in enumerate(ONIG_LINE.finditer(out))}
    if parser == "minicheck":
        m = MINICHECK.search(out)
        if not m:
            return {name: "FAILED"}
        n, bad = int(m.group(1)), int(m.group(2))
        return {f"{name} check {i}": "ok" if i < n - bad else "FAILED" for i in range(n)}
    return {name: "ok" if r["status"] == 0 else "FAILED"}


def differences(parser: str, base: dict, got: dict, bo: dict, go: dict) -> list[str]:
    d = ts.differences({"status": base["status"], "outcomes": bo},
                       {"status": got["status"], "outcomes": go})
    if parser != "gtest" and base["stdout"] != got["stdout"]:
        a, b = base["stdout"].splitlines(), got["stdout"].splitlines()
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        d.append(f"stdout differs at line {i + 1}: {a[i] if i < len(a) else '<end>'!r} -> "
                 f"{b[i] if i < len(b) else '<end>'!r}")
    return d


def count(o: dict) -> dict:
    v = o.values()
    return {"passed": sum(x == "ok" for x in v), "failed": sum(x == "FAILED" for x in v),
            "ignored": 0}


def run_program(s: CSuite, root: Path, version: str, p: Program, modes: list[str],
                fmerge: str, valgrind: bool) -> dict:
    res: dict = {"crate": s.name, "version": version, "area": s.area, "lang": s.lang,
                 "target": p.name, "modes": {}}
    t0 = time.time()
    d = WORK / "runs" / s.name / p.name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    bcdir = WORK / "bc" / s.name
    bcdir.mkdir(parents=True, exist_ok=True)
    units = [compile_bc(s, root, f, bcdir) for f in expand(root, s.lib + p.sources, s.exclude)]
    module = d / "module.bc"
    ts.sh([LLVM_LINK, *map(str, units), "-o", str(module)])
    res["build_secs"] = round(time.time() - t0, 1)
    res["module_bytes"] = module.stat().st_size
    linker = CLANGXX if p.cxx or s.lang == "C++" else CLANG

    def exe_of(bc: Path, name: str) -> Path:
        ts.codegen(bc, d / f"{name}.o")
        ts.sh([linker, str(d / f"{name}.o"), "-o", str(d / f"{name}.exe"), *s.libs, "-lm"])
        return d / f"{name}.exe"

    base_exe = exe_of(module, "base")
    res["text_before"] = ts.text_bytes(d / "base.o")
    base = run(base_exe, root, p.args)
    bo = outcomes(s.parser, p.name, base)
    res["baseline"] = {"status": base["status"], **count(bo), "secs": base["secs"]}
    res["cargo_build_differs"] = []
    log(f"  {s.name}/{p.name}: {res['baseline']['passed']} passed, "
        f"{res['baseline']['failed']} failed (status {base['status']}, {base['secs']} s)")
    for mode in modes:
        m, report = ts.merge(fmerge, module, d, mode)
        res["modes"][mode] = m
        if report is None:
            continue
        got = run(exe_of(d / f"{mode}.bc", mode), root, p.args)
        m["text_after"] = ts.text_bytes(d / f"{mode}.o")
        go = outcomes(s.parser, p.name, got)
        m.update({"status": got["status"], **count(go), "secs": got["secs"]})
        m["differences"] = differences(s.parser, base, got, bo, go)
        log(f"  {mode}: {m['merges']} merges, .text {res['text_before']} -> {m['text_after']}, "
            f"{m['passed']} passed, {len(m['differences'])} differences ({m['fmerge_secs']} s)")
    if valgrind:
        def check(exe: Path) -> dict:
            vg = run(exe, root, p.args, wrapper=ts.VALGRIND, timeout=1800)
            v = {"status": vg["status"], "secs": vg["secs"]}
            if not vg["memcheck"] and vg["status"] == base["status"]:
                v["result"] = "clean"
            else:
                # Reports the unmerged build has too (same kinds, same number) are not fmerge's.
                bvg = run(base_exe, root, p.args, wrapper=ts.VALGRIND, timeout=1800)
                v["baseline_status"] = bvg["status"]
                same = bvg["status"] == vg["status"] and bvg["memcheck"] == vg["memcheck"]
                v["result"] = "same as unmerged" if same else "ERRORS"
                v["reports"] = vg["memcheck"][:20]
                v["baseline_reports"] = bvg["memcheck"][:20]
                v["stderr_tail"] = vg["stderr_tail"][-1500:]
            return v
        ts.valgrind_each(res, d, modes, check)
    res["secs"] = round(time.time() - t0, 1)
    return res


def main(argv: list[str]) -> int:
    if argv[:1] == ["table"]:
        data = ts.combine(argv[1:])
        print(ts.table(data["results"], data["modes"]).replace("| crate |", "| suite |", 1))
        return 0
    ap = common.parser("csuites", __doc__.split("\n")[0], fmerge=True)
    ap.add_argument("suites", nargs="*", help="only these suites (default: all)")
    ap.add_argument("--modes", default=",".join(ts.RUN_MODES))
    ap.add_argument("--no-valgrind", action="store_true")
    ap.add_argument("--json", default=str(WORK / "results.json"))
    a = ap.parse_args(argv)
    modes = parse_modes(a.modes, ts.RUN_MODES)
    known = {s.name for s in SUITES}
    for n in a.suites:
        if n not in known:
            ap.error(f"unknown suite {n} (suites: {', '.join(sorted(known))})")
    suites = [s for s in SUITES if not a.suites or s.name in a.suites]
    WORK.mkdir(parents=True, exist_ok=True)
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    results: list[dict] = []
    t0 = time.time()
    for s in suites:
        log(s.name)
        try:
            root, version = fetch(s)
        except Exception as e:
            results.append({"crate": s.name, "version": "?", "area": s.area, "target": "*",
                            "error": str(e), "modes": {}})
            log(f"  fetch failed: {e}")
            continue
        for p in s.programs:
            try:
                results.append(run_program(s, root, version, p, modes, a.fmerge,
                                           not a.no_valgrind))
            except Exception as e:
                results.append({"crate": s.name, "version": version, "area": s.area,
                                "target": p.name, "error": str(e), "modes": {}})
                log(f"  {p.name}: ERROR {str(e)[-800:]}")
            out.write_text(json.dumps({"modes": modes, "fmerge": a.fmerge,
                                       "secs": round(time.time() - t0), "results": results},
                                      indent=1))
    return ts.report(results, modes, "programs", out, t0, first="suite")
