#!/bin/bash
# build.sh PROG NAME "PLUGIN OPTIONS": relinks PROG (fd or tokei) with the plugin given OPTIONS; copies the binary to /tmp/thin3/rs/PROG-NAME
set -e
prog=$1; name=$2; opts=$3
case $prog in fd) src=~/.cache/fmerge-corpus/src/fd-find-10.4.2; bin=fd;; tokei) src=~/.cache/fmerge-corpus/src/tokei-14.0.0; bin=tokei;; esac
export CARGO_HOME=~/.cache/fmerge-corpus/cargo-home CARGO_TARGET_DIR=/tmp/thin3/rs/target-$prog
export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_OPT_LEVEL=s
export CARGO_PROFILE_RELEASE_STRIP=false CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_INCREMENTAL=false
export RUSTFLAGS="-Clinker-plugin-lto -Clinker=clang-22 -Clink-arg=-fuse-ld=lld -Clink-arg=-Wl,--icf=all -Clink-arg=-Wl,--load-pass-plugin=/tmp/thin3/rs/libfmerge_plugin.so"
export FMERGE_PLUGIN_OPTIONS="$opts"
rm -f $CARGO_TARGET_DIR/release/$bin $CARGO_TARGET_DIR/release/deps/$bin-*
cd $src
start=$(date +%s)
nice -n 19 cargo build --release --locked --offline -j2 --bin $bin 2>&1 | tail -2
echo "$prog $name: $(( $(date +%s) - start )) s"
cp $CARGO_TARGET_DIR/release/$bin /tmp/thin3/rs/$prog-$name
size -A /tmp/thin3/rs/$prog-$name | awk -v n="$prog-$name" '$1==".text"{print n, ".text", $2}'
