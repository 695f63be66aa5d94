#!/bin/bash
# outline2.sh PROG: the plugin's two rounds with LLVM's machine outliner and global outlining
# data, in-process ThinLTO links with --icf=all.
set -e
prog=$1
W=/work/wt-thin3/build/thinlto/$prog
O=/tmp/thin3/outline/$prog; mkdir -p $O; cd $O
OBJS=$(python3 -c "
import json; m=json.load(open('/work/main/build/corpus/$prog/modules.json'))
print(' '.join('$W/obj/'+x[:-3]+'.o' for x in m['modules']))")
LIBS=$(python3 -c "
import json; m=json.load(open('/work/main/build/corpus/$prog/modules.json')); print(' '.join(m.get('libs',[])))")
P=/work/wt-thin3/target/release/libfmerge_plugin.so
F=/work/wt-thin3/target/release/fmerge
OUT="-Wl,-mllvm,-enable-machine-outliner"
link() { # name plugin-options(or -) extra...
  local name=$1 opts=$2; shift 2
  if [ "$opts" = - ]; then
    nice -n 19 clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all "$@" $OBJS -o $name $LIBS
  else
    FMERGE_PLUGIN_OPTIONS="$opts" nice -n 19 clang++-22 -Os -flto=thin -fuse-ld=lld -Wl,--icf=all \
      -Wl,--load-pass-plugin=$P "$@" $OBJS -o $name $LIBS
  fi
  local t=$(size -A $name | awk '$1==".text"{print $2}')
  local ok=FAILED; python3 /work/wt-thin3/bench/fmbench corpus --out /work/main/build/corpus smoke $prog --exe $O/$name >/dev/null 2>&1 && ok=ok
  echo "$prog $name .text $t smoke $ok"
}
clean() { find $W/obj \( -name "$1.lto.*.o" -o -name "*.o.[0-9].*.bc" \) -delete; }
[ -n "$SKIP_FIRST" ] || {
link outliner - $OUT
link outliner-2r - $OUT -Wl,-mllvm,-codegen-data-thinlto-two-rounds
link gmf-outliner-2r - $OUT -Wl,-mllvm,-enable-global-merge-func=true -Wl,-mllvm,-codegen-data-thinlto-two-rounds
rm -rf sums; mkdir sums
link round1 "-fmerge-summary-dir=$O/sums"
$F combine -q sums -o merge.fmi
link tworound "-fmerge-global-info=$O/merge.fmi"
link tworound-outliner "-fmerge-global-info=$O/merge.fmi" $OUT
link tworound-outliner-2r "-fmerge-global-info=$O/merge.fmi" $OUT -Wl,-mllvm,-codegen-data-thinlto-two-rounds
}
# Round 1 also writes LLVM's outlining data: the backends' objects keep it in an excluded
# section, so the link saves them (-save-temps) and llvm-cgdata merges them.
rm -rf sums-cg; mkdir sums-cg; clean cg1
link cg1 "-fmerge-summary-dir=$O/sums-cg" $OUT -Wl,-mllvm,-codegen-data-generate=true -Wl,-save-temps
llvm-cgdata-22 --merge $(find $W/obj -name "cg1.lto.*.o") -o cg1.cgdata
llvm-cgdata-22 --show cg1.cgdata
clean cg1; rm -f cg1.0.* cg1.index.* cg1.resolution.txt
$F combine -q sums-cg -o merge-cg.fmi
link permodule-cg "" $OUT -Wl,-mllvm,-codegen-data-use-path=$O/cg1.cgdata
link tworound-cg "-fmerge-global-info=$O/merge-cg.fmi" $OUT -Wl,-mllvm,-codegen-data-use-path=$O/cg1.cgdata
