"""`fmbench wasm`: fmerge on WebAssembly (wasm32-wasi), against and with Binaryen's wasm-opt.

For each program, its C sources are compiled for wasm32-wasi with wasi-libc (Debian's
`wasi-libc`, clang's `libclang-rt-22-dev-wasm32`): `clang-22 --target=wasm32-wasi -Oz -flto -c`,
then linked by clang-22 with wasm-ld-22's full LTO. Builds (work in --out, default build/wasm):

  lto          the full-LTO link as a wasm toolchain does it; with `--save-temps`, which keeps
               the module wasm-ld compiles (lto/P.wasm.0.5.precodegen.bc: the whole program
               after LTO's internalization and optimization)
  mergefunc    that module through `opt-22 -passes=mergefunc`, `llc-22 -filetype=obj`, linked
  fmerge       `fmerge opt precodegen.bc --emit obj`, linked with the same libraries (the
               default: merges priced by counts estimated from the code)
  noest        the same with `fmerge opt --no-estimate` (every merge that saves bytes)
  X+oz         wasm-opt -Oz on build X
  X+oz+msf     wasm-opt -Oz --merge-similar-functions on build X

Sizes are the linked module's code section (what every function body costs) and its file
bytes. Every build runs the program's workload under Node's WASI (node:wasi) and must give the
output, bytes and exit status, of the `lto` build; the compression workloads also check their
output against reference files or a round trip.

    fmbench wasm [PROGRAMS...] [--out DIR] [--wasm-opt PATH] [--json FILE] [--md FILE]

Programs: bzip2 (libbz2 and bzip2.c), zstd (libzstd and drivers/zstd_host.c), quickjs (QuickJS-ng
and qjs; the corpus' smoke scripts and upstream tests), sqlite (the amalgamation and
drivers/sqlite_host.c, single-threaded, no WAL, no extensions). Lua needs
setjmp/longjmp, which the wasi-libc of Debian 12 lacks; xz needs threads: both are left out.

wasm-opt: --wasm-opt, else $FMERGE_WASM_OPT, else build/tools/node_modules/.bin/wasm-opt (npm's
`binaryen` package, installed there with `npm install --prefix build/tools binaryen@132.0.0`
when missing), else `wasm-opt` on PATH (Debian's binaryen is version 108).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from .common import BUILD, CLANG, CORPUS_DATA, LLC, OPT, REPO, log, parser, pmap, run, work_dir
from .programs import QJS_UPSTREAM_TESTS, crate_src, gen_binary, gen_text

NODE_WASI = REPO / "examples" / "wasm" / "wasi.mjs"
BINARYEN_VERSION = "132.0.0"
WASI = ["--target=wasm32-wasi", "-Wno-deprecated"]
EMULATED = ["-D_WASI_EMULATED_SIGNAL", "-D_WASI_EMULATED_PROCESS_CLOCKS", "-D_WASI_EMULATED_MMAN",
            "-D_WASI_EMULATED_GETPID"]
EMULATED_LIBS = ["-lwasi-emulated-signal", "-lwasi-emulated-process-clocks", "-lwasi-emulated-mman",
                 "-lwasi-emulated-getpid"]

SQLITE_FLAGS = [
    "-DSQLITE_CORE", "-DSQLITE_DEFAULT_FOREIGN_KEYS=1", "-DSQLITE_ENABLE_API_ARMOR",
    "-DSQLITE_ENABLE_COLUMN_METADATA", "-DSQLITE_ENABLE_DBSTAT_VTAB", "-DSQLITE_ENABLE_FTS3",
    "-DSQLITE_ENABLE_FTS3_PARENTHESIS", "-DSQLITE_ENABLE_FTS5", "-DSQLITE_ENABLE_JSON1",
    "-DSQLITE_ENABLE_RTREE", "-DSQLITE_ENABLE_STAT4", "-DSQLITE_SOUNDEX", "-DSQLITE_USE_URI",
    "-DHAVE_ISNAN",
    # what WASI lacks: threads, shared memory (WAL), dlopen
    "-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_WAL", "-DSQLITE_OMIT_LOAD_EXTENSION",
]
ZSTD_FLAGS = ["-Izstd/lib", "-Izstd/lib/common", "-Izstd/lib/legacy", "-DZSTD_LIB_DEPRECATED=0",
              "-DXXH_PRIVATE_API", "-DZSTDLIB_VISIBILITY=", "-DZDICTLIB_VISIBILITY=",
              "-DZSTDERRORLIB_VISIBILITY=", "-DZSTD_LEGACY_SUPPORT=1", "-DZSTD_DISABLE_ASM"]
BZ2 = ["blocksort", "huffman", "crctable", "randtable", "compress", "decompress", "bzlib", "bzip2"]

# program: (crate, [(source globs relative to the crate, flags)])
PROGRAMS = {
    "bzip2": ("bzip2-sys", [([f"bzip2-1.0.8/{f}.c" for f in BZ2],
                             ["-D_FILE_OFFSET_BITS=64", "-Ibzip2-1.0.8", "-Dfchmod(f,m)=0",
                              "-Dfchown(f,u,g)=0"])]),
    "zstd": ("zstd-sys", [(["zstd/lib/common/*.c", "zstd/lib/compress/*.c", "zstd/lib/decompress/*.c",
                            "zstd/lib/dictBuilder/*.c", "zstd/lib/legacy/*.c"], ZSTD_FLAGS),
                          ([str(CORPUS_DATA / "drivers/zstd_host.c")], ["-Izstd/lib"])]),
    "quickjs": ("rquickjs-sys", [([f"quickjs/{f}.c" for f in ("dtoa", "libregexp", "libunicode", "quickjs",
                                                             "quickjs-libc", "qjs", "gen/repl", "gen/standalone")],
                                  ["-D_GNU_SOURCE", "-DQUICKJS_NG_BUILD", "-funsigned-char", "-Iquickjs"])]),
    "sqlite": ("libsqlite3-sys", [(["sqlite3/sqlite3.c"], SQLITE_FLAGS + ["-Isqlite3"]),
                                  ([str(CORPUS_DATA / "drivers/sqlite_host.c")], ["-Isqlite3"])]),
}


def inputs(tmp: Path) -> dict[str, Path]:
    files = {"text": tmp / "text.txt", "binary": tmp / "binary.dat", "small": tmp / "small.txt"}
    data = {"text": gen_text(200_000, 1), "binary": gen_binary(150_000, 2), "small": gen_text(3_000, 3)}
    tmp.mkdir(parents=True, exist_ok=True)
    for k, p in files.items():
        if not p.exists():
            p.write_bytes(data[k])
    return files


def workload(prog: str, tmp: Path) -> list[tuple[str, list[str], Path | None, Path | None]]:
    """(name, arguments, stdin file, file the output must equal) of each run."""
    f = inputs(tmp)
    if prog == "bzip2":
        src = crate_src("bzip2-sys") / "bzip2-1.0.8"
        cases = []
        for i in (1, 2, 3):
            cases.append((f"compress_sample{i}", [f"-{i}"], src / f"sample{i}.ref", src / f"sample{i}.bz2"))
            cases.append((f"decompress_sample{i}", ["-d"], src / f"sample{i}.bz2", src / f"sample{i}.ref"))
        cases.append(("decompress_small_mode", ["-ds"], src / "sample3.bz2", src / "sample3.ref"))
        cases += [(f"compress_{k}", ["-9c"], f[k], None) for k in ("text", "binary")]
        cases.append(("corrupt_input", ["-dc"], f["small"], None))
        return cases
    if prog == "zstd":
        return [("workload", [], None, None)] + \
            [(f"compress_{k}_{lvl}", ["-c", lvl], f[k], None) for k in ("text", "binary", "small")
             for lvl in ("3", "19")] + [("decompress_garbage", ["-d"], f["small"], None)]
    if prog == "quickjs":
        tests = crate_src("rquickjs-sys") / "quickjs" / "tests"
        scripts = sorted((CORPUS_DATA / "smoke" / "quickjs").glob("*.js")) + \
            [tests / t for t in QJS_UPSTREAM_TESTS]
        return [(s.stem, [str(s)], None, None) for s in scripts]
    if prog == "sqlite":
        scripts = sorted((CORPUS_DATA / "smoke" / "sqlite").glob("*.sql"))
        return [(s.stem, ["{tmp}/" + s.stem + ".db", str(s)], None, None) for s in scripts] + \
            [("memory_db", [":memory:", str(scripts[0]), str(scripts[1])], None, None)]
    raise ValueError(prog)


def code_section(wasm: Path) -> int:
    """Bytes of a wasm module's code section (payload)."""
    data = wasm.read_bytes()
    i, total = 8, 0

    def leb(i):
        r = s = 0
        while True:
            b = data[i]
            i += 1
            r |= (b & 0x7F) << s
            s += 7
            if b < 0x80:
                return r, i
    while i < len(data):
        sid = data[i]
        n, j = leb(i + 1)
        if sid == 10:
            total += n
        i = j + n
    return total


