#!/usr/bin/env bash
# How much merging *across* modules could add on top of merging each module alone: an upper
# bound for carrying similar functions across modules in the merge information (issue: global
# merging, item 5). For each program's per-file modules (corpus built with modules.json):
#   orig      llvm-link of the original modules, no merging
#   permod    each module merged alone (fmerge opt), then linked
#   linked-ic the linked program merged at once, identical and constant-differing functions only
#             (what summarize/combine/apply and the linker's ICF can reach across modules)
#   linked    the linked program merged at once, every stage (similar functions included)
# Sizes: `fmerge size` (.text of llc's default code generation for the whole module).
# Usage (repository root): bench/global/cross_module_bound.sh lua quickjs zstd
# Environment: FMERGE (default target/release/fmerge), CORPUS (default build/corpus).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
F=${FMERGE:-$root/target/release/fmerge}
C=$(cd "${CORPUS:-$root/build/corpus}" && pwd)
W=$root/build/global-bound
mkdir -p "$W"
size() { "$F" size "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])'; }
echo "| program | orig | permod | linked-ic | linked |"
echo "|---|---:|---:|---:|---:|"
for p in "$@"; do
  P=$C/$p
  D=$(python3 -c "import json; print(json.load(open('$P/modules.json'))['dir'])")
  ins=(); outs=(); i=0
  for m in $(python3 -c "import json; print(' '.join(json.load(open('$P/modules.json'))['modules']))"); do
    i=$((i + 1))
    "$F" opt "$P/$D/$m" -o "$W/$p.m$i.bc" -q --no-measure
    ins+=("$P/$D/$m"); outs+=("$W/$p.m$i.bc")
  done
  llvm-link-22 "${ins[@]}" -o "$W/$p.orig.bc"
  llvm-link-22 "${outs[@]}" -o "$W/$p.permod.bc"
  "$F" opt "$W/$p.orig.bc" -o "$W/$p.linked-ic.bc" -q --no-measure --merge identical,constants
  "$F" opt "$W/$p.orig.bc" -o "$W/$p.linked.bc" -q --no-measure
  echo "| $p | $(size "$W/$p.orig.bc") | $(size "$W/$p.permod.bc") | $(size "$W/$p.linked-ic.bc") | $(size "$W/$p.linked.bc") |"
done
