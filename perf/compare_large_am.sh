#!/usr/bin/env bash
# Large active messages (ccs_am_send_large, accepted into a contiguous
# heap buffer by the target's header handler) against, same machine, same
# run, both pinned one process per CPU, taking turns ROUNDS times (default 3):
#   - shm: ccs_put between the same two processes, from the same kind of
#     memory: heap to heap (cross-memory attach, put_bandwidth_cma) and
#     ccs_mem_alloc memory (mapped, put_bandwidth);
#   - the UCX plugin over UCX_TLS=posix,self,cma and over UCX_TLS=tcp:
#     ucx_perftest -t ucp_am_bw (UCX's own rendezvous for large AMs),
#     both streaming (am_large_stream: 16 in flight, no pause to drain).
# Over TCP ucp_am_bw at 1 MiB has two speeds on this VM (about 3.7 and 8
# GiB/s) from one run to the next: compare rounds, not medians alone.
# At 1 MiB and 16 MiB, in MiB/s; each line gives the medians, their ratio
# and every round's figure in brackets.
# Usage: [ROUNDS=n] perf/compare_large_am.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-rel}
rounds=${ROUNDS:-3}
[ -x "$build/bin/ccs_perf_am" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
port=$((20000 + RANDOM % 20000))
. perf/ucx_perftest.sh
# ccs <transport> <program> <filter>: Google Benchmark CSV, pinned.
ccs() {
  CCS_TRANSPORT=$1 "$build/bin/ccsrun" -n 2 --timeout 600 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
    "$build/bin/$2" --benchmark_filter="$3" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null
}
# mib <csv> <name>: that benchmark's bytes_per_second in MiB/s.
mib() { echo "$1" | awk -F, -v n="\"$2/real_time\"" '$1 == n {print $6 / 1048576}'; }
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
. perf/rounds.sh
sizes="1048576 16777216"
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  out=$(ccs shm ccs_perf_am 'am_large_bandwidth/(1048576|16777216)/')
  for s in $sizes; do
    record shm-heap/$s large "$(mib "$out" am_large_bandwidth/$s/0)"
    record shm-shared/$s large "$(mib "$out" am_large_bandwidth/$s/1)"
  done
  out=$(ccs shm ccs_perf_rma 'put_bandwidth(_cma)?/(1048576|16777216)/')
  for s in $sizes; do
    record shm-heap/$s put "$(mib "$out" put_bandwidth_cma/$s/1)"
    record shm-shared/$s put "$(mib "$out" put_bandwidth/$s/0)"
  done
  for tls in posix,self,cma tcp; do
    export UCX_TLS=$tls
    out=$(ccs ucx ccs_perf_am 'am_large_stream/(1048576|16777216)/')
    for s in $sizes; do
      record ucx-$tls/$s large "$(mib "$out" am_large_stream/$s)"
      record ucx-$tls/$s ucx "$(ucx_perftest_figure ucp_am_bw "$s" $((s >= 16777216 ? 200 : 2000)) 20 5)"
    done
    unset UCX_TLS
  done
done
echo "medians of $rounds rounds, MiB/s (every round in brackets)"
line() {
  awk -v w="$1" -v a="$(median "$1" large)" -v b="$(median "$1" "$2")" -v aa="$(all "$1" large)" \
      -v bb="$(all "$1" "$2")" -v who="$2" \
      'BEGIN{printf "%-26s large AM %8.0f  %-4s %8.0f  ratio %.2f   [%s] [%s]\n", w, a, who, b, a / b, aa, bb}'
}
for s in $sizes; do
  line shm-heap/$s put
  line shm-shared/$s put
  line ucx-posix,self,cma/$s ucx
  line ucx-tcp/$s ucx
done
