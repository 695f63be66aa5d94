#!/bin/bash
# best-of-N back-to-back: opt -Oz vs fmerge default vs fmerge --no-measure
F=${F:-/tmp/fm-final/fmerge}
N=${N:-2}
for p in "$@"; do
  bc=/work/main/build/corpus/$p/$p.bc
  for i in $(seq $N); do
    l=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %M" -o /tmp/pt.o opt-22 -passes='default<Oz>' $bc -o /tmp/pt.opt.bc
    /usr/bin/time -f "%e %M" -o /tmp/pt.f $F opt --whole-program $bc -o /tmp/pt.f.bc >/dev/null 2>&1
    /usr/bin/time -f "%e %M" -o /tmp/pt.n $F opt --whole-program --no-measure $bc -o /tmp/pt.n.bc >/dev/null 2>&1
    echo "$p run$i load $l opt $(cat /tmp/pt.o) fmerge $(cat /tmp/pt.f) nomeasure $(cat /tmp/pt.n)"
  done
done
