#!/usr/bin/env bash
# Separate compilation, per-file modules of corpus programs: final linked .text with
#   base  - llc-22 each module (function sections), ld.lld --icf=all
#   gmf   - LLVM 22's GlobalMergeFunc + llvm-cgdata, two rounds, ld.lld --icf=all
#   fm    - fmerge: opt + summarize each module, combine, apply each module, ld.lld --icf=all
# and the smoke workload of each executable. Usage (from the repository root, corpus built with
# `python3 bench/corpus/corpus.py build --separate PROG...`):
#   bench/global/compare.sh lua zstd ...   > table rows on stdout, work in build/global-compare
# Environment: FMERGE (default target/release/fmerge), CORPUS (default build/corpus).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
F=${FMERGE:-$root/target/release/fmerge}
C=$(cd "${CORPUS:-$root/build/corpus}" && pwd)
LLC=(llc-22 -O2 -relocation-model=pic -function-sections -filetype=obj)
now() { date +%s.%N; }
for prog in "$@"; do
  P=$C/$prog
  W=$root/build/global-compare/$prog
  rm -rf "$W"; mkdir -p "$W"; cd "$W"
  field() { python3 -c "import json,sys; v=json.load(open('$P/modules.json')).get('$1', []); print(' '.join(v) if isinstance(v, list) else v)"; }
  D=$(field dir); MODS=$(field modules); LIBS=$(field libs); ARCH=$(field archives)
  GROUP=""; [ -n "$ARCH" ] && GROUP="-Wl,--start-group $ARCH -Wl,--end-group"
  for m in $MODS; do mkdir -p "$(dirname "$m")"; done
  t0=$(now)
  for m in $MODS; do "${LLC[@]}" "$P/$D/$m" -o "$m.base.o"; done
  t1=$(now)
  for m in $MODS; do "${LLC[@]}" -enable-global-merge-func=true -codegen-data-generate=true "$P/$D/$m" -o "$m.r1.o"; done
  llvm-cgdata-22 --merge $(for m in $MODS; do echo "$m.r1.o"; done) -o merged.cgdata
  for m in $MODS; do "${LLC[@]}" -enable-global-merge-func=true -codegen-data-use-path=merged.cgdata "$P/$D/$m" -o "$m.gmf.o"; done
  t2=$(now)
  for m in $MODS; do "$F" opt "$P/$D/$m" -o "$m.opt.bc" -q --no-measure; done
  t3=$(now)
  for m in $MODS; do "$F" summarize "$m.opt.bc" -o "$m.fms"; done
  "$F" combine -q $(for m in $MODS; do echo "$m.fms"; done) -o merge.fmi
  t4=$(now)
  for m in $MODS; do "$F" apply "$m.opt.bc" --info merge.fmi --emit obj -o "$m.fm.o"; done
  t5=$(now)
  for v in base gmf fm; do
    # shellcheck disable=SC2086
    clang++-22 -fuse-ld=lld -Wl,--icf=all $(for m in $MODS; do echo "$m.$v.o"; done) $GROUP -o "$prog.$v" $LIBS
  done
  text() { llvm-size-22 -A "$1" | awk '$1==".text"{print $2}'; }
  smoke() { python3 "$root/bench/corpus/corpus.py" --out "$C" smoke "$prog" --exe "$W/$1" >/dev/null 2>&1 && echo pass || echo FAIL; }
  b=$(text "$prog.base"); g=$(text "$prog.gmf"); f=$(text "$prog.fm")
  python3 - "$prog" "$b" "$g" "$f" "$(smoke "$prog.base")" "$(smoke "$prog.gmf")" "$(smoke "$prog.fm")" \
    "$(echo "$t1-$t0" | bc)" "$(echo "$t2-$t1" | bc)" "$(echo "$t3-$t2" | bc)" "$(echo "$t4-$t3" | bc)" "$(echo "$t5-$t4" | bc)" <<'PY'
import sys
p, b, g, f, sb, sg, sf, tl, tg, to, tsc, ta = sys.argv[1:]
b, g, f = int(b), int(g), int(f)
pct = lambda x: f"{100 * (x - b) / b:+.2f}%"
print(f"| {p} | {b} | {g} ({pct(g)}) | {f} ({pct(f)}) | {sb}/{sg}/{sf} | {float(tl):.1f} | {float(tg):.1f} | {float(to):.1f} + {float(tsc):.1f} + {float(ta):.1f} |")
PY
done
