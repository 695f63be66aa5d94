#!/bin/bash
# nomeasure-text.sh FMERGE_A FMERGE_B PROGRAM...: for each corpus program (its whole-program module
# build/corpus/P/P.bc), `fmerge opt --whole-program --no-measure` with both binaries: wall time,
# peak KB and the .text of `llc-22 -O2 -filetype=obj` of the output. One line per run.
A=$1; B=$2; shift 2
out=${TMPDIR:-/tmp}/nomeasure-text; mkdir -p "$out"
for p in "$@"; do
  in=build/corpus/$p/$p.bc
  for b in "$A" "$B"; do
    tag=$(basename "$b")
    /usr/bin/time -o "$out/time" -f "%e %M" "$b" opt --whole-program --no-measure -q "$in" -o "$out/$p-$tag.bc"
    llc-22 -O2 -filetype=obj "$out/$p-$tag.bc" -o "$out/$p-$tag.o"
    t=$(size -A "$out/$p-$tag.o" | awk '$1==".text"{print $2}')
    echo "$p $tag $(cat "$out/time") text $t"
  done
done
