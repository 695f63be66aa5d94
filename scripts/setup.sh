#!/usr/bin/env bash
# Makes sure LLVM 22 (from Debian's packages), clang-22 and lld-22 are installed, and Rust is
# available. Idempotent: does nothing when everything is already there.
set -euo pipefail

need_llvm=0
for tool in llvm-config-22 clang-22 clang++-22 opt-22 llc-22 llvm-link-22 llvm-size-22 ld.lld-22; do
  command -v "$tool" >/dev/null 2>&1 || need_llvm=1
done
if [ -n "$(command -v llvm-config-22 2>/dev/null)" ] && ! [ -e "$(llvm-config-22 --includedir)/llvm-c/Core.h" ]; then
  need_llvm=1
fi

# clang's profile runtime (libclang-rt-22-dev): the profile-guided tests build with
# -fprofile-generate, which links libclang_rt.profile.
if [ -n "$(command -v clang-22 2>/dev/null)" ] && \
   ! [ -e "$(clang-22 -print-runtime-dir 2>/dev/null)/libclang_rt.profile-x86_64.a" ] && \
   ! [ -e "$(clang-22 -print-runtime-dir 2>/dev/null)/libclang_rt.profile.a" ]; then
  need_llvm=1
fi

# valgrind: the test-suite test runs a merged program under memcheck.
need_valgrind=0
command -v valgrind >/dev/null 2>&1 || need_valgrind=1

# WebAssembly: wasi-libc, clang's wasm32 builtins and libc++ (C and C++ programs for wasm32-wasi),
# Node (runs them under node:wasi) and Binaryen's wasm-opt (crates/fmerge/tests/wasm.rs, the
# README's WebAssembly section, bench/fmbench's wasm study).
wasm_pkgs=""
[ -e /usr/lib/wasm32-wasi/libc.a ] || wasm_pkgs="$wasm_pkgs wasi-libc"
[ -e /usr/lib/llvm-22/lib/clang/22/lib/wasi/libclang_rt.builtins-wasm32.a ] || \
  wasm_pkgs="$wasm_pkgs libclang-rt-22-dev-wasm32"
[ -e /usr/lib/llvm-22/lib/wasm32-wasi/libc++.a ] || wasm_pkgs="$wasm_pkgs libc++-22-dev-wasm32 libc++abi-22-dev-wasm32"
command -v node >/dev/null 2>&1 || wasm_pkgs="$wasm_pkgs nodejs"
command -v wasm-opt >/dev/null 2>&1 || wasm_pkgs="$wasm_pkgs binaryen"

if [ "$need_llvm" = 1 ] || [ "$need_valgrind" = 1 ] || [ -n "$wasm_pkgs" ]; then
  pkgs=""
  [ "$need_llvm" = 1 ] && pkgs="llvm-22-dev clang-22 lld-22 llvm-22-tools libclang-rt-22-dev"
  [ "$need_valgrind" = 1 ] && pkgs="$pkgs valgrind"
  pkgs="$pkgs$wasm_pkgs"
  echo "setup: installing from Debian's packages:$pkgs"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root (or sudo) to install packages" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq $pkgs >/dev/null
fi

version=$(llvm-config-22 --version)
case "$version" in
  22.*) ;;
  *) echo "setup: llvm-config-22 reports $version, need 22.x" >&2; exit 1 ;;
esac

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust (https://rustup.rs) first" >&2
  exit 1
fi
echo "setup: LLVM $version, $(cargo --version)"
