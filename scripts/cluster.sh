#!/bin/bash
# A simulated cluster on one machine: one engine, RELAYS relays (0: the daemons
# connect straight to the engine) and N daemons, each a host of its own: its own UTS
# namespace (`unshare -u`) with hostname hostK, so /Machine/hostK differs per daemon, each
# watching a small workload of its own (a shell that counts, then sleeps a second). All traffic is on
# 127.0.0.1. Needs root (or CAP_SYS_ADMIN) for unshare -u; without it, --no-unshare keeps
# one hostname and names the daemons hostK anyway.
#
# Usage: scripts/cluster.sh N [--relays R [--top]] [--seconds S] [--enable METRIC] [--no-unshare]
#                           [--search S [--json]] [--checktime MS]
#   --top: one more level, as MRNet puts under a front end: the R relays connect to one top
#   relay, the only child of the engine (with --seconds, its CPU is printed too).
#   --search S: one Performance Consultant search over the whole cluster instead of an engine
#   (`perfdm search --publish … --daemons N --seconds S`): every daemon then watches one
#   examples/cluster/cluster_job process, and host N's misbehaves (waits for a lock); the
#   report, folded (`CPUbound … in N-1 of N processes; process hostN:…`), is printed at the
#   end (--json: as JSON). --checktime: the daemons' mean ms between stack samples (default
#   1000; 20 with --search).
#   --enable METRIC: a watcher (perfdm client --watch) enables METRIC over the whole program
#   ("/") once the daemons registered, as a person watching the cluster would.
#   With --seconds S it runs S seconds and then tears everything down (for benchmarks: it
#   prints the engine's CPU seconds over the run and how many daemons had registered);
#   without it, it prints the engine's address and the tree (TOPOLOGY) once the daemons are
#   in, and runs until Enter or Ctrl-C.
# PERFDM=path/to/perfdm (default build/perfdm next to this script). CLUSTER_KEEP=1 keeps the
# run's files (each daemon's and relay's stderr, the workloads' pids) and prints where.
set -u
N=${1:?usage: cluster.sh N [--relays R] [--seconds S] [--no-unshare]}
shift
RELAYS=0 TOP="" SECONDS_TO_RUN="" UNSHARE=1 ENABLE="" SEARCH="" JSON="" CHECKTIME=""
while [ $# -gt 0 ]; do
  case $1 in
    --search) SEARCH=$2; shift 2 ;;
    --json) JSON=--json; shift ;;
    --checktime) CHECKTIME=$2; shift 2 ;;
    --relays) RELAYS=$2; shift 2 ;;
    --top) TOP=1; shift ;;
    --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
    --no-unshare) UNSHARE=0; shift ;;
    --enable) ENABLE=$2; shift 2 ;;
    *) echo "cluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
PERFDM=${PERFDM:-$(cd "$(dirname "$0")/.." && pwd)/build/perfdm}
JOB=${CLUSTER_JOB:-$(dirname "$PERFDM")/examples/cluster_job}
[ -z "$CHECKTIME" ] && { [ -n "$SEARCH" ] && CHECKTIME=20 || CHECKTIME=1000; }
DIR=$(mktemp -d /tmp/perfdm_cluster.XXXXXX)
PIDS=()
teardown() {
  # Daemons and relays first (SIGTERM: they leave in bounded time), then the engine.
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 100); do
    alive=0
    for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for f in "$DIR"/work*.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done
  [ -n "${WATCHER:-}" ] && kill -TERM "$WATCHER" 2>/dev/null
  [ -n "${ENGINE:-}" ] && kill -TERM "$ENGINE" 2>/dev/null && wait "$ENGINE" 2>/dev/null
  [ -n "${CLUSTER_KEEP:-}" ] && echo "cluster: files kept in $DIR" >&2 || rm -rf "$DIR"
}
trap teardown EXIT
trap 'exit 130' INT TERM

