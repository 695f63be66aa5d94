#!/bin/bash
# LevelDB before/after (binaries from leveldb-speed.sh in OUTDIR), two interleaved callgrind
# runs each with --separate-threads: total and main-thread instructions. Usage: leveldb-threads.sh OUTDIR
cd "${1:-/tmp/vslot-corpus}"
for r in 1 2; do for v in before after; do
  d=$(mktemp -d /tmp/leveldb-run.XXXXXX)
  nice -n 5 valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=$d/cg.out ./leveldb.$v.bin $d/db > /dev/null 2> $d/log
  t=$(grep Collected $d/log | sed 's/.*Collected : //')
  m=$(grep -h '^summary:' $d/cg.out-01 | awk '{print $2}')
  echo "$v run$r: total $t main-thread $m threads $(ls $d/cg.out-* | wc -l)"
  rm -rf $d
done; done
