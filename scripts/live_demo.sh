#!/usr/bin/env bash
# The live part of the demo (scripts/demo.sh), on an already built tree: starts the bundled
# workload (examples/workload), attaches to the running process, enables metrics for the global
# and the current phase, starts a phase, prints histograms and folds as they arrive, reads the
# frame counts, detaches, checks no segment is left, and reads back the session's log.
# Usage: scripts/live_demo.sh [BUILD_DIR] (default build). A ctest runs it too (demo.live).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
echo "# ---- live: the bundled workload, attached while it runs ----"
rm -f $build/workload.pid
$build/examples/perfdm_workload 60 > $build/workload.pid &
workload=$!
trap 'kill $workload 2>/dev/null || true' EXIT
# The workload prints its pid once it runs its own code (attaching earlier would find none).
pid=""
for _ in $(seq 100); do
  pid=$(head -n 1 $build/workload.pid 2>/dev/null || true)
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || { echo "demo: the workload did not start" >&2; exit 1; }
dm() { echo "<DYPER PID='DM' COMMAND='$1'>${2:-}</DYPER>"; }
# A base width of 5 ms (B1 says 0.2 s) lets the global histogram fill its 1000 buckets and
# fold every few seconds, so folds show within the demo.
{
  echo "# The workload (pid $pid) repeats three load phases: idle, busy, bulk (1.5 s each)."
  dm ATTACH "<PROCESS PID='$pid'/>"
  dm STREAM
  echo "# Requests per bucket over the whole run (global), queue latency for the current phase."
  dm ENABLE "<ENABLE STREAM='0' METRIC='work.requests' PHASE='GLOBAL' PERSISTENT_DATA='true'/>"
  dm ENABLE "<ENABLE STREAM='0' METRIC='work.latency_us' FOCUS='/Process/perfdm_workload{$pid}' PHASE='CURRENT' PERSISTENT_DATA='true' PERSISTENT_COLLECTION='true'/>"
  sleep 3
  echo "# A new phase: the latency histogram of phase 0 is archived, collection goes on."
  dm PHASE "<PHASE NAME='watching'/>"
  dm ENABLE "<ENABLE STREAM='0' METRIC='work.latency_us' FOCUS='/Process/perfdm_workload{$pid}' PHASE='CURRENT'/>"
  sleep 8
  dm STATUS
  dm DATA "<DATA MI='1' PHASE='0'/>"
  dm FRAMES
  dm DETACH "<PROCESS PID='$pid'/>"
  sleep 1.5
  dm PROCESSES
} | $build/perfdm engine --readable --base-width 0.005 --log $build/live.log 2> $build/live-engine.err | tee $build/live-session.txt |
  awk '/ data: /{ if (n++ % 25 == 0) print "  ...", substr($0, 3, 150); next } { print substr($0, 1, 300) }'
echo "# $(grep -c ' data: ' $build/live-session.txt) data events arrived in all (every 25th shown; all in $build/live-session.txt)"
cat $build/live-engine.err
kill "$workload" 2>/dev/null || true
wait "$workload" 2>/dev/null || true
leftover=$(ls /dev/shm | grep -c "^perfdm\.$pid\." || true)
echo "# segments left in /dev/shm for pid $pid: $leftover"
echo
echo "# The live session's log, read back with: $build/perfdm log $build/live.log (first rows)"
$build/perfdm log $build/live.log > $build/live-log.txt
head -n 30 $build/live-log.txt
echo "# ... $(wc -l < $build/live-log.txt) lines in all"

# The demo checks itself (ctest runs it as demo.live): data arrived, histograms folded, no
# request failed, nothing was left in /dev/shm.
events=$(grep -c ' data: ' $build/live-session.txt || true)
folds=$(grep -c ' fold: ' $build/live-session.txt || true)
errors=$(grep -c '^  ! ' $build/live-session.txt || true)
if [ "$events" -eq 0 ] || [ "$folds" -eq 0 ] || [ "$errors" -ne 0 ] || [ "$leftover" -ne 0 ]; then
  echo "demo: FAILED: $events data events, $folds folds, $errors error replies, $leftover segments left" >&2
  exit 1
fi
