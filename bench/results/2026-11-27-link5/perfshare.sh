#!/bin/bash
# perfshare.sh PROG PLUGIN TAG: perf samples of one ThinLTO link; share inside fmerge_plugin::run
p=$1; pl=$2; tag=$3
python3 - $p $pl $tag <<'PY'
import json,sys
d=list(json.load(open('/tmp/link5/cmds.json'))[sys.argv[1]]); d.insert(1,'--load-pass-plugin='+sys.argv[2]); d[d.index('-o')+1]='/tmp/link5/links/%s/perf.%s.exe'%(sys.argv[1],sys.argv[3])
open('/tmp/link5/perf-%s-%s.sh'%(sys.argv[1],sys.argv[3]),'w').write(' '.join(d)+'\n')
PY
cd /tmp && nice -n 19 perf record -F 99 --call-graph dwarf,32768 -o /tmp/link5/$p.$tag.data sh /tmp/link5/perf-$p-$tag.sh > /dev/null 2>&1
nice -n 19 perf script -i /tmp/link5/$p.$tag.data -F comm,tid,ip,sym --no-inline > /tmp/link5/$p.$tag.txt 2>/dev/null
rm -f /tmp/link5/$p.$tag.data
echo "$p $tag $(python3 /tmp/link5/folded.py /tmp/link5/$p.$tag.txt 0 | tr '\n' ' ') text $(size -A /tmp/link5/links/$p/perf.$tag.exe | awk '$1==".text"{print $2}')"
