#!/bin/sh
# LevelDB 1.22's own tests as ONE ThinLTO test binary (~70 modules: the library, Snappy, the
# test harness and 27 *_test.cc files), a proxy for a gtest-style C++ test binary.
# Each test file's main() is renamed away (-Dmain=...); main.cc runs every registered test.
# The harness's TEST macro names its classes by test name only (`_Test_Empty`), which
# collides across files: a patched copy of util/testharness.h names them base_name.
# env_posix_test is left out: its main() lowers the process's file limits for all tests.
# Usage: lvtests-build.sh OUTDIR   (objects in OUTDIR/obj, the tests' main in OUTDIR/main.cc)
set -e
OUT=$(realpath "$1"); mkdir -p "$OUT/obj" "$OUT/gen/util"
SRC=/root/.cache/fmerge-corpus/src/leveldb-sys-2.0.9/deps
L=$SRC/leveldb-1.22; S=$SRC/snappy-1.1.7; G=/work/main/build/corpus/leveldb/gen
python3 - "$L/util/testharness.h" "$OUT/gen/util/testharness.h" <<'PY'
import sys, re
t = open(sys.argv[1]).read()
t = t.replace("TCONCAT(_Test_, name)", "TCONCAT(_Test_, TCONCAT(base, TCONCAT(_, name)))")
t = t.replace("TCONCAT(_Test_ignored_, name)", "TCONCAT(_Test_ignored_, TCONCAT(base, TCONCAT(_, name)))")
open(sys.argv[2], "w").write(t)
PY
CXX="clang++-22 -Os -g0 -w -std=c++11 -pthread -flto=thin"
LV="-DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_HAS_PORT_CONFIG_H=1 -I$OUT/gen -I$G -I$L -I$L/include -I$G/snappy -I$S"
SN="-DHAVE_CONFIG_H -I$G/snappy -I$S"
cc() { o="$OUT/obj/$(echo "$2" | tr / _).o"; [ -f "$o" ] || $CXX $1 -c "$3" -o "$o"; echo "$o" >> "$OUT/objs.txt"; }
: > "$OUT/objs.txt"
for f in snappy.cc snappy-sinksource.cc snappy-stubs-internal.cc snappy-c.cc; do cc "$SN" "sn/$f" "$S/$f"; done
for f in db/builder.cc db/c.cc db/db_impl.cc db/db_iter.cc db/dbformat.cc db/dumpfile.cc \
  db/filename.cc db/log_reader.cc db/log_writer.cc db/memtable.cc db/repair.cc \
  db/table_cache.cc db/version_edit.cc db/version_set.cc db/write_batch.cc \
  table/block_builder.cc table/block.cc table/filter_block.cc table/format.cc \
  table/iterator.cc table/merger.cc table/table_builder.cc table/table.cc \
  table/two_level_iterator.cc util/arena.cc util/bloom.cc util/cache.cc util/coding.cc \
  util/comparator.cc util/crc32c.cc util/env.cc util/filter_policy.cc util/hash.cc \
  util/logging.cc util/options.cc util/status.cc util/env_posix.cc helpers/memenv/memenv.cc \
  util/testharness.cc util/testutil.cc; do cc "$LV" "$f" "$L/$f"; done
for f in $(cd $L && ls db/*_test.cc table/*_test.cc util/*_test.cc issues/*_test.cc helpers/memenv/*_test.cc \
    | grep -v -e env_windows -e env_posix_test); do
  n=$(basename "$f" .cc); cc "$LV -Dmain=${n}_main" "$f" "$L/$f"
done
cat > "$OUT/main.cc" <<'CC'
namespace leveldb { namespace test { int RunAllTests(); } }
int main() { return leveldb::test::RunAllTests(); }
CC
cc "$LV" main.cc "$OUT/main.cc"
wc -l < "$OUT/objs.txt"
