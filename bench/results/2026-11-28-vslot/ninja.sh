#!/bin/sh
# Ninja's test binary as one whole-program -Oz module, merged by fmerge opt before (BEFORE) and
# after (AFTER) this branch, and after with --no-estimate; .text of each by `fmerge size`.
# Usage: ninja.sh BEFORE_FMERGE AFTER_FMERGE IN.bc OUTDIR
set -e
B=$1; A=$2; IN=$3; O=$4
mkdir -p "$O"
[ -f "$O/before.bc" ] || $B opt --whole-program "$IN" -o "$O/before.bc" --report "$O/before.json" -q
[ -f "$O/after.bc" ] || $A opt --whole-program "$IN" -o "$O/after.bc" --report "$O/after.json" -q
[ -f "$O/noest.bc" ] || $A opt --whole-program --no-estimate "$IN" -o "$O/noest.bc" --report "$O/noest.json" -q
for v in "$IN" "$O/before.bc" "$O/after.bc" "$O/noest.bc"; do
  printf '%s ' "$v"; $A size --json "$v" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["text_bytes"])'
done
