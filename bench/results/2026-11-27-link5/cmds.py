import json, sys
from pathlib import Path
sys.path.insert(0, "/work/wt-link5/bench")
from fmbench import linkcost, programs
corpus = Path("/work/main/build/corpus")
out = {}
for n in ["fd", "tokei"]:
    man = json.loads((corpus/n/"modules.json").read_text())
    mods = [str(corpus/n/man["dir"]/m) for m in man["modules"]]
    exe = Path(f"/tmp/link5/links/{n}/{n}.exe"); exe.parent.mkdir(parents=True, exist_ok=True)
    cmd = linkcost.driver_link_command(programs.get_program(n), True, exe, man["archives"], man["libs"])
    i = cmd.index(linkcost.PLACEHOLDER); cmd[i:i+1] = mods
    out[n] = cmd
json.dump(out, open("/tmp/link5/cmds.json","w"), indent=1)
