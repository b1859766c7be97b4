#!/usr/bin/env bash
# Runs a command bound to CPU 0 where this process may use CPUs 0 and 1
# (the SMT binding test shows hwloc those two as one core's hyperthreads);
# elsewhere exits 77, which ctest shows as skipped.
#   on_cpus_0_and_1.sh <command> [args...]
set -u
# Each alone: a list is accepted when any of its CPUs exists.
if ! taskset -c 0 true 2>/dev/null || ! taskset -c 1 true 2>/dev/null; then
  echo "skipped: CPUs 0 and 1 are not both usable here"
  exit 77
fi
exec taskset -c 0 "$@"
