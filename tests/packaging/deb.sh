#!/usr/bin/env bash
# The Debian package: cpack -G DEB writes perfdm_<version>_amd64.deb; its Depends: names the
# Debian libraries perfdm links (dpkg-shlibdeps); extracted into an empty root it holds the
# executable, the man page, the docs, the CMake package and the pkg-config file, and the
# extracted `perfdm --version` runs and says the version; the extracted `perfdm report` writes
# a page with the chart libraries inline.
# usage: deb.sh BUILD_DIR VERSION WORK_DIR
set -euo pipefail
build="$1" version="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "deb: $*" >&2
  exit 1
}

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$work/cpack.log")"
deb="$work/perfdm_${version}_amd64.deb"
[ -f "$deb" ] || fail "no $deb: $(ls "$work")"

[ "$(dpkg-deb -f "$deb" Package)" = perfdm ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version: $(dpkg-deb -f "$deb" Version)"
[ "$(dpkg-deb -f "$deb" Architecture)" = amd64 ] || fail "Architecture"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "deb: Depends: $depends"
# The libraries perfdm links, each by its Debian package (a versioned dependency).
for p in libc6 libstdc++6 libcaf-core0.17 libcaf-io0.17 libcaf-openssl0.17 libelf1 libdw1 \
         zlib1g libzstd1 libssl3; do
  [[ ", $depends," == *", $p ("* ]] || fail "Depends: lacks $p: $depends"
done
# Every package it names exists in Debian 12 as installed here (so apt can satisfy it).
for p in $(echo "$depends" | tr ',' '\n' | sed 's/(.*//; s/|.*//' | tr -d ' '); do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends: $p is not an installed Debian package"
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
for f in usr/bin/perfdm usr/share/man/man1/perfdm.1 usr/share/doc/perfdm/README.md \
         usr/share/doc/perfdm/GETTING-STARTED.md usr/share/doc/perfdm/FRAMES.md \
         usr/share/cmake/perfdm/perfdmConfig.cmake usr/share/cmake/perfdm/perfdmFrames.cmake \
         usr/share/pkgconfig/perfdm.pc usr/share/perfdm/demo.replay \
         usr/share/doc/perfdm/examples/integration/make/Makefile; do
  [ -f "$root/$f" ] || fail "the package lacks /$f"
done
[ "$("$root/usr/bin/perfdm" --version)" = "perfdm $version" ] || fail "perfdm --version"
grep -q '^\.SS perfdm gen$' "$root/usr/share/man/man1/perfdm.1" ||
  fail "the man page does not describe perfdm gen"
# perfdm report from the package alone: its page template, script and the chart libraries it
# writes inline come from /usr/share/perfdm/web.
for f in report/report.html report/report.js report/report.css lib/chart.js/chart.min.js lib/d3/d3.min.js; do
  [ -f "$root/usr/share/perfdm/web/$f" ] || fail "the package lacks /usr/share/perfdm/web/$f"
done
"$root/usr/bin/perfdm" report "$(dirname "$0")/../darshan/logs/mpi-io-test-x86_64-3.5.0.darshan" \
  -o "$work/report.html" >/dev/null 2>"$work/report.err" || fail "perfdm report: $(cat "$work/report.err")"
grep -q 'Chart.js v3' "$work/report.html" || fail "the report lacks Chart.js inline"
grep -q 'https://d3js.org v7' "$work/report.html" || fail "the report lacks d3 inline"
grep -q 'id="report-data"' "$work/report.html" || fail "the report lacks its data"
! grep -q 'perfdm:scripts' "$work/report.html" || fail "the report's template was not filled"
echo "deb: $(basename "$deb") checked"
