# Sourced by the scripts that compare CCS with Debian's Open MPI and MPICH,
# with the MPI program's source as its argument: installs the perf
# packages, builds CCS (Release) where $build has no ccs_perf_rma, makes
# the work folder $work (removed on exit) with $figures for perf/rounds.sh,
# and builds the program against both MPIs as $work/ompi and $work/mpich.
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_rma" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
work=$(mktemp -d)
figures=$work/figures
trap 'rm -rf "$work"' EXIT
. perf/rounds.sh
mpicc.openmpi -O2 "${@:2}" "$1" -o "$work/ompi"
mpicc.mpich -O2 "${@:2}" "$1" -o "$work/mpich"
