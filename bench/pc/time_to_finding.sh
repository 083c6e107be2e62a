#!/bin/sh
# Time to the first true node and to the function + thread (or lock) on the bundled PC
# workloads: the right function (tokenize, update_shared_table, write_log): `perfdm search --pid P` on a fresh process, the wall time of the
# status lines it prints. Usage: bench/pc/time_to_finding.sh PERFDM EXAMPLES_DIR [OPTIONS…]
# (OPTIONS go to perfdm search, e.g. --sufficient-time 6 for Paradyn's rule).
set -u
perfdm=$1
examples=$2
shift 2
for pair in pc_cpu:tokenize pc_lock:update_shared_table pc_tiny_writes:write_log; do
  w=${pair%%:*}
  f=${pair#*:}
  "$examples/$w" 40 >/dev/null &
  pid=$!
  sleep 0.3
  out=$("$perfdm" search --pid "$pid" --seconds 20 "$@" 2>/dev/null)
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  # "[  4.3 s] CPUbound tested true for </Code/m/f, /Machine/h/p{P}/t{T}, /SyncObject…>"
  first=$(echo "$out" | grep -m1 "tested true" | sed 's/^\[ *\([0-9.]*\) s\].*/\1/')
  func=$(echo "$out" | grep "tested true" | grep "/Code/$w/$f," | head -1 | sed 's/^\[ *\([0-9.]*\) s\].*/\1/')
  both=$(echo "$out" | grep "tested true" | grep "/Code/$w/$f," |
         grep -E "/Machine/[^/,]+/[^/,]+/[^,>]+|/SyncObject/[^,>]+/" | head -1)
  both_t=$(echo "$both" | sed 's/^\[ *\([0-9.]*\) s\].*/\1/')
  echo "$w first_true=${first:--} function=${func:--} function+thread/lock=${both_t:--}  ${both#*for }"
done
