#!/usr/bin/env bash
# Runs LevelDB's own test suite on a build from build.sh.
#   scripts/leveldb/test.sh clock|flag|counter|none
set -euo pipefail
mode="${1:?usage: test.sh clock|flag|counter|none}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/third_party_src/leveldb/build-$mode"
[ -x "$out/db_test" ] || { echo "test.sh: build $mode first (build.sh $mode)" >&2; exit 2; }
cd "$out"
# Serially: the tests share one scratch directory (/tmp/leveldbtest-UID) and collide in parallel.
ctest --output-on-failure
