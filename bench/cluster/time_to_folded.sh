#!/bin/sh
# Time to the folded findings: `perfdm search --json --seconds S -- cluster_job N`
# for each N given, R rounds each; prints per round the seconds after the search started at
# which the CPUbound group in relax was complete (its last member's "since": the moment the
# folded line reads "N-1 of N", or the one finding with N = 1), the outlier's lock finding's
# "since", and perfdm's wall time to the final list.
#   bench/cluster/time_to_folded.sh PERFDM CLUSTER_JOB [ROUNDS] [SECONDS] N...
set -eu
perfdm=$1 job=$2 rounds=${3:-3} seconds=${4:-10}
shift 4
for n in "$@"; do
  r=1
  while [ "$r" -le "$rounds" ]; do
    t0=$(date +%s.%N)
    out=$("$perfdm" search --json --seconds "$seconds" -- "$job" "$n" 2>/dev/null)
    t1=$(date +%s.%N)
    printf '%s' "$out" | python3 -c '
import json, sys
n, wall = int(sys.argv[1]), float(sys.argv[2])
t = sys.stdin.read(); j = json.loads(t[t.index("{\"program\""):])
cpu = [f for f in j["findings"] if f["hypothesis"] == "CPUbound" and f["focus"]["code"].endswith("/relax")]
pids = {f["pid"] for f in cpu if f["pid"]}
done = max((f["since"] for f in cpu), default=None)
sync = [f["since"] for f in j["findings"] if f["hypothesis"] == "ExcessiveSyncWaitingTime"]
folded = [f["text"] for f in j["folded"] if f["hypothesis"] == "CPUbound"]
print("N=%d CPUbound in relax: %d processes, complete at %s s; lock finding at %s s; wall %.1f s; %s" % (
    n, len(pids), "%.1f" % done if done is not None else "-", "%.1f" % min(sync) if sync else "-",
    wall, folded[0][:90] if folded else "no CPUbound line"))
' "$n" "$(echo "$t1 - $t0" | bc)"
    r=$((r + 1))
  done
done
