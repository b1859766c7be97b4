#!/usr/bin/env bash
# One-way 8-byte latency of CCS against ucx_perftest, taken in pairs so the
# VM's speed phases (they change every few minutes and move latency up to
# fourfold) cannot put the two libraries in different phases:
#   put     ccs_put ping-pong over shm, ccs_mem_alloc windows  vs ucp_put_lat
#   am-shm  CCS active messages over the shm plugin            vs ucp_am_lat
#   am-ucx  CCS active messages over the ucx plugin            vs ucp_am_lat
#   fadd    ccs_atomic_sync fetch-add, ccs_mem_alloc window   vs ucp_fadd
#           (a whole operation each, not half a round trip)
# (ucx_perftest with UCX_TLS=posix,self,cma, both pinned one process per
# CPU). Each round runs ucx_perftest, then CCS, then ucx_perftest again,
# a few seconds each; a round whose two ucx_perftest figures differ by more
# than 15 % changed phase and is left out. Prints every kept round's ratio
# CCS / ucx_perftest and their median.
# With OTHER=<build-dir> each round also runs that build's CCS beside this
# one's (taking turns at going first), between the same two ucx_perftest
# runs: a before/after of a change in the same phases ("other" ratios, and
# other/this per round).
# Usage: [ROUNDS=n] [OTHER=dir] perf/compare_latency.sh [build-dir] [put|am-shm|am-ucx|fadd ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(put am-shm am-ucx)
rounds=${ROUNDS:-7}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_rma" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
export UCX_TLS=posix,self,cma
port=$((20000 + RANDOM % 20000))
. perf/ucx_perftest.sh
# ccs_one_way <program> <benchmark filter> [env...]: one-way latency in us.
ccs_one_way() {
  local dir=$1 program=$2 filter=$3
  shift 3
  env "$@" "$dir/bin/ccsrun" -n 2 --timeout 120 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' \
    "$dir/bin/$program" --benchmark_filter="$filter" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null |
    awk -F, 'NR > 1 {print $NF * 1e6; exit}'
}
other=${OTHER:-}
[ -z "$other" ] || [ -x "$other/bin/ccs_perf_rma" ] || { echo "OTHER=$other has no bin/ccs_perf_rma" >&2; exit 2; }
# median_of <label> <ratios...>: the median line.
median_of() {
  local label=$1
  shift
  printf '%s\n' "$@" | sort -g | awk -v w="$label" '{v[NR]=$1} END{
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%s: median %.3f over %d kept rounds (min %.3f, max %.3f)\n", w, m, NR, v[1], v[NR] }'
}
for what in "${which[@]}"; do
  case "$what" in
    put) test=ucp_put_lat; ccs=(ccs_perf_rma 'put_latency/8/0/') ;;
    am-shm) test=ucp_am_lat; ccs=(ccs_perf_am 'am_latency/8/' CCS_TRANSPORT=shm) ;;
    am-ucx) test=ucp_am_lat; ccs=(ccs_perf_am 'am_latency/8/' CCS_TRANSPORT=ucx) ;;
    fadd) test=ucp_fadd; ccs=(ccs_perf_rma 'atomic_latency/0/0/') ;;
    *) echo "unknown comparison '$what': put, am-shm, am-ucx or fadd" >&2; exit 2 ;;
  esac
  ratios=() other_ratios=() other_vs_this=()
  for round in $(seq "$rounds"); do
    before=$(ucx_perftest_figure $test 8 100000 1000 3)
    o=""
    # With another build, the two take turns at going first.
    [ -n "$other" ] && [ $((round % 2)) -eq 0 ] && o=$(ccs_one_way "$other" "${ccs[@]}")
    c=$(ccs_one_way "$build" "${ccs[@]}")
    [ -n "$other" ] && [ -z "$o" ] && o=$(ccs_one_way "$other" "${ccs[@]}")
    after=$(ucx_perftest_figure $test 8 100000 1000 3)
    verdict=$(awk -v b="$before" -v a="$after" -v c="$c" 'BEGIN{
      lo = b < a ? b : a; hi = b < a ? a : b
      if (lo <= 0 || c <= 0) print "failed"; else if (hi / lo > 1.15) print "phase"; else printf "%.3f", c / ((a + b) / 2) }')
    line="$what round $round: ucx_perftest $before / $after us, ccs $c us: $verdict"
    if [ -n "$other" ]; then
      ov=$(awk -v b="$before" -v a="$after" -v o="$o" -v v="$verdict" 'BEGIN{
        if (v == "failed" || v == "phase" || o <= 0) print v; else printf "%.3f", o / ((a + b) / 2) }')
      line="$line | other $o us: $ov"
      case "$ov" in failed|phase) ;; *) other_ratios+=("$ov"); other_vs_this+=("$(awk -v o="$o" -v c="$c" 'BEGIN{printf "%.3f", o / c}')") ;; esac
    fi
    echo "$line"
    case "$verdict" in failed|phase) ;; *) ratios+=("$verdict") ;; esac
  done
  if [ ${#ratios[@]} -eq 0 ]; then
    echo "$what: no round kept"
  else
    median_of "$what: ccs/ucx_perftest" "${ratios[@]}"
    if [ ${#other_ratios[@]} -gt 0 ]; then
      median_of "$what: other/ucx_perftest" "${other_ratios[@]}"
      median_of "$what: other/ccs, same round" "${other_vs_this[@]}"
    fi
  fi
done
