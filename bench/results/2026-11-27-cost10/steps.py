#!/usr/bin/env python3
"""steps.py OLD NEW MODULE RUNS: `fmerge opt --whole-program --timings MODULE` with the OLD and
the NEW binary, alternating, RUNS times each; prints, for every step `--timings` names, the
smallest and the median of its wall time over the runs (a step that ran twice in one run, such
as the similar stage and its second chance, is summed), and the whole run's wall time."""
import collections, re, subprocess, sys, time

old, new, module, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bins = {'old': old, 'new': new}
res = {k: collections.defaultdict(list) for k in bins}
for _ in range(runs):
    for k, f in bins.items():
        t0 = time.time()
        p = subprocess.run([f, 'opt', '--whole-program', '--timings', module, '-o', '/tmp/steps-out.bc'],
                           capture_output=True, text=True, check=True)
        wall = time.time() - t0
        line = [l for l in (p.stderr + p.stdout).splitlines() if 'wall time by step' in l][0]
        steps = collections.Counter()
        for name, sec in re.findall(r'([a-z][a-z ]+?) ([0-9.]+)s', line.split('step: ')[1]):
            steps[name.strip()] += float(sec)
        for name, sec in steps.items():
            res[k][name].append(sec)
        res[k]['whole run (wall)'].append(wall)
names = list(dict.fromkeys(list(res['old']) + list(res['new'])))
print(f"| step | old: min | old: median | new: min | new: median |\n|---|---:|---:|---:|---:|")
for n in names:
    cells = []
    for k in ('old', 'new'):
        v = sorted(res[k].get(n, []))
        cells += [f"{v[0]:.2f}" if v else "-", f"{v[len(v)//2]:.2f}" if v else "-"]
    print(f"| {n} | " + " | ".join(cells) + " |")
