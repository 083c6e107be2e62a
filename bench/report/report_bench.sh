#!/usr/bin/env bash
# perfdm report's generation time, peak memory and page size, side by side with
# darshan-parser's time and memory to parse the same log (PyDarshan's job summary, the peer
# proper, is a pip package this machine cannot install). Runs alternate (report, parser,
# report, …); medians of RUNS. Logs: the sample logs (tests/darshan/logs/) and synthetic logs
# of 100 k and 1 M POSIX records (bench/report/synthetic_darshan_log.cpp); also the 1 M log
# with --max-files 20000 (several passes: memory bounded whatever the files), and one page
# over the seven sample logs.
#   bench/report/report_bench.sh [BUILD_DIR] [--darshan PREFIX] [--runs N]
# Needs darshan-parser (../shared/peers/build-darshan.sh PREFIX; default /opt/darshan).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build darshan=${DARSHAN_PREFIX:-/opt/darshan} runs=5
while (($#)); do
  case "$1" in
    --darshan) darshan=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) build=$1; shift ;;
  esac
done
parser="$darshan/bin/darshan-parser"
[[ -x $parser ]] || { echo "report_bench: no $parser" >&2; exit 2; }
perfdm="$build/perfdm" gen="$build/bench/synthetic_darshan_log"
for b in "$perfdm" "$gen"; do
  [[ -x $b ]] || { echo "report_bench: no $b (cmake --build $build --target perfdm synthetic_darshan_log)" >&2; exit 2; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$gen" "$work/synthetic-100k.darshan" 100000 1000 >/dev/null
"$gen" "$work/synthetic-1M.darshan" 1000000 100000 >/dev/null

# measure CMD...: prints "seconds peak_KiB" of one run; fails as the command fails (time's
# last line only: before it, time says "Command exited with non-zero status N").
measure() {
  local status=0
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || status=$?
  tail -n 1 "$work/time"
  return $status
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-44s %9s %8s %9s %8s %9s %8s %9s\n' log "log KiB" "report s" "rep MiB" "parser s" "par MiB" "time x" "page KiB"
row() {
  local name=$1; shift
  local log=$1; shift
  : >"$work/r" ; : >"$work/p"
  for ((i = 0; i < runs; i++)); do
    # A report that fails is no figure: say why and stop.
    measure "$perfdm" report "$@" -o "$work/page.html" >>"$work/r" ||
      { echo "report_bench: perfdm report $* failed:" >&2; cat "$work/stderr" >&2; exit 1; }
    [[ -z $log ]] || measure "$parser" --show-incomplete "$log" >>"$work/p" || true
  done
  local rs rm ps pm size logkib
  rs=$(cut -d' ' -f1 "$work/r" | median); rm=$(cut -d' ' -f2 "$work/r" | median)
  size=$(( $(stat -c %s "$work/page.html") / 1024 ))
  if [[ -n $log ]]; then
    ps=$(cut -d' ' -f1 "$work/p" | median); pm=$(cut -d' ' -f2 "$work/p" | median)
    logkib=$(( $(stat -c %s "$log") / 1024 ))
    printf '%-44s %9s %8s %9.1f %8s %9.1f %8s %9s\n' "$name" "$logkib" "$rs" "$(echo "$rm/1024" | bc -l)" \
      "$ps" "$(echo "$pm/1024" | bc -l)" "$(awk -v a="$rs" -v b="$ps" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }')" "$size"
  else
    printf '%-44s %9s %8s %9.1f %8s %9s %8s %9s\n' "$name" - "$rs" "$(echo "$rm/1024" | bc -l)" - - - "$size"
  fi
}
for log in tests/darshan/logs/*.darshan; do row "$(basename "$log")" "$log" "$log"; done
row "synthetic 100 k records, 1,000 files" "$work/synthetic-100k.darshan" "$work/synthetic-100k.darshan"
row "synthetic 1 M records, 100,000 files" "$work/synthetic-1M.darshan" "$work/synthetic-1M.darshan"
row "  the same, --max-files 20000" "$work/synthetic-1M.darshan" "$work/synthetic-1M.darshan" --max-files 20000
row "the 7 sample logs, one page" "" tests/darshan/logs/*.darshan
