import sys, collections
keys=[('verify','fmerge_llvm::module::Module::verify'),('backup (keep_bitcode)','Module::keep_bitcode'),('guard copy (Snapshot::of)','Snapshot::of'),
('estimate','ModuleProfile::estimate'),('identical','identical::'),('constants','constants::'),('similar stage','similar::Similar as fmerge_passes::stage::Stage'),
('  close calls compiled (proposal::settle)','proposal::settle'),('guard measuring','guard::measure_functions'),('all code generation (fm_emit_object)','fm_emit_object')]
for fn in sys.argv[1:]:
    samples=[];cur=None
    for ln in open(fn):
        if not ln.strip():
            if cur is not None: samples.append(cur); cur=None
            continue
        if not ln.startswith('\t'): cur=[]; continue
        p=ln.strip().split(None,1); cur.append(p[1] if len(p)>1 else '?')
    if cur: samples.append(cur)
    plug=[s for s in samples if any('fmerge_plugin' in f for f in s)]
    out=[f"{fn}: samples {len(samples)}, in the plugin {len(plug)} ({100*len(plug)/len(samples):.1f}%)"]
    for name,k in keys:
        c=sum(1 for s in plug if any(k in f for f in s))
        out.append(f"   {name}: {c} ({100*c/max(1,len(plug)):.0f}% of the plugin)")
    print('\n'.join(out))
