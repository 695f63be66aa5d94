#!/usr/bin/env python3
"""What round 2's global stage did per module, from the plugin's per-module reports
(-fmerge-report=DIR/{}.json). Modules are named through the summaries (.fms) of round 1.
Usage: global-report.py REPORTDIR SUMDIR..."""
import json, glob, os, sys, struct
sys.path.insert(0, os.path.dirname(__file__))
def rd(path):
    b = open(path, 'rb').read(); p = 20
    def u32():
        nonlocal p; v = struct.unpack_from('<I', b, p)[0]; p += 4; return v
    def s():
        n = u32(); nonlocal p; v = b[p:p+n].decode(); p += n; return v
    mod = s(); names = []
    for _ in range(u32()):
        names.append(s()); p += 8 + 4 + 4; ns = u32(); p += 16 * ns
    return mod.split('deps/')[-1], names
where = {}
for d in sys.argv[2:]:
    for f in glob.glob(os.path.join(d, '*.fms')):
        m, ns = rd(f)
        for n in ns: where.setdefault(n, m)
tot = {'merges': 0, 'rej': 0, 'rt': 0}
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    d = json.load(open(f))
    g = [s for s in d['stages'] if s['stage'] == 'global']
    gm = [m for m in d['merges'] if m['stage'] == 'global' or m.get('stage') == 'global similar']
    gm = [m for m in d['merges'] if 'global' in m['stage']]
    gs = [k for k in d['skipped'] if 'global' in k['stage']]
    if not gm and not gs and not (g and g[0]['rejected_unprofitable']):
        continue
    names = [n for m in gm for n in m['originals']] + [k['function'].split(' + ')[0] for k in gs]
    mods = {where.get(n) for n in names} - {None}
    allnames = [n for m in d['merges'] for n in m['originals']]
    if not mods:
        mods = {where.get(n) for n in allnames} - {None}
    print(f"== {os.path.basename(f)} {sorted(mods)[:2]}: global merges {g[0]['merges'] if g else 0}, "
          f"silently rejected {g[0]['rejected_unprofitable'] - sum(len(k['function'].split(' + ')) for k in gs if k['reason'].startswith('runtime')) if g else 0}")
    for m in gm:
        print(f"   MERGED [{m['stage']}] {', '.join(m['originals'])} -> {m['body']} (params {m['params']}, est {m.get('estimated_saving')})")
    for k in gs:
        print(f"   LEFT OUT [{k['stage']}] {k['function']}: {k['reason']}")
    tot['merges'] += g[0]['merges'] if g else 0
print(tot)
