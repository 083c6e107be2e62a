#!/usr/bin/env bash
# Installs what is missing, builds, and runs the engine on the bundled demo: first the
# replayed scenario (examples/demo.replay, deterministic), then a live session on the bundled
# workload (examples/workload): start it, attach to the running process, enable metrics for
# the global and the current phase, start a phase, watch histograms and folds arrive, detach.
# Finally reads back the log the live session wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target perfdm perfdm_workload
build/perfdm demo --log build/demo.log
echo
scripts/live_demo.sh build
