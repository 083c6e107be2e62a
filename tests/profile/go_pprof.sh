#!/bin/sh
# pprof files read by pprof itself: `perfdm search --pprof` on pc_cpu, then
# Debian's `go tool pprof -top` on the file. pprof must read it, name the file's program, and
# rank tokenize first by its own samples, with its callers parse and main in the cumulative
# column. Usage: go_pprof.sh PERFDM PC_CPU
set -eu
perfdm=$1
pc_cpu=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The program runs past the search (ended at --seconds): five seconds of samples, enough on a
# loaded machine whose sampler keeps to its cost budget.
"$perfdm" search --seconds 5 --pprof "$work/cpu.pb.gz" -o "$work/report.txt" -- "$pc_cpu" 10 > /dev/null
# go keeps a build cache under HOME; the test's own folder.
HOME=$work GOCACHE=$work/cache go tool pprof -top "$work/cpu.pb.gz" > "$work/top.txt" 2>&1 || {
  cat "$work/top.txt"; echo "go tool pprof could not read perfdm's file"; exit 1; }
cat "$work/top.txt"
grep -q '^File: pc_cpu' "$work/top.txt" || { echo "no 'File: pc_cpu' line"; exit 1; }
# The first row under the header is the hottest by flat samples: tokenize, with most of them.
first=$(sed -n '/flat%/{n;p;q}' "$work/top.txt")
echo "$first" | grep -q ' tokenize$' || { echo "tokenize is not first: $first"; exit 1; }
share=$(echo "$first" | awk '{print $2}' | tr -d '%')
awk -v s="$share" 'BEGIN { exit !(s > 50) }' || { echo "tokenize has only $share % flat"; exit 1; }
for f in parse main; do
  grep -q " $f\$" "$work/top.txt" || { echo "$f is missing from the profile"; exit 1; }
done
total=$(sed -n 's/^Showing nodes accounting for \([0-9]*\),.*/\1/p' "$work/top.txt")
[ "${total:-0}" -ge 20 ] || { echo "only ${total:-0} samples"; exit 1; }
echo "go tool pprof read $total samples; first: $first"
