#!/bin/bash
# cost.sh BEFORE AFTER ROUNDS: opt -Oz, then fmerge opt --whole-program with the BEFORE and AFTER
# binaries, alternating, on each module; one line per run: module, config, round, wall s, peak KB,
# load average at the start of the run.
before=$1; after=$2; rounds=${3:-2}
for p in ${PROGS:-leveldb zstd fd tokei}; do
  bc=/work/main/build/corpus/$p/$p.bc
  for r in $(seq 1 $rounds); do
    for cfg in opt before after; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      case $cfg in
        opt) cmd=(opt-22 -passes='default<Oz>' $bc -o /tmp/cost-$p.bc) ;;
        before) cmd=($before opt --whole-program -q $bc -o /tmp/cost-$p.bc) ;;
        after) cmd=($after opt --whole-program -q $bc -o /tmp/cost-$p.bc) ;;
      esac
      /usr/bin/time -o /tmp/cost-time -f "%e %M" "${cmd[@]}" || echo "$p $cfg FAILED"
      echo "$p $cfg $r $(cat /tmp/cost-time) load $load"
    done
  done
done
