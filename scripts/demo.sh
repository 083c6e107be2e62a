#!/usr/bin/env bash
# Installs what is missing, builds, and runs the engine on the bundled demo: first the
# replayed scenario (examples/demo.replay, deterministic), then a live session on the bundled
# workload (examples/workload): start it, attach to the running process, enable metrics for
# the global and the current phase, start a phase, watch histograms and folds arrive, detach.
# Then reads back the log the live session wrote. Finally the Performance Consultant starts a
# bundled workload with a known bottleneck (examples/pc/pc_cpu) and says where its time goes,
# one line per finding.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target perfdm perfdm_workload pc_cpu
build/perfdm demo --log build/demo.log
echo
scripts/live_demo.sh build
echo
echo "# ---- the answer: perfdm search -- examples/pc/pc_cpu (CPU-bound deep in a call chain) ----"
# On the evidence (the default): each node concludes once its confidence interval clears the
# threshold, usually within a second; the program runs 6 s and the search ends with it.
build/perfdm search --seconds 10 -- build/examples/pc_cpu 6
