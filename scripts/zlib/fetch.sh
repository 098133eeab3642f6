#!/usr/bin/env bash
# Downloads Debian's zlib source package (bookworm: 1.2.13) into third_party_src/zlib/src,
# with a private apt configuration that holds a deb-src entry (as scripts/leveldb/fetch.sh):
# the system's sources stay as they are.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/third_party_src/zlib"
if [ -f "$dest/src/zlib.h" ]; then echo "zlib source already in $dest/src"; exit 0; fi
mkdir -p "$dest/apt/lists/partial" "$dest/apt/sources.list.d"
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
apt-get "${opts[@]}" source --download-only zlib
dpkg-source -x --no-check zlib_*.dsc src-tmp >/dev/null
rm -rf src && mv src-tmp src
echo "zlib source in $dest/src"
