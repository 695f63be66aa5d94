#!/usr/bin/env bash
# Stale merge information: merge info computed from zstd 1.5.6 (zstd-sys 2.0.13) applied to the
# zstd 1.5.7 modules of the corpus, against fresh info from 1.5.7 itself. Both executables run
# the zstd smoke workload. Usage: bench/global/stale.sh (corpus built with --separate zstd).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
F=$root/target/release/fmerge
W=$root/build/global-stale; mkdir -p "$W"; cd "$W"
old=zstd-sys-2.0.13+zstd.1.5.6
if [ ! -d "$old" ]; then
  curl -sSfL -o old.crate "https://static.crates.io/crates/zstd-sys/$old.crate"
  echo "38ff0f21cfee8f97  (first 16 hex digits of the index checksum)"
  sha256sum old.crate
  tar xzf old.crate
fi
L=$PWD/$old/zstd/lib
FLAGS=(-Os -g0 -w -I"$L" -I"$L/common" -I"$L/legacy" -DZSTD_LIB_DEPRECATED=0 -DXXH_PRIVATE_API
       -DZSTDLIB_VISIBILITY= -DZDICTLIB_VISIBILITY= -DZSTDERRORLIB_VISIBILITY= -DZSTD_LEGACY_SUPPORT=1
       -DZSTD_DISABLE_ASM -emit-llvm -c)
rm -rf oldbc && mkdir oldbc
for c in $(cd "$L" && find common compress decompress dictBuilder legacy -name '*.c' | sort); do
  mkdir -p "oldbc/$(dirname "$c")"
  clang-22 "${FLAGS[@]}" "$L/$c" -o "oldbc/$c.bc"
  "$F" opt "oldbc/$c.bc" -o "oldbc/$c.opt.bc" -q --no-measure
  "$F" summarize "oldbc/$c.opt.bc" -o "oldbc/$c.fms"
done
"$F" combine $(find oldbc -name '*.fms' | sort) -o stale.fmi
P=$root/build/corpus/zstd
field() { python3 -c "import json; v=json.load(open('$P/modules.json')).get('$1', []); print(' '.join(v) if isinstance(v, list) else v)"; }
D=$(field dir); MODS=$(field modules); LIBS=$(field libs)
for m in $MODS; do
  mkdir -p "new/$(dirname "$m")"
  "$F" opt "$P/$D/$m" -o "new/$m.opt.bc" -q --no-measure
  "$F" summarize "new/$m.opt.bc" -o "new/$m.fms"
done
"$F" combine $(for m in $MODS; do echo "new/$m.fms"; done) -o fresh.fmi
for info in stale fresh; do
  for m in $MODS; do "$F" apply "new/$m.opt.bc" --info $info.fmi --emit obj -o "new/$m.$info.o"; done
  # shellcheck disable=SC2046,SC2086
  clang++-22 -fuse-ld=lld -Wl,--icf=all $(for m in $MODS; do echo "new/$m.$info.o"; done) -o "zstd.$info" $LIBS
  text=$(llvm-size-22 -A "zstd.$info" | awk '$1==".text"{print $2}')
  smoke=$(python3 "$root/bench/corpus/corpus.py" smoke zstd --exe "$W/zstd.$info" 2>&1 | tail -1)
  echo "$info info: .text $text, $smoke"
done
