#!/usr/bin/env bash
# Sets up a fresh machine, builds, and runs every test: unit, pass, integration and
# command-line tests, LevelDB's test suite on instrumented builds, the kv server on them,
# then the unit and integration tests again under ASan + UBSan.
# Tests that spin every CPU run one at a time (RUN_SERIAL); the rest run in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")

# Real code: LevelDB (Debian's source package) built with the compiler wrappers in clock
# and flag modes, and its own test suite run on each build.
for mode in clock flag; do
  bash scripts/leveldb/build.sh "$mode"
  bash scripts/leveldb/test.sh "$mode"
done
# kv: the key-value server on those LevelDB builds (apps/kv), and its integration tests.
bash scripts/kv/build.sh clock flag
bash scripts/kv/test.sh

bash scripts/build.sh --sanitize
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$(nproc)")
echo "test.sh: all tests passed (plain and sanitized builds)"
