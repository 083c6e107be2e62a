#!/usr/bin/env bash
# `perfdm top -- pc_cpu` in a real terminal: tmux (80x24) runs it, capture-pane reads the
# screen. Checks: the hot function tokenize is on the on-CPU screen, the keys switch views
# (t: threads with the main thread, f: findings), q quits cleanly (exit 0, the terminal
# restored, the program ended), all within a few seconds.
# usage: top_tmux.sh PERFDM PC_CPU
set -euo pipefail
perfdm="$1" pc_cpu="$2"
sock="perfdm-top-test-$$"
session=top
tmux_() { tmux -L "$sock" "$@"; }
cleanup() { tmux_ kill-server 2>/dev/null || true; }
trap cleanup EXIT
fail() {
  echo "top_tmux: $*" >&2
  echo "--- screen:" >&2
  tmux_ capture-pane -p -t "$session" >&2 || true
  exit 1
}
status_file="$(mktemp)"
# A tmux server can end while it starts ("server exited unexpectedly", seen once on a loaded
# machine, before perfdm ran at all): that is tmux's, so it is tried again, at most three times.
for attempt in 1 2 3; do
  if tmux_ -f /dev/null new-session -d -s "$session" -x 80 -y 24 \
    "LANG=C.UTF-8 '$perfdm' top --checktime 5 -- '$pc_cpu' 30; echo \"exit=\$?\" > '$status_file'; sleep 30"; then
    break
  fi
  [ "$attempt" -lt 3 ] || fail "tmux could not start a session (3 tries)"
  tmux_ kill-server 2>/dev/null || true
  sleep 1
done

# wait_for PATTERN SECONDS: until the screen shows PATTERN (extended regex).
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    if tmux_ capture-pane -p -t "$session" | grep -Eq "$1"; then return 0; fi
    sleep 0.2
  done
  fail "no '$1' on the screen within $2 s"
}

wait_for 'perfdm top' 20
wait_for '\[c\]on-CPU' 5
# The hottest function on-CPU, the first row under the header, is tokenize (demangled: the
# profile names C++ functions in full, "(anonymous namespace)::tokenize(std::…").
deadline=$((SECONDS + 20))
until tmux_ capture-pane -p -t "$session" | grep -A1 '^  SELF   TOTAL  FUNCTION' | tail -n 1 |
  grep -Eq '^ *[0-9.]+% +[0-9.]+%  .*tokenize'; do
  [ $SECONDS -lt $deadline ] || fail "tokenize is not the hottest function on screen within 20 s"
  sleep 0.2
done
screen="$(tmux_ capture-pane -p -t "$session")"
# Columns, not bytes: the findings' em dashes are three bytes each.
width="$(printf '%s\n' "$screen" | LC_ALL=C.UTF-8 wc -L)"
[ "$width" -le 80 ] || fail "a line wider than 80 columns ($width)"
tmux_ send-keys -t "$session" t
wait_for '\[t\]threads' 5
wait_for 'pc_cpu\{[0-9]+\}' 5
tmux_ send-keys -t "$session" o
wait_for '\[o\]off-CPU' 5
wait_for 'blocked samples' 5
tmux_ send-keys -t "$session" q
deadline=$((SECONDS + 10))
while [ ! -s "$status_file" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
[ -s "$status_file" ] || fail "perfdm top did not quit on q"
grep -qx 'exit=0' "$status_file" || fail "perfdm top quit with $(cat "$status_file")"
! pgrep -f "^$pc_cpu 30\$" >/dev/null || fail "pc_cpu still runs after quit"
rm -f "$status_file"
echo "top_tmux: tokenize on screen, views switched, clean quit"
