#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test; then the fuzz targets for a
# bounded time (scripts/fuzz.sh: PERFDM_FUZZ_SECONDS per target, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc)")
scripts/fuzz.sh
