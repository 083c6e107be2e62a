#!/bin/sh
# Runs a test's command once what it needs is here; otherwise says SKIPPED and why and exits
# 77, which ctest counts as skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt), never as
# passed. The shell and node tests' side of tests/skip_test.hpp.
# usage: needs.sh NEED... -- COMMAND [ARGS...]
#   NEED: a program looked up in PATH (node, go, tmux), or an absolute path that must exist
#   (/usr/bin/chromium, a package under node_modules).
missing=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
    /*) [ -e "$1" ] || missing="$missing $1" ;;
    *) command -v "$1" >/dev/null 2>&1 || missing="$missing $1" ;;
  esac
  shift
done
if [ $# -lt 2 ]; then
  echo "needs.sh: usage: needs.sh NEED... -- COMMAND [ARGS...]" >&2
  exit 2
fi
shift
if [ -n "$missing" ]; then
  echo "SKIPPED: missing here (scripts/setup.sh installs it):$missing"
  exit 77
fi
exec "$@"
