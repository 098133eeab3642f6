#!/usr/bin/env bash
# Builds the co-location app (apps/colocation: LC GETs and BE zlib compression) once per
# probe kind, each linked with Debian's zlib built by the wrappers in the same mode
# (scripts/zlib/build.sh, which also runs zlib's own tests):
#   build/lib/quanta/apps/colocation-{clock,flag,none}.so
#   scripts/colocation/build.sh [modes...]   (default: clock flag none)
# Exit 2 when quanta's build is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
qbuild="${QUANTA_BUILD_DIR:-$root/build}"
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(clock flag none)
for f in "$qbuild/bin/quanta-clang" "$qbuild/lib/libquanta-pass.so"; do
  [ -e "$f" ] || { echo "colocation/build.sh: missing $f (run scripts/build.sh first)" >&2; exit 2; }
done
mkdir -p "$qbuild/lib/quanta/apps"
for mode in "${modes[@]}"; do
  case "$mode" in clock|flag|none) ;; *) echo "colocation/build.sh: unknown mode '$mode' (clock, flag or none)" >&2; exit 2 ;; esac
  zdir="$root/third_party_src/zlib/build-$mode"
  [ -f "$zdir/libz.a" ] || "$root/scripts/zlib/build.sh" "$mode" "$qbuild"
  out="$qbuild/lib/quanta/apps/colocation-$mode.so"
  # QUANTA_NO_RUNTIME: the app's probes resolve to the serving process's runtime.
  # --exclude-libs: zlib's symbols stay inside the object.
  QUANTA_MODE="$mode" QUANTA_NO_RUNTIME=1 "$qbuild/bin/quanta-clang" -O2 -g -fPIC -fvisibility=hidden -Wall -Werror \
    -std=c11 -I"$root/include" -I"$zdir" -shared -o "$out" "$root/apps/colocation/colocation.c" "$zdir/libz.a" \
    -Wl,--exclude-libs,ALL
  echo "colocation/build.sh: built $out"
done
