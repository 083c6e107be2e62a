#!/bin/bash
# The Performance Consultant's precision on real programs, each with its known bottleneck
# (docs/PROTOCOL.md §12 "Idle, caused, contended", "MPI jobs"), beside perf and Coz.
#
# For each program: `perfdm search --seconds S -- CMD`; whether the first ranked finding names
# the known bottleneck; how many findings are idle waits (a pool's condition, an event loop's
# poll, a runtime's idle thread) and how many are otherwise false (neither the bottleneck nor a
# wait it causes); the wall time of the first live line naming the bottleneck. Beside it
# `perf record -g -- timeout P CMD` + `perf report --stdio --no-children`: does perf's top
# entry name the bottleneck? Then Debian's Coz (`coz run --- CMD`) on the slow-consumer
# pipeline with a progress point per item (bench/pc/coz_slow_consumer.c): the line Coz says
# matters most, against perfdm's first finding on the same program.
#
# Usage: bench/pc/precision.sh [BUILD] [SECONDS] [PERF_SECONDS] [COZ_SECONDS]
# (defaults build 8 5 40). BUILD needs perfdm and the tests/pc_rules programs (parked_pool,
# slow_consumer, mutex_convoy; mpi_imbalance and go_hash where Open MPI and Go are installed).
# Each program's perfdm output and perf's top lines are kept in $PRECISION_LOGS if it is set.
set -u
B=$(realpath "${1:-build}")
S=${2:-8}
P=${3:-5}
C=${4:-40}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=${PRECISION_LOGS:-$work/logs}
mkdir -p "$logs"
cd "$work"  # node --perf-basic-prof writes its isolate logs into the working directory
T=$B/tests

# 30 MB of text: long enough for the compressors to outlast the search's first seconds.
python3 - "$work/input.txt" <<'PY'
import random, sys
words = "idle busy blame wait pool thread rank spin".split()
r = random.Random(31)
with open(sys.argv[1], "w") as f:
    for _ in range(420000):
        f.write(" ".join(f"{r.choice(words)} {r.randrange(10000)}" for _ in range(10)) + "\n")
PY
# One fsync'ed insert per transaction, its database on disk (under BUILD, not /tmp).
db_dir=$(mktemp -d -p "$B")
trap 'rm -rf "$work" "$db_dir"' EXIT
{
  echo "PRAGMA synchronous=FULL;"
  echo "CREATE TABLE t(x INTEGER, y TEXT);"
  for i in $(seq 40000); do echo "INSERT INTO t VALUES($i, 'row $i');"; done
} >"$work/inserts.sql"
gil="import threading
def work():
    while True:
        sum(i * i for i in range(1000))
for _ in range(4):
    threading.Thread(target=work, daemon=True).start()
threading.Event().wait(60)"
js='function spin(n) { let s = 0; for (let i = 0; i < n; ++i) s += Math.sqrt(i); return s; }
const end = Date.now() + 60000; while (Date.now() < end) spin(1e6);'

# A finding that waits for work: the names of tests/pc_rules_live_test.cpp's idle check.
idle='pthread_cond_wait|pthread_cond_timedwait|futex_abstimed_wait|uv_cond_wait|uv__io_poll|uv_run|epoll|runtime\.(usleep|futex|notesleep|stopm|netpoll)|pool_worker|from worker'
has_perf=no
command -v perf >/dev/null && perf record -q -o "$work/probe.data" -- true 2>/dev/null && has_perf=yes

printf '%-16s %-5s %-6s %-6s %-4s %-5s %-5s %-5s %s\n' program first right_s thread idle false perf load \
  "perfdm's first finding | perf's top entry"