def run_wasm(wasm: Path, args: list[str], stdin: Path | None, tmp: Path) -> tuple[int, str, bytes]:
    """(exit status, sha256 of stdout, stdout) of one run under node:wasi."""
    tmp.mkdir(parents=True, exist_ok=True)
    for db in tmp.glob("*.db"):
        db.unlink()
    argv = [a.replace("{tmp}", str(tmp)) for a in args]
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        p = subprocess.run(["node", "--no-warnings", str(NODE_WASI), str(wasm), *argv], stdin=inp,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp, timeout=600)
    return p.returncode, hashlib.sha256(p.stdout).hexdigest(), p.stdout


def find_wasm_opt(given: str | None) -> str:
    if given:
        return given
    if os.environ.get("FMERGE_WASM_OPT"):
        return os.environ["FMERGE_WASM_OPT"]
    local = BUILD / "tools" / "node_modules" / ".bin" / "wasm-opt"
    if not local.exists() and shutil.which("npm"):
        log(f"installing npm's binaryen@{BINARYEN_VERSION} into {BUILD / 'tools'}")
        run(["npm", "install", "--no-audit", "--no-fund", "--prefix", BUILD / "tools",
             f"binaryen@{BINARYEN_VERSION}"], check=False)
    if local.exists():
        return str(local)
    return shutil.which("wasm-opt") or "wasm-opt"


