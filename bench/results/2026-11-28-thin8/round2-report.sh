#!/bin/sh
# Round 2 (or the per-module link) of the LevelDB test binary again, with per-module JSON reports.
# Usage: round2-report.sh OUTDIR BINDIR NAME FMI|- [extra plugin options...]
#   FMI "-": per-module plugin link (no global info). LDEXTRA as in lvtests-links.sh.
set -e
OUT=$(realpath "$1"); BIN=$(realpath "$2"); NAME=$3; FMI=$4; shift 4
cd "$OUT"; OBJS=$(cat objs.txt)
rm -rf rep-$NAME; mkdir rep-$NAME
G=""; [ "$FMI" = "-" ] || G="-fmerge-global-info=$OUT/$FMI"
FMERGE_PLUGIN_OPTIONS="-fmerge-verbose $G -fmerge-report=$OUT/rep-$NAME/{}.json $*" \
  clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all $LDEXTRA \
  -Wl,--load-pass-plugin="$BIN/libfmerge_plugin.so" $OBJS -lpthread -o "$NAME" 2> "$NAME.log"
echo "$NAME: .text $(llvm-size-22 -A "$NAME" | awk '$1==".text"{print $2}')"
