#!/bin/sh
# Diagnosis links (run from /work/lvtests). Thinlto/gmf of the -ne tags are symlinks to the
# default ones (the plugin is not loaded there), so lvtests-links.sh skips them.
set -x
D=/work/main-results-thin8; B=/work/bin-s45; L=/work/main/bench/results/2026-11-27-thin4/lvtests-links.sh
LDEXTRA=-Wl,--gc-sections sh $D/round2-report.sh . $B r2rep-gc merge-t8-gc.fmi
sh $D/round2-report.sh . $B r2ne merge-t8.fmi -fmerge-estimate=false
LDEXTRA=-Wl,--gc-sections sh $D/round2-report.sh . $B r2ne-gc merge-t8-gc.fmi -fmerge-estimate=false
EXTRA=-fmerge-estimate=false sh $L . $B -t8-ne
EXTRA=-fmerge-estimate=false LDEXTRA=-Wl,--gc-sections sh $L . $B -t8-ne-gc
