"""`fmbench global compare|bound|stale`: merging across modules (summarize, combine, apply).

compare PROGRAMS...  Separate compilation of the per-file modules of corpus programs; final
                     linked .text with
                       base  llc-22 each module (function sections), ld.lld --icf=all
                       gmf   LLVM 22's GlobalMergeFunc + llvm-cgdata, two rounds, ld.lld --icf=all
                       fm    fmerge: opt + summarize each module, combine, apply each module,
                             ld.lld --icf=all
                     and the smoke workload of each executable; one Markdown table row per
                     program on stdout (work in build/global-compare).
bound PROGRAMS...    How much merging *across* modules could add on top of merging each module
                     alone: an upper bound for carrying similar functions across modules in the
                     merge information. For each program's per-file modules:
                       orig       llvm-link of the original modules, no merging
                       permod     each module merged alone (fmerge opt), then linked
                       linked-ic  the linked program merged at once, identical and
                                  constant-differing functions only (what summarize/combine/
                                  apply and the linker's ICF can reach across modules)
                       linked     the linked program merged at once, every stage
                     Sizes: `fmerge size` (.text of llc's default code generation for the whole
                     module). Work in build/global-bound.
stale                Stale merge information: merge information computed from zstd 1.5.6
                     (zstd-sys 2.0.13, downloaded from crates.io) applied to the zstd 1.5.7
                     modules of the corpus, against fresh information from 1.5.7 itself. Both
                     executables run the zstd smoke workload. Work in build/global-stale.

Options: --corpus DIR (default build/corpus, or $CORPUS), --fmerge (default $FMERGE). The corpus
must be built with `fmbench corpus build --separate PROGRAMS...` (C/C++ programs always have
their per-file modules).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import tarfile
import time
import urllib.request
from pathlib import Path

from . import common
from .common import CLANG, CLANGXX, CGDATA, LLVM_LINK, REPO
from .permodule import LLC_SECTIONS, Modules

LINK = [CLANGXX, "-fuse-ld=lld"]


def options(study: str, argv: list[str], programs: bool = True) -> argparse.Namespace:
    ap = common.parser(f"global {study}", __doc__, fmerge=True)
    if programs:
        ap.add_argument("programs", nargs="+")
    ap.add_argument("--corpus", default=os.environ.get("CORPUS") or str(common.corpus_out()))
    a = ap.parse_args(argv)
    a.corpus = Path(a.corpus).resolve()
    return a


def pct(x: int, base: int) -> str:
    return f"{100 * (x - base) / base:+.2f}%"


def compare(argv: list[str]) -> int:
    a = options("compare", argv)
    F = a.fmerge
    for prog in a.programs:
        M = Modules(a.corpus, prog, REPO / "build" / "global-compare" / prog)
        t_llc = M.each(lambda m, src: [*LLC_SECTIONS, src, "-o", f"{m}.base.o"])
        gmf = [*LLC_SECTIONS, "-enable-global-merge-func=true"]
        t0 = time.time()
        M.each(lambda m, src: [*gmf, "-codegen-data-generate=true", src, "-o", f"{m}.r1.o"])
        M.run([CGDATA, "--merge", *M.files("{m}.r1.o"), "-o", "merged.cgdata"])
        M.each(lambda m, src: [*gmf, "-codegen-data-use-path=merged.cgdata", src, "-o", f"{m}.gmf.o"])
        t_gmf = time.time() - t0
        t_opt = M.each(lambda m, src: [F, "opt", src, "-o", f"{m}.opt.bc", "-q", "--no-measure"])
        t0 = time.time()
        M.each(lambda m, src: [F, "summarize", f"{m}.opt.bc", "-o", f"{m}.fms"])
        M.run([F, "combine", "-q", *M.files("{m}.fms"), "-o", "merge.fmi"])
        t_sc = time.time() - t0
        t_apply = M.each(lambda m, src: [F, "apply", f"{m}.opt.bc", "--info", "merge.fmi", "--emit", "obj",
                                         "-o", f"{m}.fm.o"])
        exes = {v: M.link(LINK, M.files("{m}.%s.o" % v), f"{prog}.{v}") for v in ("base", "gmf", "fm")}
        b, g, f = (common.text_bytes(exes[v], exact=True) for v in ("base", "gmf", "fm"))
        smoke = "/".join("pass" if M.smoke(exes[v]) else "FAIL" for v in ("base", "gmf", "fm"))
        print(f"| {prog} | {b} | {g} ({pct(g, b)}) | {f} ({pct(f, b)}) | {smoke} | {t_llc:.1f} | {t_gmf:.1f} | "
              f"{t_opt:.1f} + {t_sc:.1f} + {t_apply:.1f} |", flush=True)
    return 0


def bound(argv: list[str]) -> int:
    a = options("bound", argv)
    F = a.fmerge
    work = REPO / "build" / "global-bound"
    work.mkdir(parents=True, exist_ok=True)

    def size(bc: Path) -> int:
        return json.loads(common.run([F, "size", bc, "--json"]).stdout)["text_bytes"]

    print("| program | orig | permod | linked-ic | linked |")
    print("|---|---:|---:|---:|---:|")
    for p in a.programs:
        man = json.loads((a.corpus / p / "modules.json").read_text())
        ins = [a.corpus / p / man["dir"] / m for m in man["modules"]]
        outs = [work / f"{p}.m{i}.bc" for i in range(1, len(ins) + 1)]
        for src, out in zip(ins, outs):
            common.run([F, "opt", src, "-o", out, "-q", "--no-measure"])
        w = {k: work / f"{p}.{k}.bc" for k in ("orig", "permod", "linked-ic", "linked")}
        common.run([LLVM_LINK, *ins, "-o", w["orig"]])
        common.run([LLVM_LINK, *outs, "-o", w["permod"]])
        common.run([F, "opt", w["orig"], "-o", w["linked-ic"], "-q", "--no-measure", "--merge", "identical,constants"])
        common.run([F, "opt", w["orig"], "-o", w["linked"], "-q", "--no-measure"])
        print("| %s | %s |" % (p, " | ".join(str(size(w[k])) for k in w)), flush=True)
    return 0


# zstd 1.5.6, the release before the corpus' 1.5.7, and the first 16 hex digits of the sha256
# of its .crate (the `cksum` of the crates.io index entry).
STALE_CRATE, STALE_SHA256 = "zstd-sys-2.0.13+zstd.1.5.6", "38ff0f21cfee8f97"
ZSTD_FLAGS = ["-DZSTD_LIB_DEPRECATED=0", "-DXXH_PRIVATE_API", "-DZSTDLIB_VISIBILITY=", "-DZDICTLIB_VISIBILITY=",
              "-DZSTDERRORLIB_VISIBILITY=", "-DZSTD_LEGACY_SUPPORT=1", "-DZSTD_DISABLE_ASM"]


def stale(argv: list[str]) -> int:
    a = options("stale", argv, programs=False)
    F = a.fmerge
    W = REPO / "build" / "global-stale"
    W.mkdir(parents=True, exist_ok=True)
    if not (W / STALE_CRATE).is_dir():
        url = f"https://static.crates.io/crates/zstd-sys/{STALE_CRATE}.crate"
        with urllib.request.urlopen(url, timeout=120) as resp:
            data = resp.read()
        got = hashlib.sha256(data).hexdigest()
        if not got.startswith(STALE_SHA256):
            raise SystemExit(f"{url}: sha256 {got}, want {STALE_SHA256}...")
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            tf.extractall(W, filter="data")
    L = W / STALE_CRATE / "zstd" / "lib"
    flags = ["-Os", "-g0", "-w", f"-I{L}", f"-I{L}/common", f"-I{L}/legacy", *ZSTD_FLAGS, "-emit-llvm", "-c"]
    old = W / "oldbc"
    shutil.rmtree(old, ignore_errors=True)
    sources = sorted(str(c.relative_to(L)) for d in ("common", "compress", "decompress", "dictBuilder", "legacy")
                     for c in (L / d).rglob("*.c"))
    for c in sources:
        bc = old / f"{c}.bc"
        bc.parent.mkdir(parents=True, exist_ok=True)
        common.run([CLANG, *flags, L / c, "-o", bc], cwd=W)
        common.run([F, "opt", bc, "-o", old / f"{c}.opt.bc", "-q", "--no-measure"])
        common.run([F, "summarize", old / f"{c}.opt.bc", "-o", old / f"{c}.fms"])
    common.run([F, "combine", *sorted(str(p) for p in old.rglob("*.fms")), "-o", W / "stale.fmi"])
    M = Modules(a.corpus, "zstd", W / "new")
    M.each(lambda m, src: [F, "opt", src, "-o", f"{m}.opt.bc", "-q", "--no-measure"])
    M.each(lambda m, src: [F, "summarize", f"{m}.opt.bc", "-o", f"{m}.fms"])
    M.run([F, "combine", *M.files("{m}.fms"), "-o", W / "fresh.fmi"])
    for info in ("stale", "fresh"):
        M.each(lambda m, src: [F, "apply", f"{m}.opt.bc", "--info", W / f"{info}.fmi", "--emit", "obj",
                               "-o", f"{m}.{info}.o"])
        exe = M.link(LINK, M.files("{m}.%s.o" % info), f"zstd.{info}")
        s = common.smoke("zstd", ["--exe", exe], out=a.corpus)
        last = (s.result.stdout + s.result.stderr).strip().splitlines()[-1:]
        print(f"{info} info: .text {common.text_bytes(exe, exact=True)}, {''.join(last)}", flush=True)
    return 0


def main(argv: list[str]) -> int:
    return common.subcommands("global", __doc__, {"compare": compare, "bound": bound, "stale": stale}, argv)
