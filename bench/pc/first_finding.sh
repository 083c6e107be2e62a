#!/bin/bash
# The first finding on programs with more than one thread of work (docs/PROTOCOL.md §12 "Idle,
# caused, contended"): for each, `perfdm search --seconds S -- PROGRAM`, the wall time of the
# first live line naming the right code (the time to the right finding), whether the ranked
# list's first line is it, and how many findings are idle waits (a pool's condition, an event
# loop's poll, a runtime's idle thread). Usage: bench/pc/first_finding.sh [BUILD] [SECONDS]
set -u
B=${1:-build}
S=${2:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/input.txt" <<'PY'
import random, sys
words = "idle busy blame wait pool thread rank spin".split()
r = random.Random(31)
with open(sys.argv[1], "w") as f:
    for _ in range(100000):
        f.write(" ".join(f"{r.choice(words)} {r.randrange(10000)}" for _ in range(10)) + "\n")
PY
gil="import threading
def work():
    while True:
        sum(i * i for i in range(1000))
for _ in range(4):
    threading.Thread(target=work, daemon=True).start()
threading.Event().wait(60)"
js='function spin(n) { let s = 0; for (let i = 0; i < n; ++i) s += Math.sqrt(i); return s; }
const end = Date.now() + 60000; while (Date.now() < end) spin(1e6);'
idle='on CondVar.* from (pool_worker|worker)|uv_cond_wait|uv__io_poll|epoll|runtime\.(usleep|futex|notesleep|stopm|netpoll)'
run() {  # name, the right first finding (an extended regex), the command
  local name=$1 right=$2
  shift 2
  local out
  out=$("$B/perfdm" search --seconds "$S" -- "$@" 2>/dev/null)
  local t first wrong
  t=$(echo "$out" | grep -E '^\[ *[0-9.]+ s\]' | grep -m1 -E "$right" | sed 's/^\[ *\([0-9.]*\) s\].*/\1/')
  first=$(echo "$out" | sed -n '/^findings, ranked:/{n;p;q}' | sed 's/^ *1\. //')
  wrong=$(echo "$out" | sed -n '/^findings, ranked:/,/^not concluded\|^what the data/p' |
          grep -E '^ +[0-9]+\. ' | grep -cE "$idle")
  local ok=no
  echo "$first" | grep -qE "$right" && ok=yes
  echo "$name right_first=$ok time_to_right=${t:--} idle_wait_findings=$wrong  1. ${first:-none}"
}
T=$B/tests
run parked_pool 'CPUbound.*compute_checksums' "$T/parked_pool" 60
run slow_consumer 'CPUbound.*render_item' "$T/slow_consumer" 60
run mutex_convoy 'ExcessiveSyncWaitingTime.*Mutex/' "$T/mutex_convoy" 60
run zstd_T2 'CPUbound.*zstd.*thread zstd' zstd -T2 -B1MiB -15 -q -f "$work/input.txt" -o "$work/out.zst"
run python_gil 'ExcessiveSyncWaitingTime.*CondVar/' /usr/bin/python3 -c "$gil"
run node 'CPUbound' /usr/bin/node -e "$js"
[ -x "$T/go_hash" ] && run go_hash 'CPUbound.*sha256' "$T/go_hash" 60
