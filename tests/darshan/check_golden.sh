#!/usr/bin/env bash
# check_golden.sh PERFDM WRITE_TEST_LOG TESTS_DIR NAME parser|dxt native|swapped: prints the
# log NAME (tests/darshan/logs/NAME.darshan, or generated-FORMAT-COMPRESSION written by
# WRITE_TEST_LOG in that byte order) with perfdm log and compares it with darshan-parser's
# output kept in tests/darshan/golden/NAME.KIND.txt.xz (compare_with_darshan_parser.py).
set -euo pipefail
perfdm=$1 writer=$2 tests=$3 name=$4 kind=$5 order=$6
flags=
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export TZ=UTC
if [[ $name == generated-* ]]; then
  spec=${name#generated-}
  log="$work/$name.darshan"
  "$writer" "$log" "${spec%-*}" "${spec##*-}" "$order"
  # The golden output is of the native byte order: the other one compresses to other sizes.
  [[ $order == swapped ]] && flags=--any-region-sizes
else
  log="$tests/darshan/logs/$name.darshan"
fi
if [[ $kind == dxt ]]; then
  "$perfdm" log --dxt --show-incomplete "$log" >"$work/actual" || true
  exec python3 "$tests/darshan/compare_with_darshan_parser.py" --dxt $flags \
    "$tests/darshan/golden/$name.dxt.txt.xz" "$work/actual"
fi
"$perfdm" log --base --total --perf --file --show-incomplete "$log" >"$work/actual" || true
exec python3 "$tests/darshan/compare_with_darshan_parser.py" $flags \
  "$tests/darshan/golden/$name.parser.txt.xz" "$work/actual"
