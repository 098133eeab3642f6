#!/usr/bin/env bash
# Downloads Debian's LevelDB source package (1.23) into third_party_src/leveldb/src
# (scripts/debian_source.sh: a private apt configuration, no change to the system's).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/third_party_src/leveldb"
if [ -f "$dest/src/CMakeLists.txt" ]; then echo "leveldb source already in $dest/src"; exit 0; fi
exec "$root/scripts/debian_source.sh" leveldb "$dest"
