#!/usr/bin/env python3
"""List the members of each equal-up-to-constants group of a merge information (JSON from
`fmerge combine --json`) by reading the summaries (.fms, docs/FORMATS.md).
Usage: groups.py MERGE.json SUMDIR"""
import json, struct, sys, glob, os
def rd(path):
    b = open(path, 'rb').read()
    assert b[:8] == b'FMSUMMRY'
    p = 20
    def u32():
        nonlocal p; v = struct.unpack_from('<I', b, p)[0]; p += 4; return v
    def u64():
        nonlocal p; v = struct.unpack_from('<Q', b, p)[0]; p += 8; return v
    def s():
        n = u32(); nonlocal p; v = b[p:p+n].decode(); p += n; return v
    mod = s(); fs = []
    for _ in range(u32()):
        name = s(); h = u64(); ic = u32(); units = u32(); ns = u32(); p += 16 * ns
        fs.append((name, h, ic, units))
    return mod, fs
info = json.load(open(sys.argv[1]))
byhash = {}
for f in glob.glob(os.path.join(sys.argv[2], '*.fms')):
    mod, fs = rd(f)
    for name, h, ic, units in fs:
        byhash.setdefault(h, []).append((mod.split('deps/')[-1], name, ic, units))
for g in info['groups']:
    ms = byhash.get(g['hash'], [])
    print(f"group {g['hash']:016x}: {g['inst_count']} insts, {len(g['params'])} params, {g['members']} members")
    for m in ms:
        print(f"   {m[0]:40s} units {m[3]:4d}  {m[1]}")
for s_ in info['similar']:
    print(f"similar group: estimated saving {s_['estimated_saving']} bytes")
    for m in s_['members']:
        print(f"   {m['module'].split('deps/')[-1]:40s} {m['name']}")
