#!/usr/bin/env bash
# perfdm io against Darshan 3.5.0 on Debian programs (bench/RESULTS.md): each program runs
# under Darshan's LD_PRELOAD library and under `perfdm io --darshan-only` on the same fresh
# input; darshan-parser prints both logs (perfdm's through --darshan-log); every counter of
# every POSIX, STDIO and MPI-IO record Darshan has is compared with perfdm's record of the same
# file (same module, rank and name):
# counts equal, timers and timestamps within measurement noise (the larger of 50 ms and half
# the value), record ids equal. Not part of the default test run (it needs Darshan built:
# ../shared/peers/build-darshan.sh PREFIX; the mpiio program needs the --mpi build).
# usage: scripts/compare-darshan.sh BUILD_DIR [DARSHAN_PREFIX] [PROGRAM...]
#   PROGRAM: fio-psync fio-sync fio-posixaio sqlite3 gzip tar-x h5repack nccopy (default: all),
#   or mpiio: BUILD_DIR/tests/mpiio_calls under `mpirun -np 4` (tests/io/mpiio_calls.c), with
#   Darshan's MPI build (DARSHAN_PREFIX, e.g. /opt/darshan-mpi) and its libdarshan.so preloaded
#   into the ranks, and under `perfdm io -- mpirun`; or mpiio-late: the same with each rank
#   writing a file and sleeping 1 s before MPI_Init (Darshan's times start at MPI_Init)
set -euo pipefail
build=$(cd "${1:?usage: compare-darshan.sh BUILD_DIR [DARSHAN_PREFIX] [PROGRAM...]}" && pwd)
darshan=${2:-/opt/darshan}
shift $(($# >= 2 ? 2 : 1))
programs=("$@")
((${#programs[@]})) || programs=(fio-psync fio-sync fio-posixaio sqlite3 gzip tar-x h5repack nccopy)
perfdm=$build/perfdm
parser=$darshan/bin/darshan-parser
for f in "$perfdm" "$parser" "$darshan/lib/libdarshan.so"; do
  [[ -e $f ]] || { echo "compare-darshan.sh: $f is missing" >&2; exit 1; }
done
work=$(mktemp -d /tmp/compare-darshan.XXXXXX)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

# Inputs every program reads, made once (without either library).
mkdir -p "$work/in"
head -c 8M /dev/urandom > "$work/in/big.bin"
mkdir -p "$work/in/tree"
for i in $(seq 1 200); do head -c $((i * 37)) /dev/urandom > "$work/in/tree/f$i"; done
tar cf "$work/in/tree.tar" -C "$work/in" tree
cat > "$work/in/sql" <<'SQL'
create table t(a integer, b text);
begin;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<20000)
INSERT INTO t SELECT x, printf('row %d', x) FROM c;
commit;
create index ti on t(b);
select count(*) from t;
SQL
cat > "$work/in/data.cdl" <<'CDL'
netcdf data { dimensions: x = 512 ; y = 512 ; variables: double v(x, y) ; data: v = 1.5 ; }
CDL
(cd "$work/in" && ncgen -o classic.nc data.cdl && ncgen -k nc4 -o data.h5 data.cdl)

# The command of a program, run in its own fresh directory $1.
command_of() {
  local p=$1 d=$2
  case $p in
    fio-psync) echo "fio --name=j --thread --filename=$d/fio.dat --size=8m --bs=4k --rw=randrw --ioengine=psync --fsync=16 --output=/dev/null" ;;
    fio-sync) echo "fio --name=j --thread --filename=$d/fio.dat --size=8m --bs=4k --rw=randrw --ioengine=sync --output=/dev/null" ;;
    fio-posixaio) echo "fio --name=j --thread --filename=$d/fio.dat --size=8m --bs=4k --rw=randrw --ioengine=posixaio --iodepth=4 --output=/dev/null" ;;
    sqlite3) echo "sqlite3 $d/t.db -init $work/in/sql .quit" ;;
    gzip) echo "gzip -k -f $d/big.bin" ;;
    tar-x) echo "tar xf $work/in/tree.tar -C $d" ;;
    h5repack) echo "h5repack -f GZIP=1 $d/data.h5 $d/out.h5" ;;
    nccopy) echo "nccopy $d/classic.nc $d/copy.nc" ;;
    mpiio) echo "mpirun --allow-run-as-root --oversubscribe -np 4 $build/tests/mpiio_calls $d" ;;
    mpiio-late) echo "mpirun --allow-run-as-root --oversubscribe -np 4 $build/tests/mpiio_calls $d 1" ;;
  esac
}

prepare() {
  local d=$1
  rm -rf "$d" && mkdir -p "$d"
  cp "$work/in/big.bin" "$work/in/data.h5" "$work/in/classic.nc" "$d/"
}

