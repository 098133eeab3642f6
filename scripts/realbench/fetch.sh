#!/usr/bin/env bash
# Downloads Debian (bookworm) source packages for the real-program benchmark
# (bench/real_programs.py) into third_party_src/realbench/<package>/src, with a private
# apt configuration holding a deb-src entry (as scripts/leveldb/fetch.sh does), so the
# system's sources stay as they are.
#   scripts/realbench/fetch.sh [package ...]   (default: every package the benchmark uses)
# LevelDB comes from scripts/leveldb/fetch.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base="$root/third_party_src/realbench"
packages=("$@")
((${#packages[@]})) || packages=(zlib lz4 bzip2 xz-utils sqlite3 lua5.4 fairymax)
apt_dir="$base/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/sources.list.d"
cat > "$apt_dir/sources.list.d/debian-src.sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
opts=(-o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$apt_dir/sources.list.d"
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
updated=0
for p in "${packages[@]}"; do
  dest="$base/$p"
  if [ -f "$dest/src/debian/control" ]; then echo "$p source already in $dest/src"; continue; fi
  if [ "$updated" = 0 ]; then apt-get "${opts[@]}" update -qq; updated=1; fi
  mkdir -p "$dest" && cd "$dest"
  rm -f ./*.dsc
  apt-get "${opts[@]}" source --download-only "$p" >/dev/null \
    || { echo "fetch.sh: no Debian source package '$p'" >&2; exit 2; }
  rm -rf src-tmp
  dpkg-source -x --no-check ./*.dsc src-tmp >/dev/null
  rm -rf src && mv src-tmp src
  echo "$p source in $dest/src"
done
