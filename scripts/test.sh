#!/usr/bin/env bash
# Everything CI runs: install dependencies, then build and test four times:
#   1. RelWithDebInfo, warnings as errors: every test (unit, conformance for
#      every plugin at 2/4/8 processes, launchers, install);
#   2. AddressSanitizer + UndefinedBehaviorSanitizer: every test again but
#      the 8- and 32-process jobs (the 4-process paths, more slowly; many
#      peers are left to release) and the client programs under the MPI
#      launchers (the same client code runs under ccsrun, the ARMCI
#      programs under Open MPI);
#   3. ThreadSanitizer: the tests that use threads (unit tests, and the
#      conformance jobs with threads and the progress thread);
#   4. clang + libFuzzer + ASan/UBSan: the datadesc, layout wire, AM packet, remote key, RMA
#      request, collective message, large-message header and verbs wire fuzzers, 15 s each.
# Debug information is line tables only (-g1): enough for backtraces and
# sanitizer reports, and much quicker to compile than full -g. Every build
# compiles several files at once (CMAKE_UNITY_BUILD), which takes about
# half the time: parsing the headers is most of each file's cost.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
jobs=$(nproc)
run() {  # run <build-dir> <ctest args...> -- <cmake args...>
  local dir=$1; shift
  local ctest_args=()
  while [ "$1" != "--" ]; do ctest_args+=("$1"); shift; done; shift
  echo "=== $dir: configure $* (at ${SECONDS} s)"
  cmake -S . -B "$dir" -DCCS_WERROR=ON -DCCS_BUILD_PERF=OFF "$@" > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
  echo "=== $dir: build (at ${SECONDS} s)"
  cmake --build "$dir" -j"$jobs" > "$dir.build.log" 2>&1 || { tail -n 80 "$dir.build.log"; exit 1; }
  echo "=== $dir: test (at ${SECONDS} s)"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 900 "${ctest_args[@]}")
}
mkdir -p build-ci
run build-ci/release -- -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON
debug_flags=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_UNITY_BUILD=ON)
# intercept_tls_get_addr=0: LeakSanitizer (gcc 12) guesses a dynamic TLS
# block's layout from its address modulo 4096 and, when the guess is wrong,
# scans a wild range at exit and dies ("Tracer caught signal 11", "DTLS 7 at
# 0x3d0-..."; google/sanitizers#1322). Every run of the UCX/TCP conformance
# job hit it once the two flood tests ran in one process (either alone did
# not). With the option LSan does not scan dlopen'd modules' dynamic TLS;
# it reports no leak with or without.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run build-ci/asan-ubsan -E '\.np(8|32)$|^shmem\..*\.(openmpi|mpich)\.|^armci\..*\.mpich\.' -- "${debug_flags[@]}" -DCCS_SANITIZE=address,undefined
# UCX_MEM_EVENTS=no: UCX patches mmap and munmap in the process to track
# registered memory, and ThreadSanitizer intercepts them too; with threads
# calling UCX, TSan then crashes inside its own interceptor. None of these
# tests uses the client layers, so they are not built. The unit tests of
# datadesc layouts and of the collective algorithms compute on one thread:
# nothing there for TSan, and minutes of its time.
UCX_MEM_EVENTS=no TSAN_OPTIONS=halt_on_error=1 run build-ci/tsan -R '^unit\.|threads|progress-thread' \
  -E '^unit\.(DatadescLayout|CollAlgorithms)\.' -- "${debug_flags[@]}" \
  -DCCS_SANITIZE=thread -DCCS_BUILD_CLIENTS=OFF

echo "=== build-ci/fuzz: configure, build and run the fuzzers (clang) (at ${SECONDS} s)"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-ci/fuzz "${debug_flags[@]}" -DCCS_BUILD_FUZZERS=ON -DCCS_FUZZ_SECONDS=15 \
  -DCCS_BUILD_PERF=OFF -DCCS_SANITIZE=address,undefined -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
  > build-ci/fuzz.configure.log 2>&1 || { cat build-ci/fuzz.configure.log; exit 1; }
cmake --build build-ci/fuzz -j"$jobs" --target fuzz_datadesc fuzz_am_packets fuzz_layout_wire fuzz_rkey fuzz_rma_requests fuzz_coll_messages \
  fuzz_large_header fuzz_verbs_wire > build-ci/fuzz.build.log 2>&1 ||
  { tail -n 80 build-ci/fuzz.build.log; exit 1; }
(cd build-ci/fuzz && ctest --output-on-failure -j"$jobs" -R '^fuzz\.')
echo "=== all passed in ${SECONDS} s"
