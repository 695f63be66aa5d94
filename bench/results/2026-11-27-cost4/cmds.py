import json, sys
from pathlib import Path
sys.path.insert(0, "/work/wt-cost4/bench")
from fmbench import linkcost, programs
corpus = Path("/work/main/build/corpus")
out = {}
for n in sys.argv[1:]:
    man = json.loads((corpus/n/"modules.json").read_text())
    mods = [str(corpus/n/man["dir"]/m) for m in man["modules"]]
    exe = Path(f"/tmp/cost4/links/{n}/{n}.exe"); exe.parent.mkdir(parents=True, exist_ok=True)
    cmd = linkcost.driver_link_command(programs.get_program(n), False, exe, man["archives"], man["libs"])
    i = cmd.index(linkcost.PLACEHOLDER); cmd[i:i+1] = mods
    out[n] = cmd
json.dump(out, open("/tmp/cost4/cmds.json","w"), indent=1)
