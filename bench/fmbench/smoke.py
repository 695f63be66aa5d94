"""The smoke runner: a corpus program's workload, compared with its reference outputs.

Every case of a program (programs.py) runs in a fresh scratch directory through a symlink
named after the program (so messages that contain argv[0] do not depend on where the
executable lives; under qemu-user, a wrapper script that keeps argv[0]). What a case records
is its stdout (normalised where the program's output order is not deterministic), the stderr
and exit status of every command; `record` writes that to <out>/<prog>/expected/, otherwise
it must equal what is there byte for byte. $FMERGE_SMOKE_WRAPPER (e.g. valgrind) runs every
command through a wrapper; $FMERGE_PROFILE_FILE reaches the programs (instrumented builds).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import common, programs
from .programs import SMOKE_DATA, Case, Program

log = common.log


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
    # Where a program built by `fmerge instrument` appends its records (`fmbench reliability`).
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
        runner = programs.TARGETS[programs.TARGET]["runner"]
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


