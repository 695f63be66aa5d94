#!/bin/sh
# Issue 28's cost numbers on one whole-program module M (Ninja's ninja_test at -Oz, made as the
# corpus makes its C/C++ modules: `clang++-22 -Oz -g0 -w -emit-llvm -c` per file, then
# llvm-link-22). Back to back, twice: opt -Oz, fmerge opt (default), fmerge opt --no-measure;
# then --timings once. Prints "seconds peak-KB" per run. Usage: ninja-cost.sh M.bc FMERGE
set -e
M=$1; F=$2
for round in 1 2; do
  echo "round $round"
  echo "opt-22 -Oz: $(/usr/bin/time -f '%e s %M KB' opt-22 -passes='default<Oz>' "$M" -o /tmp/ninja6-x.bc 2>&1)"
  echo "fmerge opt: $(/usr/bin/time -f '%e s %M KB' "$F" opt --whole-program -q "$M" -o /tmp/ninja6-y.bc 2>&1)"
  echo "fmerge opt --no-measure: $(/usr/bin/time -f '%e s %M KB' "$F" opt --whole-program --no-measure -q "$M" -o /tmp/ninja6-z.bc 2>&1)"
done
echo "--timings:"
"$F" opt --whole-program --timings "$M" -o /tmp/ninja6-t.bc 2>&1
