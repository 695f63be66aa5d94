#!/bin/sh
# Links Ninja's test binary (ninja-build.sh OUTDIR SRCDIR) in the ways `fmbench thinlto` does,
# each with --icf=all, prints `.text`, and runs each fmerge-linked binary's tests (in a fresh
# directory under /tmp; FILTER, if set, is passed as --gtest_filter).
# Adapted from ../2026-11-27-thin4/lvtests-links.sh. Usage: ninja-links.sh OUTDIR FMERGE_BIN_DIR [TAG]
#   thinlto    plain ThinLTO
#   permodule  the plugin in every backend (default options)
#   tworound   round 1 (-fmerge-summary-dir), fmerge combine, round 2 (-fmerge-global-info)
#   gmf        LLVM 22 GlobalMergeFunc with two codegen rounds
# EXTRA (environment) is added to every FMERGE_PLUGIN_OPTIONS (e.g. -fmerge-estimate=false),
# LDEXTRA to every link's flags (e.g. -Wl,--gc-sections).
set -e
OUT=$(realpath "$1"); BIN=$(realpath "$2"); TAG=${3:-}
PLUGIN=$BIN/libfmerge_plugin.so
cd "$OUT"
OBJS=$(cat objs.txt)
link() { # name, plugin options (or "-" for no plugin), extra link flags...
  n=$1; env=$2; shift 2
  if [ "$env" = "-" ]; then
    clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all $LDEXTRA "$@" $OBJS -lpthread -o "$n"
  else
    FMERGE_PLUGIN_OPTIONS="$env $EXTRA" clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all $LDEXTRA \
      -Wl,--load-pass-plugin="$PLUGIN" "$@" $OBJS -lpthread -o "$n"
  fi
  echo "$n: .text $(llvm-size-22 -A "$n" | awk '$1==".text"{print $2}')"
}
runtests() { # binary: prints gtest's last line
  d=$(mktemp -d /tmp/ninja-tests.XXXXXX)
  (cd "$d" && "$OUT/$1" ${FILTER:+--gtest_filter=$FILTER} > "$OUT/$1.tests" 2>&1) || echo "$1: TESTS FAILED"
  echo "$1: $(grep -E '^\[  (PASSED|FAILED)' "$OUT/$1.tests" | tr '\n' ' ')"
  rm -rf "$d"
}
[ -f thinlto$TAG-icf ] || link thinlto$TAG-icf -
[ -f gmf$TAG-icf ] || { link gmf$TAG-icf - -Wl,-mllvm,-enable-global-merge-func=true -Wl,-mllvm,-codegen-data-thinlto-two-rounds; runtests gmf$TAG-icf; }
link permodule$TAG-icf ""
runtests permodule$TAG-icf
rm -rf sums$TAG && mkdir sums$TAG
link round1$TAG-icf "-fmerge-summary-dir=$OUT/sums$TAG"
"$BIN/fmerge" combine sums$TAG -o merge$TAG.fmi > combine$TAG.txt 2>&1; tail -3 combine$TAG.txt
link tworound$TAG-icf "-fmerge-verbose -fmerge-global-info=$OUT/merge$TAG.fmi" 2> tworound$TAG.log
runtests tworound$TAG-icf
grep -c "became thunks" tworound$TAG.log || true
awk -F'applied: ' '/applied/{split($2,a," "); s+=a[1]; split($2,b,", "); split(b[2],c," "); r+=c[1]} END{print "round 2: " s " thunks, " r " left out for run-time cost"}' tworound$TAG.log
