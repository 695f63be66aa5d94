#!/bin/bash
# corpus.sh FMERGE TAG [args]: fmerge opt --whole-program on every corpus module, .text after (fmerge size)
fm=$1; tag=$2; shift 2
for p in ${PROGS:-bzip2 lua xz leveldb zstd quickjs sqlite fd tokei}; do
  bc=/work/main/build/corpus/$p/$p.bc
  s=$(date +%s.%N)
  FMERGE_DEBUG_PRICES=/tmp/s38/prices-$tag-$p.jsonl /usr/bin/time -o /tmp/s38/time-$tag-$p -f "%U %S %M" $fm opt $bc --whole-program "$@" --report /tmp/s38/c-$tag-$p.json -q -o /tmp/s38/c-$tag-$p.bc || echo "$p FAILED"
  e=$(date +%s.%N)
  t=$($fm size /tmp/s38/c-$tag-$p.bc --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])')
  echo "$tag $p $t $(echo "$e - $s" | bc) $(cat /tmp/s38/time-$tag-$p)"
  rm -f /tmp/s38/c-$tag-$p.bc
done
