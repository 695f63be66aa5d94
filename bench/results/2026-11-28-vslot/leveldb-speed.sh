#!/bin/bash
# LevelDB (corpus module, merged by corpus.sh) before and after this branch: compiled with
# llc-22 -O2, linked, run on the corpus' workload (drivers/leveldb_host.cc, a fresh database
# under /tmp) under callgrind; prints executed instructions and whether the output matches the
# corpus' expected output. Usage: leveldb-speed.sh CORPUS_OUTDIR EXPECTED_OUT
set -e
O=$(realpath "$1"); EXP=$(realpath "$2")
# The expected file holds "=== stdout", the output, then "=== command 0 stderr" and more.
awk '/^=== command 0 stderr/{exit} NR>1' "$EXP" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$O/leveldb.expected"
for v in before after; do
  llc-22 -O2 -filetype=obj "$O/leveldb.$v.bc" -o "$O/leveldb.$v.o"
  clang++-22 -no-pie "$O/leveldb.$v.o" -lpthread -o "$O/leveldb.$v.bin"
  d=$(mktemp -d /tmp/leveldb-run.XXXXXX)
  valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" "$O/leveldb.$v.bin" "$d/db" > "$O/leveldb.$v.out" 2> "$O/leveldb.$v.cg"
  same=$(diff -q <(cat "$O/leveldb.$v.out") "$O/leveldb.expected" >/dev/null && echo "output as expected" || echo "OUTPUT DIFFERS")
  echo "leveldb $v: $(grep -E 'Collected' "$O/leveldb.$v.cg" | sed 's/.*Collected : //') instructions, $same"
  rm -rf "$d"
done
