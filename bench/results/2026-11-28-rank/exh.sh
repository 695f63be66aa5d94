#!/bin/bash
# exh.sh FMERGE MODULE...: default and --search exhaustive .text
f=$1; shift
size() { /work/bin-s45/fmerge size "$1" | awk '/.text bytes/{print $3}'; }
for m in "$@"; do
  t=/tmp/s46/exh-$$
  "$f" opt --whole-program -q "$m" -o $t-d.bc
  "$f" opt --whole-program -q --search exhaustive "$m" -o $t-x.bc
  d=$(size $t-d.bc); x=$(size $t-x.bc)
  echo "$(basename $(dirname "$m"))/$(basename "$m" .bc) $d $x $((d-x))"
done
