#!/usr/bin/env bash
# Seeds fuzz/corpus/pipeline with real bitcode: the test programs, the demo and two generated
# modules. Run from the repository root.
set -euo pipefail
out=fuzz/corpus/pipeline
mkdir -p "$out"
for f in crates/fmerge/tests/programs/*.c crates/fmerge/tests/programs/*.cpp examples/demo/*.c examples/demo/*.cpp; do
  cc=clang-22; [[ $f == *.cpp ]] && cc=clang++-22
  "$cc" -Os -emit-llvm -c "$f" -o "$out/$(basename "$f").bc"
done
for seed in 1 2; do
  cargo run -q --release -p fmerge-irgen -- gen --seed $seed --families 3 > "$out/gen$seed.ll"
  llvm-as-22 "$out/gen$seed.ll" -o "$out/gen$seed.bc" && rm "$out/gen$seed.ll"
done
ls "$out" | wc -l
