#!/usr/bin/env bash
# Builds Debian's zlib (fetched by scripts/realbench/fetch.sh zlib) with quanta's compiler wrappers and runs zlib's own
# tests (`make test`) on the result.
#   scripts/zlib/build.sh clock|flag|none [quanta build dir, default build/]
# Output: third_party_src/zlib/build-<mode>/libz.a (position-independent, for apps that are
# shared objects) and probes-<mode>.txt there: the probe count per source file.
set -euo pipefail
mode="${1:?usage: build.sh clock|flag|none [quanta build dir]}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
qbuild="$(cd "${2:-$root/build}" && pwd)"
case "$mode" in clock|flag|none) ;; *) echo "build.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
for f in "$qbuild/bin/quanta-clang" "$qbuild/lib/libquanta-pass.so" "$qbuild/lib/libquanta.a"; do
  [ -e "$f" ] || { echo "build.sh: missing $f (build quanta first)" >&2; exit 2; }
done
src="$root/third_party_src/realbench/zlib/src"
[ -f "$src/zlib.h" ] || "$root/scripts/realbench/fetch.sh" zlib
out="$root/third_party_src/zlib/build-$mode"
mkdir -p "$(dirname "$out")"

# zlib's configure builds in the source tree: each mode gets its own copy.
rm -rf "$out" && cp -r "$src" "$out" && cd "$out"
export QUANTA_MODE="$mode" QUANTA_STATS=1
# The stats lines go to a file: configure reads any output on stderr as a failed check.
export QUANTA_STATS_FILE="$out/quanta-stats.log"
CC="$qbuild/bin/quanta-clang" CFLAGS="-O2 -fPIC" ./configure --static >configure.log 2>&1 \
  || { echo "build.sh: zlib's configure failed, see $out/configure.log" >&2; exit 1; }
: >"$QUANTA_STATS_FILE"   # configure's test compiles are not the library
make -j2 libz.a example minigzip >build.log 2>&1 || { echo "build.sh: build failed, see $out/build.log" >&2; exit 1; }
# zlib's own tests: example (deflate/inflate round trips, dictionaries, flushes) and
# minigzip compressing and decompressing a file.
make test >test.log 2>&1 || { echo "build.sh: zlib's tests failed on the $mode build, see $out/test.log" >&2; exit 1; }
grep -c "test OK" test.log >/dev/null || { echo "build.sh: zlib's tests printed no 'test OK', see $out/test.log" >&2; exit 1; }
grep -o 'quanta-stats: module=[^ ]* mode=[a-z]* functions=[0-9]* probes=[0-9]*' "$QUANTA_STATS_FILE" \
  | sed -E 's/quanta-stats: module=([^ ]*) .*functions=([0-9]+) probes=([0-9]+)/\1 \3 \2/' \
  | sort -u >"probes-$mode.txt" || true
awk -v m="$mode" '$1 !~ /example|minigzip/ { p += $2; f += $3; n++ }
  END { printf "zlib (%s): %d objects, %d functions, %d probes; zlib'\''s tests passed\n", m, n, f, p }' "probes-$mode.txt"
