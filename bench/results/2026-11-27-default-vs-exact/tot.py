import sys
inp={}
for l in open('../2026-11-27-gap/corpus-text.txt'):
    t,p,v=l.split()[:3]
    if t=='in': inp[p]=int(v)
res={}
for f in sys.argv[1:]:
    for l in open(f):
        x=l.split()
        if len(x)<3: continue
        res.setdefault(x[0],{})[x[1]]=(int(x[2]), float(x[3]) if len(x)>3 else 0)
progs=list(inp)
print('%-8s'%'tag'+''.join('%9s'%p[:8] for p in progs)+'%9s%8s'%('total','time'))
for t,r in res.items():
    if not all(p in r for p in progs): continue
    print('%-8s'%t+''.join('%9d'%(inp[p]-r[p][0]) for p in progs)+'%9d%8.1f'%(sum(inp[p]-r[p][0] for p in progs), sum(r[p][1] for p in progs)))
