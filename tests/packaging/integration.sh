#!/usr/bin/env bash
# The integration examples (examples/integration/) against an installed perfdm: builds the
# CMake program (find_package(perfdm), perfdm_generate_frames) and the make program
# (pkg-config perfdm) against PREFIX alone, runs each, attaches to it with PREFIX/bin/perfdm,
# reads its frames and checks their values; then detaches.
# usage: integration.sh SOURCE_DIR PREFIX WORK_DIR
set -euo pipefail
source_dir="$1" prefix="$2" work="$3"
perfdm="$prefix/bin/perfdm"
rm -rf "$work"
mkdir -p "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

fail() {
  echo "integration: $*" >&2
  exit 1
}

# Starts PROGRAM SECONDS in the background, attaches, reads every frame until it exits;
# checks the read header against COLUMNS and that at least 100 frames arrived.
# run_and_read NAME PROGRAM COLUMNS
run_and_read() {
  local name="$1" program="$2" columns="$3"
  "$program" 3 >"$work/$name.out" &
  local pid=$!
  pids+=("$pid")
  timeout 20 "$perfdm" attach "$pid" >"$work/$name.attach"
  local segment
  segment="$(cut -f2 "$work/$name.attach")"
  [ -n "$segment" ] || fail "$name: attach printed no segment"
  timeout 30 "$perfdm" read "$segment" --pid "$pid" >"$work/$name.frames" 2>"$work/$name.read"
  wait "$pid"
  rm -f "/dev/shm/$segment"  # the program has exited: its segment is stale
  local header
  header="$(head -n1 "$work/$name.frames")"
  [ "$header" = "$columns" ] || fail "$name: header '$header', expected '$columns'"
  local frames
  frames=$(($(wc -l <"$work/$name.frames") - 1))
  [ "$frames" -ge 100 ] || fail "$name: only $frames frames read"
  grep -q "frames read $frames, lost 0, torn 0" "$work/$name.read" ||
    fail "$name: $(cat "$work/$name.read")"
  echo "integration: $name: $frames frames read"
}

# 1. CMake: find_package(perfdm) finds PREFIX only through CMAKE_PREFIX_PATH.
cmake -S "$source_dir/examples/integration/cmake" -B "$work/orders" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/orders.configure" || fail "cmake: $(cat "$work/orders.configure")"
cmake --build "$work/orders" >"$work/orders.build" 2>&1 || fail "build: $(cat "$work/orders.build")"
grep -q "$prefix/bin/perfdm gen" "$work/orders.build" ||
  (cd "$work/orders" && grep -rq "$prefix/bin/perfdm" CMakeFiles) ||
  fail "the CMake build did not run the installed perfdm"
run_and_read orders "$work/orders/orders" \
  "$(printf 'seq\ttime_ns\tlane\torder.filled\torder.latency_us\torder.side')"
# Every order frame: filled 1, latency 50..149 us, side 0 or 1.
awk -F'\t' 'NR > 1 && !($4 == 1 && $5 >= 50 && $5 < 150 && ($6 == 0 || $6 == 1)) { bad = 1 }
            END { exit bad }' "$work/orders.frames" || fail "orders: unexpected values"

# 2. make: pkg-config finds PREFIX only through PKG_CONFIG_PATH.
cp -R "$source_dir/examples/integration/make" "$work/ticks"
PKG_CONFIG_PATH="$prefix/share/pkgconfig" make -C "$work/ticks" >"$work/ticks.build" 2>&1 ||
  fail "make: $(cat "$work/ticks.build")"
grep -q "$prefix/share/pkgconfig/../../bin/perfdm gen ticks.frames" "$work/ticks.build" ||
  fail "make did not run the installed perfdm: $(cat "$work/ticks.build")"
run_and_read ticks "$work/ticks/ticks" \
  "$(printf 'seq\ttime_ns\tlane\ttick.count\ttick.temperature[0]\ttick.temperature[1]\ttick.queue_depth')"
awk -F'\t' 'NR > 1 && !($4 == 1 && $5 >= 20 && $5 < 30 && $6 == -5 && $7 >= 0 && $7 < 32) { bad = 1 }
            END { exit bad }' "$work/ticks.frames" || fail "ticks: unexpected values"
# 3. The engine takes an array's element as a metric of its own: tick.temperature[1] is -5.
"$work/ticks/ticks" 3 >/dev/null &
pid=$!
pids+=("$pid")
dm() { echo "<DYPER PID='DM' COMMAND='$1'>${2:-}</DYPER>"; }
{
  dm ATTACH "<PROCESS PID='$pid'/>"
  dm STREAM
  dm ENABLE "<ENABLE STREAM='0' METRIC='tick.temperature[1]'/>"
  sleep 1.5
  dm DETACH "<PROCESS PID='$pid'/>"
} | timeout 30 "$perfdm" engine --readable --log "$work/engine.log" >"$work/engine.txt" 2>&1
wait "$pid"
events=$(grep -c '^  stream 0 data: MI 0 GLOBAL buckets [0-9-]*=-5$' "$work/engine.txt" || true)
[ "$events" -ge 3 ] || fail "tick.temperature[1] through the engine: $(cat "$work/engine.txt")"
! grep -q '^  ! ' "$work/engine.txt" || fail "an error reply: $(cat "$work/engine.txt")"
echo "integration: both examples built against $prefix, attached and read; an array element through the engine"
