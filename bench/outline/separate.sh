#!/usr/bin/env bash
# Outlining under separate compilation (issue 17): per-file modules of corpus programs, each
# compiled on its own, linked with ld.lld --icf=all; final .text, smoke workload, build time:
#   base        llc-22 each module
#   outline     + -enable-machine-outliner (each module on its own)
#   llvm-global LLVM's two-round global outlining: round 1 records codegen data
#               (-codegen-data-generate), llvm-cgdata-22 --merge, round 2 outlines with it
#               (-codegen-data-use-path, -append-content-hash-outlined-name)
#   llvm-g+gmf  the same with GlobalMergeFunc (-enable-global-merge-func)
#   fm          fmerge: opt + summarize each module, combine, apply --emit obj
#   fm-outline  fm + apply --outline (each module on its own)
#   fm-global   fm + global outlining: summarize --outline-data, combine --outline-data,
#               apply --outline --outline-data
# On AArch64 (TARGET=aarch64) also, with frame helpers (-homogeneous-prolog-epilog; LLVM applies
# them to minsize functions only, so they change nothing in an -Os corpus):
#   llvm-g+gmf+fh  llvm-g+gmf with frame helpers
#   fm-global-nofh fm-global without them (fmerge's flows have them by default)
# Usage (from the repository root, corpus built): bench/outline/separate.sh lua zstd ...
#   > a markdown table on stdout; work in build/outline-separate[-aarch64]
# Environment: FMERGE (default target/release/fmerge), TARGET (x86_64, default, or aarch64),
#   CORPUS (default build/corpus, or build/corpus-aarch64; an -Oz corpus is built with
#   FMERGE_CORPUS_OPT=z bench/corpus/corpus.py --out DIR build ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
F=${FMERGE:-$root/target/release/fmerge}
TARGET=${TARGET:-x86_64}
case $TARGET in
  x86_64) C=$(cd "${CORPUS:-$root/build/corpus}" && pwd); LINK=(clang++-22 -fuse-ld=lld)
          FLOWS=(base outline llvm-global llvm-g+gmf fm fm-outline fm-global); WORK=outline-separate ;;
  aarch64) C=$(cd "${CORPUS:-$root/build/corpus-aarch64}" && pwd)
          LINK=(clang++-22 --target=aarch64-linux-gnu -fuse-ld=lld)
          FLOWS=(base outline llvm-global llvm-g+gmf llvm-g+gmf+fh fm fm-outline fm-global-nofh fm-global)
          WORK=outline-separate-aarch64 ;;
  *) echo "separate.sh: TARGET must be x86_64 or aarch64" >&2; exit 2 ;;
