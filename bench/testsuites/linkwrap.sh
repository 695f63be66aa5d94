#!/bin/sh
# rustc's linker for `fmbench testsuites` (bench/fmbench/rsuites.py): records the link line
# next to the output (OUT.linkargs, NUL-separated) so the test binary can be relinked from a
# merged object, then links with cc as rustc would have.
out=""
prev=""
for a in "$@"; do
    if [ "$prev" = "-o" ]; then out="$a"; fi
    prev="$a"
done
if [ -n "$out" ]; then printf '%s\0' "$@" > "$out.linkargs"; fi
exec cc "$@"
