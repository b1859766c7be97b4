#!/usr/bin/env bash
# Two hosts on one machine: network namespaces joined by a veth pair
# (10.77.<n>.1 and .2), rank r runs in host r % 2, UCX forced onto TCP
# (namespaces do not isolate /dev/shm, so UCX would otherwise use shared
# memory) and each host has its own CCS_NODE_ID. Takes ccsrun's arguments:
#   CCSRUN=<path to ccsrun> run.sh -n <N> [ccsrun options] <program> [args...]
# so it can stand in for ccsrun, and removes the namespaces afterwards,
# whatever happens. Needs root and iproute2; exits 77 (ctest: skipped) with
# the reason where they are absent.
set -u
ccsrun=${CCSRUN:?set CCSRUN to the ccsrun to use}
opts=()
while [ $# -gt 0 ]; do  # ccsrun's options, up to the program
  case $1 in
    -n|--timeout) opts+=("$1" "$2"); shift 2 ;;
    -*) opts+=("$1"); shift ;;
    *) break ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "two hosts: skipped, needs root (ip netns)"; exit 77; }
command -v ip > /dev/null || { echo "two hosts: skipped, iproute2 (ip) is not installed"; exit 77; }
# Names unique to this run (interface names: at most 15 characters).
tag=$(( $$ % 100000 ))
net=$(( $$ % 200 + 20 ))
export CCS_TWO_HOSTS_A=ccsA$tag CCS_TWO_HOSTS_B=ccsB$tag
veth_a=vccsA$tag veth_b=vccsB$tag
cleanup() {
  ip netns del "$CCS_TWO_HOSTS_A" 2> /dev/null
  ip netns del "$CCS_TWO_HOSTS_B" 2> /dev/null
}
trap cleanup EXIT
set -e
ip netns add "$CCS_TWO_HOSTS_A"
ip netns add "$CCS_TWO_HOSTS_B"
ip link add "$veth_a" type veth peer name "$veth_b"
ip link set "$veth_a" netns "$CCS_TWO_HOSTS_A"
ip link set "$veth_b" netns "$CCS_TWO_HOSTS_B"
ip -n "$CCS_TWO_HOSTS_A" addr add 10.77.$net.1/24 dev "$veth_a"
ip -n "$CCS_TWO_HOSTS_B" addr add 10.77.$net.2/24 dev "$veth_b"
for ns in "$CCS_TWO_HOSTS_A" "$CCS_TWO_HOSTS_B"; do ip -n "$ns" link set lo up; done
ip -n "$CCS_TWO_HOSTS_A" link set "$veth_a" up
ip -n "$CCS_TWO_HOSTS_B" link set "$veth_b" up
set +e
export CCS_TRANSPORT=ucx UCX_TLS=tcp CCS_TWO_HOSTS_DEV_A=$veth_a CCS_TWO_HOSTS_DEV_B=$veth_b
echo "two hosts: $CCS_TWO_HOSTS_A (10.77.$net.1) and $CCS_TWO_HOSTS_B (10.77.$net.2), UCX_TLS=tcp"
"$ccsrun" "${opts[@]}" "$(cd "$(dirname "$0")" && pwd)/on_host.sh" "$@"
