"""`fmbench corpus`: real programs as LLVM 22 bitcode (see bench/corpus/README.md).

Subcommands:
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

The recipes are in programs.py, the smoke runner in smoke.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

from . import common, programs
from .common import CLANGXX, CLANG, LLC, LLVM_DIS, LLVM_LINK, OPT, REPO, CommandError
from .programs import CRATES, PROGRAMS, BuildError, Program, cache_dir, crate_src, expand_units, get_program, \
    target_flags
from .smoke import smoke

# Optimization level of every compile: -Os, or -Oz ($FMERGE_CORPUS_OPT=z) for the builds that
# want minsize functions (AArch64's frame helpers apply only there). Give an -Oz corpus its
# own --out directory.
OPT_LEVEL = os.environ.get("FMERGE_CORPUS_OPT", "s")
if OPT_LEVEL not in ("s", "z"):
    sys.exit(f"corpus: FMERGE_CORPUS_OPT must be s or z, not {OPT_LEVEL!r}")
# Flags shared by every C/C++ compile (bitcode and native reference build).
BASE_CFLAGS = [f"-O{OPT_LEVEL}", "-g0", "-w"]
# Code generation for a whole-program module: llc's default -O2 pipeline
# (function attributes such as optsize/minsize come from the module itself).
LLC_FLAGS = ["-O2", "-relocation-model=pic"]
log = common.log


def default_out() -> Path:
    """$FMERGE_CORPUS_OUT, else build/corpus (x86_64) or build/corpus-<target>."""
    return Path(os.environ.get("FMERGE_CORPUS_OUT", REPO / "build" / programs.TARGETS[programs.TARGET]["out"]))


def run(cmd, **kw) -> common.Result:
    """Run a build command, raising with its output on failure."""
    return common.run(cmd, merge_stderr=True, **kw)


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
    common.pmap(jobs, lambda task: run(task[0], cwd=prog.src), tasks)
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
    triple = programs.TARGETS[programs.TARGET]["rust"]
    tgt_args = []
    if triple:
        check_rust_target(triple)
        tgt_args = ["--target", triple]
        cross_gcc = programs.TARGETS[programs.TARGET]["clang"] + "-gcc"
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
    if programs.TARGETS[programs.TARGET]["rust"]:
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
    p = common.run(cmd, cwd=prog.src, env=env, check=False)
    if not p.ok:
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
    p = common.run(["rustc", "--print", "target-libdir", "--target", triple], check=False)
    libdir = Path(p.stdout.strip()) if p.ok else None
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

    objs = common.pmap(jobs, llc, man["modules"])
    group = ["-Wl,--start-group", *man["archives"], "-Wl,--end-group"] if man["archives"] else []
    run([prog.linker, *target_flags(), *objs, *group, "-o", exe, *man["libs"]])
    return common.text_bytes(*objs)


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
        st["text_bytes"] = common.text_bytes(o)
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
        except (BuildError, CommandError) as e:
            log(f"{name}: FAILED\n{e}")
            failed.append(name)
            if not args.keep_going:
                break
    if failed:
        log("failed: " + " ".join(failed))
        return 1
    return 0




def cmd_smoke(args) -> int:
    prog = get_program(args.program)
    out = Path(args.out)
    # What to link first, if anything: per-file modules (the recipe of `link-modules`), an object
    # file of the whole program made elsewhere (e.g. `fmerge opt --emit obj`: the recipe's link
    # step only), or a whole-program module (the recipe of `link`).
    link = None
    if args.modules_dir:
        link = lambda exe: link_modules(prog, out / prog.name, exe, Path(args.modules_dir).resolve())  # noqa: E731
    elif args.obj:
        link = lambda exe: run([prog.linker, *target_flags(), Path(args.obj).resolve(), "-o", exe,  # noqa: E731
                                *args.link_flag, *prog.libs])
    elif args.bc:
        link = lambda exe: link_exe(prog, Path(args.bc).resolve(), exe, args.codegen, args.llc_flag,  # noqa: E731
                                    args.link_flag)
    if link:
        with tempfile.TemporaryDirectory(prefix="fmerge-link-") as td:
            exe = Path(td) / prog.name
            try:
                link(exe)
            except (BuildError, CommandError) as e:
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
    except (BuildError, CommandError) as e:
        log(str(e))
        return 1
    print(json.dumps({"text_bytes": text}))
    return 0


def cmd_link(args) -> int:
    prog = get_program(args.program)
    try:
        link_exe(prog, Path(args.input).resolve(), Path(args.o).resolve(), args.codegen, args.llc_flag,
                 args.link_flag)
    except (BuildError, CommandError) as e:
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
    common.setup_log("corpus")
    ap = common.parser("corpus", __doc__)
    ap.add_argument("--out", help="output dir (default: build/corpus, build/corpus-aarch64 for --target aarch64, "
                    "or $FMERGE_CORPUS_OUT)")
    ap.add_argument("--target", choices=sorted(programs.TARGETS), default=programs.TARGET,
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
    programs.TARGET = args.target
    args.out = str(Path(args.out or default_out()).resolve())  # commands run in the crate source dirs
    try:
        return {"fetch": cmd_fetch, "build": cmd_build, "smoke": cmd_smoke, "link": cmd_link,
                "stats": cmd_stats, "list": cmd_list, "link-modules": cmd_link_modules,
                "report": cmd_report}[args.cmd](args)
    except (BuildError, CommandError) as e:
        log(str(e))
        return 1
