#!/bin/bash
# cost.sh OUT: opt -Oz, fmerge before (b7c302a) and after, back to back, per module; wall s and peak KB
out=$1; : > $out
for p in ${PROGS:-fd tokei zstd leveldb}; do
  bc=/work/main/build/corpus/$p/$p.bc
  for r in 1 2; do
    /usr/bin/time -o /tmp/s38/tt -f "%e %M" opt-22 -passes='default<Oz>' $bc -o /tmp/s38/o.bc; echo "$p opt $r $(cat /tmp/s38/tt) load $(cut -d' ' -f1 /proc/loadavg)" >> $out
    /usr/bin/time -o /tmp/s38/tt -f "%e %M" /work/bin-s38base/fmerge opt $bc --whole-program -q -o /tmp/s38/o.bc; echo "$p before $r $(cat /tmp/s38/tt)" >> $out
    /usr/bin/time -o /tmp/s38/tt -f "%e %M" /work/bin-s38new/fmerge opt $bc --whole-program -q -o /tmp/s38/o.bc; echo "$p after $r $(cat /tmp/s38/tt)" >> $out
  done
done
