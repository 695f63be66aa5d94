#!/bin/bash
# Same behaviour: fd and tokei runs, cargo's fat-LTO build against cargo fmerge's.
T=/root/.cache/fmerge-corpus/src/tokei-14.0.0
F=/root/.cache/fmerge-corpus/src/fd-find-10.4.2
pass=0; fail=0
check() { # name, command using $B
  local name=$1; shift
  a=$(B=/tmp/cf/fd-fat/release/fd; C=/tmp/cf/tokei-fat/release/tokei; eval "$@" 2>&1; echo "exit $?")
  b=$(B=/tmp/cf/fd-fmerge/release/fd; C=/tmp/cf/tokei-fmerge/release/tokei; eval "$@" 2>&1; echo "exit $?")
  if [ "$a" == "$b" ]; then pass=$((pass+1)); echo "same  $name ($(echo "$a" | wc -l) lines)"; else fail=$((fail+1)); echo "DIFF  $name"; fi
}
check "fd --version" '$B --version'
check "fd all files" '$B -j1 . $T | sort'
check "fd -e rs" '$B -j1 -e rs . $T | sort'
check "fd -H -I regex" '$B -j1 -H -I "^(mod|lib)\.rs$" $T | sort'
check "fd -g toml" '$B -j1 -g "*.toml" $T | sort'
check "fd --size +10k -t f" '$B -j1 --size +10k -t f . $T | sort'
check "fd -t d" '$B -j1 -t d . $T | sort'
check "fd bad regex" '$B "(" $T'
check "tokei --version" '$C --version'
check "tokei dir" '$C $F'
check "tokei --files" '$C --files $F'
check "tokei --sort code" '$C --sort code $F'
check "tokei -o json (lists sorted: tokei walks in parallel)" '$C -o json $F | python3 /tmp/cf/norm.py'
check "tokei -t Rust" '$C -t Rust $T'
check "tokei bad option" '$C --no-such-option'
echo "$pass passed, $fail failed"
