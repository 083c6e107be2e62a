#!/usr/bin/env bash
# The cost of counting I/O, perfdm's library against Darshan's (bench/RESULTS.md): ns added per
# call (io_cost.c, one byte per call in the page cache), alternating runs alone, under Darshan
# 3.5.0's LD_PRELOAD library and under perfdm's; the memory 1,000 files' records take; the time
# the first process takes to write the job's log for 1, 1,000 and 100,000 files.
# usage: bench/io/io_cost.sh BUILD_DIR [DARSHAN_PREFIX] [ROUNDS] [PART]
#   DARSHAN_PREFIX: a non-MPI Darshan 3.5.0 (build one with ../shared/peers/build-darshan.sh);
#   default /opt/darshan. PART: calls, memory or shutdown (default: all three), or
#   instructions: the user-space instructions each call adds, counted by valgrind's callgrind
#   (the same on a loaded machine, where the ns of `calls` spread). Prints markdown tables.
set -euo pipefail
build=$(cd "${1:?usage: io_cost.sh BUILD_DIR [DARSHAN_PREFIX] [ROUNDS] [PART]}" && pwd)
darshan=${2:-/opt/darshan}
rounds=${3:-7}
part=${4:-all}
cost=$build/bench/io_cost
lib=$build/libperfdm-io.so
for f in "$cost" "$lib" "$darshan/lib/libdarshan.so"; do
  [[ -e $f ]] || { echo "io_cost.sh: $f is missing" >&2; exit 1; }
done
work=$(mktemp -d /tmp/io_cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data" "$work/logs"
# Darshan keeps 1024 records a module by default: room for 100,000 files, as perfdm is given.
printf 'MAX_RECORDS 110000 POSIX,STDIO\n' > "$work/darshan.conf"

# run CONFIG ARGS...: io_cost under nothing, Darshan or perfdm; prints its stdout.
run() {
  local cfg=$1; shift
  rm -rf "$work/data"/* "$work/logs"/*
  case $cfg in
    none) "${launcher[@]}" "$cost" "$@" "$work/data" ;;
    darshan) "${launcher[@]}" env LD_PRELOAD="$darshan/lib/libdarshan.so" DARSHAN_ENABLE_NONMPI=1 \
               DARSHAN_LOG_DIR_PATH="$work/logs" DARSHAN_CONFIG_PATH="$work/darshan.conf" \
               DARSHAN_MODMEM=256 DARSHAN_NAMEMEM=32 "${extra_env[@]}" "$cost" "$@" "$work/data" ;;
    perfdm) "${launcher[@]}" env LD_PRELOAD="$lib" PERFDM_IO_LOG="$work/logs" PERFDM_IO_MAX_RECORDS=110000 \
              PERFDM_IO_MODMEM=256 "${extra_env[@]}" "$cost" "$@" "$work/data" ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
spread() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f–%.0f", lo, hi}'; }

extra_env=(PERFDM_IO_UNUSED=)
launcher=()
if [[ $part == all || $part == calls ]]; then
echo "| call | alone (ns) | + Darshan (ns) | + perfdm (ns) | perfdm / Darshan | ns per call, lowest–highest run: alone / Darshan / perfdm |"
echo "|---|---|---|---|---|---|"
for op in pread pwrite read write fwrite openclose; do
  n=2000000
  [[ $op == openclose ]] && n=200000
  declare -A vals=([none]="" [darshan]="" [perfdm]="")
  for ((r = 0; r < rounds; r++)); do
    # The order turns each round, so no configuration always runs first.
    case $((r % 3)) in 0) order="none darshan perfdm" ;; 1) order="darshan perfdm none" ;; *) order="perfdm none darshan" ;; esac
    for cfg in $order; do vals[$cfg]+="$(run "$cfg" "$op" "$n" | awk '{print $2}')"$'\n'; done
  done
  none=$(printf '%s' "${vals[none]}" | median)
  d=$(printf '%s' "${vals[darshan]}" | median)
  p=$(printf '%s' "${vals[perfdm]}" | median)
  runs="$(printf '%s' "${vals[none]}" | spread) / $(printf '%s' "${vals[darshan]}" | spread) / $(printf '%s' "${vals[perfdm]}" | spread)"
  # The ratio in parentheses: awk takes a bare ">" among printf's arguments for a redirection.
  awk -v op="$op" -v n="$none" -v d="$d" -v p="$p" -v runs="$runs" 'BEGIN {
    printf "| %s | %.1f | +%.1f | +%.1f | %.2f | %s |\n", op, n, d - n, p - n, ((d - n) > 0 ? (p - n) / (d - n) : 0), runs }'
done
echo
fi

if [[ $part == all || $part == memory ]]; then
echo "| memory | alone | Darshan | perfdm | perfdm / Darshan |"
echo "|---|---|---|---|---|"
for cfg in none darshan perfdm; do
  m0=$(for ((r = 0; r < 3; r++)); do run "$cfg" files 0 | awk '{print $4}'; done | median)
  m1=$(for ((r = 0; r < 3; r++)); do run "$cfg" files 1000 | awk '{print $4}'; done | median)
  eval "mem_$cfg=$((m1 - m0))"
done
awk -v a="$mem_none" -v d="$mem_darshan" -v p="$mem_perfdm" 'BEGIN {
  printf "| VmRSS growth for 1,000 files (KiB) | %d | %d | %d | %.2f |\n", a, d, p, (d > 0 ? p / d : 0) }'
echo
fi

if [[ $part == all || $part == shutdown ]]; then
echo "| files | Darshan core_shutdown (ms) | perfdm writing the job's log (ms) |"
echo "|---|---|---|"
for files in 1 1000 100000; do
  extra_env=(DARSHAN_INTERNAL_TIMING=1)
  d=$(for ((r = 0; r < 3; r++)); do
        run darshan files "$files" 2>&1 >/dev/null | awk -F'\t' '/darshan:core_shutdown/ {print $3 * 1000}'
      done | median)
  extra_env=(PERFDM_IO_TIMING=1)
  p=$(for ((r = 0; r < 3; r++)); do
        run perfdm files "$files" 2>&1 >/dev/null | awk '/shutdown/ {print $4}'
      done | median)
  echo "| $files | $d | $p |"
done
fi

if [[ $part == instructions ]]; then
echo "| call | alone (instructions) | + Darshan | + perfdm | perfdm / Darshan |"
echo "|---|---|---|---|---|"
launcher=(valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null)
# Instructions of the whole run (the last process: io_cost after env's exec).
instructions() { run "$@" 2>&1 >/dev/null | awk '/Collected :/ {n = $NF} END {print n}'; }
for op in pread pwrite read write fwrite openclose; do
  for cfg in none darshan perfdm; do
    # Two lengths: what one call adds, without start-up and shutdown.
    a=$(instructions "$cfg" "$op" 10000)
    b=$(instructions "$cfg" "$op" 30000)
    eval "ins_$cfg=$(((b - a) / 20000))"
  done
  awk -v op="$op" -v n="$ins_none" -v d="$ins_darshan" -v p="$ins_perfdm" 'BEGIN {
    printf "| %s | %d | +%d | +%d | %.2f |\n", op, n, d - n, p - n, ((d - n) > 0 ? (p - n) / (d - n) : 0) }'
done
launcher=()
fi
