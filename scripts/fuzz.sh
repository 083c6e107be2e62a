#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan, UBSan) into build-fuzz/ and runs each for
# a bounded time over a copy of its seed corpus (fuzz/corpus/NAME/): the repository is never
# written to, and inputs the fuzzer finds are thrown away. Fails on any crash, sanitizer
# report, leak, timeout or broken round trip; the failing input is kept in
# build-fuzz/artifacts/ and printed (base64) so a CI log is enough to reproduce it:
#   base64 -d > crash && build-fuzz/fuzz/log_reader_fuzz crash   (or xml_codec_fuzz,
#   frames_schema_fuzz, dyper_framing_fuzz, dyper_agent_framing_fuzz, darshan_reader_fuzz)
# PERFDM_FUZZ_SECONDS: seconds per target (default 60). scripts/test.sh runs this after ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

seconds="${PERFDM_FUZZ_SECONDS:-60}"
case "$seconds" in
  '' | *[!0-9]*) echo "fuzz: PERFDM_FUZZ_SECONDS must be a whole number of seconds" >&2; exit 2 ;;
esac

start=$SECONDS
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFDM_FUZZ=ON \
  -DBUILD_TESTING=OFF -DPERFDM_BENCHMARKS=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target log_reader_fuzz xml_codec_fuzz frames_schema_fuzz \
  dyper_framing_fuzz dyper_agent_framing_fuzz darshan_reader_fuzz
echo "fuzz: targets built in $((SECONDS - start)) s"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
artifacts="$PWD/build-fuzz/artifacts"
mkdir -p "$artifacts"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

passed=0
failed=()
# run NAME CORPUS [extra libFuzzer flags...]
run() {
  local name="$1" corpus="$2"
  shift 2
  cp -R "fuzz/corpus/$corpus" "$work/$corpus"
  rm -f "$artifacts/$name-"*
  echo "fuzz: $name, ${seconds} s over a copy of fuzz/corpus/$corpus ($(ls "$work/$corpus" | wc -l) seeds)"
  local log="$work/$name.log" rc=0
  "build-fuzz/fuzz/$name" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$@" "$work/$corpus" \
    >"$log" 2>&1 || rc=$?
  local runs rate
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $name FAILED (exit $rc); its output:"
    grep -v '^#[0-9]' "$log" | tail -n 80
    local f
    for f in "$artifacts/$name-"*; do
      [ -f "$f" ] || continue
      echo "fuzz: failing input $f ($(wc -c <"$f") bytes), base64:"
      head -c 65536 "$f" | base64
    done
    failed+=("$name")
  else
    echo "fuzz: $name passed: ${runs:-?} runs, ${rate:-?} exec/s, corpus $(ls "$work/$corpus" | wc -l) inputs"
    passed=$((passed + 1))
  fi
}

run log_reader_fuzz log
run xml_codec_fuzz xml -dict=fuzz/xml_codec.dict
run frames_schema_fuzz frames
run dyper_framing_fuzz framing -dict=fuzz/dyper_framing.dict
run dyper_agent_framing_fuzz agent_framing -dict=fuzz/dyper_framing.dict
run darshan_reader_fuzz darshan

[ ${#failed[@]} -eq 0 ] || echo "fuzz: failed: ${failed[*]}"
echo "fuzz: $passed passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
