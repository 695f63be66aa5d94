#!/bin/bash
# corpus.sh FMERGE TAG [args]: fmerge opt --whole-program on every corpus module, .text after (fmerge size)
fm=$1; tag=$2; shift 2
for p in bzip2 lua xz leveldb zstd quickjs sqlite fd tokei; do
  bc=/work/main/build/corpus/$p/$p.bc
  $fm opt $bc --whole-program "$@" --report /tmp/s29/c-$tag-$p.json -q -o /tmp/s29/c-$tag-$p.bc || echo "$p FAILED"
  t=$($fm size /tmp/s29/c-$tag-$p.bc --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])')
  echo "$tag $p $t"
  rm -f /tmp/s29/c-$tag-$p.bc
done
