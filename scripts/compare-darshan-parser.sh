#!/usr/bin/env bash
# Compares `perfdm log` with Darshan's own darshan-parser and darshan-dxt-parser, counter for
# counter, on every sample log (tests/darshan/logs/, from Darshan's public example
# collection) and on test logs written in every format version (3.00-3.41), compression
# (zlib, bzip2, none) and byte order (tests/darshan/test_log_contents.hpp), including every
# option of darshan-parser (--all: the records, --total, --file, --perf, --show-incomplete).
# Needs Darshan 3.5.0 built with ../shared/peers/build-darshan.sh (or any darshan-util):
#   scripts/compare-darshan-parser.sh [BUILD_DIR] [--darshan PREFIX] [--logs DIR]
#                                     [--write-golden]
# BUILD_DIR: perfdm's build directory (default build/; needs perfdm and write_test_log).
# --logs DIR: also compare every *.darshan under DIR (logs perfdm's I/O library writes...).
# --write-golden: (re)write tests/darshan/golden/ from darshan-parser's output, which the
# ctest darshan.golden.* compares against without Darshan.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build darshan=${DARSHAN_PREFIX:-/opt/darshan} extra= golden=0
while (($#)); do
  case "$1" in
    --darshan) darshan=$2; shift 2 ;;
    --logs) extra=$2; shift 2 ;;
    --write-golden) golden=1; shift ;;
    *) build=$1; shift ;;
  esac
done
parser="$darshan/bin/darshan-parser" dxt="$darshan/bin/darshan-dxt-parser"
if [[ ! -x $parser ]]; then
  echo "compare-darshan-parser: no $parser; build Darshan first:" \
       "../shared/peers/build-darshan.sh $darshan" >&2
  exit 2
fi
perfdm="$build/perfdm" writer="$build/tests/write_test_log"
for b in "$perfdm" "$writer"; do
  [[ -x $b ]] || { echo "compare-darshan-parser: no $b (cmake --build $build --target perfdm write_test_log)" >&2; exit 2; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export TZ=UTC  # start_time_asci and end_time_asci are local times
compare=tests/darshan/compare_with_darshan_parser.py
failed=0 compared=0

# compare NAME LOG [FLAGS]: darshan-parser --all against perfdm log with the same options;
# for a log with DXT data, darshan-dxt-parser against perfdm log --dxt. FLAGS go to the
# comparison (--swapped for a log of the other byte order).
compare() {
  local name=$1 log=$2 flags=${3:-}
  "$parser" --all "$log" >"$work/$name.expected" 2>/dev/null || true
  "$perfdm" log --base --total --perf --file --show-incomplete "$log" >"$work/$name.actual" 2>/dev/null || true
  printf '%-44s ' "$name"
  if python3 "$compare" $flags "$work/$name.expected" "$work/$name.actual"; then :; else failed=$((failed + 1)); fi
  compared=$((compared + 1))
  if ((golden)); then xz -9e <"$work/$name.expected" >"tests/darshan/golden/$name.parser.txt.xz"; fi
  if grep -q '^# DXT_\(POSIX\|MPIIO\) module:' "$work/$name.expected"; then
    "$dxt" --show-incomplete "$log" >"$work/$name.dxt.expected" 2>/dev/null || true
    "$perfdm" log --dxt --show-incomplete "$log" >"$work/$name.dxt.actual" 2>/dev/null || true
    printf '%-44s ' "$name (DXT)"
    if python3 "$compare" --dxt $flags "$work/$name.dxt.expected" "$work/$name.dxt.actual"; then :; else failed=$((failed + 1)); fi
    compared=$((compared + 1))
    if ((golden)); then xz -9e <"$work/$name.dxt.expected" >"tests/darshan/golden/$name.dxt.txt.xz"; fi
  fi
}

for log in tests/darshan/logs/*.darshan; do compare "$(basename "$log" .darshan)" "$log"; done
for format in 3.00 3.10 3.20 3.21 3.41; do
  for compression in zlib bzip2 none; do
    for order in native swapped; do
      name="generated-$format-$compression"
      "$writer" "$work/$name-$order.darshan" "$format" "$compression" "$order"
      if [[ $order == native ]]; then
        compare "$name" "$work/$name-$order.darshan"
      else
        # The other byte order must print the same as the native one.
        ((golden)) && saved=1 || saved=0; golden=0
        compare "$name-$order" "$work/$name-$order.darshan" --swapped
        golden=$saved
      fi
    done
  done
done
if [[ -n $extra ]]; then
  while IFS= read -r -d '' log; do compare "extra-$(basename "$log" .darshan)" "$log"; done \
    < <(find "$extra" -name '*.darshan' -print0)
fi
echo "compare-darshan-parser: $compared comparisons, $failed with differences"
((failed == 0))
