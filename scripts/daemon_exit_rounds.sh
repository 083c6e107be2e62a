#!/bin/bash
# The long run of tests/daemon_exit_test.cpp: ROUNDS rounds (default 100), each one
# engine and DAEMONS daemons (default 2) watching a `sleep` of their own; the rounds take turns
# to kill the engine first, to SIGTERM the daemons first, or both at once. A daemon still
# running BOUND seconds (default 10) after that counts as left running (then killed).
# Prints "left running: K of N daemons" and exits 1 if K > 0. Loopback only.
# Usage: scripts/daemon_exit_rounds.sh [ROUNDS] [DAEMONS]   (PERFDM=path/to/perfdm)
set -u
ROUNDS=${1:-100}
DAEMONS=${2:-2}
BOUND=${BOUND:-10}
PERFDM=${PERFDM:-$(dirname "$0")/../build/perfdm}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
left=0 total=0 worst=0 early=0
# Running: the process exists and is no zombie (an exited child not yet waited for).
running() { [ -e /proc/$1/stat ] && [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" != Z ]; }
for round in $(seq "$ROUNDS"); do
  order=$((round % 3))  # 0: engine first, 1: daemons first, 2: both at once
  "$PERFDM" engine --publish 127.0.0.1:0 --log "$TMP/engine.log" </dev/null 2>"$TMP/engine.err" &
  engine=$!
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*publishing on 127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/engine.err")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -z "$port" ] && { echo "round $round: the engine did not publish"; kill -9 $engine; exit 2; }
  pids=() sleepers=()
  for d in $(seq "$DAEMONS"); do
    sleep 60 & sleepers+=($!)
    "$PERFDM" daemon --upstream 127.0.0.1:$port --name "node-$d" --pid "${sleepers[-1]}" \
      --checktime 5 >/dev/null 2>"$TMP/daemon$d.err" &
    pids+=($!)
  done
  for _ in $(seq 200); do
    [ "$(grep -l 'forwarding to' "$TMP"/daemon*.err 2>/dev/null | wc -l)" -ge "$DAEMONS" ] && break
    sleep 0.05
  done
  sleep 0.3
  for p in "${pids[@]}"; do running "$p" || early=$((early + 1)); done
  case $order in
    0) kill -9 $engine ;;
    1) kill -TERM "${pids[@]}" 2>/dev/null ;;
    2) kill -9 $engine; kill -TERM "${pids[@]}" 2>/dev/null ;;
  esac
  start=$(date +%s.%N)
  i=0
  for p in "${pids[@]}"; do
    i=$((i + 1))
    total=$((total + 1))
    for _ in $(seq $((BOUND * 20))); do running "$p" || break; sleep 0.05; done
    t=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.3f", a - b}')
    awk -v t="$t" 'BEGIN{exit !(t > 3)}' && echo "round $round (order $order): daemon $p took ${t}s"
    if running "$p"; then
      left=$((left + 1)); echo "round $round (order $order): daemon $p still running:" \
        "$(tr '\n' ' ' <"$TMP/daemon$i.err")"
      kill -9 "$p"
    fi
    wait "$p" 2>/dev/null
  done
  took=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.3f", a - b}')
  awk -v t="$took" -v w="$worst" 'BEGIN{exit !(t > w)}' && worst=$took
  { kill -9 $engine; wait $engine; } 2>/dev/null
  kill "${sleepers[@]}" 2>/dev/null; wait "${sleepers[@]}" 2>/dev/null
  rm -f "$TMP"/daemon*.err
done
echo "left running: $left of $total daemons ($ROUNDS rounds); slowest round to exit: ${worst}s;" \
  "$early had ended before the kill (did not register in time)"
[ "$left" -eq 0 ]
