#!/usr/bin/env bash
# Records a real live run for the golden test golden.live_recording: the bundled workload
# attached, metrics enabled from standard input and over TCP (perfdm send), samples, a phase,
# a detach; then writes the recording to tests/golden/live_recording.replay and its replay to
# tests/golden/live_recording.expected. Review the diff before committing a new one.
# Usage: scripts/record_live_golden.sh [BUILD_DIR] (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'kill $workload $engine 2>/dev/null || true; rm -rf "$work"' EXIT
$build/examples/perfdm_workload 30 > $work/pid &
workload=$!
for _ in $(seq 100); do [ -s $work/pid ] && break; sleep 0.1; done
pid=$(head -n 1 $work/pid)
dm() { echo "<DYPER PID='DM' COMMAND='$1'>${2:-}</DYPER>"; }
mkfifo $work/in
$build/perfdm engine --listen 127.0.0.1:0 --base-width 0.01 --record $work/rec.replay \
  --log $work/engine.log < $work/in > $work/stdin.out 2> $work/engine.err &
engine=$!
exec 3> $work/in
for _ in $(seq 100); do grep -q "listening on" $work/engine.err && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' $work/engine.err)
{
  dm ATTACH "<PROCESS PID='$pid'/>"
  dm STREAM
  dm ENABLE "<ENABLE STREAM='0' METRIC='work.requests' PHASE='GLOBAL' PERSISTENT_DATA='true'/>"
} >&3
sleep 0.5
{
  dm STREAM
  dm ENABLE "<ENABLE STREAM='1' METRIC='work.latency_us' FOCUS='/Process/perfdm_workload{$pid}/work' PHASE='CURRENT' PERSISTENT_DATA='true'/>"
  sleep 1.5
  dm ENABLE "<ENABLE STREAM='1' METRIC='work.latency_us' FOCUS='/Process/perfdm_workload{$pid}/work' PHASE='CURRENT' PERSISTENT_DATA='true'/>"
  dm DATA "<DATA MI='0'/>"
} | $build/perfdm send 127.0.0.1:$port > $work/tcp.out &
sender=$!
sleep 1
dm PHASE "<PHASE NAME='watching'/>" >&3
sleep 1.5
dm DETACH "<PROCESS PID='$pid'/>" >&3
wait $sender
sleep 1
{ dm DATA "<DATA MI='1' PHASE='0'/>"; dm STATUS; } >&3
sleep 0.5
exec 3>&-
kill -TERM $engine
wait $engine || true
cp $work/rec.replay tests/golden/live_recording.replay
$build/perfdm replay tests/golden/live_recording.replay > tests/golden/live_recording.expected
wc -l tests/golden/live_recording.replay tests/golden/live_recording.expected
