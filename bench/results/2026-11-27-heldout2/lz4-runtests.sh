#!/bin/bash
# usage: runtests.sh mode   (run in /work/heldout2/lz4)
m=$1; d=/work/heldout2/lz4/t.$m; cd $d/tests
O="-o lz4 -o datagen -o unlz4 -o lz4cat -o decompress-partial -o decompress-partial-usingDict"
for t in test-lz4-essentials test-lz4-opt-parser test-lz4-sparse test-lz4-skippable test-decompress-partial; do
  make $O $t < /dev/null > ../mk-$t.log 2>&1; echo "$t rc=$?" >> ../summary.txt
done
./fuzzer -s1234 -i3000 < /dev/null > ../fuzzer.log 2>&1; echo "fuzzer -s1234 -i3000 rc=$?" >> ../summary.txt
./fuzzer -s42 -i2000 -P90 < /dev/null > ../fuzzer2.log 2>&1; echo "fuzzer -s42 -i2000 -P90 rc=$?" >> ../summary.txt
./frametest -s1234 -i3000 < /dev/null > ../frametest.log 2>&1; echo "frametest -s1234 -i3000 rc=$?" >> ../summary.txt
./frametest -s7 -i2000 -P10 < /dev/null > ../frametest2.log 2>&1; echo "frametest -s7 -i2000 -P10 rc=$?" >> ../summary.txt
./fullbench --no-prompt -i1 COPYING < /dev/null > ../fullbench.log 2>&1; echo "fullbench rc=$?" >> ../summary.txt
# roundtrips on varied files
files="/work/heldout2/src/pcre2_10.42.orig.tar.gz /work/heldout2/src/pcre2-10.42/testdata/testoutput2 /work/heldout2/pcre2/pcre2test.base /work/heldout2/src/cJSON-1.7.15/cJSON.c /work/heldout2/lz4/rt-zeros /work/heldout2/lz4/rt-rand /work/heldout2/lz4/rt-empty /work/heldout2/lz4/rt-dg"
for f in $files; do
  for lvl in 1 4 9; do ./roundTripTest -$lvl $f < /dev/null >> ../roundtrip.log 2>&1; echo "roundTripTest -$lvl $(basename $f) rc=$?" >> ../summary.txt; done
  for opt in "-1" "-9" "-12" "--fast=3" "-B4" "-B5D" "-B7 --content-size" "-BX -9" "-l" "--no-frame-crc -6"; do
    ../programs/lz4 -c $opt $f > ../tmp.lz4 2>>../lz4cli.log; r1=$?
    md5=$(md5sum < ../tmp.lz4 | cut -c1-32)
    ../programs/lz4 -dc ../tmp.lz4 > ../tmp.out 2>>../lz4cli.log; r2=$?
    cmp -s $f ../tmp.out; r3=$?
    echo "lz4 $opt $(basename $f): c=$r1 d=$r2 cmp=$r3 md5=$md5" >> ../summary.txt
  done
  ../programs/lz4 -9 -c $f | ../programs/lz4 --list -v - >> ../summary.txt 2>&1 || true
done
../programs/lz4 -c -9 -D /work/heldout2/src/pcre2-10.42/testdata/testinput2 /work/heldout2/src/pcre2-10.42/testdata/testoutput2 > ../dict.lz4; echo "dict c rc=$? md5=$(md5sum < ../dict.lz4|cut -c1-32)" >> ../summary.txt
../programs/lz4 -dc -D /work/heldout2/src/pcre2-10.42/testdata/testinput2 ../dict.lz4 | cmp -s - /work/heldout2/src/pcre2-10.42/testdata/testoutput2; echo "dict d cmp=$?" >> ../summary.txt
./checkFrame -b4 -B65536 ../dict.lz4 >> ../summary.txt 2>&1; echo "checkFrame rc=$?" >> ../summary.txt
