#!/usr/bin/env bash
# Threads and the progress thread, each figure against its reference in the
# same round, taking turns, pinned one process per CPU:
#   latency  one-way 8-byte AM (shm, UCX posix) and put latency with the
#            progress thread on, against the same build with it off
#   rate     8-byte AM message rate with 1, 2 and 4 threads per process on
#            contexts of their own (perf/thread_rate.cpp), shm and UCX
#            posix, against ucx_perftest -t ucp_am_bw with as many threads
#            (-T, -M multi)
#   rma      8-byte puts and fetch-adds per second with 1 and 2 threads of
#            one process into a node peer's mapped memory, and 64 KiB puts
#            into its registered heap memory through the transport (shm:
#            cross-memory attach) (perf/thread_rma_rate.cpp), the process
#            on both CPUs: how threads scale beside the library's lock.
#            No peer library does
#            the same here; with OTHER=<build dir> the same figures of
#            another build (before/after), taking turns.
# Usage: [ROUNDS=n] [OTHER=dir] perf/compare_threads.sh [build-dir] [latency|rate|rma ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(latency rate rma)
rounds=${ROUNDS:-5}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_thread_rma_rate" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
export UCX_TLS=posix,self,cma
port=$((20000 + RANDOM % 20000))
. perf/ucx_perftest.sh
pinned() { "$build/bin/ccsrun" -n 2 --timeout 120 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' "$@"; }
one_way() {  # one_way <program> <filter> [env...]: us
  local program=$1 filter=$2
  shift 2
  env "$@" "$build/bin/ccsrun" -n 2 --timeout 120 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
    "$build/bin/$program" --benchmark_filter="$filter" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null |
    awk -F, 'NR > 1 {print $NF * 1e6; exit}'
}
median() { sort -g | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for what in "${which[@]}"; do
  case "$what" in
    latency)
      for bench in "am-shm ccs_perf_am am_latency/8/ CCS_TRANSPORT=shm" "am-ucx ccs_perf_am am_latency/8/ CCS_TRANSPORT=ucx" \
                   "put ccs_perf_rma put_latency/8/0/ CCS_TRANSPORT=shm"; do
        set -- $bench
        name=$1 program=$2 filter=$3 transport=$4
        ratios=()
        for round in $(seq "$rounds"); do
          if [ $((round % 2)) -eq 1 ]; then
            off=$(one_way "$program" "$filter" "$transport" CCS_PROGRESS_THREAD=0)
            on=$(one_way "$program" "$filter" "$transport" CCS_PROGRESS_THREAD=1)
          else
            on=$(one_way "$program" "$filter" "$transport" CCS_PROGRESS_THREAD=1)
            off=$(one_way "$program" "$filter" "$transport" CCS_PROGRESS_THREAD=0)
          fi
          r=$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.3f", a / b}')
          echo "$name round $round: progress thread off $off us, on $on us: on/off $r"
          ratios+=("$r")
        done
        echo "$name: on/off median $(printf '%s\n' "${ratios[@]}" | median) over $rounds rounds"
      done
      ;;
    rate)
      for threads in 1 2 4; do
        for transport in shm ucx; do
          ratios=()
          for round in $(seq "$rounds"); do
            ref=$(ucx_perftest_figure ucp_am_bw 8 1000000 10000 0 -T "$threads" -M multi)
            c=$(CCS_TRANSPORT=$transport pinned "$build/bin/ccs_perf_thread_rate" "$threads" 2 | awk '/Mmsg/ {print $3}')
            refm=$(awk -v r="$ref" 'BEGIN{printf "%.3f", r / 1e6}')
            r=$(awk -v c="$c" -v r="$refm" 'BEGIN{printf "%.3f", (r > 0) ? c / r : 0}')
            echo "rate $threads threads $transport round $round: ucx_perftest $refm Mmsg/s, ccs $c Mmsg/s: $r"
            ratios+=("$r")
          done
          echo "rate $threads threads $transport: ccs/ucx_perftest median $(printf '%s\n' "${ratios[@]}" | median)"
        done
      done
      ;;
    rma)
      for op in put fadd "put-heap 65536"; do
        for threads in 1 2; do
          for round in $(seq "$rounds"); do
            line="rma $op $threads threads round $round:"
            for b in "$build" ${OTHER:+"$OTHER"}; do
              # shellcheck disable=SC2086 # "put-heap 65536": the mode and its size
              r=$(CCS_TRANSPORT=shm "$b/bin/ccsrun" -n 2 --timeout 120 "$b/bin/ccs_perf_thread_rma_rate" "$threads" 2 $op |
                  awk '/Mops/ {print $(NF-3)}')
              line="$line $b $r Mops/s"
            done
            echo "$line"
          done
        done
      done
      ;;
    *) echo "unknown comparison '$what': latency, rate or rma" >&2; exit 2 ;;
  esac
done
