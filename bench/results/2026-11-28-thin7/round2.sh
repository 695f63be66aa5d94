#!/bin/sh
# Round 2 only (in-process ThinLTO, --icf=all, LDEXTRA added), with the plugin in BIN and the
# merge information FMI; prints .text, runs the 394 tests in a fresh directory under /tmp, and
# counts round 2's thunks. Usage (in the build directory of ninja-build.sh):
#   round2.sh BIN FMI NAME   (EXTRA: more plugin options, e.g. -fmerge-estimate=false)
set -e
BIN=$(realpath "$1"); FMI=$(realpath "$2"); NAME=$3
FMERGE_PLUGIN_OPTIONS="-fmerge-verbose -fmerge-global-info=$FMI $EXTRA" clang++-22 -Os -flto=thin \
  -fuse-ld=lld -Wl,--icf=all $LDEXTRA -Wl,--load-pass-plugin="$BIN/libfmerge_plugin.so" \
  $(cat objs.txt) -lpthread -o "$NAME" 2> "$NAME.log"
echo "$NAME: .text $(llvm-size-22 -A "$NAME" | awk '$1==".text"{print $2}')"
d=$(mktemp -d /tmp/ninja-tests.XXXXXX)
(cd "$d" && "$OLDPWD/$NAME" > "$OLDPWD/$NAME.tests" 2>&1) || echo "$NAME: TESTS FAILED"
echo "$NAME: $(grep -E '^\[  (PASSED|FAILED)' "$NAME.tests" | tr '\n' ' ')"
rm -rf "$d"
awk -F'applied: ' '/applied/{split($2,a," "); s+=a[1]; split($2,b,", "); split(b[2],c," "); r+=c[1]} END{print "round 2: " s " thunks, " r " left out for run-time cost"}' "$NAME.log"
