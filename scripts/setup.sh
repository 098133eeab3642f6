#!/usr/bin/env bash
# Installs every package quanta needs on a fresh Debian 12 machine, and the Python
# packages the tests use into a virtualenv at .venv in the checkout (Debian's python
# refuses pip installs system-wide; CMake runs the Python tests with .venv/bin/python3).
# Safe to run again: apt-get and pip skip what is already installed.
set -euo pipefail

packages=(
  clang-19 llvm-19-dev llvm-19-tools lld-19 libclang-rt-19-dev
  libboost-context-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev zlib1g-dev liburing-dev
  memcached libmemcached-tools nutcracker
  cmake ninja-build git make pkg-config
  dpkg-dev valgrind
  tcl   # sqlite3's build makes its amalgamation with tclsh (scripts/realbench/)
  python3 python3-venv python3-pytest python3-numpy python3-matplotlib
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

# --system-site-packages: the venv keeps Debian's pytest, numpy and matplotlib.
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -x "$root/.venv/bin/python3" ] || /usr/bin/python3 -m venv --system-site-packages "$root/.venv"
"$root/.venv/bin/python3" -m pip install -q --disable-pip-version-check -r "$root/tests/python/requirements.txt"
echo "setup: python test packages present in .venv"
