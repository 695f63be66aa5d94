#!/bin/bash
# cmp.sh BASE NEW MODULE...: .text of each module after `fmerge opt --whole-program` (default) by BASE and NEW
base=$1; new=$2; shift 2
size() { /work/bin-s45/fmerge size "$1" | awk '/.text bytes/{print $3}'; }
for m in "$@"; do
  t=/tmp/s46/cmp-$$
  "$base" opt --whole-program -q "$m" -o $t-b.bc
  "$new" opt --whole-program -q "$m" -o $t-n.bc
  b=$(size $t-b.bc); n=$(size $t-n.bc)
  echo "$(basename $(dirname "$m"))/$(basename "$m" .bc) $b $n $((b-n))"
done
