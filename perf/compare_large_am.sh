#!/usr/bin/env bash
# Large active messages (ccs_am_send_large, accepted into a contiguous
# heap buffer by the target's header handler) against, same machine, both
# pinned one process per CPU:
#   - shm: ccs_put between the same two processes, from the same kind of
#     memory: heap to heap (cross-memory attach, put_bandwidth_cma) and
#     ccs_mem_alloc memory (mapped, put_bandwidth);
#   - the UCX plugin over UCX_TLS=posix,self,cma and over UCX_TLS=tcp:
#     ucx_perftest -t ucp_am_bw (UCX's own rendezvous for large AMs),
#     both streaming (am_large_stream: 16 in flight, no pause to drain).
# Each round takes turns: the peer, the large AM, the peer again; a round
# whose two peer figures differ by more than 15 % saw the VM change phase
# and is left out of that line: single runs of either side move by far
# more than the difference measured.
# At 1 MiB and 16 MiB; each line gives the median of the kept rounds'
# ratios (above 1: the large AM is faster), the number kept, the medians
# of their figures in MiB/s, and every kept ratio in brackets.
# Usage: [ROUNDS=n (default 5)] perf/compare_large_am.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-rel}
rounds=${ROUNDS:-5}
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
# keep <line> <peer> <large AM> <peer again>: one round's turn, if kept.
keep() {
  local kept ratio peer
  kept=$(turn_ratio "$2" "$3" "$4" higher)
  [ -n "$kept" ] || return 0
  read -r ratio peer <<< "$kept"
  record "$1" ratio "$ratio"
  record "$1" large "$3"
  record "$1" peer "$peer"
}
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  before=$(ccs shm ccs_perf_rma 'put_bandwidth(_cma)?/(1048576|16777216)/')
  out=$(ccs shm ccs_perf_am 'am_large_bandwidth/(1048576|16777216)/')
  after=$(ccs shm ccs_perf_rma 'put_bandwidth(_cma)?/(1048576|16777216)/')
  for s in $sizes; do
    keep shm-heap/$s "$(mib "$before" put_bandwidth_cma/$s/1)" "$(mib "$out" am_large_bandwidth/$s/0)" \
      "$(mib "$after" put_bandwidth_cma/$s/1)"
    keep shm-shared/$s "$(mib "$before" put_bandwidth/$s/0)" "$(mib "$out" am_large_bandwidth/$s/1)" \
      "$(mib "$after" put_bandwidth/$s/0)"
  done
  for tls in posix,self,cma tcp; do
    export UCX_TLS=$tls
    declare -A first=() again=()
    for s in $sizes; do first[$s]=$(ucx_perftest_figure ucp_am_bw "$s" $((s >= 16777216 ? 200 : 2000)) 20 5); done
    out=$(ccs ucx ccs_perf_am 'am_large_stream/(1048576|16777216)/')
    for s in $sizes; do again[$s]=$(ucx_perftest_figure ucp_am_bw "$s" $((s >= 16777216 ? 200 : 2000)) 20 5); done
    for s in $sizes; do keep ucx-$tls/$s "${first[$s]}" "$(mib "$out" am_large_stream/$s)" "${again[$s]}"; done
    unset UCX_TLS first again
  done
done
echo "large AM / peer, medians of the kept rounds of $rounds (MiB/s; every kept ratio in brackets)"
line() {
  local n
  n=$(awk -v w="$1" '$1 == w && $2 == "ratio"' "$figures" | wc -l)
  if [ "$n" -eq 0 ]; then
    printf '%-28s no round kept\n' "$1"
    return
  fi
  printf '%-28s ratio %.2f over %d  large AM %8.0f  %-4s %8.0f   [%s]\n' "$1" "$(median "$1" ratio)" "$n" \
    "$(median "$1" large)" "$2" "$(median "$1" peer)" "$(all "$1" ratio %.2f)"
}
for s in $sizes; do
  line shm-heap/$s put
  line shm-shared/$s put
  line ucx-posix,self,cma/$s ucx
  line ucx-tcp/$s ucx
done
