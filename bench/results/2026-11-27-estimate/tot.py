import sys
d={}
for f in sys.argv[1:]:
    for l in open('/tmp/s29/corpus-%s.txt'%f):
        t,p,v=l.split()[:3]; d[(t,p)]=int(v)
for tag in sys.argv[3:]:
    S=E=0; out=[]
    for p in 'bzip2 lua xz leveldb zstd quickjs sqlite fd tokei'.split():
        if (tag,p) not in d: continue
        i=d[('in',p)]; s=i-d[('noest',p)]; e=i-d[(tag,p)]; S+=s; E+=e
        out.append('%s %.0f%%'%(p,100*e/s if s else 100))
    print(tag,'total kept %.1f%% (%d of %d)'%(100*E/S,E,S),' '.join(out))
