"""quick.py OUT PROG NAME FMERGE [VAR=VAL ...] [-- fmerge args]: one build of PROG's plain module, its .text,
callgrind instructions on the timing workload vs OUT/PROG/base (cached count in OUT/PROG/base.ir), output check."""
import sys, json, os, subprocess
from pathlib import Path
sys.path.insert(0, '/work/main/bench')
from fmbench import speed, common
out, prog, name, fm = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
rest = sys.argv[5:]
fargs = rest[rest.index('--') + 1:] if '--' in rest else []
envs = dict(a.split('=', 1) for a in (rest[:rest.index('--')] if '--' in rest else rest))
wd = out / prog
timing = speed.programs(out / "data")[prog]["timing"]()
meta = json.loads((speed.CORPUS / prog / "modules.json").read_text())
bc, obj, exe = wd / (name + ".bc"), wd / (name + ".o"), wd / name
subprocess.run([fm, "opt", wd / "plain.bc", "--report", wd / (name + ".report.json"), *fargs, "-q", "-o", bc], env=dict(os.environ, **envs), check=True)
subprocess.run([speed.LLC, "-O2", "-relocation-model=pic", "-filetype=obj", bc, "-o", obj], check=True)
subprocess.run([speed.CLANG, obj, "-o", exe, *meta.get("libs", [])], check=True)
baseir = wd / "base.ir"
if not baseir.exists():
    baseir.write_text(str(speed.callgrind(timing, wd / "base", wd / "scratch-q-base")))
ref, _, _, _ = speed.run_workload(timing, wd / "base", wd / "scratch-q-base-out")
res, _, _, _ = speed.run_workload(timing, exe, wd / ("scratch-q-" + name))
ir = speed.callgrind(timing, exe, wd / ("scratch-q-cg-" + name))
b = int(baseir.read_text())
tb, tx = common.text_bytes(wd / "base"), common.text_bytes(exe)
r = json.loads((wd / (name + ".report.json")).read_text())
print("%s %s: .text %d saved %d, Ir %+.2f%%, merges %d, output %s" % (prog, name, tx, tb - tx, 100 * (ir / b - 1), len(r["merges"]), "ok" if res == ref else "DIFFERS"))
