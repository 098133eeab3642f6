#!/usr/bin/env bash
# Installs every package quanta needs on a fresh Debian 12 machine.
# Safe to run again: apt-get skips what is already installed.
set -euo pipefail

packages=(
  clang-19 llvm-19-dev llvm-19-tools lld-19 libclang-rt-19-dev
  libboost-context-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev liburing-dev
  cmake ninja-build git make pkg-config
  dpkg-dev valgrind
  python3 python3-pytest python3-numpy python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
