#!/bin/sh
# Ninja's ThinLTO test binary (ninja-build.sh's objects in OUTDIR) linked with the plugin in
# BIN: per module (the plugin in every backend), and two rounds (round 1 writes summaries,
# fmerge combine, round 2 with ../2026-11-28-thin7/round2.sh); --icf=all, .text, the 394 tests.
# Usage: thin.sh OUTDIR BIN TAG   (EXTRA: more plugin options, e.g. -fmerge-estimate=false)
set -e
HERE=$(dirname "$(realpath "$0")")
OUT=$(realpath "$1"); BIN=$(realpath "$2"); TAG=$3
cd "$OUT"
OBJS=$(cat objs.txt)
FMERGE_PLUGIN_OPTIONS="$EXTRA" clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all \
  -Wl,--load-pass-plugin="$BIN/libfmerge_plugin.so" $OBJS -lpthread -o permodule-$TAG
echo "permodule-$TAG: .text $(llvm-size-22 -A permodule-$TAG | awk '$1==".text"{print $2}')"
d=$(mktemp -d /tmp/ninja-tests.XXXXXX)
(cd "$d" && "$OUT/permodule-$TAG" > "$OUT/permodule-$TAG.tests" 2>&1) || echo "permodule-$TAG: TESTS FAILED"
echo "permodule-$TAG: $(grep -E '^\[  (PASSED|FAILED)' "permodule-$TAG.tests" | tr '\n' ' ')"
rm -rf "$d" "sums-$TAG" && mkdir "sums-$TAG"
FMERGE_PLUGIN_OPTIONS="-fmerge-summary-dir=$OUT/sums-$TAG $EXTRA" clang++-22 -Os -flto=thin -fuse-ld=lld \
  -Wl,--icf=all -Wl,--load-pass-plugin="$BIN/libfmerge_plugin.so" $OBJS -lpthread -o round1-$TAG
"$BIN/fmerge" combine "sums-$TAG" -o "merge-$TAG.fmi" > "combine-$TAG.txt" 2>&1
sh "$HERE/../2026-11-28-thin7/round2.sh" "$BIN" "merge-$TAG.fmi" "tworound-$TAG"
