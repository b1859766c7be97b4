#!/usr/bin/env bash
# The main job: two processes exchange 8-byte active messages over the shm
# plugin and print the one-way latency.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCCS_BUILD_TESTS=OFF > /dev/null
cmake --build build -j"$(nproc)" --target ccsrun ccs_pingpong ccs_plugin_shm > /dev/null
exec build/bin/ccsrun -n 2 --timeout 120 build/bin/ccs_pingpong 200000 8
