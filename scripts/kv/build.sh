#!/usr/bin/env bash
# Builds kv (apps/kv), the key-value server on LevelDB, as one app per probe kind:
#   build/lib/quanta/apps/kv-clock.so and kv-flag.so
# each compiled with the compiler wrappers in that mode and linked with LevelDB built in
# the same mode (scripts/leveldb/build.sh <mode>, position-independent), so that every
# line the server runs, LevelDB's included, carries the probes of its kind and LevelDB's
# mutexes are bracketed (docs/kv.md).
#   scripts/kv/build.sh [modes...]   (default: clock flag)
# Exit 2 when a prerequisite is missing (quanta's build, a LevelDB build).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
qbuild="$root/build"
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(clock flag)
for f in "$qbuild/bin/quanta-clang" "$qbuild/bin/quanta-clang++" "$qbuild/lib/libquanta-pass.so"; do
  [ -e "$f" ] || { echo "kv/build.sh: missing $f (run scripts/build.sh first)" >&2; exit 2; }
done
inc="$root/third_party_src/leveldb/src/include"
for mode in "${modes[@]}"; do
  case "$mode" in clock|flag) ;; *) echo "kv/build.sh: unknown mode '$mode' (clock or flag)" >&2; exit 2 ;; esac
  lib="$root/third_party_src/leveldb/build-$mode/libleveldb.a"
  cache="$root/third_party_src/leveldb/build-$mode/CMakeCache.txt"
  [ -f "$lib" ] && [ -f "$inc/leveldb/db.h" ] || {
    echo "kv/build.sh: missing $lib (run scripts/leveldb/build.sh $mode first)" >&2; exit 2; }
  grep -q '^CMAKE_POSITION_INDEPENDENT_CODE:[A-Z]*=ON' "$cache" || {
    echo "kv/build.sh: $lib is not position-independent (rebuild it: scripts/leveldb/build.sh $mode)" >&2; exit 2; }
  # What LevelDB's configure found and its library therefore calls.
  extra_libs=()
  grep -q '^HAVE_SNAPPY:INTERNAL=1' "$cache" && extra_libs+=(-lsnappy)
  grep -q '^HAVE_CRC32C:INTERNAL=1' "$cache" && extra_libs+=(-lcrc32c)
  grep -q '^HAVE_TCMALLOC:INTERNAL=1' "$cache" && extra_libs+=(-ltcmalloc)

  obj="$root/build/kv-$mode"
  mkdir -p "$obj" "$qbuild/lib/quanta/apps"
  export QUANTA_MODE="$mode"
  common=(-O2 -g -fPIC -fvisibility=hidden -Wall -Werror -I"$root/include" -I"$root/apps/memcached_text")
  "$qbuild/bin/quanta-clang" "${common[@]}" -std=c11 -c "$root/apps/memcached_text/memcached_text.c" \
    -o "$obj/memcached_text.o"
  objects=("$obj/memcached_text.o")
  for src in kv kv_commands kv_config kv_store kv_zipf; do
    "$qbuild/bin/quanta-clang++" "${common[@]}" -Wextra -std=c++17 -I"$inc" -c "$root/apps/kv/$src.cc" -o "$obj/$src.o"
    objects+=("$obj/$src.o")
  done
  # QUANTA_NO_RUNTIME: the app's quanta_* calls resolve to the serving process's runtime,
  # as kvcache's do; a second runtime in the object would have its own thread-locals.
  # --exclude-libs: LevelDB's symbols stay inside the object.
  out="$qbuild/lib/quanta/apps/kv-$mode.so"
  QUANTA_NO_RUNTIME=1 "$qbuild/bin/quanta-clang++" -shared -o "$out" "${objects[@]}" "$lib" \
    -Wl,--exclude-libs,ALL "${extra_libs[@]}" -pthread
  echo "kv/build.sh: built $out"
done
