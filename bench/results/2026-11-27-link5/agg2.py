import re, sys, collections
lines=open(sys.argv[1]).read().splitlines()
merges={}
for ln in lines:
    m=re.match(r'fmerge: ThinLTO backend \((.*?)\): (\d+) functions merged in (\d+) merges \((\d+) -> (\d+) def.*, ([0-9.]+)s',ln)
    if m: merges[m.group(1)]=(int(m.group(3)),int(m.group(4)),float(m.group(6)))
groups={'zero':collections.Counter(),'some':collections.Counter()}; cnt=collections.Counter()
for ln in lines:
    m=re.match(r'fmerge: ThinLTO backend \((.*?)\): wall time by step: (.*)',ln)
    if not m: continue
    g='zero' if merges[m.group(1)][0]==0 else 'some'; cnt[g]+=1
    for part in m.group(2).split(', '):
        mm=re.match(r'(.*) ([0-9.]+)s$',part); groups[g][mm.group(1)]+=float(mm.group(2))
for g,c in groups.items():
    print(g, cnt[g], 'total', round(sum(c.values()),2))
    for k,v in c.most_common(): print(f"   {v:7.2f} {k}")
# distribution of defs for zero
z=sorted(v[1] for v in merges.values() if v[0]==0); print('defs of zero-merge modules', z[:10], z[len(z)//2], z[-10:])
