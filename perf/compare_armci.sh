#!/usr/bin/env bash
# ARMCI over CCS against ARMCI-MPI from Debian (libarmci-mpi-dev), under
# Open MPI and under MPICH: the same program (perf/armci_perf.c) built
# against each one's armci.h and library, launched the same way, process
# r pinned to CPU r. Each round runs ARMCI-MPI, then CCS, then ARMCI-MPI
# again; a round whose two ARMCI-MPI figures differ by more than 15 %
# changed the VM's phase and is left out. Prints, per point, the median
# of the kept rounds' ratios (above 1: CCS is faster) and the figures of
# the median round.
# HOSTS=2: process 0 and 1 in two network namespaces joined by a veth pair
# (tests/two_hosts/netns.sh, as root), both libraries over UCX's TCP
# transport (CCS: CCS_UCX_TLS, its own node each); MPICH only, since Open
# MPI's PMIx server is reached over the loopback a namespace does not
# share. MPICH over UCX's TCP transport may hang in MPI_Finalize after
# printing: each run is cut off after RUN_SECONDS (20).
# Usage: [ROUNDS=n] [MPIS="openmpi mpich"] [HOSTS=2] perf/compare_armci.sh [build-dir] [test ...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/rounds.sh
. perf/rounds.sh
build=${1:-build-rel}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(put_lat get_lat acc_lat put_bw get_bw acc_bw puts_lat gets_lat accs_lat rmw_lat lock_lat)
rounds=${ROUNDS:-3}
mpis=${MPIS:-openmpi mpich}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CCS_TRANSPORT=${CCS_TRANSPORT:-shm}
hosts=${HOSTS:-1}
if [ "$hosts" = 2 ]; then
  # shellcheck source=tests/two_hosts/netns.sh
  . tests/two_hosts/netns.sh
  two_hosts_usable || exit 77
  two_hosts_up || { echo "could not create the namespaces" >&2; exit 1; }
  trap 'rm -rf "$work"; two_hosts_down' EXIT
  export CCS_TRANSPORT=ucx CCS_UCX_TLS=tcp UCX_TLS=tcp
  mpis=mpich
fi
for mpi in $mpis; do
  lib="$PWD/$build/lib/armci-$mpi"
  [ -f "$lib/libarmci.so" ] || { echo "no $lib/libarmci.so: build the ccs_armci_$mpi target" >&2; exit 1; }
  "mpicc.$mpi" -O2 -Iclients/armci/include -o "$work/ccs-$mpi" perf/armci_perf.c "$lib/libarmci.so" -Wl,-rpath,"$lib"
  "mpicc.$mpi" -O2 -o "$work/ref-$mpi" perf/armci_perf.c "/usr/lib/x86_64-linux-gnu/libarmci-$mpi.a"
done
# run <mpi> <binary> <args...>: the figure. (The rank variables expand in
# each launched shell, not here.)
# shellcheck disable=SC2016
run() {
  local mpi=$1 bin=$2
  shift 2
  case $mpi in
    openmpi) mpirun.openmpi --allow-run-as-root --bind-to none -n 2 < /dev/null \
               sh -c 'exec taskset -c "$OMPI_COMM_WORLD_RANK" "$0" "$@"' "$bin" "$@" 2>/dev/null ;;
    mpich)
      if [ "$hosts" = 2 ]; then
        timeout "${RUN_SECONDS:-20}" mpiexec.mpich -n 2 < /dev/null sh -c '
          if [ "$PMI_RANK" = 0 ]; then ns=$CCS_TWO_HOSTS_A dev=$CCS_TWO_HOSTS_DEV_A; else ns=$CCS_TWO_HOSTS_B dev=$CCS_TWO_HOSTS_DEV_B; fi
          exec ip netns exec "$ns" env UCX_NET_DEVICES="$dev" CCS_NODE_ID="host$PMI_RANK" taskset -c "$PMI_RANK" "$0" "$@"' \
          "$bin" "$@" 2>/dev/null
      else
        mpiexec.mpich -n 2 < /dev/null sh -c 'exec taskset -c "$PMI_RANK" "$0" "$@"' "$bin" "$@" 2>/dev/null
      fi ;;
  esac | awk 'NF == 3 {print $3}'
}
points_of() {
  case $1 in
    put_lat|get_lat|acc_lat) for b in 8 64 512 4096 32768 262144 1048576 4194304; do echo "$b"; done ;;
    put_bw|get_bw|acc_bw) for b in 4096 65536 1048576 4194304; do echo "$b"; done ;;
    puts_lat|gets_lat|accs_lat) printf '%s\n' "8 8" "64 64" "8 1024" "4096 8" "512 512" "4096 1024" ;;
    *) echo 8 ;;
  esac
}
better() { case $1 in *_bw) echo higher ;; *) echo lower ;; esac; }
echo "# CCS $(git rev-parse --short HEAD) ($build, CCS_TRANSPORT=$CCS_TRANSPORT, hosts $hosts) vs ARMCI-MPI $(dpkg-query -W -f='${Version}' libarmci-mpi-dev 2>/dev/null); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
for mpi in $mpis; do
  for t in "${tests[@]}"; do
    while read -r point; do
      ratios=() lines=()
      for _ in $(seq "$rounds"); do
        # shellcheck disable=SC2086  # a point is "bytes [rows]"
        a=$(run "$mpi" "$work/ref-$mpi" "$t" $point)
        # shellcheck disable=SC2086
        c=$(run "$mpi" "$work/ccs-$mpi" "$t" $point)
        # shellcheck disable=SC2086
        b=$(run "$mpi" "$work/ref-$mpi" "$t" $point)
        if [ -z "$a" ] || [ -z "$b" ] || [ -z "$c" ]; then echo "$mpi $t $point: a run failed" >&2; continue; fi
        read -r ratio ref <<< "$(turn_ratio "$a" "$c" "$b" "$(better "$t")")"
        [ -n "$ratio" ] || continue
        ratios+=("$ratio")
        lines+=("$ratio ccs $c armci-mpi $ref")
      done
      if [ ${#ratios[@]} -eq 0 ]; then echo "$mpi $t $point: no round kept"; continue; fi
      m=$(printf '%s\n' "${ratios[@]}" | median_of)
      fig=$(printf '%s\n' "${lines[@]}" | sort -g | awk -v m="$m" '$1 >= m {print; exit}')
      echo "$mpi $t $point: CCS/ARMCI-MPI speed $m over ${#ratios[@]} rounds ($fig)"
    done < <(points_of "$t")
  done
done
