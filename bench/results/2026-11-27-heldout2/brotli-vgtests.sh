#!/bin/bash
m=$1; cd /work/heldout2/brotli/t.$m; out=vg-summary.txt; : > $out; mkdir -p vglogs
V="valgrind --error-exitcode=99 -q --leak-check=full"
n=0
for f in /work/heldout2/src/pcre2-10.42/testdata/testinput4 c/enc/encode.c tests/testdata/ukkonooa /work/heldout2/lz4/rt-empty; do
 for q in 0 1 5 9 11; do
  n=$((n+1)); $V --log-file=vglogs/$n.log bin/brotli -c -q $q $f > bin/tmp/vg.br 2>vglogs/$n.err; echo "$n c q$q $(basename $f) rc=$? log=$(wc -c < vglogs/$n.log) md5=$(md5sum < bin/tmp/vg.br | cut -c1-32)" >> $out
  n=$((n+1)); $V --log-file=vglogs/$n.log bin/brotli -dc bin/tmp/vg.br > bin/tmp/vg.out 2>vglogs/$n.err; echo "$n d q$q $(basename $f) rc=$? log=$(wc -c < vglogs/$n.log) cmp=$(cmp -s $f bin/tmp/vg.out; echo $?)" >> $out
 done
done
for f in tests/testdata/*.compressed*; do n=$((n+1)); $V --log-file=vglogs/$n.log bin/brotli -dc $f > bin/tmp/vg.out 2>vglogs/$n.err; echo "$n d $(basename $f) rc=$? log=$(wc -c < vglogs/$n.log) md5=$(md5sum < bin/tmp/vg.out | cut -c1-32)" >> $out; done
