#!/usr/bin/env bash
# Runs the co-location app's tests (tests/python/test_colocation.py) against the builds
# scripts/colocation/build.sh made. Never skips: a missing app fails the run.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
for mode in clock flag none; do
  a="$root/build/lib/quanta/apps/colocation-$mode.so"
  [ -f "$a" ] || { echo "colocation/test.sh: missing $a (run scripts/colocation/build.sh)" >&2; exit 2; }
done
cd "$root"
exec "$root/.venv/bin/python" -m pytest -q tests/python/test_colocation.py "$@"
