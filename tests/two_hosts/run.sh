#!/usr/bin/env bash
# Two hosts on one machine (netns.sh): rank r runs in host r % 2 with its
# own CCS_NODE_ID, UCX forced onto TCP over the veth pair (namespaces do not
# isolate /dev/shm, so UCX would otherwise use shared memory). Takes
# ccsrun's arguments:
#   CCSRUN=<path to ccsrun> run.sh -n <N> [ccsrun options] <program> [args...]
# so it can stand in for ccsrun, and removes the namespaces afterwards,
# whatever happens. Exits 77 (ctest: skipped) with the reason where they
# cannot be made (no root, no iproute2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/netns.sh"
ccsrun=${CCSRUN:?set CCSRUN to the ccsrun to use}
opts=()
while [ $# -gt 0 ]; do  # ccsrun's options, up to the program
  case $1 in
    -n|--timeout) opts+=("$1" "$2"); shift 2 ;;
    -*) opts+=("$1"); shift ;;
    *) break ;;
  esac
done
two_hosts_usable || exit 77
two_hosts_up || { echo "two hosts: could not create the namespaces"; exit 1; }
export CCS_TRANSPORT=ucx UCX_TLS=tcp
echo "two hosts: $CCS_TWO_HOSTS_A ($CCS_TWO_HOSTS_ADDR_A) and $CCS_TWO_HOSTS_B ($CCS_TWO_HOSTS_ADDR_B), UCX_TLS=tcp"
"$ccsrun" "${opts[@]}" "$here/on_host.sh" "$@"
