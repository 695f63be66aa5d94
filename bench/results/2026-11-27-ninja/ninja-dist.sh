#!/bin/sh
# Distributed ThinLTO of Ninja's test binary (ninja-build.sh's objects): an index-only link,
# one backend compile per module with the plugin applying MERGE.fmi (round 2), then an
# ordinary link with --icf=all. Usage: ninja-dist.sh OBJDIR_LIST PLUGIN MERGE.fmi OUTDIR NAME
set -e
LIST=$(realpath "$1"); PLUGIN=$(realpath "$2"); INFO=$(realpath "$3"); OUT=$(realpath "$4"); NAME=$5
mkdir -p "$OUT/$NAME.obj"; cd "$OUT"
OBJS=$(cat "$LIST")
clang++-22 -flto=thin -fuse-ld=lld -Wl,--thinlto-index-only -Wl,--thinlto-prefix-replace="$(dirname "$(head -1 "$LIST")")/;$OUT/$NAME.obj/" $OBJS -lpthread -o "$NAME.index"
NATIVE=""
for o in $OBJS; do
  b=$OUT/$NAME.obj/$(basename "$o")
  [ -f "$b.thinlto.bc" ] || { echo "no index for $o"; exit 1; }
  clang++-22 -Os -ffunction-sections -fdata-sections -x ir "$o" -fthinlto-index="$b.thinlto.bc" \
    -c -o "$b.native.o" -Xclang -load -Xclang "$PLUGIN" -mllvm -fmerge-global-info="$INFO"
  NATIVE="$NATIVE $b.native.o"
done
clang++-22 -fuse-ld=lld -Wl,--icf=all $NATIVE -lpthread -o "$NAME"
echo "$NAME: .text $(llvm-size-22 -A "$NAME" | awk '$1==".text"{print $2}')"
