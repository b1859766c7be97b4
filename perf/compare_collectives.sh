#!/usr/bin/env bash
# Collective latencies at 2, 4 and 8 processes on this machine: CCS's
# ccs_team_* against MPI_Barrier/Allreduce/Bcast of Debian's Open MPI and
# MPICH, all three timed by the same program (perf/coll_bench.c), taking
# turns each round. Each process is pinned to CPU (rank mod CPUs): with
# more processes than CPUs they share them, as jobs oversubscribed on a
# node do. Prints microseconds (mean over processes, OSU's average
# latency), every round, then the medians.
# Usage: [ROUNDS=n] [SIZES="2 4 8"] [TESTS="barrier ..."] perf/compare_collectives.sh [build-dir]
# (TESTS: any of perf/coll_bench.c's; the four of the speed goals by default)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-rel}
rounds=${ROUNDS:-3}
read -r -a nps <<< "${SIZES:-2 4 8}"
read -r -a tests <<< "${TESTS:-barrier allreduce8 allreduce1m bcast1m}"
. perf/mpi_peer.sh perf/coll_bench.c -DCOLL_BENCH_MPI
[ -x "$build/bin/ccs_perf_coll" ] || cmake --build "$build" -j"$(nproc)" --target ccs_perf_coll > /dev/null
cpus=$(nproc)
pin() { echo "exec taskset -c \$((\$$1 % $cpus)) \"\$0\" \"\$@\""; }
for round in $(seq "$rounds"); do
  for np in "${nps[@]}"; do
    mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -n "$np" \
      sh -c "$(pin OMPI_COMM_WORLD_RANK)" "$work/ompi" "${tests[@]}" 2>/dev/null |
      while read -r test bytes us; do record "$test/$np" ompi "$us"; done
    mpiexec.mpich -n "$np" -bind-to none sh -c "$(pin PMI_RANK)" "$work/mpich" "${tests[@]}" 2>/dev/null |
      while read -r test bytes us; do record "$test/$np" mpich "$us"; done
    "$build/bin/ccsrun" -n "$np" --timeout 300 sh -c "$(pin CCS_RANK)" "$build/bin/ccs_perf_coll" "${tests[@]}" |
      while read -r test bytes us; do record "$test/$np" ccs "$us"; done
  done
  echo "round $round done"
done
printf '%-12s %4s %12s %12s %12s\n' test np "Open MPI" MPICH CCS
for test in "${tests[@]}"; do
  for np in "${nps[@]}"; do
    printf '%-12s %4s %12s %12s %12s\n' "$test" "$np" "$(median "$test/$np" ompi)" "$(median "$test/$np" mpich)" \
      "$(median "$test/$np" ccs)"
  done
done
