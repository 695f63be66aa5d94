"""What every study shares: paths, tools, the fmerge binary, running commands, sizes, statistics.

Every study of the package used to carry its own copy of these (a `log()`, a `run()`, a reader
of `.text` sizes, its own idea of where fmerge is); this module is the one copy. It imports
nothing from the rest of the package, so any module may import it.

Tools are the LLVM 22 binaries by their Debian names; each can be overridden by an environment
variable (`FMERGE_CLANG`, `FMERGE_LLC`, ...; see TOOLS). The fmerge binary is `$FMERGE`, else
`$FMERGE_BIN` (the old name, still read, with a warning), else the release build of the
checkout (`$CARGO_TARGET_DIR` or `target/`), else `fmerge` on PATH.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PKG = Path(__file__).resolve().parent
BENCH = PKG.parent
REPO = BENCH.parent
BUILD = REPO / "build"
# The data the studies read (checked in): corpus recipes' inputs, workloads, test-suite locks.
CORPUS_DATA = BENCH / "corpus"
WORKLOADS = BENCH / "speed" / "workloads"
TESTSUITES_DATA = BENCH / "testsuites"
# How a study runs another subcommand of this package in a child process.
FMBENCH = [sys.executable, str(PKG)]

# Environment variable -> default command.
TOOLS = {
    "FMERGE_CLANG": "clang-22", "FMERGE_CLANGXX": "clang++-22", "FMERGE_LLVM_LINK": "llvm-link-22",
    "FMERGE_OPT": "opt-22", "FMERGE_LLC": "llc-22", "FMERGE_LLVM_SIZE": "llvm-size-22",
    "FMERGE_LLVM_DIS": "llvm-dis-22", "FMERGE_LLD": "ld.lld-22", "FMERGE_LLVM_PROFDATA": "llvm-profdata-22",
    "FMERGE_LLVM_CGDATA": "llvm-cgdata-22",
}


def tool(var: str) -> str:
    return os.environ.get(var, TOOLS[var])


CLANG, CLANGXX, LLVM_LINK = tool("FMERGE_CLANG"), tool("FMERGE_CLANGXX"), tool("FMERGE_LLVM_LINK")
OPT, LLC, LLVM_SIZE, LLVM_DIS = tool("FMERGE_OPT"), tool("FMERGE_LLC"), tool("FMERGE_LLVM_SIZE"), tool("FMERGE_LLVM_DIS")
LLD, PROFDATA, CGDATA = tool("FMERGE_LLD"), tool("FMERGE_LLVM_PROFDATA"), tool("FMERGE_LLVM_CGDATA")
# Memcheck as the studies run it: a report makes the process exit 99.
VALGRIND = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=no"]


def fmerge_bin() -> str:
    """The fmerge binary every study uses unless told otherwise (see the module header)."""
    if os.environ.get("FMERGE"):
        return os.environ["FMERGE"]
    if os.environ.get("FMERGE_BIN"):
        log("FMERGE_BIN is deprecated: set FMERGE instead")
        return os.environ["FMERGE_BIN"]
    for d in (os.environ.get("CARGO_TARGET_DIR"), str(REPO / "target")):
        if d and Path(d, "release", "fmerge").exists():
            return str(Path(d, "release", "fmerge"))
    return shutil.which("fmerge") or str(REPO / "target" / "release" / "fmerge")


def plugin_lib() -> Path:
    """The pass plugin of the checkout's release build."""
    d = os.environ.get("CARGO_TARGET_DIR")
    return Path(d or REPO / "target") / "release" / "libfmerge_plugin.so"


def corpus_out(target: str = "x86_64") -> Path:
    """Where `fmbench corpus --target T build` puts its output by default."""
    return BUILD / ("corpus" if target == "x86_64" else f"corpus-{target}")


# ---------------------------------------------------------------------------
# logging


class Log:
    """Where log() writes: stderr with a `[tag] ` prefix, or stdout bare (the studies that
    print their commands as they go), and a file that gets every line too."""
    tag = "fmbench"
    stdout = False
    file = None


