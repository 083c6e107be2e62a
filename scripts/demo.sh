#!/usr/bin/env bash
# Installs what is missing, builds, and runs the engine on the bundled demo scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target perfdm
build/perfdm demo
