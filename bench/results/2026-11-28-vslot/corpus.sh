#!/bin/sh
# The corpus' C and C++ modules (make corpus: build/corpus/<prog>/<prog>.bc) merged by
# `fmerge opt --whole-program` before (BEFORE) and after (AFTER) this branch; whether the
# outputs are byte-identical, and .text of each by `fmerge size`.
# Usage: corpus.sh BEFORE_FMERGE AFTER_FMERGE CORPUS_DIR OUTDIR
set -e
B=$1; A=$2; C=$3; O=$4
mkdir -p "$O"
size() { $A size --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])'; }
for p in bzip2 lua sqlite xz zstd quickjs leveldb; do
  in=$C/$p/$p.bc
  [ -f "$in" ] || { echo "$p: no module"; continue; }
  $B opt --whole-program "$in" -o "$O/$p.before.bc" --report "$O/$p.before.json" -q
  $A opt --whole-program "$in" -o "$O/$p.after.bc" --report "$O/$p.after.json" -q
  same=$(cmp -s "$O/$p.before.bc" "$O/$p.after.bc" && echo identical || echo differ)
  echo "$p: input $(size "$in") before $(size "$O/$p.before.bc") after $(size "$O/$p.after.bc") ($same)"
done
