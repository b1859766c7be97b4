#!/usr/bin/env bash
# OpenSHMEM over CCS against Open MPI's OpenSHMEM (Debian's, UCX spml over
# shared memory), the same program (perf/shmem_perf.c) built by each one's
# oshcc, every PE pinned to CPU (PE mod CPUs). Each round runs Open MPI,
# then CCS, then Open MPI again; a round whose two Open MPI figures differ
# by more than 15 % changed the VM's phase and is left out. Prints, per
# point, the median of the kept rounds' ratios (above 1: CCS is faster) and
# the figures of the median round. Also CCS's own ccs_put and fetch-add,
# measured the same way, against the shmem calls over it.
# With OTHER=<build-dir> each round also runs that build's CCS (a
# before/after of a change).
# Usage: [ROUNDS=n] [PES="2 4"] [OTHER=dir] perf/compare_shmem.sh [build-dir] [test ...]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=perf/rounds.sh
. perf/rounds.sh
build=${1:-build-rel}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(put_lat get_lat put_bw get_bw p_lat g_lat fadd_lat barrier reduce)
rounds=${ROUNDS:-5}
pes=${PES:-2 4}
other=${OTHER:-}
cpus=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/oshcc" -O2 -DCCS_NATIVE -Iccs/include -Wno-deprecated-declarations -o "$work/ccs" perf/shmem_perf.c \
  -L"$build/lib" -Wl,-rpath,"$PWD/$build/lib" -lccs
/usr/bin/oshcc -O2 -Wno-deprecated-declarations -o "$work/ompi" perf/shmem_perf.c
if [ -n "$other" ]; then
  "$other/bin/oshcc" -O2 -DCCS_NATIVE -Iccs/include -Wno-deprecated-declarations -o "$work/other" perf/shmem_perf.c \
    -L"$other/lib" -Wl,-rpath,"$other/lib" -lccs
fi
export CCS_TRANSPORT=shm
# run_ccs <dir> <binary> <np> <args...>: the figure.
run_ccs() {
  local dir=$1 bin=$2 np=$3
  shift 3
  "$dir/bin/oshrun" -n "$np" --timeout 120 sh -c 'exec taskset -c $((CCS_RANK % '"$cpus"')) "$0" "$@"' "$bin" "$@" |
    awk '{print $3}'
}
run_ompi() {
  local np=$1
  shift
  /usr/bin/oshrun --allow-run-as-root --oversubscribe --bind-to none --mca btl ^openib,uct -n "$np" \
    sh -c 'exec taskset -c $((OMPI_COMM_WORLD_RANK % '"$cpus"')) "$0" "$@"' "$work/ompi" "$@" 2>/dev/null | awk '{print $3}'
}
sizes_of() {
  case $1 in
    put_lat|get_lat|put_bw|get_bw) echo 8 64 512 4096 32768 262144 1048576 4194304 ;;
    reduce) echo 8 8192 ;;
    *) echo 8 ;;
  esac
}
better() { case $1 in *_bw) echo higher ;; *) echo lower ;; esac; }
echo "# CCS $(git rev-parse --short HEAD) ($build) vs Open MPI $(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null) OpenSHMEM; $(lscpu | sed -n 's/^Model name: *//p'), $cpus CPUs"
for np in $pes; do
  for t in "${tests[@]}"; do
    for size in $(sizes_of "$t"); do
      ratios=() lines=() others=()
      for r in $(seq "$rounds"); do
        a=$(run_ompi "$np" "$t" "$size")
        c=$(run_ccs "$build" "$work/ccs" "$np" "$t" "$size")
        o=""
        [ -z "$other" ] || o=$(run_ccs "$other" "$work/other" "$np" "$t" "$size")
        b=$(run_ompi "$np" "$t" "$size")
        read -r ratio ref <<< "$(turn_ratio "$a" "$c" "$b" "$(better "$t")")"
        [ -n "$ratio" ] || continue
        ratios+=("$ratio")
        lines+=("$ratio ccs $c ompi $ref${o:+ other $o}")
        [ -z "$o" ] || others+=("$(awk -v c="$c" -v o="$o" 'BEGIN{print c / o}')")
      done
      if [ ${#ratios[@]} -eq 0 ]; then echo "np $np $t $size: no round kept"; continue; fi
      m=$(printf '%s\n' "${ratios[@]}" | median_of)
      fig=$(printf '%s\n' "${lines[@]}" | sort -g | awk -v m="$m" '$1 >= m {print; exit}')
      extra=""
      [ ${#others[@]} -eq 0 ] || extra=" this/other $(printf '%s\n' "${others[@]}" | median_of)"
      echo "np $np $t $size: CCS/Open MPI speed $m over ${#ratios[@]} rounds ($fig)$extra"
    done
  done
done
for t in "put_lat 8" "ccs_put_lat 8" "fadd_lat 8" "ccs_fadd_lat 8"; do
  vals=()
  for r in $(seq "$rounds"); do vals+=("$(run_ccs "$build" "$work/ccs" 2 $t)"); done
  echo "np 2 CCS $t: median $(printf '%s\n' "${vals[@]}" | median_of) us"
done
