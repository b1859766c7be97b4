#!/usr/bin/env bash
# CCS put/get over shm against UCX's ucx_perftest with UCX_TLS=posix,self,cma,
# same machine, same run: put latency (8 B, one way), put and get bandwidth
# (4 KiB to 4 MiB), registration cache hit. Both libraries run ROUNDS times
# (default 3), taking turns; each line gives the median of the rounds, the
# ratio of the medians, and every round's figure.
# Usage: [ROUNDS=n] perf/compare_rma.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${ROUNDS:-3}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_rma" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
export UCX_TLS=posix,self,cma
port=$((20000 + RANDOM % 20000))
sizes="4096 16384 65536 262144 1048576 4194304"
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
# ucx <test> <size> <iterations> <column>: ucx_perftest, 1000 warm-up
# iterations, pinned as CCS is below (perf/ucx_perftest.sh).
. perf/ucx_perftest.sh
ucx() { ucx_perftest_figure "$1" "$2" "$3" 1000 "$4"; }
# figure <csv> <benchmark name> <csv field>: one_way (s) is the last field,
# bytes_per_second the 6th, real time (ns) the 3rd.
figure() { echo "$1" | awk -F, -v n="\"$2\"" -v f="$3" '$1==n{ if (f=="last") print $NF; else print $f }'; }
# Figures: latency in us, bandwidth in MB/s of 2^20 bytes.
. perf/rounds.sh
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  record put_lat ucx "$(ucx ucp_put_lat 8 200000 3)"
  for bytes in $sizes; do
    record put/$bytes ucx "$(ucx ucp_put_bw $bytes 2000 5)"
    record get/$bytes ucx "$(ucx ucp_get $bytes 2000 5)"
  done
  # CCS windows: ccs_mem_alloc (mapped by the peer: loads and stores, like
  # ucx_perftest's own buffers), and heap + ccs_mem_register ("cma": one
  # process_vm_writev/readv per operation).
  ccs=$("$build/bin/ccsrun" -n 2 --timeout 300 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
        "$build/bin/ccs_perf_rma" --benchmark_filter='latency|bandwidth|rcache' --benchmark_min_time=1 \
        --benchmark_format=csv 2>/dev/null)  # CSV needs the same counters in every benchmark it shows
  record put_lat ccs "$(awk -v s="$(figure "$ccs" put_latency/8/0/real_time last)" 'BEGIN{print s*1e6}')"
  record put_lat cma "$(awk -v s="$(figure "$ccs" put_latency_cma/8/1/real_time last)" 'BEGIN{print s*1e6}')"
  record put_lat store "$(awk -v s="$(figure "$ccs" store_latency/8/real_time last)" 'BEGIN{print s*1e6}')"
  for bytes in $sizes; do
    for op in put get; do
      record $op/$bytes ccs "$(awk -v b="$(figure "$ccs" ${op}_bandwidth/$bytes/0/real_time 6)" 'BEGIN{print b/1048576}')"
      record $op/$bytes cma "$(awk -v b="$(figure "$ccs" ${op}_bandwidth_cma/$bytes/1/real_time 6)" 'BEGIN{print b/1048576}')"
    done
  done
  record rcache ccs "$(figure "$ccs" rcache_hit/real_time 3)"
done
echo "medians of $rounds rounds (every round in brackets)"
u=$(median put_lat ucx); c=$(median put_lat ccs); m=$(median put_lat cma); p=$(median put_lat store)
awk -v u="$u" -v c="$c" -v m="$m" -v au="$(all put_lat ucx)" -v ac="$(all put_lat ccs)" 'BEGIN{
  printf "put latency 8 B one-way: ucx_perftest %.3f us [%s] | ccs %.3f us [%s] | ccs/ucx %.2f | ccs cma %.3f us\n", u, au, c, ac, c/u, m}'
# The same ping-pong in CCS's harness with plain stores for the puts: what
# the harness alone costs, next to ucx_perftest's own loop.
awk -v u="$u" -v p="$p" -v ap="$(all put_lat store)" 'BEGIN{
  printf "  plain stores in the CCS harness (store_latency): %.3f us [%s] | stores/ucx %.2f\n", p, ap, p/u}'
for bytes in $sizes; do
  for op in put get; do
    u=$(median $op/$bytes ucx); c=$(median $op/$bytes ccs); m=$(median $op/$bytes cma)
    awk -v op=$op -v b=$bytes -v u="$u" -v c="$c" -v m="$m" -v au="$(all $op/$bytes ucx %.0f)" -v ac="$(all $op/$bytes ccs %.0f)" 'BEGIN{
      printf "%s bandwidth %8d B: ucx_perftest %6.0f MB/s [%s] | ccs %6.0f MB/s [%s] | ccs/ucx %.2f | ccs cma %6.0f MB/s\n", op, b, u, au, c, ac, c/u, m}'
  done
done
echo "registration cache hit (register + deregister): $(median rcache ccs) ns [$(all rcache ccs)]"
