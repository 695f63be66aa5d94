#!/bin/sh
# Ninja 1.12.1's own test binary, ninja_test, as ThinLTO objects (clang++-22 -Os -g0 -flto=thin),
# one object per source file, following Ninja's CMakeLists.txt for Linux: the libninja sources
# (with subprocess-posix.cc), libninja-re2c's pre-generated depfile_parser.cc and lexer.cc, the
# ninja_test sources (src/ninja_test.cc has the tests' main()), and googletest 1.12.1's
# gtest-all.cc (GTest::gtest; no gtest_main). -DUSE_PPOLL=1 as CMake defines on Linux; C++14
# because googletest 1.12 needs it.
# Usage: ninja-build.sh OUTDIR SRCDIR
#   SRCDIR holds ninja-1.12.1/ and googletest-release-1.12.1/ (unpacked Debian orig tarballs).
# Writes OUTDIR/obj/*.o and OUTDIR/objs.txt (one object a line, in link order).
# FLTO (environment) replaces -flto=thin (e.g. FLTO=-emit-llvm for the corpus' plain bitcode
# files), OPTL replaces -Os (e.g. -Oz), OBJ names the object directory and its list OBJ.txt.
set -e
OUT=$(realpath "$1"); SRC=$(realpath "$2"); OBJ=${OBJ:-obj}; FLTO=${FLTO:--flto=thin}; OPTL=${OPTL:--Os}
N=$SRC/ninja-1.12.1/src; G=$SRC/googletest-release-1.12.1/googletest
mkdir -p "$OUT/$OBJ"
CXX="clang++-22 $OPTL -g0 -w -std=c++14 -pthread $FLTO -Wno-deprecated -DUSE_PPOLL=1"
cc() { o="$OUT/$OBJ/$(echo "$2" | tr / _).o"; [ -f "$o" ] || $CXX $1 -c "$3" -o "$o"; echo "$o" >> "$OUT/$OBJ.txt"; }
: > "$OUT/$OBJ.txt"
for f in build_log build deps_log clean clparser dyndep dyndep_parser debug_flags disk_interface \
  edit_distance eval_env graph graphviz json line_printer manifest_parser metrics missing_deps \
  parser state status string_piece_util util version subprocess-posix depfile_parser lexer; do
  cc "-I$N" "ninja/$f.cc" "$N/$f.cc"
done
for f in build_log_test build_test clean_test clparser_test depfile_parser_test deps_log_test \
  disk_interface_test dyndep_parser_test edit_distance_test graph_test json_test lexer_test \
  manifest_parser_test missing_deps_test ninja_test state_test string_piece_util_test \
  subprocess_test test util_test; do
  cc "-I$N -I$G/include" "ninja/$f.cc" "$N/$f.cc"
done
cc "-I$G/include -I$G" gtest/gtest-all.cc "$G/src/gtest-all.cc"
[ "$OBJ" = obj ] && cp "$OUT/obj.txt" "$OUT/objs.txt"
wc -l < "$OUT/$OBJ.txt"
