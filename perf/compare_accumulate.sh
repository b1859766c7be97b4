#!/usr/bin/env bash
# Accumulate of doubles (sum), 8 B to 4 MiB, into a node peer: CCS's
# ccs_accumulate_sync (accumulate/<bytes>/0 in ccs_perf_rma, ccs_mem_alloc
# window) against MPI_Accumulate + MPI_Win_flush with Debian's Open MPI and
# MPICH (perf/mpi_accumulate.c, MPI_Win_allocate window), one process per
# CPU, the three taking turns each round. Prints microseconds per
# operation, every round, then the medians.
#   node: through each one's shared-memory path (CCS: in place);
#   tcp:  over TCP, as between nodes: CCS over UCX with UCX_TLS=tcp (the
#         target applies it), Open MPI's ob1/tcp with the pt2pt one-sided
#         component, MPICH's UCX with UCX_TLS=tcp and MPIR_CVAR_NOLOCAL=1.
# Usage: [ROUNDS=n] perf/compare_accumulate.sh [build-dir] [node|tcp]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mode=${2:-node}
rounds=${ROUNDS:-3}
case "$mode" in
  node) ompi_net=(); mpich_env=(); ccs_env=() ;;
  tcp) ompi_net=(--mca pml ob1 --mca btl tcp,self --mca osc pt2pt)
       mpich_env=(UCX_TLS=tcp MPIR_CVAR_NOLOCAL=1); ccs_env=(CCS_TRANSPORT=ucx UCX_TLS=tcp) ;;
  *) echo "mode is node or tcp" >&2; exit 2 ;;
esac
sizes=(8 4096 65536 1048576 4194304)
. perf/mpi_peer.sh perf/mpi_accumulate.c
for round in $(seq "$rounds"); do
  mpirun.openmpi --allow-run-as-root -n 2 --bind-to core "${ompi_net[@]}" "$work/ompi" "${sizes[@]}" 2>/dev/null |
    while read -r bytes us; do record "$bytes" ompi "$us"; done
  env "${mpich_env[@]}" mpiexec.mpich -n 2 -bind-to core "$work/mpich" "${sizes[@]}" 2>/dev/null |
    while read -r bytes us; do record "$bytes" mpich "$us"; done
  env "${ccs_env[@]}" "$build/bin/ccsrun" -n 2 --timeout 300 sh -c 'exec taskset -c "$CCS_RANK" "$0" "$@"' "$build/bin/ccs_perf_rma" \
    --benchmark_filter='^accumulate/[0-9]+/0' --benchmark_min_time=0.5 --benchmark_format=csv 2>/dev/null |
    awk -F, 'NR > 1 {split($1, n, "/"); print n[2], $NF * 1e6}' |
    while read -r bytes us; do record "$bytes" ccs "$us"; done
  echo "round $round done"
done
printf '%10s %12s %12s %12s\n' bytes "Open MPI" MPICH CCS
for bytes in "${sizes[@]}"; do
  printf '%10s %12s %12s %12s\n' "$bytes" "$(median "$bytes" ompi)" "$(median "$bytes" mpich)" "$(median "$bytes" ccs)"
done
