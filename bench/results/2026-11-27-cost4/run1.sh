#!/bin/bash
# run1.sh PROG CONFIG: callgrind instruction count of one link (all threads)
p=$1; c=$2
if [ $c = none ]; then pl=-; else pl=/tmp/cost4/$c.so; fi
cmd=$(python3 -c "
import json,sys; d=json.load(open('/tmp/cost4/cmds.json'))[sys.argv[1]]; d=list(d); i=d.index('-o'); d[i+1]='/tmp/cost4/cg/$p.$c.exe'
if sys.argv[2]!='-': d.insert(1,'--load-pass-plugin='+sys.argv[2])
print(' '.join(d))" $p $pl)
cd /tmp && nice -n 19 valgrind --tool=callgrind --callgrind-out-file=/tmp/cost4/cg/$p.$c.out $cmd > /tmp/cost4/cg/$p.$c.log 2>&1
echo "$p $c $(grep -o 'Collected : [0-9]*' /tmp/cost4/cg/$p.$c.log)"
