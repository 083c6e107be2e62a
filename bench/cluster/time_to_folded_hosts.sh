#!/bin/sh
# Time to the folded findings over a simulated cluster: for each N given,
# `scripts/cluster.sh N --relays R --search S --json` (N daemons, each in a UTS namespace of
# its own watching one cluster_job process, host N's the outlier), ROUNDS rounds each. Prints
# per round, in seconds after the search started (the JSON's "started": once the N daemons
# joined), when the CPUbound group in relax was complete (its last member's "since": the
# folded line reads "N-1 of N"), when hostN's process was found waiting (its
# ExcessiveSyncWaitingTime node true: the instance named), when the outlier's lock finding
# came, and whether the folded line lists hostN's process among its outliers.
#   bench/cluster/time_to_folded_hosts.sh PERFDM ROUNDS SECONDS RELAYS N...
# CHECKTIME=MS: the daemons' mean ms between stack samples (cluster.sh's default else, 20).
set -eu
perfdm=$1 rounds=$2 seconds=$3 relays=$4
shift 4
here=$(cd "$(dirname "$0")/../.." && pwd)
for n in "$@"; do
  r=1
  while [ "$r" -le "$rounds" ]; do
    out=$(PERFDM="$perfdm" bash "$here/scripts/cluster.sh" "$n" --relays "$relays" --search "$seconds" ${CHECKTIME:+--checktime "$CHECKTIME"} --json 2>/dev/null)
    printf '%s' "$out" | python3 -c '
import json, sys
n = int(sys.argv[1])
t = sys.stdin.read(); j = json.loads(t[t.index("{\"processes\""):])
s0 = j["started"]
cpu = [f for f in j["findings"] if f["hypothesis"] == "CPUbound" and f["focus"]["code"].endswith("/relax") and f["pid"]]
pids = {f["pid"] for f in cpu}
done = max((f["since"] for f in cpu), default=None)
sync = [f["since"] for f in j["findings"] if f["hypothesis"] == "ExcessiveSyncWaitingTime"]
folded = [f for f in j["folded"] if f["hypothesis"] == "CPUbound" and f.get("processes", 0) >= 2]
# The instance named: the outlier host process (or deeper) true for sync waiting.
mine = [x["since"] for x in j["nodes"] if x["hypothesis"] == "ExcessiveSyncWaitingTime" and
        x["state"] == "true" and x["focus"]["machine"].startswith("/Machine/host%d/" % n)]
named = bool(folded) and any(o["process"].startswith("host%d:" % n) for o in folded[0]["outliers"])
print("N=%d processes searched %d; host%d process waits (named) at %s s; lock finding at %s s; CPUbound in relax: %d processes, complete at %s s; outlier listed: %s; %s" % (
    n, len(j["processes"]), n, "%.1f" % (min(mine) - s0) if mine else "-",
    "%.1f" % (min(sync) - s0) if sync else "-", len(pids),
    "%.1f" % (done - s0) if done is not None else "-", named,
    folded[0]["text"][:80] if folded else "no folded CPUbound line"))
' "$n"
    r=$((r + 1))
  done
done