def log(msg: str) -> None:
    if Log.stdout:
        print(msg, flush=True)
    else:
        print(f"[{Log.tag}] {msg}", file=sys.stderr, flush=True)
    if Log.file:
        Log.file.write(msg + "\n")
        Log.file.flush()


def setup_log(tag: str, stdout: bool = False, file: Path | None = None) -> None:
    Log.tag, Log.stdout = tag, stdout
    Log.file = open(file, "a") if file else None


def parser(study: str, doc: str, fmerge: bool = False) -> argparse.ArgumentParser:
    """A study's argument parser (`fmbench STUDY --help` shows `doc`); with `fmerge`, the
    --fmerge option (default: fmerge_bin())."""
    ap = argparse.ArgumentParser(prog=f"fmbench {study}", description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    if fmerge:
        ap.add_argument("--fmerge", default=fmerge_bin(), help="the fmerge binary (default: %(default)s)")
    return ap


def work_dir(path, tag: str) -> Path:
    """A study's work directory (made if missing), with its commands logged to stdout and to
    commands.log there."""
    out = Path(path).resolve()
    out.mkdir(parents=True, exist_ok=True)
    setup_log(tag, stdout=True, file=out / "commands.log")
    return out


def rel(p) -> str:
    """A path inside the checkout, relative to it (for printed commands)."""
    return str(p).replace(str(REPO) + "/", "")


def qcmd(cmd) -> str:
    cmd = ["python3" if str(c) == sys.executable else c for c in cmd]
    return " ".join(shlex.quote(rel(c)) for c in cmd)


# ---------------------------------------------------------------------------
# running commands


@dataclass
class Result:
    cmd: list[str]
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class CommandError(Exception):
    """A command that failed (or could not start, or timed out); `brief` is one line for a
    table cell, str() the whole story."""

    def __init__(self, result: Result):
        self.result = result
        rc = result.returncode
        why = "timeout" if rc is None else f"signal {-rc}" if rc < 0 else f"exit {rc}"
        self.command = qcmd(result.cmd)
        tail = result.stderr.strip() or result.stdout.strip()
        self.brief = f"{Path(result.cmd[0]).name} failed ({why}): " + \
            " | ".join(l.strip() for l in tail.splitlines()[-3:])[-300:]
        super().__init__(f"command failed ({why}): {' '.join(result.cmd)}\n{tail[-6000:]}")


def run(cmd, *, cwd=None, env: dict | None = None, timeout: float | None = None, check: bool = True,
        merge_stderr: bool = False, echo: bool = False, logfile: Path | None = None,
        stdin=None) -> Result:
    """Run `cmd` (anything str() turns into arguments) and capture its output as text.

    env: variables added to this process's environment (None: removed). check: raise CommandError unless it
    exits 0 (a timeout or a missing program too; without check they give returncode None or
    127 and the reason in stderr). echo: log the command first. logfile: keep the command and
    its output there. merge_stderr: stderr goes into stdout, in order."""
    cmd = [str(c) for c in cmd]
    if echo:
        log("$ " + " ".join(shlex.quote(c) for c in cmd))
    t0 = time.perf_counter()
    try:
        full = None if env is None else {k: v for k, v in {**os.environ, **env}.items() if v is not None}
        p = subprocess.run(cmd, cwd=cwd, env=full, timeout=timeout,
                           stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                           text=True, errors="replace")
        r = Result(cmd, p.returncode, p.stdout, p.stderr or "", time.perf_counter() - t0)
    except subprocess.TimeoutExpired:
        r = Result(cmd, None, "", f"timeout after {timeout} s", time.perf_counter() - t0)
    except OSError as e:
        r = Result(cmd, 127, "", f"cannot run {cmd[0]}: {e}", time.perf_counter() - t0)
    if logfile:
        logfile.parent.mkdir(parents=True, exist_ok=True)
        logfile.write_text("$ " + qcmd(cmd) + "\n" + r.stdout[-200000:] + r.stderr[-200000:])
    if check and not r.ok:
        raise CommandError(r)
    return r


def pmap(jobs: int, fn, items) -> list:
    """fn over items on `jobs` threads (the commands they run are the parallel part)."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        return list(ex.map(fn, items))


# ---------------------------------------------------------------------------
# sizes

SECTION = re.compile(r"^(\S+)\s+(\d+)\s+\d+\s*$", re.M)


def sections(path: Path) -> dict[str, int]:
    """{section name: bytes} of an object file or executable (llvm-size-22 -A)."""
    out = run([LLVM_SIZE, "-A", path]).stdout
    return {m.group(1): int(m.group(2)) for m in SECTION.finditer(out)}


def text_bytes(*paths: Path, exact: bool = False) -> int:
    """Bytes of executable code in object files or executables: the `.text*` sections
    (`exact`: the `.text` section alone), summed over `paths` (200 files per llvm-size)."""
    total = 0
    pat = re.compile(r"^\.text\s+(\d+)" if exact else r"^\.text\S*\s+(\d+)", re.M)
    for i in range(0, len(paths), 200):
        out = run([LLVM_SIZE, "-A", *paths[i:i + 200]]).stdout
        total += sum(int(m.group(1)) for m in pat.finditer(out))
    return total


# ---------------------------------------------------------------------------
# smoke runs: `fmbench corpus smoke` in a child process

SMOKE_LINE = re.compile(r"^(\S+): (\d+) passed, (\d+) failed$", re.M)


@dataclass
class Smoke:
    result: Result
    passed: int | None
    failed: int | None

    @property
    def ok(self) -> bool:
        return self.result.ok

    def failing_cases(self, prog: str) -> set[str]:
        """Names of the cases that failed, from the smoke run's report."""
        return set(re.findall(rf"^{re.escape(prog)}\s+(\S+)\s+[\d.]+s FAIL", self.result.stderr, re.M))


def smoke_cmd(prog: str, which: list, target: str = "x86_64", out: Path | None = None) -> list:
    """The command that runs PROG's smoke workload (`which`: `--exe E`, `--bc M`, `--obj O`,
    nothing for the corpus' own executable) against its reference outputs."""
    return [*FMBENCH, "corpus", "--target", target, *(["--out", out] if out else []), "smoke", prog, *which]


def smoke(prog: str, which: list, target: str = "x86_64", out: Path | None = None, env: dict | None = None,
          timeout: float | None = None, valgrind: bool = False, logfile: Path | None = None) -> Smoke:
    """PROG's smoke workload; with `valgrind`, every case runs under memcheck (a report or its
    exit status makes the case differ from the reference)."""
    env = dict(env or {})
    if valgrind:
        env["FMERGE_SMOKE_WRAPPER"] = " ".join(VALGRIND)
    r = run(smoke_cmd(prog, which, target, out), env=env, timeout=timeout, check=False, logfile=logfile)
    m = SMOKE_LINE.findall(r.stderr)
    return Smoke(r, int(m[-1][1]) if m else None, int(m[-1][2]) if m else None)


# ---------------------------------------------------------------------------
# statistics


def boot_median_ci(xs: list[float], n: int = 2000, seed: int = 1) -> tuple:
    """95% bootstrap confidence interval of the median (n resamples, fixed seed)."""
    import statistics
    if len(xs) < 2:
        return (xs[0], xs[0]) if xs else (None, None)
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def rotated_rounds(names, rounds: int):
    """Every name once per round, the order rotated by one each round, so that a drift in the
    machine's load spreads over all of them."""
    names = list(names)
    for r in range(rounds):
        k = r % len(names)
        yield from names[k:] + names[:k]


def subcommands(study: str, doc: str, sub: dict, argv: list[str]) -> int:
    """Dispatch `fmbench STUDY SUB ARGS...` to sub[SUB](ARGS)."""
    if not argv or argv[0] not in sub:
        print(f"usage: fmbench {study} {{{','.join(sub)}}} ...\n\n{doc}", file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    return sub[argv[0]](argv[1:])
