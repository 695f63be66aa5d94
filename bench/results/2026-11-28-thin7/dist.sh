#!/bin/sh
# Distributed ThinLTO of Ninja's test binary (../2026-11-27-ninja/ninja-build.sh's objects): an
# index-only link, one `clang++-22 -fthinlto-index` backend compile per module (the plugin loaded
# with -Xclang -load when PLUGIN is not "-", given the -mllvm options in OPTS), then an ordinary
# link with --icf=all (and LDEXTRA). Prints `.text`.
# Usage: dist.sh OBJLIST PLUGIN|- OUTDIR NAME [OPTS...]
#   BEXTRA (environment): extra backend flags (default -ffunction-sections -fdata-sections,
#   what lld gives its in-process backends).
set -e
LIST=$(realpath "$1"); PLUGIN=$2; OUT=$(realpath "$3"); NAME=$4; shift 4
[ "$PLUGIN" = - ] || PLUGIN=$(realpath "$PLUGIN")
BEXTRA=${BEXTRA--ffunction-sections -fdata-sections}
mkdir -p "$OUT/$NAME.obj"; cd "$OUT"
OBJS=$(cat "$LIST")
clang++-22 -flto=thin -fuse-ld=lld -Wl,--thinlto-index-only \
  -Wl,--thinlto-prefix-replace="$(dirname "$(head -1 "$LIST")")/;$OUT/$NAME.obj/" $OBJS -lpthread -o "$NAME.index"
NATIVE=""
for o in $OBJS; do
  b=$OUT/$NAME.obj/$(basename "$o")
  [ -f "$b.thinlto.bc" ] || { echo "no index for $o"; exit 1; }
  PL=""; MO=""
  if [ "$PLUGIN" != - ]; then
    PL="-Xclang -load -Xclang $PLUGIN"
    for a in "$@"; do MO="$MO -mllvm $a"; done
  fi
  clang++-22 -Os $BEXTRA -x ir "$o" -fthinlto-index="$b.thinlto.bc" -c -o "$b.native.o" $PL $MO
  NATIVE="$NATIVE $b.native.o"
done
clang++-22 -fuse-ld=lld -Wl,--icf=all $LDEXTRA $NATIVE -lpthread -o "$NAME"
echo "$NAME: .text $(llvm-size-22 -A "$NAME" | awk '$1==".text"{print $2}')"
