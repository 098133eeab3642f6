#!/usr/bin/env bash
# Downloads and unpacks one Debian (bookworm) source package into DEST/src, with a private
# apt configuration under DEST/apt that holds a deb-src entry, so the system's sources stay
# as they are. Used by scripts/leveldb/fetch.sh and scripts/realbench/fetch.sh.
#   scripts/debian_source.sh PACKAGE DEST
# Exit 2 when Debian has no such source package.
set -euo pipefail
pkg="${1:?usage: debian_source.sh PACKAGE DEST}"
dest="${2:?usage: debian_source.sh PACKAGE DEST}"
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
rm -f ./*.dsc
apt-get "${opts[@]}" source --download-only "$pkg" >/dev/null \
  || { echo "debian_source.sh: no Debian source package '$pkg'" >&2; exit 2; }
rm -rf src-tmp
dpkg-source -x --no-check ./*.dsc src-tmp >/dev/null
rm -rf src && mv src-tmp src
echo "$pkg source in $dest/src"
