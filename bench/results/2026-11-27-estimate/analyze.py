"""Per-merge Ir deltas (all merges) of a speed run's builds against base, joined with report features.
usage: analyze.py OUTDIR PROG BUILD [BUILD...]  -> writes OUTDIR/PROG/merges-BUILD.json"""
import sys, json
from pathlib import Path
sys.path.insert(0, '/work/main/bench')
from fmbench import speed
out = Path(sys.argv[1]); prog = sys.argv[2]; builds = sys.argv[3:]
wd = out / prog
timing = speed.programs(out / "data")[prog]["timing"]()
exes = {b: wd / b for b in builds + ["base"]}
res = speed.annotate(prog, wd, exes, timing, [(b, "base") for b in builds], 2, top=100000)
for b in builds:
    rep = json.loads((wd / (b + ".report.json")).read_text())
    by_seq = {m["seq"]: m for m in rep["merges"]}
    rows = []
    for x in res["%s vs base" % b]["merges"]:
        m = by_seq[x["seq"]]
        rows.append(dict(x, added_work=m.get("added_work"), member_work=m.get("member_work"),
                         work_fraction=m.get("work_fraction"), est=m.get("estimated_saving"),
                         meas=m.get("measured_saving"), entry_counts=m.get("entry_counts")))
    (wd / ("merges-%s.json" % b)).write_text(json.dumps(dict(rows=rows, profile=rep.get("profile")), indent=1))
    print(prog, b, len(rows), "merges with Ir data")
