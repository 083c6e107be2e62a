#!/usr/bin/env bash
# Sizes of perfdm's folded stacks and pprof file against perf's, for the same workload
# (examples/pc/pc_cpu, or the program given), docs/FLAME.md §4:
#   perfdm: `perfdm search --seconds S --folded --pprof` (stack samples at CHECKTIME 10 ms);
#   perf:   `perf record -F 100 --call-graph dwarf` (CALLGRAPH=fp: frame pointers) for S
#           seconds, then `perf script` and Debian linux-perf's
#           stackcollapse.py (`perf script -s …/stackcollapse.py`: folded lines, as
#           stackcollapse-perf.pl writes them).
# The two run one after the other on the same process. Prints one table row per file.
#
#   bench/flame/profile_files_bench.sh [BUILD_DIR] [SECONDS] [WORKLOAD]
set -euo pipefail
build=${1:-build}
seconds=${2:-10}
workload=${3:-$build/examples/pc_cpu}
perfdm=$build/perfdm
collapse=/usr/lib/perf-core/scripts/python/stackcollapse.py
out=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$out"' EXIT

"$workload" $((3 * seconds + 30)) > "$out/workload.txt" &
pid=$!
sleep 1

"$perfdm" search --pid $pid --seconds "$seconds" --folded "$out/perfdm.folded" \
  --pprof "$out/perfdm.pb.gz" --view cpu > /dev/null 2> "$out/perfdm.err"
perf record -q -F 100 --call-graph "${CALLGRAPH:-dwarf}" -p $pid -o "$out/perf.data" -- sleep "$seconds" 2> /dev/null
perf script -i "$out/perf.data" > "$out/perf.script" 2> /dev/null
perf script -i "$out/perf.data" -s "$collapse" > "$out/perf.folded" 2> /dev/null
gzip -9 -c "$out/perf.script" > "$out/perf.script.gz"
gzip -9 -c "$out/perfdm.folded" > "$out/perfdm.folded.gz"
gzip -9 -c "$out/perf.folded" > "$out/perf.folded.gz"

samples() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
perfdm_samples=$(samples "$out/perfdm.folded")
perf_samples=$(samples "$out/perf.folded")
row() {  # file, samples
  local bytes lines
  bytes=$(stat -c %s "$out/$1")
  lines=$( [[ $1 == *.gz || $1 == *.data ]] && echo - || wc -l < "$out/$1")
  printf '| %s | %s | %s | %s | %.1f |\n' "$1" "$bytes" "$lines" "$2" \
    "$(echo "$bytes / $2" | bc -l)"
}
echo "| file | bytes | lines | samples | bytes/sample |"
echo "|---|---|---|---|---|"
row perfdm.folded "$perfdm_samples"
row perfdm.folded.gz "$perfdm_samples"
row perfdm.pb.gz "$perfdm_samples"
row perf.data "$perf_samples"
row perf.script "$perf_samples"
row perf.script.gz "$perf_samples"
row perf.folded "$perf_samples"
row perf.folded.gz "$perf_samples"
