import re,sys,collections
fn=None; defs={}; res=collections.Counter(); unmatched=collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith('define '):
        fn=re.search(r'@("?[^"(]+"?)\(',line).group(1); defs={}; continue
    m=re.match(r'\s+(%[\w.]+) = (.*)',line)
    if m: defs[m.group(1)]=m.group(2)
    m=re.search(r'(?:call|invoke) (?:\w+ )*void (%[\w.]+)\(',line)
    if not m or fn is None: continue
    v=m.group(1); d=defs.get(v,'')
    ok=False
    lm=re.match(r'load ptr, ptr (%[\w.]+)',d)
    if lm:
        s=defs.get(lm.group(1),'')
        if s.startswith('load ptr'): ok=True
        else:
            gm=re.match(r'getelementptr (?:inbounds )?(?:nuw )?(?:i8|ptr), ptr (%[\w.]+), i64 (-?\d+)',s)
            if gm and defs.get(gm.group(1),'').startswith('load ptr'): ok=True
    res[ok]+=1
    if not ok: unmatched[(fn, d[:60])]+=1
print(res)
for k,c in unmatched.most_common(40): print(c,k)
