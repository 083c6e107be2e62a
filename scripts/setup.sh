#!/usr/bin/env bash
# Installs whatever perfdm needs that this Debian 12 machine lacks; does nothing when all
# of it is there. Safe to run again.
set -euo pipefail

# clang, libclang-rt-14-dev (libFuzzer, sanitizer runtimes) and llvm-14 (llvm-symbolizer, for
# readable sanitizer reports): scripts/fuzz.sh.
packages=(g++ cmake make libcaf-dev libboost-dev librapidxml-dev catch2 zlib1g-dev libzstd-dev
          libcli11-dev libbenchmark-dev clang libclang-rt-14-dev llvm-14)
# Frames (docs/FRAMES.md): libelf/libdw read executables' symbols; elfutils for eu-stack;
# LTTng-UST and lttng-tools are the frame-writing benchmark's peer.
packages+=(libelf-dev libdw-dev elfutils liblttng-ust-dev lttng-tools)
# Remote clients over TLS: libcaf-openssl0.17 comes with libcaf-dev; the tests make their
# certificates with the openssl command; cli/openssl_error_queue.cpp builds against libssl.
packages+=(openssl libssl-dev)
# Packaging (cmake/install.cmake): help2man writes the man page from `perfdm --help`; CPack's
# Debian package takes its Depends: from dpkg-dev's dpkg-shlibdeps; the make integration
# example and its test use pkg-config.
packages+=(help2man dpkg-dev pkg-config)
# The dashboard (engine --http, docs/DASHBOARD.md): its chart libraries come from npm (below);
# its tests drive Debian's chromium with puppeteer-core (npm, below) and scrape /metrics with a
# real Prometheus (promtool checks the exposition). Node.js may come from elsewhere.
packages+=(chromium prometheus)
# perfdm top (cli/top_command.cpp) draws with ncurses; its test runs it in tmux. The search
# benchmark's peer is perf (bench/RESULTS.md).
packages+=(libncurses-dev tmux linux-perf)
# pprof files (perfdm log --pprof, docs/FLAME.md): protobuf, and pprof's profile.proto from
# golang-github-google-pprof-dev (compiled at build time from where Debian installs it); Go's
# own `go tool pprof` (golang-go) reads them in tests/profile/go_pprof.sh.
packages+=(libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev golang-go)
# Darshan's logs (darshan/, perfdm log FILE.darshan): bzip2-compressed regions; CSV tables are
# checked with pandas (python3-pandas).
packages+=(libbz2-dev python3-pandas)
# perfdm report (ioreport/) writes its page's data with nlohmann's JSON library.
packages+=(nlohmann-json3-dev)
# The Performance Consultant's live tests on programs nobody here wrote
# (tests/pc_real_programs_live_test.cpp): Debian's xz, sqlite3 and python3 (the GIL test needs
# /usr/bin/python3 itself, not a python from elsewhere); binutils' strip, objcopy and nm and
# g++ build the stripped and split-debug programs of tests/native_names_test.cpp.
packages+=(xz-utils sqlite3 python3 binutils g++)
# The search's rules on multi-threaded programs (tests/pc_rules_live_test.cpp): zstd -T2 and
# node besides. perfdm io (docs/IO.md): the kernel's io_uring and aio headers (linux-libc-dev)
# for the calls it counts; the programs scripts/compare-darshan.sh runs under Darshan and
# perfdm (fio, sqlite3, gzip, tar, h5repack, nccopy), and Open MPI for MPI programs; autoconf,
# automake and libtool build the Darshan peer from its tarball. JSON is written with
# nlohmann-json3-dev.
packages+=(zstd nlohmann-json3-dev linux-libc-dev fio hdf5-tools netcdf-bin gzip tar openmpi-bin
           libopenmpi-dev autoconf automake libtool)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The dashboard's chart libraries (Chart.js, d3, d3-flame-graph) into web/node_modules as the
# committed web/package-lock.json says; served from there in a build, installed by `cmake
# --install`. Run again when a file web/package.json's perfdm.page lists is missing.
web="$(dirname "$0")/../web"
if ! (cd "$web" && node -e '
  const fs = require("fs");
  for (const f of require("./package.json").perfdm.page)
    if (!fs.existsSync("node_modules/" + f)) process.exit(1);'); then
  echo "setup: npm ci in web"
  (cd "$web" && npm ci --no-audit --no-fund --silent)
fi

# puppeteer-core for the dashboard's browser test, into tests/browser/node_modules as the
# committed package-lock.json says (it drives /usr/bin/chromium: no browser is downloaded).
browser_tests="$(dirname "$0")/../tests/browser"
if [ ! -d "$browser_tests/node_modules/puppeteer-core" ]; then
  echo "setup: npm ci in tests/browser"
  (cd "$browser_tests" && npm ci --no-audit --no-fund --silent)
fi