printf '| program | files Darshan counted | counters compared | equal | counts differing | timers beyond noise | files perfdm lacks |\n'
printf '|---|---|---|---|---|---|---|\n'
status=0
for p in "${programs[@]}"; do
  d=$work/run
  # Darshan.
  prepare "$d"; mkdir -p "$work/dlog"; rm -f "$work/dlog"/*
  if [[ $p == mpiio* ]]; then
    late=()
    [[ $p == mpiio-late ]] && late=(1)
    # Darshan's MPI library in the ranks only (mpirun itself is no rank of Darshan's job).
    (cd "$d" && env DARSHAN_LOG_DIR_PATH="$work/dlog" mpirun --allow-run-as-root --oversubscribe \
       -np 4 -x LD_PRELOAD="$darshan/lib/libdarshan.so" -x DARSHAN_LOG_DIR_PATH \
       "$build/tests/mpiio_calls" "$d" "${late[@]}" > /dev/null 2>&1) || true
  else
    (cd "$d" && env LD_PRELOAD="$darshan/lib/libdarshan.so" DARSHAN_ENABLE_NONMPI=1 \
       DARSHAN_LOG_DIR_PATH="$work/dlog" $(command_of "$p" "$d") > /dev/null 2>&1) || true
  fi
  "$parser" --show-incomplete "$work"/dlog/*.darshan > "$work/darshan.txt"
  # perfdm.
  prepare "$d"
  (cd "$d" && "$perfdm" io -q --darshan-only -o "$work/p.log" --darshan-log "$work/p.darshan" \
     -- $(command_of "$p" "$d") > /dev/null 2>&1) || true
  "$parser" --show-incomplete "$work/p.darshan" > "$work/perfdm.txt"
  python3 - "$p" "$work/darshan.txt" "$work/perfdm.txt" "$work/diffs-$p.txt" "$work/times-$p.txt" <<'PY' || status=1
import sys
prog, dfile, pfile, out, times_out = sys.argv[1:6]

import re

# Open MPI names its shared-file-pointer files after mpirun's pid (/tmp/ompi.HOST.UID/pid.P/...
# FILE_cid-C-P.sm), which differs between the two runs: such names are compared with the pids
# left out, and their record ids (hashes of the names) are not compared.
def same_file(name):
    n = re.sub(r"/pid\.\d+/", "/pid.N/", name)
    return re.sub(r"(_cid-(?:-1|\d+))-(\d{4,})\.sm$", r"\1-N.sm", n)

def records(path):
    recs = {}
    for line in open(path, errors="surrogateescape"):
        if line.startswith("#") or "\t" not in line:
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) < 6 or f[0] not in ("POSIX", "STDIO", "MPI-IO"):
            continue
        name = same_file(f[5])
        rid = f[2] if name == f[5] else "(pid in the name)"
        recs.setdefault((f[0], f[1], name), {})[f[3]] = (f[4], rid)
    return recs

def run_time(path):
    for line in open(path, errors="surrogateescape"):
        if line.startswith("# run time:"):
            return line.split(":", 1)[1].strip()
    return "?"

d, p = records(dfile), records(pfile)
stamp_gaps = []
firsts = [float("inf"), float("inf")]  # the earliest timestamp of each log
# Which call was longest, and which rank was fastest or slowest (with its bytes), follow timing.
timing = ("MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE", "FASTEST_RANK", "SLOWEST_RANK",
          "FASTEST_RANK_BYTES", "SLOWEST_RANK_BYTES")
compared = equal = counts = timers = lacking = 0
lines = []
for key, cs in sorted(d.items()):
    mine = p.get(key)
    if mine is None:
        lacking += 1
        lines.append(f"{key}: no perfdm record")
        continue
    for c, (v, rid) in cs.items():
        compared += 1
        w, mid = mine.get(c, ("<none>", ""))
        if rid != mid:
            counts += 1
            lines.append(f"{key} record id {rid} vs {mid}")
        if "_F_" in c or c.endswith(timing):
            a, b = float(v), float(w) if w != "<none>" else float("nan")
            if c.endswith("_TIMESTAMP") and a != 0 and b == b:
                stamp_gaps.append(a - b)
                firsts[0], firsts[1] = min(firsts[0], a), min(firsts[1], b)
            if abs(a - b) <= max(0.05, 0.5 * max(abs(a), abs(b))):
                equal += 1
            else:
                timers += 1
                lines.append(f"{key} {c}: darshan {v} perfdm {w} (timer)")
        elif v == w:
            equal += 1
        else:
            counts += 1
            lines.append(f"{key} {c}: darshan {v} perfdm {w}")
open(out, "w").write("\n".join(lines) + "\n")
# Where the two logs put time 0: their run times, and how far apart the same timestamps are.
stamp_gaps.sort()
gaps = (f"median {stamp_gaps[len(stamp_gaps) // 2]:+.4f} s, from {stamp_gaps[0]:+.4f} to "
        f"{stamp_gaps[-1]:+.4f} s" if stamp_gaps else "none")
open(times_out, "w").write(f"{prog}: run time darshan {run_time(dfile)} s, perfdm "
                           f"{run_time(pfile)} s; first timestamp darshan {firsts[0]:.6f} s, "
                           f"perfdm {firsts[1]:.6f} s; {len(stamp_gaps)} timestamps, darshan - "
                           f"perfdm: {gaps}\n")
print(f"| {prog} | {len(d)} | {compared} | {equal} | {counts} | {timers} | {lacking} |")
sys.exit(1 if counts or lacking else 0)
PY
done
echo
cat "$work"/times-*.txt 2>/dev/null || true
echo
echo "Differences, per program: $work/diffs-*.txt (kept only while this runs, or with KEEP=1)"
for f in "$work"/diffs-*.txt; do
  [[ -s $f ]] && [[ $(wc -l < "$f") -gt 1 ]] && { echo "--- $(basename "$f")"; head -20 "$f"; }
done
exit $status
