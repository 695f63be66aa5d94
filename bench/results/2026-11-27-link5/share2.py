import sys
# share of samples in fmerge code: on the backend thread (under fmerge_plugin::run) and on fmerge's helper threads
for fn in sys.argv[1:]:
    samples=[];cur=None
    for ln in open(fn):
        if not ln.strip():
            if cur is not None: samples.append(cur); cur=None
            continue
        if not ln.startswith('\t'): cur=[]; continue
        p=ln.strip().split(None,1); cur.append(p[1] if len(p)>1 else '?')
    if cur: samples.append(cur)
    run=sum(1 for s in samples if any('fmerge_plugin::run' in f for f in s))
    helper=sum(1 for s in samples if not any('fmerge_plugin::run' in f for f in s) and any(('fmerge' in f or 'rayon' in f) for f in s))
    n=len(samples)
    print(f"{fn}: {n} samples; fmerge on the backend thread {run} ({100*run/n:.1f}%), on its helper threads {helper} ({100*helper/n:.1f}%), together {100*(run+helper)/n:.1f}%")
