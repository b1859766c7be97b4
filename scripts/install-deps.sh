#!/usr/bin/env bash
# Installs what CCS needs on Debian 12 with apt-get, skipping packages that
# are already there (so a prepared machine does no network work).
#   scripts/install-deps.sh build   compiler, CMake, PMIx, UCX, libibverbs, hwloc, libsodium, GoogleTest, Benchmark
#   scripts/install-deps.sh test    + Open MPI and MPICH with headers (launcher tests, datadesc differential test, ARMCI),
#                                   ARMCI-MPI's headers (the ARMCI tests build against them too),
#                                   clang and libFuzzer (datadesc fuzzer), iproute2 (two-host test)
#   scripts/install-deps.sh perf    + UCX tools (ucx_perftest), perftest (ib_write_lat, for RDMA hosts), both MPIs (mpicc.openmpi, mpicc.mpich) and ARMCI-MPI: the peers we compare with
set -euo pipefail
level=${1:-build}
packages=(build-essential cmake pkg-config libpmix-dev libucx-dev libibverbs-dev libhwloc-dev libsodium-dev libgtest-dev libbenchmark-dev)
case "$level" in
  build) ;;
  test) packages+=(openmpi-bin libopenmpi-dev mpich libmpich-dev libarmci-mpi-dev clang-14 libclang-rt-14-dev iproute2) ;;
  perf) packages+=(ucx-utils perftest openmpi-bin libopenmpi-dev mpich libmpich-dev libarmci-mpi-dev) ;;
  *) echo "usage: $0 build|test|perf" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo > /dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