port_of() {  # the port a process printed after "publishing on 127.0.0.1:"
  for _ in $(seq 200); do
    p=$(sed -n 's/.*publishing on 127.0.0.1:\([0-9]*\).*/\1/p' "$1" 2>/dev/null | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  echo "cluster.sh: no port in $1: $(cat "$1")" >&2
  return 1
}

if [ -n "$SEARCH" ]; then
  # The search is the engine: it waits for the N daemons, searches S seconds, and reports.
  "$PERFDM" search --publish 127.0.0.1:0 --daemons "$N" --daemons-wait 120 --seconds "$SEARCH" ${SEARCH_ARGS:-} \
    $JSON 2>"$DIR/engine.err" &
else
  "$PERFDM" engine --publish 127.0.0.1:0 --log "$DIR/engine.log" </dev/null 2>"$DIR/engine.err" &
fi
ENGINE=$!
EPORT=$(port_of "$DIR/engine.err") || exit 1
UPSTREAMS=()
RPORT=$EPORT  # where the relays connect: the engine, or with --top the top relay
if [ -n "$TOP" ]; then
  "$PERFDM" relay --upstream 127.0.0.1:$EPORT --publish 127.0.0.1:0 --name relay-top \
    2>"$DIR/relay-top.err" &
  TOPRELAY=$!
  PIDS+=($!)
  RPORT=$(port_of "$DIR/relay-top.err") || exit 1
fi
for r in $(seq "$RELAYS"); do
  "$PERFDM" relay --upstream 127.0.0.1:$RPORT --publish 127.0.0.1:0 --name "relay$r" \
    2>"$DIR/relay$r.err" &
  PIDS+=($!)
  UPSTREAMS+=("127.0.0.1:$(port_of "$DIR/relay$r.err")") || exit 1
done
[ "$RELAYS" -eq 0 ] && UPSTREAMS=("127.0.0.1:$EPORT")
# The workload: a shell that counts to 2000 then sleeps a second, over and over (a few ms of
# CPU a second, one fork a second). Its pid goes to a file so the teardown ends it too.
WORK='while :; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; sleep 1; done'
for k in $(seq "$N"); do
  up=${UPSTREAMS[$(( (k - 1) % ${#UPSTREAMS[@]} ))]}
  START="sh -c '$WORK'" AFTER=""
  if [ -n "$SEARCH" ]; then  # one process of a job per host; the last host's misbehaves
    # Niced: 64 busy processes on a small machine would starve the daemons being measured
    # (a niced thread that waits for the CPU is still running: CPUbound is unchanged). The
    # daemon watches it once it is cluster_job (a process is named when it is watched).
    START="'$JOB' 1 3600$([ "$k" -eq "$N" ] && [ "$N" -gt 1 ] && echo ' outlier') >/dev/null"
    AFTER="renice -n 19 -p \$! >/dev/null; sleep 0.2;"
  fi
  # The workload and its daemon share the host's namespace; the daemon replaces the shell
  # (exec), so SIGTERM to the recorded pid reaches the daemon itself.
  run="$START & echo \$! >'$DIR/work$k.pid'; $AFTER exec \"$PERFDM\" daemon --upstream $up --name host$k --checktime $CHECKTIME --pid \$!"
  if [ "$UNSHARE" -eq 1 ]; then
    unshare -u sh -c "hostname host$k; $run" >/dev/null 2>"$DIR/daemon$k.err" &
  else
    sh -c "$run" >/dev/null 2>"$DIR/daemon$k.err" &
  fi
  PIDS+=($!)
done
registered() { grep -l "forwarding to" "$DIR"/daemon*.err 2>/dev/null | wc -l; }
echo "cluster: engine 127.0.0.1:$EPORT, $RELAYS relays, $N daemons (files in $DIR)"
for _ in $(seq 300); do [ "$(registered)" -ge "$N" ] && break; sleep 0.1; done
if [ -n "$SEARCH" ]; then
  wait "$ENGINE"
  status=$?
  ENGINE=""
  grep -v "^perfdm: wrote the log" "$DIR/engine.err" >&2
  exit $status
fi
if [ -n "$ENABLE" ]; then
  # From a file: `perfdm client` reads its requests up to end of input before it runs them
  # (a FIFO held open never ends, so nothing was enabled), then keeps watching.
  printf 'STREAM\nENABLE STREAM=$STREAM METRIC=%s\n' "$ENABLE" >"$DIR/watcher.in"
  "$PERFDM" client 127.0.0.1:$EPORT --watch <"$DIR/watcher.in" >"$DIR/watcher.out" 2>&1 &
  WATCHER=$!
  for _ in $(seq 100); do grep -q "<MI ID=" "$DIR/watcher.out" 2>/dev/null && break; sleep 0.1; done
  grep -q "<MI ID=" "$DIR/watcher.out" || echo "cluster: the watcher did not enable $ENABLE: $(cat "$DIR/watcher.out")" >&2
fi
if [ -z "$SECONDS_TO_RUN" ]; then
  echo "cluster: $(registered) of $N daemons registered; the tree (TOPOLOGY):"
  "$PERFDM" client 127.0.0.1:$EPORT TOPOLOGY
  echo "cluster: Enter or Ctrl-C tears it down"
  read -r _
  exit 0
fi
ticks_of() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
start_ticks=$(ticks_of "$ENGINE")
top_start=$([ -n "$TOP" ] && ticks_of "$TOPRELAY" || echo 0)
start=$(date +%s.%N)
sleep "$SECONDS_TO_RUN"
end_ticks=$(ticks_of "$ENGINE")
top_end=$([ -n "$TOP" ] && ticks_of "$TOPRELAY" || echo 0)
elapsed=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%.3f", a - b}')
hz=$(getconf CLK_TCK)
echo "cluster: registered $(registered) of $N; engine CPU $(awk -v a="$end_ticks" -v b="$start_ticks" -v h="$hz" 'BEGIN{printf "%.3f", (a - b) / h}') s over ${elapsed} s$(
  [ -n "$TOP" ] && awk -v a="$top_end" -v b="$top_start" -v h="$hz" 'BEGIN{printf "; top relay CPU %.3f s", (a - b) / h}')"
