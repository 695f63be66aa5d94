#!/usr/bin/env bash
# What the AArch64 half of the benchmark needs besides LLVM 22 (scripts/setup.sh):
# Debian's cross C/C++ headers, libraries and binutils (clang-22 --target=aarch64-linux-gnu
# compiles and links with them), qemu-user to run the AArch64 smoke workloads, and Rust's
# aarch64-unknown-linux-gnu standard library for fd and tokei. Also what the embedded and wasm
# studies need: picolibc's headers for Cortex-M and RISC-V, the armhf C library (Thumb-2 Linux
# builds under qemu-arm) and npm (Binaryen's wasm-opt from npm's `binaryen`). Idempotent.
set -euo pipefail

pkgs=(libc6-dev-arm64-cross gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user
      picolibc-arm-none-eabi picolibc-riscv64-unknown-elf gcc-arm-linux-gnueabihf)
missing=()
# Debian's npm only where no npm came with Node (a Node from elsewhere brings its own).
command -v npm >/dev/null 2>&1 || missing+=(npm)
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bench-setup: installing ${missing[*]} from Debian's packages"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "bench-setup: need root (or sudo) to install packages" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

triple=aarch64-unknown-linux-gnu
libdir=$(rustc --print target-libdir --target "$triple" 2>/dev/null || true)
if [ -z "$libdir" ] || ! ls "$libdir"/libstd-*.rlib >/dev/null 2>&1; then
  if command -v rustup >/dev/null 2>&1 && rustup target add "$triple"; then
    :
  else
    echo "bench-setup: WARNING: Rust's $triple standard library is not available;" \
         "fd and tokei will be x86-64 only (their AArch64 rows will say why)" >&2
  fi
fi
echo "bench-setup: cross toolchain for aarch64-linux-gnu, $(qemu-aarch64 --version | head -1)"
