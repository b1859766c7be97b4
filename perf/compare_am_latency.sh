#!/usr/bin/env bash
# CCS AM latency against UCX's ucx_perftest ucp_am_lat (UCX_TLS=posix,self),
# same machine, same run, 8-byte messages. Prints both and the ratio.
# Usage: perf/compare_am_latency.sh [build-dir] [repeats]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
repeats=${2:-3}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_am" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
port=$((20000 + RANDOM % 20000))
for i in $(seq 1 "$repeats"); do
  UCX_TLS=posix,self ucx_perftest -p $port > /dev/null 2>&1 &
  server=$!
  sleep 1
  ucx=$(UCX_TLS=posix,self timeout 120 ucx_perftest localhost -p $port -t ucp_am_lat -s 8 -n 200000 -w 10000 -f 2>/dev/null |
        awk '/^ +[0-9]+ /{v=$3} END{print v}')  # average latency column (usec)
  wait $server || true
  ccs=$("$build/bin/ccsrun" -n 2 --timeout 120 "$build/bin/ccs_perf_am" --benchmark_filter='am_latency/8/' \
        --benchmark_min_time=2 --benchmark_format=csv 2>/dev/null |
        awk -F, '/am_latency\/8/{for(i=1;i<=NF;i++) if($i ~ /^[0-9.e+-]+$/) last=$i; print last*1e6}')
  awk -v i="$i" -v u="$ucx" -v c="$ccs" 'BEGIN {
    printf "run %d: ucx_perftest ucp_am_lat 8B one-way %.3f us | ccs am_latency/8 one-way %.3f us | ccs/ucx %.2f\n", i, u, c, c / u }'
  port=$((port + 1))
done
