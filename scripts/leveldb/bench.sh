#!/usr/bin/env bash
# db_bench readrandom and seekrandom, plain vs instrumented builds from build.sh; prints
# the median micros/op of N runs (default 5) per build and the overhead vs plain.
#   scripts/leveldb/bench.sh [runs] [modes...]   (default modes: clock flag)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
runs="${1:-5}"; shift || true
modes=("$@"); [ ${#modes[@]} -gt 0 ] || modes=(clock flag)
num=200000
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
declare -A med
for m in none "${modes[@]}"; do
  bin="$root/third_party_src/leveldb/build-$m/db_bench"
  [ -x "$bin" ] || { echo "bench.sh: missing $bin (build.sh $m)" >&2; exit 2; }
done
# Builds interleaved per round so that machine noise hits them alike.
for ((r = 0; r < runs; r++)); do
  for m in none "${modes[@]}"; do
    bin="$root/third_party_src/leveldb/build-$m/db_bench"
    rm -rf "$tmp/db"
    "$bin" --db="$tmp/db" --num=$num --benchmarks=fillrandom,readrandom,seekrandom --compression_ratio=1 \
      2>/dev/null | awk -v m="$m" '/^(readrandom|seekrandom)/ { print m, $1, $3 }' >> "$tmp/results"
  done
done
echo "db_bench num=$num runs=$runs (median micros/op)"
for b in readrandom seekrandom; do
  base=$(awk -v b=$b '$1=="none" && $2==b {print $3}' "$tmp/results" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
  printf "%-11s plain %.3f\n" "$b" "$base"
  for m in "${modes[@]}"; do
    v=$(awk -v b=$b -v m=$m '$1==m && $2==b {print $3}' "$tmp/results" | sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
    awk -v b=$b -v m=$m -v v=$v -v base=$base 'BEGIN { printf "%-11s %-5s %.3f  overhead %+.1f%%\n", b, m, v, 100 * (v / base - 1) }'
  done
done
