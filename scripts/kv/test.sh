#!/usr/bin/env bash
# Runs kv's integration tests (tests/python/test_kv.py) against the apps scripts/kv/build.sh
# built. Never skips: a missing app or tool fails the run.
#   scripts/kv/test.sh [pytest options...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
for mode in clock flag; do
  app="$root/build/lib/quanta/apps/kv-$mode.so"
  [ -f "$app" ] || { echo "kv/test.sh: missing $app (run scripts/kv/build.sh)" >&2; exit 2; }
done
cd "$root"
exec "$root/.venv/bin/python" -m pytest -q tests/python/test_kv.py "$@"
