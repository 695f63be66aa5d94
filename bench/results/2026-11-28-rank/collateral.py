import json,subprocess,sys
F="/work/main/target/release/fmerge"
def sizes(m):
    j=json.loads(subprocess.run([F,"size","--json","--top","0",m],capture_output=True,text=True,check=True).stdout)
    fs=j.get("functions") or j.get("symbols")
    if isinstance(fs,list): return {x["name"]:x["bytes"] for x in fs}
    return fs
inp,out,rep=sys.argv[1:4]
a=sizes(inp); b=sizes(out)
r=json.load(open(rep))
touched=set()
for m in r["merges"]:
    touched.update(m["originals"]); touched.add(m["body"]); touched.update(x["name"] for x in m["members"])
d=[(b[n]-a[n],a[n],n) for n in a if n in b and n not in touched and b[n]!=a[n]]
tot=sum(x[0] for x in d)
print(f"changed untouched functions: {len(d)}, total delta {tot:+d}")
for lo,hi in [(0,500),(500,2000),(2000,8000),(8000,10**9)]:
    s=[x for x in d if lo<=x[1]<hi]
    print(f"  input bytes {lo}-{hi}: n={len(s)} delta={sum(x[0] for x in s):+d} grew={sum(x[0] for x in s if x[0]>0):+d} shrank={sum(x[0] for x in s if x[0]<0):+d}")
for x in sorted(d,key=lambda x:-abs(x[0]))[:8]: print("   ",x)
