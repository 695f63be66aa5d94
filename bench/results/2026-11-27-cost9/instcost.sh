#!/bin/bash
# instcost.sh PLUGIN PROG...: retired user-space instructions (perf stat) of each corpus program's
# full-LTO link without and with the plugin (link commands as fmbench linkcost makes them).
P=$(realpath "$1"); shift
REPO=$(git rev-parse --show-toplevel)
W=$(mktemp -d); cd "$W"; touch FMBENCH_MODULES.o
for prog in "$@"; do
  man=$REPO/build/corpus/$prog/modules.json
  M=$(python3 -c "
import json;m=json.load(open('$man'));print(' '.join('$REPO/build/corpus/$prog/'+m['dir']+'/'+x for x in m['modules']))")
  libs=$(python3 -c "
import json;m=json.load(open('$man'));print(' '.join(m.get('libs',[])))")
  drv=clang-22; [ $prog = leveldb ] && drv=clang++-22
  cmd=$($drv -### -Os -flto -fuse-ld=lld --ld-path=ld.lld-22 FMBENCH_MODULES.o -o $W/ic-$prog.exe $libs 2>&1 | tail -1 | sed "s|\"FMBENCH_MODULES.o\"|$M|")
  for cfg in none plugin; do
    extra=""; [ $cfg = plugin ] && extra="--load-pass-plugin=$P"
    perf stat -e instructions:u,task-clock -x, -o $W/ic.$prog.$cfg sh -c "$cmd $extra" || echo "$prog $cfg FAILED"
    n=$(grep instructions $W/ic.$prog.$cfg | cut -d, -f1); t=$(grep task-clock $W/ic.$prog.$cfg | cut -d, -f1)
    eval "n_$cfg=$n; t_$cfg=$t"
  done
  echo "$prog none $n_none plugin $n_plugin +$(python3 -c "print(f'{($n_plugin/$n_none-1)*100:.1f}%')") cpu-ms $t_none $t_plugin"
done
