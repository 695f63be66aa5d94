import re, sys, collections
tot = collections.Counter(); n=0; per=[]
for ln in open(sys.argv[1]):
    if 'wall time by step:' not in ln: continue
    n+=1
    s = ln.split('wall time by step:')[1]
    mod = 0
    for part in s.split(','):
        m = re.match(r'\s*(.*) ([0-9.]+)s\s*$', part)
        if m: tot[m.group(1)] += float(m.group(2)); mod += float(m.group(2))
    per.append((mod, ln.split(':')[1][:80]))
print("backends", n, "sum", round(sum(tot.values()),2))
for k,v in tot.most_common(): print(f"{v:8.2f} {k}")
per.sort(reverse=True)
for p in per[:10]: print(round(p[0],2), p[1])
