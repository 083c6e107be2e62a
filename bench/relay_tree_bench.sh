#!/bin/bash
# The engine's cost with N daemons, flat (every daemon connected to the engine) against a
# tree (N/8 relays of 8 daemons each) and a tree of two levels (those relays under one top
# relay, the engine's only child: MRNet's shape), N = 8 16 32 64. Each run is
# scripts/cluster.sh: N simulated hosts (UTS namespaces), each daemon watching a small
# workload, one watcher enabling proc.cpu_user over the whole program; the engine's CPU
# (utime + stime from /proc) over SECONDS (default 20) after all registered; for the two
# levels, the top relay's CPU too (the fan-in the engine no longer has is its).
# Usage: bench/relay_tree_bench.sh [SECONDS] [N...]   Results: bench/RESULTS.md.
set -u
SECS=${1:-20}
shift || true
SIZES=${*:-8 16 32 64}
HERE=$(cd "$(dirname "$0")/.." && pwd)
printf '%-4s %-8s %-12s %-16s %-18s %s\n' N layout registered "engine CPU %" "engine tree / flat" \
  "top relay CPU %"
for n in $SIZES; do
  declare -A cpu=()
  for layout in flat tree tree2; do
    relays=0 top=""
    [ $layout != flat ] && relays=$(( (n + 7) / 8 ))
    [ $layout = tree2 ] && top=--top
    line=$("$HERE/scripts/cluster.sh" "$n" --relays $relays $top --seconds "$SECS" --enable proc.cpu_user |
           grep '^cluster: registered')
    reg=$(echo "$line" | sed -n 's/.*registered \([0-9]*\) of.*/\1/p')
    c=$(echo "$line" | sed -n 's/.*engine CPU \([0-9.]*\) s over \([0-9.]*\) s.*/\1 \2/p')
    pct=$(echo "$c" | awk '{printf "%.2f", 100 * $1 / $2}')
    cpu[$layout]=$pct
    ratio=""
    [ $layout != flat ] && ratio=$(awk -v t="$pct" -v f="${cpu[flat]}" 'BEGIN{ if (f > 0) printf "%.2f", t / f; else print "n/a" }')
    toppct=$(echo "$line" | sed -n 's/.*top relay CPU \([0-9.]*\) s.*/\1/p' |
             awk -v s="$(echo "$c" | awk '{print $2}')" 'NF { printf "%.2f", 100 * $1 / s }')
    printf '%-4s %-8s %-12s %-16s %-18s %s\n' "$n" "$layout" "$reg/$n" "$pct" "$ratio" "$toppct"
  done
done
