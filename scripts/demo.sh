#!/usr/bin/env bash
# The main job: two processes exchange 8-byte active messages over the shm
# plugin and print the one-way latency.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCCS_BUILD_TESTS=OFF > build/demo-configure.log 2>&1 ||
  { cat build/demo-configure.log; exit 1; }
cmake --build build -j"$(nproc)" --target ccsrun ccs_pingpong ccs_plugin_shm > build/demo-build.log 2>&1 ||
  { tail -n 60 build/demo-build.log; exit 1; }
exec build/bin/ccsrun -n 2 --timeout 120 build/bin/ccs_pingpong 200000 8