def build(prog: str, out: Path, fmerge: str, wasm_opt: str, jobs: int) -> dict:
    crate, units = PROGRAMS[prog]
    src = crate_src(crate)
    d = out / prog
    (d / "bc").mkdir(parents=True, exist_ok=True)
    (d / "lto").mkdir(exist_ok=True)
    jobs_list = []
    for globs, flags in units:
        for g in globs:
            for f in sorted(glob.glob(g if g.startswith("/") else str(src / g))):
                o = d / "bc" / (Path(f).stem + ".o")
                jobs_list.append([CLANG, *WASI, "-Oz", "-flto", "-c", *EMULATED, *flags, f, "-o", o])
    pmap(jobs, lambda c: run(c, cwd=src, echo=True) if not Path(c[-1]).exists() else None, jobs_list)
    objs = sorted((d / "bc").glob("*.o"))
    link = [CLANG, *WASI, "-Oz"]
    builds = {"lto": d / "lto" / f"{prog}.wasm"}
    run([*link, "-flto", *objs, "-o", builds["lto"], "-Wl,--save-temps", *EMULATED_LIBS], cwd=d / "lto", echo=True)
    module = d / "lto" / f"{prog}.wasm.0.5.precodegen.bc"
    for name, extra in (("fmerge", []), ("noest", ["--no-estimate"])):
        r = run([fmerge, "opt", module, *extra, "--emit", "obj", "-o", d / f"{name}.o", "--report",
                 d / f"{name}.json"], echo=True)
        log(r.stderr.strip())
    run([OPT, "-passes=mergefunc", module, "-o", d / "mergefunc.bc"], echo=True)
    run([LLC, "-filetype=obj", d / "mergefunc.bc", "-o", d / "mergefunc.o"], echo=True)
    for name in ("fmerge", "noest", "mergefunc"):
        builds[name] = d / f"{name}.wasm"
        run([*link, d / f"{name}.o", "-o", builds[name], *EMULATED_LIBS], echo=True)
    for name in ("lto", "mergefunc", "fmerge", "noest"):
        for tag, extra in (("oz", []), ("oz+msf", ["--merge-similar-functions"])):
            if name in ("mergefunc", "noest") and tag != "oz":
                continue
            b = d / f"{name}+{tag}.wasm"
            run([wasm_opt, "-Oz", *extra, builds[name], "-o", b], echo=True)
            builds[f"{name}+{tag}"] = b
    result = {"program": prog, "builds": {}}
    cases = workload(prog, out / "inputs")
    reference = {}
    for name, wasm in builds.items():
        mismatches = []
        for case, args, stdin, expect in cases:
            rc, digest, stdout = run_wasm(wasm, args, stdin, d / "run")
            if name == "lto":
                reference[case] = (rc, digest)
                if expect is not None and stdout != expect.read_bytes():
                    mismatches.append(f"{case}: output differs from {expect.name}")
            elif (rc, digest) != reference[case]:
                mismatches.append(f"{case}: exit {rc} (reference {reference[case][0]}), output "
                                  f"{'same' if digest == reference[case][1] else 'differs'}")
        result["builds"][name] = {"code_bytes": code_section(wasm), "file_bytes": wasm.stat().st_size,
                                  "runs": len(cases), "mismatches": mismatches}
        log(f"{prog} {name}: code {code_section(wasm)} bytes, {len(cases)} runs, "
            f"{len(mismatches)} mismatches {mismatches[:3]}")
    result["binaryen"] = run([wasm_opt, "--version"]).stdout.strip()
    return result


