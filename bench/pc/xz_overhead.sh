#!/bin/bash
# The cost of watching a fixed xz job (bench/RESULTS.md): alternating runs of
# `xz -6 -T1` on the same 8 MB of text, alone, under `perfdm search -- …` (the search on the
# evidence, ending with the program) and under `perf record -F 99 -g -- …`; the wall time of
# each, as the user waits for it, and xz's own CPU time (user + system, from /usr/bin/time),
# which a loaded machine disturbs less. Usage: bench/pc/xz_overhead.sh [BUILD] [ROUNDS]
set -u
B=${1:-build}
ROUNDS=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/input.txt" <<'EOF'
import random, sys
words = ("performance consultant hypothesis focus resource metric instance sample stack "
         "thread mutex file lzma xz search").split()
r = random.Random(8)
with open(sys.argv[1], "w") as f:
    n = 0
    while n < 8 << 20:
        line = " ".join(f"{r.choice(words)} {r.randrange(1000)}" for _ in range(12)) + "\n"
        f.write(line)
        n += len(line)
EOF
job="/usr/bin/time -o $work/cpu -f %U+%S xz -6 -T1 -c $work/input.txt"
cpu() { echo "scale=2; $(cat "$work/cpu")" | bc; }
wall() {  # wall seconds of the command line "$@"
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
for round in $(seq 1 "$ROUNDS"); do
  plain=$(wall sh -c "$job > /dev/null"); plain_cpu=$(cpu)
  search=$(wall "$B/perfdm" search --seconds 120 -o "$work/search.txt" -- sh -c "exec $job > /dev/null")
  search_cpu=$(cpu)
  perf=$(wall perf record -q -F 99 -g -o "$work/perf.data" -- sh -c "exec $job > /dev/null")
  perf_cpu=$(cpu)
  echo "round $round wall: plain $plain search $search perf $perf;" \
       "xz cpu: plain $plain_cpu search $search_cpu perf $perf_cpu;" \
       "search/plain $(echo "scale=3; $search / $plain" | bc)" \
       "perf/plain $(echo "scale=3; $perf / $plain" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "last search's findings:"
sed -n '/findings, ranked/,$p' "$work/search.txt"