# name, the right first finding (extended regex), findings that are true (the bottleneck at
# another focus, or a wait it causes), perf's right top entry, then the command.
run() {
  local name=$1 right=$2 true_too=$3 perf_right=$4
  shift 4
  local load out t first ranked idle_n false_n ok=no
  load=$(cut -d' ' -f1 /proc/loadavg)
  out=$("$B/perfdm" search --seconds "$S" -- "$@" 2>&1 </dev/null)
  echo "$out" >"$logs/$name.perfdm.txt"
  t=$(echo "$out" | grep -E '^\[ *[0-9.]+ s\]' | grep -m1 -E "$right" | sed 's/^\[ *\([0-9.]*\) s\].*/\1/')
  ranked=$(echo "$out" | sed -n '/^findings, ranked:/,/^not concluded\|^what the data/p' |
           grep -E '^ +[0-9]+\. ')
  first=$(echo "$ranked" | head -1 | sed 's/^ *1\. //')
  echo "$first" | grep -qE "$right" && ok=yes
  # A right first finding is not idle (the GIL's wait is in __futex_abstimed_wait too).
  idle_n=$(echo "$ranked" | grep -vE "$right" | grep -cE "$idle")
  false_n=$(echo "$ranked" | grep -vE "$idle" | grep -vE "$right|$true_too" | grep -c .)
  # The first finding's thread: the process's main thread or another (a worker, a rank's).
  local pid tid thr=-
  pid=$(echo "$out" | grep -m1 -oE '\(pid [0-9]+\)' | tr -dc 0-9)
  tid=$(echo "$first" | grep -oE 'thread [^ ]*\{[0-9]+\}' | head -1 | sed 's/.*{\([0-9]*\)}/\1/')
  [ -n "$pid" ] && [ -n "$tid" ] && { thr=other; [ "$pid" = "$tid" ] && thr=main; }
  [ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"  # a JIT's perf map (node --perf-basic-prof)
  local perf_top=- perf_ok=-
  if [ "$has_perf" = yes ]; then
    perf record -q -g -o "$work/perf.data" -- timeout "$P" "$@" >/dev/null 2>&1 </dev/null
    perf report -i "$work/perf.data" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
      grep -E '^ +[0-9.]+%' | head -5 >"$logs/$name.perf.txt"
    perf_top=$(head -1 "$logs/$name.perf.txt" | sed 's/^ *//; s/  */ /g')
    perf_ok=no
    for jit in $(grep -oE '\[JIT\] tid [0-9]+' "$logs/$name.perf.txt" | grep -oE '[0-9]+$' | sort -u); do
      rm -f "/tmp/perf-$jit.map"
    done
    echo "$perf_top" | grep -qE "$perf_right" && perf_ok=yes
  fi
  printf '%-16s %-5s %-6s %-6s %-4s %-5s %-5s %-5s %s | %s\n' "$name" "$ok" "${t:--}" "$thr" "$idle_n" \
    "$false_n" "$perf_ok" "$load" "${first:-none}" "$perf_top"
}

run parked_pool 'CPUbound.*compute_checksums' '^$' compute_checksums \
  "$T/parked_pool" 60
run slow_consumer 'CPUbound.*render_item' 'caused by|render_item' render_item \
  "$T/slow_consumer" 60
run mutex_convoy 'ExcessiveSyncWaitingTime.*Mutex/' 'Mutex/|CPUbound.*(update_table|locker)' '\] .*(lll_lock|mutex_lock|futex)' \
  "$T/mutex_convoy" 60
run zstd_T2 'CPUbound.*zstd.*thread zstd' 'CPUbound.*zstd' '^[0-9.]+% zstd ' \
  zstd -T2 -B1MiB -15 -q -f "$work/input.txt" -o "$work/out.zst"
run xz_T2 'CPUbound.*lzma.*thread xz' 'CPUbound.*lzma' '% liblzma' \
  sh -c "exec xz -T2 --block-size=1MiB -6 -c '$work/input.txt' >/dev/null"
run python_gil 'ExcessiveSyncWaitingTime.*CondVar/' 'CondVar/' '\] .*(take_gil|drop_gil|cond)' \
  /usr/bin/python3 -c "$gil"
run node 'CPUbound.*(\[jit node\]|spin)' 'CPUbound.*node' '\] .*spin' \
  /usr/bin/node -e "$js"
run node_perf_map 'CPUbound.*spin' 'CPUbound.*node' '\] .*spin' \
  /usr/bin/node --perf-basic-prof -e "$js"
if [ -x "$T/go_hash" ]; then
  run go_hash 'CPUbound.*sha256' 'CPUbound.*go_hash' 'sha256' "$T/go_hash" 60
else
  echo "go_hash: not built (golang-go missing at build time)"
fi
if [ -x "$T/mpi_imbalance" ] && command -v mpirun >/dev/null; then
  run mpi_imbalance "rank 2's relax_cells" 'caused by rank 2|relax_cells' relax_cells \
    mpirun --allow-run-as-root --oversubscribe -np 3 "$T/mpi_imbalance" 60
else
  echo "mpi_imbalance: not built or no mpirun (Debian's libopenmpi-dev, openmpi-bin)"
fi
run xz_T1 'CPUbound.*lzma.*thread xz' 'CPUbound.*lzma' '% liblzma' \
  sh -c "exec xz -T1 -6 -c '$work/input.txt' >/dev/null"
run gzip_9 'CPUbound.*\(gzip\)' 'CPUbound.*gzip' '% gzip ' \
  sh -c "exec gzip -9 -c '$work/input.txt' >/dev/null"
# The bottleneck is the sync of every commit: a finding at fdatasync, sqlite's pager or the file.
run sqlite3_fsync '(TooManySmallIOOps|ExcessiveIOBlockingTime) .*(t\.db|fdatasync|sqlite3Pager)' 't\.db|fdatasync|sqlite3Pager' \
  '\] .*(fsync|fdatasync|sqlite3Pager)' \
  sh -c "exec sqlite3 '$db_dir/t.db' < '$work/inserts.sql'"
[ "$has_perf" = yes ] || echo "perf: not installed or not permitted here (no perf column)"

# Coz on the slow-consumer pipeline: per source line, the pipeline's speed-up against the
# line's virtual speed-up (least squares through the origin over Coz's experiments).
if command -v coz >/dev/null; then
  # Coz's DWARF reader (libelfin) reads DWARF 4 without location views only.
  if cc -O2 -gdwarf-4 -gno-variable-location-views -fno-omit-frame-pointer \
      -I "$here/../../tests/pc_rules" "$here/coz_slow_consumer.c" -o "$work/coz_slow_consumer" \
      -pthread -ldl 2>/dev/null; then
    load=$(cut -d' ' -f1 /proc/loadavg)
    (cd "$work" && coz run --- ./coz_slow_consumer "$C" >/dev/null 2>&1)
    cp "$work/profile.coz" "$logs/slow_consumer.coz" 2>/dev/null
    python3 - "$work/profile.coz" "$here/../../tests/pc_rules/slow_consumer.c" "$load" <<'PY'
import collections, re, sys
lines = open(sys.argv[2]).read().split("\n")
def function_of(n):  # the function whose definition precedes line n
    for i in range(n - 1, -1, -1):
        m = re.match(r".*\b(\w+)\(.*\)\s*\{", lines[i])
        if m and not lines[i].startswith(" "):
            return m.group(1)
    return "?"
runs = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
exp = None
for row in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in row.strip().split("\t")[1:] if "=" in kv)
    if row.startswith("experiment"):
        exp = (f["selected"], float(f["speedup"]), int(f["duration"]))
    elif row.startswith("throughput-point") and exp:
        acc = runs[exp[0]][exp[1]]
        acc[0] += int(f["delta"]); acc[1] += exp[2]
        exp = None
out = []
for line, by_speedup in runs.items():
    base = by_speedup.get(0.0)
    if not base or base[0] == 0:
        continue
    period0 = base[1] / base[0]
    pts = [(s, 1 - (d / n) / period0) for s, (n, d) in by_speedup.items() if s > 0 and n > 0]
    if not pts:
        continue
    slope = sum(s * y for s, y in pts) / sum(s * s for s, _ in pts)
    n = int(line.rsplit(":", 1)[1])
    out.append((slope, line.rsplit("/", 1)[1], function_of(n), len(pts) + 1))
out.sort(reverse=True)
print(f"coz (slow_consumer, progress per item, load {sys.argv[3]}): "
      + "; ".join(f"{l} in {fn}: pipeline speed-up {s:+.2f} per unit of line speed-up "
                  f"({k} speed-ups)" for s, l, fn, k in out[:4]) if out else
      "coz: no line had experiments at speed-up 0 and above")
PY
  else
    echo "coz: the progress-point program did not build (coz.h from coz-profiler?)"
  fi
else
  echo "coz: not installed (Debian's coz-profiler)"
fi
