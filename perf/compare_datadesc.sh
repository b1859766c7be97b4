#!/usr/bin/env bash
# Datadesc pack/unpack per shape: CCS against the shape's hand-written loop
# and MPICH's MPI_Pack/MPI_Unpack, pinned to one CPU, from the paired
# benchmarks of ccs_perf_datadesc (<shape>/<dir>/ccs_vs_<hand|mpich>: the
# two take turns pass by pass, and `ratio` is the median over passes of
# CCS's throughput over the other's; see run_paired in datadesc_perf.cpp).
# Unpaired runs of one shape differ by 10-20 % on this VM, paired ratios by
# a few %, depending on what the rest of the machine does; so ROUNDS
# (default 3) whole runs, about 4 minutes each, and per shape the median
# of their ratios and their spread. Also 64 MiB memcpy, for the >= 4 KiB
# block goal.
# Usage: [ROUNDS=n] [CPU=k] perf/compare_datadesc.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${ROUNDS:-3}
cpu=${CPU:-$(($(nproc) - 1))}
scripts/install-deps.sh perf
[ -x "$build/bin/ccs_perf_datadesc" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null; cmake --build "$build" -j"$(nproc)" > /dev/null; }
figures=$(mktemp)
trap 'rm -f "$figures" "$figures.round"' EXIT
. perf/rounds.sh
# bench <filter>: "name bytes_per_second ratio" per benchmark. CSV columns:
# name,iterations,real_time,cpu_time,time_unit,bytes_per_second,
# items_per_second,label,error_occurred,error_message,...,ratio; one run per
# counter set, since CSV needs the same counters in every row. A row in
# error (CCS, the hand loop and MPICH packing a shape differently) stops
# the comparison.
bench() { taskset -c "$cpu" "$build/bin/ccs_perf_datadesc" --benchmark_filter="$1" --benchmark_min_time=0.5 \
            --benchmark_format=csv 2>/dev/null |
          awk -F, 'NR > 1 && $9 == "true" {print "error: " $1 ": " $10 > "/dev/stderr"; exit 1}
                   NR > 1 {gsub(/"/, "", $1); sub(/\/(manual|real)_time$/, "", $1); print $1, $6, $NF}'; }
for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  { bench memcpy; bench ccs_vs_; } > "$figures.round"
  while read -r name rate ratio; do
    case "$name" in
      memcpy*) record memcpy rate "$rate" ;;
      *) record "${name%/*}" "${name##*/}" "$ratio"
         [ "${name##*/}" = ccs_vs_hand ] && record "${name%/*}" rate "$rate" ;;
    esac
  done < "$figures.round"
  rm -f "$figures.round"
done
mb() { awk -v r="$1" 'BEGIN{printf "%.0f", r / 1048576}'; }
spread() { awk -v w="$1" -v p="$2" '$1==w && $2==p{print $3}' "$figures" | sort -g |
           awk 'NR==1{lo=$1} {hi=$1} END{printf "%.2f-%.2f", lo, hi}'; }
echo "memcpy 64 MiB: $(mb "$(median memcpy rate)") MB/s (median of $rounds rounds)"
printf '%-30s %9s  %-20s %-20s\n' "shape/direction" "CCS MB/s" "CCS/hand (spread)" "CCS/MPICH (spread)"
for what in $(awk '$2=="ccs_vs_hand"{print $1}' "$figures" | sort -u); do
  printf '%-30s %9s  %-20s %-20s\n' "$what" "$(mb "$(median "$what" rate)")" \
    "$(printf '%.3f' "$(median "$what" ccs_vs_hand)") ($(spread "$what" ccs_vs_hand))" \
    "$(printf '%.2f' "$(median "$what" ccs_vs_mpich)") ($(spread "$what" ccs_vs_mpich))"
done
