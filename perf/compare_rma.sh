#!/usr/bin/env bash
# CCS put/get over shm against UCX's ucx_perftest with UCX_TLS=posix,self,cma,
# same machine, same run: put latency (8 B, one way), put and get bandwidth
# (4 KiB to 4 MiB). Prints one line per figure with the ratio.
# Usage: perf/compare_rma.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_rma" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
export UCX_TLS=posix,self,cma
port=$((20000 + RANDOM % 20000))
# Both sides pinned, one process per CPU (0 and 1), for both libraries:
# unpinned, the scheduler sometimes puts the pair on one core's siblings
# and latency drops fourfold, for either library, from run to run.
# ucx_perftest <test> <size> <column>: the final figure of that column
# (3: average latency in usec, 5: average bandwidth in MB/s).
ucx() {
  taskset -c 0 ucx_perftest -p $port > /dev/null 2>&1 &
  local server=$!
  sleep 1
  timeout 120 taskset -c 1 ucx_perftest localhost -p $port -t "$1" -s "$2" -n "$3" -w 1000 -f 2>/dev/null |
    awk -v col="$4" '/^ +[0-9]+ /{v=$col} END{print v}'
  wait $server || true
  port=$((port + 1))
}
ccs=$("$build/bin/ccsrun" -n 2 --timeout 300 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
      "$build/bin/ccs_perf_rma" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null)
# figure <benchmark name> <csv field>: one_way (s) is the last field, bytes_per_second the 6th.
figure() { echo "$ccs" | awk -F, -v n="\"$1\"" -v f="$2" '$1==n{ if (f=="last") print $NF; else print $f }'; }
# CCS windows: ccs_mem_alloc (mapped by the peer: loads and stores, like
# ucx_perftest's own buffers), and heap + ccs_mem_register ("cma": one
# process_vm_writev/readv per operation).
lat_ucx=$(ucx ucp_put_lat 8 200000 3)
for which in 0 1; do
  name=put_latency; label="ccs_mem_alloc"; [ $which = 1 ] && { name=put_latency_cma; label="registered heap (CMA)"; }
  c=$(figure "$name/8/$which/real_time" last)
  awk -v u="$lat_ucx" -v c="$c" -v l="$label" 'BEGIN{printf "put latency 8 B one-way, %s: ucx_perftest %.3f us | ccs %.3f us | ccs/ucx %.2f\n", l, u, c*1e6, c*1e6/u}'
done
for bytes in 4096 16384 65536 262144 1048576 4194304; do
  for op in put get; do
    test=ucp_put_bw; [ $op = get ] && test=ucp_get
    u=$(ucx $test $bytes 2000 5)
    c=$(figure "${op}_bandwidth/${bytes}/0/real_time" 6)
    m=$(figure "${op}_bandwidth_cma/${bytes}/1/real_time" 6)
    # ucx_perftest's MB is 2^20 bytes.
    awk -v op=$op -v b=$bytes -v u="$u" -v c="$c" -v m="$m" 'BEGIN{printf "%s bandwidth %8d B: ucx_perftest %8.0f MB/s | ccs %8.0f MB/s (ccs/ucx %.2f) | ccs cma %8.0f MB/s\n", op, b, u, c/1048576, c/1048576/u, m/1048576}'
  done
done
echo "$ccs" | awk -F, '$1=="\"rcache_hit/real_time\""{printf "registration cache hit (register + deregister): %.0f ns\n", $3}'
