#!/usr/bin/env bash
# Downloads Debian (bookworm) source packages for the real-program benchmark
# (bench/real_programs.py) into third_party_src/realbench/<package>/src
# (scripts/debian_source.sh: a private apt configuration, no change to the system's).
#   scripts/realbench/fetch.sh [package ...]   (default: every package the benchmark uses)
# LevelDB comes from scripts/leveldb/fetch.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base="$root/third_party_src/realbench"
packages=("$@")
((${#packages[@]})) || packages=(zlib lz4 bzip2 xz-utils sqlite3 lua5.4 fairymax)
for p in "${packages[@]}"; do
  if [ -f "$base/$p/src/debian/control" ]; then echo "$p source already in $base/$p/src"; continue; fi
  "$root/scripts/debian_source.sh" "$p" "$base/$p"
done
