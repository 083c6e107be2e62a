#!/bin/bash
# The observed slowdown of pc_cpu (bench/RESULTS.md): alternating 10 s runs of
# pc_cpu alone, watched by perfdm search, recorded by perf. Run from the repository root
# after building perfdm and pc_cpu (BUILD: the build folder; ROUNDS; OUT: where runs go).
B=${BUILD:-build}
OUT=${OUT:-/tmp/pc_slowdown}
ROUNDS=${ROUNDS:-3}
mkdir -p $OUT
for round in $(seq 1 $ROUNDS); do
  for mode in none search perf; do
    out=$OUT/$mode.$round.txt
    $B/examples/pc_cpu 10 > $out &
    P=$!
    sleep 0.2
    case $mode in
      search) $B/perfdm search --pid $P --seconds 9.5 --sufficient-time 2 > $OUT/search.$round.log 2>&1 ;;
      perf) perf record -e cpu-clock -F 999 -g -o $OUT/perf.$round.data -p $P -- sleep 9.5 > /dev/null 2>&1 ;;
    esac
    wait $P
    echo "$mode $round $(tail -1 $out) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
