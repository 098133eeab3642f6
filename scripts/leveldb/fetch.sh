#!/usr/bin/env bash
# Downloads Debian's LevelDB source package (1.23) into third_party_src/leveldb/ with a
# private apt configuration holding a deb-src entry, so the system's sources stay as they
# are and no root is needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/third_party_src/leveldb"
if [ -d "$dest/src" ] && [ -f "$dest/src/CMakeLists.txt" ]; then
  echo "leveldb source already in $dest/src"; exit 0
fi
mkdir -p "$dest/apt/lists/partial" "$dest/apt/sources.list.d"
# Same mirror and suite as the system's binary packages.
cat > "$dest/apt/sources.list.d/debian-src.sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
opts=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$dest/apt/sources.list.d"
      -o "Dir::State::Lists=$dest/apt/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
apt-get "${opts[@]}" update -qq
cd "$dest"
apt-get "${opts[@]}" source --download-only leveldb
dpkg-source -x --no-check leveldb_*.dsc src-tmp >/dev/null
rm -rf src && mv src-tmp src
echo "leveldb source in $dest/src"
