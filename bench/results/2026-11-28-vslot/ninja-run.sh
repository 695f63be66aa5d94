#!/bin/sh
# Compiles a merged Ninja test module as llc-22 does (the size ruler's settings), links it and
# runs its tests in an empty directory under /tmp. Usage: ninja-run.sh MODULE.bc
set -e
M=$(realpath "$1"); B=${M%.bc}
llc-22 -O2 -filetype=obj "$M" -o "$B.o"
clang++-22 -no-pie "$B.o" -lpthread -o "$B.bin"
d=$(mktemp -d /tmp/ninja-tests.XXXXXX)
(cd "$d" && "$B.bin" > "$B.tests" 2>&1) || echo "$B.bin: TESTS FAILED"
echo "$B.bin: $(grep -E '^\[  (PASSED|FAILED)' "$B.tests" | tr '\n' ' ')"
rm -rf "$d"
