#!/usr/bin/env bash
# Idle progress, 8-byte AM one-way latency and /dev/shm use (after the
# traffic and once idle) of two talking processes while the node's other
# processes sleep, at 2, 8, 32 and 64 processes on this machine
# (perf/local_scaling.cpp; an older build's program prints no idle figure:
# its column repeats the other). Each process is
# pinned to CPU (rank mod CPUs), so the two that talk have a CPU each.
# With OTHER=<build-dir> every round also runs that build, taking turns
# at going first: a same-run before/after. Prints every run, then medians.
# Usage: [ROUNDS=n] [SIZES="2 8 32 64"] [OTHER=dir] perf/local_scaling.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-rel}
rounds=${ROUNDS:-3}
read -r -a nps <<< "${SIZES:-2 8 32 64}"
builds=("$build")
[ -n "${OTHER:-}" ] && builds+=("$OTHER")
for b in "${builds[@]}"; do
  [ -x "$b/bin/ccs_perf_local_scaling" ] || cmake --build "$b" -j"$(nproc)" --target ccs_perf_local_scaling ccs_plugin_shm ccsrun > /dev/null
done
cpus=$(nproc)
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
  for np in "${nps[@]}"; do
    order=("${builds[@]}")
    if [ $((round % 2)) -eq 0 ] && [ ${#builds[@]} -eq 2 ]; then order=("${builds[1]}" "${builds[0]}"); fi
    for b in "${order[@]}"; do
      line=$(CCS_TRANSPORT=shm "$b/bin/ccsrun" -n "$np" --timeout 600 \
               sh -c "exec taskset -c \$((CCS_RANK % $cpus)) \"\$0\" \"\$@\"" "$b/bin/ccs_perf_local_scaling")
      echo "$b $line"
      echo "$b $line" >> "$results"
    done
  done
done
printf '%-14s %9s %18s %12s %12s %12s\n' build processes idle_progress_ns one_way_us devshm_MiB idle_MiB
for b in "${builds[@]}"; do
  for np in "${nps[@]}"; do
    awk -v b="$b" -v np="$np" '$1 == b && $3 == np { idle[n + 0] = $5; lat[n + 0] = $7; shm[n + 0] = $9; rest[n + 0] = ($11 == "" ? $9 : $11); n++ }
      function median(a, k,   i, j, t) { for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                      return a[int(k / 2)] }
      END { if (n) printf "%-14s %9s %18.1f %12.3f %12.1f %12.1f\n", b, np, median(idle, n), median(lat, n),
                          median(shm, n) / 1048576, median(rest, n) / 1048576 }' "$results"
  done
done
