# Sourced by the comparison scripts: one ucx_perftest run on this host,
# server on CPU 0 and client on CPU 1 (both libraries are pinned alike:
# unpinned, the scheduler sometimes puts a pair on one core's siblings and
# latency drops fourfold from run to run).
#   ucx_perftest_figure <test> <size> <iterations> <warm-up> <column> [more options]
# prints the final figure of that column (3: average latency in usec, 5:
# average bandwidth in MB/s of 2^20 bytes; 0: the last, the overall message
# rate, also where threads shorten the line). Uses and advances $port.
ucx_perftest_figure() {
  taskset -c 0 ucx_perftest -p "$port" > /dev/null 2>&1 &
  local server=$!
  sleep 1
  timeout 300 taskset -c 1 ucx_perftest localhost -p "$port" -t "$1" -s "$2" -n "$3" -w "$4" "${@:6}" -f 2>/dev/null |
    awk -v col="$5" '/^ +[0-9]+ /{v = col ? $col : $NF} END{print v}'
  wait $server || true
  port=$((port + 1))
}
