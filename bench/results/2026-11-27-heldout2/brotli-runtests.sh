#!/bin/bash
m=$1; cd /work/heldout2/brotli/t.$m
bash tests/roundtrip_test.sh < /dev/null > roundtrip.log 2>&1; echo "roundtrip_test.sh rc=$?" > summary.txt
bash tests/compatibility_test.sh < /dev/null > compat.log 2>&1; echo "compatibility_test.sh rc=$?" >> summary.txt
for f in /work/heldout2/src/pcre2-10.42/testdata/testoutput2 /work/heldout2/src/pcre2-10.42/testdata/testinput4 c/enc/encode.c c/common/dictionary.c /work/heldout2/src/cJSON-1.7.15/tests/inputs/test5 /work/heldout2/pcre2/pcre2grep.base /work/heldout2/src/cjson_1.7.15.orig.tar.gz /work/heldout2/lz4/rt-zeros /work/heldout2/lz4/rt-empty tests/testdata/ukkonooa; do
  for q in 0 1 2 4 5 6 9 10 11; do
    for w in "" "-w 10" "-w 24" "--large_window=26"; do
      [ $q -ge 10 ] && [ "$w" = "--large_window=26" ] && continue
      bin/brotli -c -q $q $w $f > bin/tmp/c.br 2>>err.log; r1=$?
      bin/brotli -dc bin/tmp/c.br > bin/tmp/d.out 2>>err.log; r2=$?
      cmp -s $f bin/tmp/d.out; r3=$?
      echo "q$q $w $(basename $f): c=$r1 d=$r2 cmp=$r3 md5=$(md5sum < bin/tmp/c.br | cut -c1-32)" >> summary.txt
    done
  done
done
