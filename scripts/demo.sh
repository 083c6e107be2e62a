#!/usr/bin/env bash
# Installs what is missing, builds, and runs the engine on the bundled demo scenario; then
# reads back the log the session wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --target perfdm
build/perfdm demo --log build/demo.log
echo
echo "# The session's log, read back with: build/perfdm log build/demo.log (first rows)"
build/perfdm log build/demo.log > build/demo-log.txt
head -n 40 build/demo-log.txt
echo "# ... $(wc -l < build/demo-log.txt) lines in all"
