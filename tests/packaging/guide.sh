#!/usr/bin/env bash
# Runs docs/GETTING-STARTED.md as written: every ```sh block, in order, in one shell, in an
# empty directory with its own HOME; every block whose info string has file=NAME is written
# to NAME first. ```text blocks are output shown to the reader; any other block is an error,
# so a command cannot be added to the guide without being run. PERFDM_BUILD is the built
# tree the guide's `perfdm/build` stands for. Then checks what the guide promises: perfdm
# --version, a live histogram of request.latency_us, no error reply, no segment left.
# usage: guide.sh GUIDE BUILD_DIR VERSION WORK_DIR
set -euo pipefail
guide="$1" build="$2" version="$3" work="$4"
rm -rf "$work"
mkdir -p "$work/home" "$work/perfdm"
ln -s "$(cd "$build" && pwd)" "$work/perfdm/build"
fail() {
  echo "guide: $*" >&2
  exit 1
}

# The guide's blocks: files written as they come, commands gathered into one script.
awk -v work="$work" '
  function die(m) { print "guide: " FILENAME ":" NR ": " m > "/dev/stderr"; failed = 1; exit 1 }
  /^```/ && !inside {
    inside = 1; info = substr($0, 4); kind = ""; file = ""
    if (match(info, /file=[^ ]+/)) { kind = "file"; file = substr(info, RSTART + 5, RLENGTH - 5) }
    else if (info == "sh") kind = "sh"
    else if (info == "text") kind = "text"
    else die("a block must be ```sh (run), ```LANG file=NAME (written) or ```text (shown): " $0)
    if (kind == "file") {
      if (file ~ /(^\/|\.\.)/) die("file= must be a relative path inside the work directory")
      path = work "/" file; sub(/\/[^\/]*$/, "", path); system("mkdir -p \"" path "\"")
      printf "" > (work "/" file)
    }
    if (kind == "sh") { blocks++; print "# ---- block " blocks " (line " NR ")" > (work "/guide-commands.sh") }
    next
  }
  /^```/ && inside { inside = 0; if (kind == "file") close(work "/" file); next }
  inside && kind == "file" { print > (work "/" file); next }
  inside && kind == "sh" { print > (work "/guide-commands.sh") }
  END { if (failed) exit 1; if (inside) die("a block is not closed"); if (!blocks) die("no ```sh block") }
' "$guide" || fail "cannot extract the guide's blocks"
[ -f "$work/guide-commands.sh" ] || fail "no commands"

# The guide's commands in their own process group (the program it starts in the background
# is stopped with it), with errors fatal as a reader would notice them.
cd "$work"
HOME="$work/home" setsid bash -euo pipefail "$work/guide-commands.sh" >"$work/guide.out" 2>&1 &
runner=$!
status=0
wait "$runner" || status=$?
kill -- -"$runner" 2>/dev/null || true
[ "$status" -eq 0 ] || fail "the guide's commands failed ($status): $(tail -n 30 "$work/guide.out")"

grep -qx "perfdm $version" "$work/guide.out" || fail "no 'perfdm $version' from perfdm --version"
[ -x "$work/home/.local/bin/perfdm" ] || fail "perfdm was not installed into ~/.local"
events=$(grep -c '^  stream 0 data: MI 0 GLOBAL buckets ' "$work/session.txt" || true)
[ "$events" -ge 3 ] || fail "only $events live histogram events: $(cat "$work/session.txt")"
# A first bucket may be empty (nan) on a loaded machine: some bucket holds the latency.
grep -Eq '^  = histogram of MI 0 from 0 s, 0.2 s per bucket: (.*, )?[0-9]+(-[0-9]+)?=1[0-4][0-9](\.[0-9]+)?(,|$)' "$work/session.txt" ||
  fail "no histogram of request.latency_us (100..149 us): $(cat "$work/session.txt")"
! grep -q '^  ! ' "$work/session.txt" || fail "an error reply: $(grep '^  ! ' "$work/session.txt")"
pid_line="$(grep -o "PROCESS PID='[0-9]*'" "$work/session.txt" | head -n1)"
pid="${pid_line//[^0-9]/}"
if ls /dev/shm | grep -q "^perfdm\.$pid\."; then fail "segments left for $pid"; fi
grep -Eq '^\(the program \(pid [0-9]+\) exited with status 0 after ' "$work/search.txt" ||
  fail "perfdm search did not report the program's end: $(cat "$work/search.txt")"
grep -Eq '^(findings, ranked:|no finding: )' "$work/search.txt" ||
  fail "perfdm search printed no findings section: $(cat "$work/search.txt")"
echo "guide: every command of $(basename "$guide") ran; $events live histogram events"
