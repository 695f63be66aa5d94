#!/usr/bin/env bash
# The quick-start demo: compiles the bundled example program (examples/demo: C handlers that
# differ in constants, C++ templates instantiated for several types) to one LLVM 22 module,
# shrinks it with fmerge and with LLVM's own MergeFunctions, runs all three programs and prints
# a before/after table. Run through `make demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fmerge="$root/target/release/fmerge"
out="$root/build/demo"
rm -rf "$out" && mkdir -p "$out"
cd "$out"

for src in "$root"/examples/demo/*.c; do
  clang-22 -Os -g0 -emit-llvm -c "$src" -o "$(basename "$src" .c).bc"
done
for src in "$root"/examples/demo/*.cpp; do
  clang++-22 -Os -g0 -emit-llvm -c "$src" -o "$(basename "$src" .cpp).bc"
done
llvm-link-22 ./*.bc -o demo.bc

opt-22 -passes=mergefunc demo.bc -o demo.mergefunc.bc
"$fmerge" opt demo.bc --whole-program -o demo.fmerge.bc --report demo.fmerge.json
opt-22 -passes=verify -disable-output demo.fmerge.bc
"$fmerge" opt demo.bc --whole-program --no-estimate -o demo.every-byte.bc -q
opt-22 -passes=verify -disable-output demo.every-byte.bc

row() { # label module reference-output
  local label=$1 bc=$2
  clang++-22 -O2 "$bc" -o "${bc%.bc}.exe"
  "./${bc%.bc}.exe" > "${bc%.bc}.out"
  local text result
  text=$("$fmerge" size "$bc" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])')
  if [ "$bc" = demo.bc ]; then result="reference"
  elif cmp -s "${bc%.bc}.out" demo.out; then result="same output as the input"
  else result="OUTPUT DIFFERS"; fi
  printf '%-28s %12s %9s   %s\n' "$label" "$text" "$(pct "$text")" "$result"
}
base=$("$fmerge" size demo.bc --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["text_bytes"])')
pct() { python3 -c "b=$base; a=$1; print('-' if a==b else f'{100*(a-b)/b:+.1f}%')"; }

echo
printf '%-28s %12s %9s   %s\n' "x86-64, clang-22 -Os" ".text bytes" "change" "program run"
row "input" demo.bc
row "opt -passes=mergefunc" demo.mergefunc.bc
row "fmerge opt" demo.fmerge.bc
row "fmerge opt --no-estimate" demo.every-byte.bc
echo
echo "outputs and modules are in $out; fmerge's report: $out/demo.fmerge.json"
echo "(without a profile fmerge leaves out merges that would slow down likely hot code,"
echo " such as these handlers called in a loop; --no-estimate merges them too)"
if ! cmp -s demo.out demo.fmerge.out || ! cmp -s demo.out demo.every-byte.out; then
  echo "demo: the merged program's output differs from the original" >&2
  exit 1
fi
