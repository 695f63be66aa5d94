#!/bin/bash
m=$1; cd /work/heldout2/lz4/t.$m/tests; out=../vg-summary.txt; : > $out; mkdir -p ../vglogs
V="valgrind --error-exitcode=99 -q --leak-check=full"
n=0
run() { n=$((n+1)); $V --log-file=../vglogs/$n.log "$@" < /dev/null > ../vglogs/$n.out 2>&1; echo "$n rc=$? $(wc -c < ../vglogs/$n.log) :: $*" | sed "s#/work/heldout2/lz4/t.$m#T#g" >> $out; }
./datagen -g16KB > tmp-vg16K; ./datagen -g16KB -s2 > tmp-vg16K2; ./datagen -g7MB > tmp-vg7M
run ./datagen -g2M -s4
run ../programs/lz4 -9 -BD -f tmp-vg16K tmp-vg16K.lz4
run ../programs/lz4 --force --multiple tmp-vg16K tmp-vg16K2
run ../programs/lz4 -9 -B5D -f tmp-vg7M tmp-vg7M.lz4
run ../programs/lz4 -t tmp-vg7M.lz4
run ../programs/lz4 -d -f tmp-vg7M.lz4 tmp-vg7M.dec
run ../programs/lz4 -12 -f tmp-vg16K2 tmp-vg16K2.lz4
run ../programs/lz4 -B4D -f -vq tmp-vg7M tmp-vg7M.b4
run ../programs/lz4 -l -f tmp-vg7M tmp-vg7M.legacy
run ../programs/lz4 -d -f tmp-vg7M.legacy tmp-vg7M.ldec
run ../programs/lz4 --list -m -v tmp-vg16K.lz4 tmp-vg7M.lz4
run ../programs/lz4 -bi1 tmp-vg16K2
run ./fullbench -i1 tmp-vg16K2
run ./fuzzer -i64 -t1 -s1234
run ./frametest -i256 -s1234
run ./roundTripTest -9 tmp-vg16K
run ./decompress-partial
run ./decompress-partial-usingDict
cmp tmp-vg7M tmp-vg7M.dec && cmp tmp-vg7M tmp-vg7M.ldec && echo "roundtrip ok" >> $out
md5sum tmp-vg7M.lz4 tmp-vg7M.b4 tmp-vg7M.legacy tmp-vg16K2.lz4 tmp-vg16K.lz4 >> $out
rm -f tmp-vg*
