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

# Before CMake: run without the compiler, it would leave a cache that keeps failing (with
# an RPATH error) after the compiler is installed.
for tool in clang-19 clang++-19 cmake ninja; do
  if ! command -v "$tool" >/dev/null; then
    echo "scripts/build.sh: $tool not found; run scripts/setup.sh first (it installs what quanta needs)" >&2
    exit 2
  fi
done

cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "${extra[@]}" >/dev/null
ninja -C "$dir" -j"$(nproc)"