esac
WORK=$WORK-$(basename "$C")
LLC=(llc-22 -O2 -relocation-model=pic -function-sections -filetype=obj)
now() { date +%s.%N; }
echo "| program |$(for f in "${FLOWS[@]}"; do printf ' %s |' "$f"; done) smoke |"
echo "|---|$(for _ in "${FLOWS[@]}"; do printf -- '---:|'; done)---|"
for prog in "$@"; do
  P=$C/$prog
  W=$root/build/$WORK/$prog
  rm -rf "$W"; mkdir -p "$W"; cd "$W"
  field() { python3 -c "import json,sys; v=json.load(open('$P/modules.json')).get('$1', []); print(' '.join(v) if isinstance(v, list) else v)"; }
  D=$(field dir); MODS=$(field modules); LIBS=$(field libs); ARCH=$(field archives)
  GROUP=""; [ -n "$ARCH" ] && GROUP="-Wl,--start-group $ARCH -Wl,--end-group"
  for m in $MODS; do mkdir -p "$(dirname "$m")"; done
  declare -A T
  t0=$(now)
  for m in $MODS; do "${LLC[@]}" "$P/$D/$m" -o "$m.base.o"; done
  T[base]=$(echo "$(now)-$t0" | bc); t0=$(now)
  for m in $MODS; do "${LLC[@]}" -enable-machine-outliner "$P/$D/$m" -o "$m.outline.o"; done
  T[outline]=$(echo "$(now)-$t0" | bc); t0=$(now)
  for tag in llvm-global llvm-g+gmf llvm-g+gmf+fh; do
    case $tag in
      llvm-global) g=() ;;
      llvm-g+gmf) g=(-enable-global-merge-func=true) ;;
      llvm-g+gmf+fh) [ "$TARGET" = aarch64 ] || continue
                     g=(-enable-global-merge-func=true -homogeneous-prolog-epilog) ;;
    esac
    for m in $MODS; do "${LLC[@]}" -enable-machine-outliner "${g[@]}" -codegen-data-generate=true "$P/$D/$m" -o "$m.$tag.r1.o"; done
    llvm-cgdata-22 --merge $(for m in $MODS; do echo "$m.$tag.r1.o"; done) -o "$tag.cgdata"
    for m in $MODS; do "${LLC[@]}" -enable-machine-outliner "${g[@]}" -codegen-data-use-path="$tag.cgdata" -append-content-hash-outlined-name "$P/$D/$m" -o "$m.$tag.o"; done
    T[$tag]=$(echo "$(now)-$t0" | bc); t0=$(now)
  done
  for m in $MODS; do "$F" opt "$P/$D/$m" -o "$m.opt.bc" -q --no-measure; done
  topt=$(echo "$(now)-$t0" | bc); t0=$(now)
  for m in $MODS; do "$F" summarize "$m.opt.bc" -o "$m.fms"; done
  "$F" combine -q $(for m in $MODS; do echo "$m.fms"; done) -o merge.fmi
  for m in $MODS; do "$F" apply "$m.opt.bc" --info merge.fmi --emit obj -o "$m.fm.o"; done
  T[fm]=$(echo "$(now)-$t0+$topt" | bc); t0=$(now)
  for m in $MODS; do "$F" apply "$m.opt.bc" --info merge.fmi --emit obj --outline -o "$m.fm-outline.o"; done
  T[fm-outline]=$(echo "$(now)-$t0+${T[fm]}" | bc); t0=$(now)
  for tag in fm-global-nofh fm-global; do
    case $tag in
      fm-global-nofh) [ "$TARGET" = aarch64 ] || continue; nofh=(--no-frame-helpers) ;;
      fm-global) nofh=() ;;
    esac
    for m in $MODS; do "$F" summarize "$m.opt.bc" -o "$m.$tag.fms" --outline-data "$m.$tag.cgo" "${nofh[@]}"; done
    "$F" combine -q $(for m in $MODS; do echo "$m.$tag.fms"; done) -o "$tag.fmi" \
      --outline-data $(for m in $MODS; do echo "$m.$tag.cgo"; done)
    for m in $MODS; do "$F" apply "$m.opt.bc" --info "$tag.fmi" --emit obj --outline --outline-data "$tag.cgdata" "${nofh[@]}" -o "$m.$tag.o"; done
    T[$tag]=$(echo "$(now)-$t0+$topt" | bc); t0=$(now)
  done
  row="| $prog |"; smoke=""
  base=""
  for v in "${FLOWS[@]}"; do
    # shellcheck disable=SC2086
    "${LINK[@]}" -Wl,--icf=all $(for m in $MODS; do echo "$m.$v.o"; done) $GROUP -o "$prog.$v" $LIBS
    t=$(llvm-size-22 -A "$prog.$v" | awk '$1==".text"{print $2}')
    [ -z "$base" ] && base=$t
    pct=$(python3 -c "print(f'{100*($t-$base)/$base:+.2f}%')")
    row="$row $t ($pct, $(printf '%.0f' "${T[$v]}") s) |"
    if python3 "$root/bench/corpus/corpus.py" --target "$TARGET" --out "$C" smoke "$prog" --exe "$W/$prog.$v" >/dev/null 2>&1; then
      smoke="${smoke}p"; else smoke="${smoke}F"; fi
  done
  echo "$row $smoke |"
done
