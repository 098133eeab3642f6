#!/usr/bin/env bash
# Where each TCP server's CPU goes at one rate: memcached (one worker thread) and quanta's
# one-thread server (kvcache), each pinned to CPU 1 in turn, take the same open-loop GETs
# from `quanta load` on CPU 0 while `perf record -e cpu-clock -C 1` samples CPU 1 (the
# server and the kernel work done there). Prints, per server, the samples by thread and
# object and the top symbols (the servers' threads only); both servers answer the same
# requests, so sample counts compare directly (cpu-clock: this VM has no PMU).
#   experiments/tcp_cpu_profile.sh [RATE_RPS (default 120000)] [DURATION_S (default 4)]
# The perf data stays in $OUT (default /tmp/quanta-tcp-profile) for `perf report -i`.
# BASE_BUILD=<build dir> also profiles that build's quanta (as quanta-base, after this one's),
# and the last lines give each server's samples per 1,000 requests answered, user and kernel.
set -euo pipefail
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
[ $# -le 2 ] || { echo "tcp_cpu_profile.sh: at most two arguments, RATE_RPS and DURATION_S (got $#)" >&2; exit 2; }
rate="${1:-120000}"; dur="${2:-4}"
[[ "$rate" =~ ^[1-9][0-9]*$ ]] || { echo "tcp_cpu_profile.sh: RATE_RPS must be a positive whole number, got '$rate'" >&2; exit 2; }
[[ "$dur" =~ ^[1-9][0-9]*$ ]] || { echo "tcp_cpu_profile.sh: DURATION_S must be a positive whole number, got '$dur'" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"; B="$root/build"; out="${OUT:-/tmp/quanta-tcp-profile}"
for t in perf memcached taskset; do command -v $t >/dev/null || { echo "tcp_cpu_profile.sh: $t is not installed" >&2; exit 1; }; done
[ -x "$B/bin/quanta" ] || { echo "tcp_cpu_profile.sh: $B/bin/quanta is missing (scripts/build.sh)" >&2; exit 1; }
base="${BASE_BUILD:-}"
if [ -n "$base" ] && [ ! -x "$base/bin/quanta" -o ! -f "$base/lib/quanta/apps/kvcache-clock.so" ]; then
  echo "tcp_cpu_profile.sh: BASE_BUILD=$base has no bin/quanta and lib/quanta/apps/kvcache-clock.so" >&2; exit 2
fi
mkdir -p "$out"
keys=10000
port=$("$root/.venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
load() {
  "$B/bin/quanta" load --app "$B/lib/quanta/apps/kvcache-plain.so" --app-config "keys=$keys,get=1" \
    --target "tcp://127.0.0.1:$port" --rate-rps "$rate" --duration-s "$dur" --connections 4 --timeout-ms 1000 \
    --cpu 0 --format json --no-progress > "$out/load-$1.json"
}
profile() {  # NAME: perf on CPU 1 for the load's duration
  perf record -q -e cpu-clock -C 1 -o "$out/perf-$1.data" -- sleep $((dur + 1)) 2>/dev/null & local pr=$!
  load "$1"; wait $pr
}
user=(); [ "$(id -u)" = 0 ] && user=(-u root)
taskset -c 1 memcached -t 1 -l 127.0.0.1 -p "$port" -U 0 -m 256 "${user[@]}" & mc=$!
trap 'kill $mc 2>/dev/null || true' EXIT
# kvcache's keys and values, as experiments/memcached_vs_kvcache.py loads them.
"$root/.venv/bin/python" -c "import sys; sys.path.insert(0, '$root/experiments')
from memcached_vs_kvcache import preload_memcached, wait_for_tcp
wait_for_tcp($port); preload_memcached($port, $keys, 64)"
profile memcached; kill $mc; wait $mc 2>/dev/null || true
serve_quanta() {  # NAME BUILD: the one-thread server of BUILD, profiled as NAME
  taskset -c 1 "$2/bin/quanta" serve --app "$2/lib/quanta/apps/kvcache-clock.so" --app-config "keys=$keys,value_bytes=64" \
    --listen "tcp://127.0.0.1:$port" --dispatcher-only --idle block --format json > "$out/serve-$1.json" 2>&1 & q=$!
  trap 'kill $q 2>/dev/null || true' EXIT
  for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
  profile "$1"; kill -INT $q; wait $q 2>/dev/null || true
}
servers=(memcached quanta)
serve_quanta quanta "$B"
if [ -n "$base" ]; then serve_quanta quanta-base "$base"; servers+=(quanta-base); fi
set +o pipefail  # head closes the report's pipe early
for s in "${servers[@]}"; do
  echo "== $s at $rate rps for $dur s: samples on CPU 1 by thread and object"
  perf report -i "$out/perf-$s.data" --stdio -n --sort comm,dso --comm "$([ $s = memcached ] && echo mc-worker,mc-lrumaint || echo quanta)" 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
  echo "-- top symbols"
  perf report -i "$out/perf-$s.data" --stdio -n --sort dso,sym --comm "$([ $s = memcached ] && echo mc-worker,mc-lrumaint || echo quanta)" 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15
done
echo "== samples on CPU 1 per 1,000 requests answered (the servers' threads; user = outside the kernel)"
for s in "${servers[@]}"; do
  comms="$([ $s = memcached ] && echo mc-worker,mc-lrumaint || echo quanta)"
  answered=$("$root/.venv/bin/python" -c "import json; print(json.load(open('$out/load-$s.json'))['client']['answered'])")
  perf report -i "$out/perf-$s.data" --stdio -n --sort dso --comm "$comms" 2>/dev/null | grep -v '^#' | grep -v '^$' |
    awk -v s="$s" -v n="$answered" '{ if ($3 == "[kernel.kallsyms]") k += $2; else u += $2 }
      END { if (n > 0) printf "%-12s %8d answered  user %7.1f  kernel %7.1f  all %7.1f\n", s, n, 1000*u/n, 1000*k/n, 1000*(u+k)/n }'
done
