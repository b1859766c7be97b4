#!/usr/bin/env bash
# 8-byte fetch-add latency, one whole operation each: CCS's ccs_atomic_sync
# (atomic_latency in ccs_perf_rma, on a ccs_mem_alloc window a node peer
# maps, and on registered heap memory the target's progress serves) against
# MPI_Fetch_and_op + MPI_Win_flush with Debian's Open MPI and MPICH
# (perf/mpi_fetch_and_op.c, MPI_Win_allocate). Each round runs all of them
# in turn, one process per CPU (pinned); prints every round and the
# medians.
# Usage: [ROUNDS=n] perf/compare_fetch_and_op.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${ROUNDS:-5}
. perf/mpi_peer.sh perf/mpi_fetch_and_op.c
pinned='exec taskset -c "$0" "$@"'
ccs_us() {  # <filter>: microseconds per operation
  "$build/bin/ccsrun" -n 2 --timeout 120 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' "$build/bin/ccs_perf_rma" \
    --benchmark_filter="$1" --benchmark_min_time=1 --benchmark_format=csv 2>/dev/null |
    awk -F, 'NR > 1 {print $NF * 1e6; exit}'
}
for round in $(seq "$rounds"); do
  ompi=$(OMPI_MCA_rmaps_base_oversubscribe=1 mpirun.openmpi --allow-run-as-root -n 2 --bind-to core \
         "$work/ompi" 200000 2>/dev/null | tail -1)
  mpich=$(mpiexec.mpich -n 2 -bind-to core "$work/mpich" 20000 2>/dev/null | tail -1)
  mapped=$(ccs_us 'atomic_latency/0/0/')
  target=$(ccs_us 'atomic_latency/0/1/')
  echo "round $round: Open MPI $ompi us, MPICH $mpich us, CCS mapped $mapped us, CCS by the target $target us"
  record fadd ompi "$ompi"; record fadd mpich "$mpich"; record fadd mapped "$mapped"; record fadd target "$target"
done
echo "medians: Open MPI $(median fadd ompi) us, MPICH $(median fadd mpich) us, CCS mapped $(median fadd mapped) us," \
     "CCS by the target $(median fadd target) us"
