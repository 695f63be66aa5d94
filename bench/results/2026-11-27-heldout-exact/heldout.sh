#!/bin/bash
# heldout.sh OLD NEW MODULE...: .text bytes (fmerge size: the whole module compiled as llc-22
# does, x86-64) of each whole-program module as read, and after `fmerge opt --whole-program`
# by default and with `--profit exact`, with the OLD fmerge (built at the commit issue 33 was
# filed against: git worktree add /work/wt-old b7c302a; cargo build --release -p fmerge) and
# the NEW one. One line per module: name input old-default old-exact new-default new-exact.
old=$1; new=$2; shift 2
size() { "$new" size "$1" | awk '/.text bytes/{print $3}'; }
for m in "$@"; do
  "$old" opt --whole-program -q "$m" -o /tmp/heldout-od.bc
  "$old" opt --whole-program -q --profit exact "$m" -o /tmp/heldout-oe.bc
  "$new" opt --whole-program -q "$m" -o /tmp/heldout-nd.bc
  "$new" opt --whole-program -q --profit exact "$m" -o /tmp/heldout-ne.bc
  echo "$(basename "$m" .bc) $(size "$m") $(size /tmp/heldout-od.bc) $(size /tmp/heldout-oe.bc) $(size /tmp/heldout-nd.bc) $(size /tmp/heldout-ne.bc)"
done
