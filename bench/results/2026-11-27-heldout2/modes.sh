#!/bin/bash
# usage: modes.sh prog  (expects prog.bc in cwd; extra link args in $LIBS)
p=$1
clang-22 -Oz $p.bc -o $p.base $LIBS || echo "LINKFAIL $p base"
for m in def exact exh noest noexh; do
  case $m in def) a="";; exact) a="--profit exact";; exh) a="--search exhaustive";; noest) a="--no-estimate";; noexh) a="--no-estimate --search exhaustive";; esac
  /usr/bin/time -f "time %e s maxrss %M KB" ${FMERGE:-fmerge} opt --whole-program $a --report $p.$m.json $p.bc -o $p.$m.bc > $p.$m.fmerge.log 2>&1 || echo "FMERGEFAIL $p $m"
  clang-22 -Oz $p.$m.bc -o $p.$m $LIBS || echo "LINKFAIL $p $m"
done
printf "%-20s" $p
for m in base def exact exh noest noexh; do printf " %8s" $(llvm-size-22 -A $p.$m | awk '$1==".text"{print $2}'); done
for m in def exact exh noest noexh; do printf " | %s: %s %s" $m "$(head -1 $p.$m.fmerge.log | sed 's/fmerge: //; s/ functions merged in / fn\//; s/ merges.*//')" "$(grep -o 'time [0-9.]* s' $p.$m.fmerge.log | sed 's/time //')"; done
echo
