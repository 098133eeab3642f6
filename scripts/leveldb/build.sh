#!/usr/bin/env bash
# Builds LevelDB 1.23 (Debian source, see fetch.sh) with quanta's compiler wrappers.
#   scripts/leveldb/build.sh clock|flag|counter|none [quanta build dir, default build/]
# Output: third_party_src/leveldb/build-<mode>/ (libleveldb.a, the *_test programs, db_bench)
# and probes-<mode>.txt there: the probe count per source file (from QUANTA_STATS).
set -euo pipefail
mode="${1:?usage: build.sh clock|flag|counter|none [quanta build dir]}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
qbuild="$(cd "${2:-$root/build}" && pwd)"
case "$mode" in clock|flag|counter|none) ;; *) echo "build.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
for f in "$qbuild/bin/quanta-clang" "$qbuild/bin/quanta-clang++" "$qbuild/lib/libquanta-pass.so" "$qbuild/lib/libquanta.a"; do
  [ -e "$f" ] || { echo "build.sh: missing $f (build quanta first)" >&2; exit 2; }
done
src="$root/third_party_src/leveldb/src"
[ -f "$src/CMakeLists.txt" ] || "$root/scripts/leveldb/fetch.sh"
out="$root/third_party_src/leveldb/build-$mode"

export QUANTA_MODE="$mode" QUANTA_STATS=1
# A fresh configuration every time: when a cached one names another compiler, CMake wipes
# it and re-runs without the -D options below, i.e. without Release's -O3.
# Position-independent: the library is also linked into a shared-object app (apps/kv,
# scripts/kv/build.sh).
rm -rf "$out/CMakeCache.txt" "$out/CMakeFiles"
cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$qbuild/bin/quanta-clang" -DCMAKE_CXX_COMPILER="$qbuild/bin/quanta-clang++" \
  -DLEVELDB_BUILD_TESTS=ON -DLEVELDB_BUILD_BENCHMARKS=ON -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null
# Rebuild from scratch so that every object's probe count is in the log.
ninja -C "$out" -t clean >/dev/null
ninja -C "$out" -j2 2>&1 | tee "$out/build.log" | grep -E "error|FAILED" || true
[ -x "$out/db_test" ] && [ -x "$out/db_bench" ] || { echo "build.sh: build failed, see $out/build.log" >&2; exit 1; }

# One line per object: "<source> <probes>". The library is what a server would run.
grep -o 'quanta-stats: module=[^ ]* mode=[a-z]* functions=[0-9]* probes=[0-9]* lock_sites=[0-9]*' "$out/build.log" \
  | sed -E 's/quanta-stats: module=([^ ]*) .*functions=([0-9]+) probes=([0-9]+) lock_sites=([0-9]+)/\1 \3 \4 \2/' \
  | sort -u > "$out/probes-$mode.txt" || true
awk -v m="$mode" '
  $1 !~ /_test\.cc$|testutil|benchmarks\/|util\/testharness|gtest/ { p += $2; l += $3; f += $4; n++ }
  END { printf "leveldb library (%s): %d objects, %d functions, %d probes, %d lock sites\n", m, n, f, p, l }' \
  "$out/probes-$mode.txt"
