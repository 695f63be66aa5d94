#!/bin/bash
# cmp.sh TAG FMERGE [args]: every corpus module + Ninja: .text and wall
tag=$1; f=$2; shift 2
REPO=$(git rev-parse --show-toplevel); OUT=${OUT:-/tmp/fmerge-cmp}; mkdir -p $OUT
NINJA=${NINJA:-/work/heldout/ninja/build/ninja_test-Oz.bc}
for m in bzip2 lua xz leveldb zstd quickjs sqlite fd tokei ninja; do
  if [ $m = ninja ]; then bc=$NINJA; else bc=$REPO/build/corpus/$m/$m.bc; fi
  out=$OUT/$m.$tag.bc
  /usr/bin/time -o $OUT/time.$m.$tag -f "%e %M" $f opt --whole-program -q "$@" $bc -o $out
  echo "$m $tag $($f size $out | awk '/.text bytes/{print $3}') $(cat $OUT/time.$m.$tag)"
done
