#!/usr/bin/env bash
# CCS over its UCX plugin against raw UCX (ucx_perftest), same machine,
# same run, both pinned one process per CPU:
#   - AM latency (8 B) and AM bandwidth (1 MiB) over UCX_TLS=posix,self,cma
#     and over UCX_TLS=tcp (loopback): ucp_am_lat / ucp_am_bw;
#   - get of 8 B over UCX_TLS=tcp: ucp_get (UCX emulates RMA over TCP in
#     software) against CCS's get, which the core then carries in AMs;
#   - as root, AM latency over TCP between two network namespaces.
# The AM figures over one host are taken ROUNDS times (default 3), the two
# libraries taking turns; each line gives the medians, their ratio, and
# every round's figure in brackets.
# Usage: [ROUNDS=n] perf/compare_ucx.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${ROUNDS:-3}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_am" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
port=$((20000 + RANDOM % 20000))
# ucx <test> <size> <iterations> <column>: ucx_perftest, 100 warm-up
# iterations, pinned as CCS is below (perf/ucx_perftest.sh).
. perf/ucx_perftest.sh
ucx() { ucx_perftest_figure "$1" "$2" "$3" 100 "$4"; }
# ccs <program> <filter>: Google Benchmark CSV of CCS over the ucx plugin.
ccs() {
  CCS_TRANSPORT=ucx "$build/bin/ccsrun" -n 2 --timeout 300 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
    "$build/bin/$1" --benchmark_filter="$2" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null
}
# raw: perf/ucp_raw_pingpong (UCP driven with the ucx plugin's settings,
# no CCS), one-way latency in us.
raw() {
  local dir
  dir=$(mktemp -d)
  taskset -c 1 "$build/bin/ucp_raw_pingpong" 1 "$dir" > /dev/null &
  local other=$!
  timeout 300 taskset -c 0 "$build/bin/ucp_raw_pingpong" 0 "$dir" | awk '{print $2}'
  wait $other || true
  rm -rf "$dir"
}
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
. perf/rounds.sh
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  for tls in posix,self,cma tcp; do
    export UCX_TLS=$tls
    record lat/$tls ucx "$(ucx ucp_am_lat 8 100000 3)"
    record lat/$tls raw "$([ -x "$build/bin/ucp_raw_pingpong" ] && raw || echo nan)"
    record bw/$tls ucx "$(ucx ucp_am_bw 1048576 1000 5)"
    # Bandwidth with a completion, as ucp_am_bw sends: the payload is the
    # caller's until then, so neither library copies it.
    out=$(ccs ccs_perf_am 'am_latency/8/|am_bandwidth_completion/1048576/')
    record lat/$tls ccs "$(echo "$out" | awk -F, '$1 ~ /am_latency\/8\//{print $NF * 1e6}')"
    record bw/$tls ccs "$(echo "$out" | awk -F, '$1 ~ /am_bandwidth_completion\/1048576\//{print $6 / 1048576}')"
  done
done
echo "medians of $rounds rounds (every round in brackets)"
for tls in posix,self,cma tcp; do
  awk -v t=$tls -v lu="$(median lat/$tls ucx)" -v lr="$(median lat/$tls raw)" -v lc="$(median lat/$tls ccs)" \
      -v au="$(all lat/$tls ucx)" -v ac="$(all lat/$tls ccs)" 'BEGIN{
    printf "UCX_TLS=%s: AM 8 B one-way: ucx_perftest %.3f us [%s] | raw UCP, plugin settings %.3f us | ccs %.3f us [%s] | ccs/ucx %.2f\n", t, lu, au, lr, lc, ac, lc/lu}'
  awk -v t=$tls -v bu="$(median bw/$tls ucx)" -v bc="$(median bw/$tls ccs)" \
      -v au="$(all bw/$tls ucx %.0f)" -v ac="$(all bw/$tls ccs %.0f)" 'BEGIN{
    printf "UCX_TLS=%s: AM 1 MiB bandwidth: ucx_perftest %.0f MB/s [%s] | ccs %.0f MB/s [%s] | ccs/ucx %.2f\n", t, bu, au, bc, ac, bc/bu}'
done
rm -f "$figures"  # now: the two-host part below sets its own exit trap
trap - EXIT
export UCX_TLS=tcp
get_u=$(ucx ucp_get 8 2000 3)
get_c=$(ccs ccs_perf_rma 'get_latency/8/0/' | awk -F, '$1 ~ /get_latency/{print $3 / 1000}')
awk -v u="$get_u" -v c="$get_c" 'BEGIN{
  printf "UCX_TLS=tcp: get 8 B: ucx_perftest ucp_get %.1f us | ccs (active messages) %.1f us | ucx/ccs %.1fx\n", u, c, u/c}'
# Across two hosts made of network namespaces (tests/two_hosts/netns.sh;
# needs root): AM latency over TCP on the veth pair, both libraries alike.
. tests/two_hosts/netns.sh
if two_hosts_usable; then
  two_hosts_up
  in_a() { ip netns exec "$CCS_TWO_HOSTS_A" env UCX_NET_DEVICES="$CCS_TWO_HOSTS_DEV_A" "$@"; }
  in_b() { ip netns exec "$CCS_TWO_HOSTS_B" env UCX_NET_DEVICES="$CCS_TWO_HOSTS_DEV_B" "$@"; }
  in_a taskset -c 0 ucx_perftest -p $port > /dev/null 2>&1 &
  server=$!
  sleep 1
  lat_u=$(in_b timeout 300 taskset -c 1 ucx_perftest "$CCS_TWO_HOSTS_ADDR_A" -p $port -t ucp_am_lat -s 8 -n 100000 \
          -w 100 -f 2>/dev/null | awk '/^ +[0-9]+ /{v=$3} END{print v}')
  wait $server || true
  lat_c=$(CCSRUN="$build/bin/ccsrun" tests/two_hosts/run.sh -n 2 --timeout 300 \
          sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' "$build/bin/ccs_perf_am" --benchmark_filter='am_latency/8/' \
          --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null | awk -F, '$1 ~ /am_latency\/8\//{print $NF * 1e6}')
  awk -v u="$lat_u" -v c="$lat_c" 'BEGIN{
    printf "two hosts (netns, veth), UCX_TLS=tcp: AM 8 B one-way: ucx_perftest %.3f us | ccs %.3f us | ccs/ucx %.2f\n", u, c, c/u}'
fi
