#!/usr/bin/env python3
"""Best wall time and peak memory per module and configuration from cost.sh's lines, as
multiples of opt -Oz's (best against best)."""
import sys, collections
best = collections.defaultdict(lambda: [float("inf"), 0])
order = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6 or f[1] == "FAILED" or not f[3].replace(".", "").isdigit():
        continue
    mod, cfg, wall, kb = f[0], f[1], float(f[3]), int(f[5])
    if mod not in order:
        order.append(mod)
    b = best[(mod, cfg)]
    b[0] = min(b[0], wall)
    b[1] = max(b[1], kb)
print("| module | opt -Oz | before | after | after, --no-measure |")
print("|---|---:|---:|---:|---:|")
for m in order:
    o = best[(m, "opt")]
    cells = [f"{o[0]:.2f} s, {o[1] / 1024:.0f} MB"]
    for cfg in ("before", "after", "after-no-measure"):
        t, kb = best[(m, cfg)]
        cells.append(f"{t:.2f} s, {kb / 1024:.0f} MB ({t / o[0]:.2f}x, {kb / o[1]:.2f}x)")
    print(f"| {m} | " + " | ".join(cells) + " |")
