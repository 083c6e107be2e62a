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

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
