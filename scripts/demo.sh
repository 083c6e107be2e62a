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
echo "# ---- live: the bundled workload, attached while it runs ----"
build/examples/perfdm_workload 60 > build/workload.pid &
workload=$!
trap 'kill $workload 2>/dev/null || true' EXIT
while [ ! -s build/workload.pid ]; do sleep 0.1; done
pid=$(cat build/workload.pid)
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
} | build/perfdm engine --readable --base-width 0.005 --log build/live.log 2> build/live-engine.err | tee build/live-session.txt |
  awk '/ data: /{ if (n++ % 25 == 0) print "  ...", substr($0, 3, 150); next } { print substr($0, 1, 300) }'
echo "# $(grep -c ' data: ' build/live-session.txt) data events arrived in all (every 25th shown; all in build/live-session.txt)"
cat build/live-engine.err
kill "$workload" 2>/dev/null || true
wait "$workload" 2>/dev/null || true
leftover=$(ls /dev/shm | grep -c "^perfdm\.$pid\." || true)
echo "# segments left in /dev/shm for pid $pid: $leftover"
echo
echo "# The live session's log, read back with: build/perfdm log build/live.log (first rows)"
build/perfdm log build/live.log > build/live-log.txt
head -n 30 build/live-log.txt
echo "# ... $(wc -l < build/live-log.txt) lines in all"
