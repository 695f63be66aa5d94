import sys, collections, re
samples=[]; cur=None
for ln in open(sys.argv[1]):
    if not ln.strip():
        if cur is not None: samples.append(cur); cur=None
        continue
    if not ln.startswith('\t') and not ln.startswith(' '):
        cur=[]; continue
    parts=ln.strip().split(None,1)
    cur.append(parts[1] if len(parts)>1 else '?')
if cur: samples.append(cur)
N=len(samples); print('samples',N)
def has(s,pat): return any(pat in f for f in s)
plug=[s for s in samples if has(s,'fmerge_plugin')]
print('plugin', len(plug), round(100*len(plug)/N,1),'%')
incl=collections.Counter()
for s in plug:
    seen=set()
    for f in s:
        f=re.sub(r'<.*>','',f)[:110]
        if f not in seen: incl[f]+=1; seen.add(f)
for f,c in incl.most_common(int(sys.argv[2]) if len(sys.argv)>2 else 80): print(f"{c:6d} {100*c/N:5.1f}% {f}")