ORDER = ["lto", "mergefunc", "fmerge", "noest", "lto+oz", "lto+oz+msf", "mergefunc+oz", "fmerge+oz",
         "fmerge+oz+msf", "noest+oz"]


def markdown(results: list[dict]) -> str:
    head = ("| program | " + " | ".join(ORDER) +
            " | fmerge+oz vs lto+oz | fmerge+oz vs lto+oz+msf | noest+oz vs lto+oz | runs |")
    lines = [head, "|" + "---|" * (len(ORDER) + 5)]
    for r in results:
        b = r["builds"]
        cells = [f"{b[k]['code_bytes']:,}" for k in ORDER]
        fz, oz, msf, nz = (b[k]["code_bytes"] for k in ("fmerge+oz", "lto+oz", "lto+oz+msf", "noest+oz"))
        ok = all(not b[k]["mismatches"] for k in ORDER)
        runs = f"{b['lto']['runs']} × {len(ORDER)}, " + ("all same" if ok else "MISMATCH")
        lines.append(f"| {r['program']} | " + " | ".join(cells) +
                     f" | {100 * (fz - oz) / oz:+.2f}% | {100 * (fz - msf) / msf:+.2f}% |"
                     f" {100 * (nz - oz) / oz:+.2f}% | {runs} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = parser("wasm", __doc__, fmerge=True)
    ap.add_argument("programs", nargs="*", default=list(PROGRAMS))
    ap.add_argument("--out", default=str(BUILD / "wasm"))
    ap.add_argument("--wasm-opt", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--md")
    a = ap.parse_args(argv)
    out = work_dir(a.out, "wasm")
    wasm_opt = find_wasm_opt(a.wasm_opt)
    results = [build(p, out, a.fmerge, wasm_opt, a.jobs) for p in a.programs]
    md = markdown(results)
    print(md)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1) + "\n")
    if a.md:
        Path(a.md).write_text(md)
    bad = [r["program"] for r in results for b in r["builds"].values() if b["mismatches"]]
    return 1 if bad else 0
