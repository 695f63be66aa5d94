#!/usr/bin/env python3
"""link.py PROG [plugin.so] [extra ld args...]: one link, prints wall/cpu."""
import json, os, sys, time, subprocess
d = json.load(open("/tmp/link5/cmds.json"))
prog = sys.argv[1]; cmd = list(d[prog])
plugin = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
extra = sys.argv[3:]
out = os.environ.get("OUT")
if out:
    cmd[cmd.index("-o") + 1] = out
if plugin: cmd.insert(1, f"--load-pass-plugin={plugin}")
cmd[1:1] = extra
t0 = time.perf_counter()
p = subprocess.Popen(cmd, cwd=os.environ.get("CWD", "/tmp"))
_, st, ru = os.wait4(p.pid, 0)
print(f"{prog} {'plugin' if plugin else 'none'} wall {time.perf_counter()-t0:.2f} cpu {ru.ru_utime+ru.ru_stime:.2f} user {ru.ru_utime:.2f} sys {ru.ru_stime:.2f} minflt {ru.ru_minflt} nvcsw {ru.ru_nvcsw} nivcsw {ru.ru_nivcsw} rss {ru.ru_maxrss/1024:.0f} rc {os.waitstatus_to_exitcode(st)}", file=sys.stderr)
