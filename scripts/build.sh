#!/usr/bin/env bash
# Configures and builds quanta into build/ (binaries in build/bin, libraries in build/lib).
# With --sanitize: AddressSanitizer + UBSan build into build-asan/ (tests only).
# With --tsan: ThreadSanitizer build into build-tsan/ (tests only).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
extra=()
if [[ "${1:-}" == "--sanitize" ]]; then
  dir=build-asan
  extra=(-DQUANTA_SANITIZE=ON -DQUANTA_BUILD_BENCH=OFF -DQUANTA_BUILD_PASS=OFF)
elif [[ "${1:-}" == "--tsan" ]]; then
  dir=build-tsan
  extra=(-DQUANTA_TSAN=ON -DQUANTA_BUILD_BENCH=OFF -DQUANTA_BUILD_PASS=OFF)
elif [[ -n "${1:-}" ]]; then
  echo "usage: scripts/build.sh [--sanitize | --tsan]" >&2
  exit 2
fi

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "${extra[@]}" >/dev/null
ninja -C "$dir" -j"$(nproc)"
