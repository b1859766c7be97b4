#!/bin/sh
# One process of a two-host job (see run.sh): rank r runs in host r % 2,
# which is also its node identity; UCX uses that host's veth only.
if [ $((CCS_RANK % 2)) -eq 0 ]; then
  host=$CCS_TWO_HOSTS_A dev=$CCS_TWO_HOSTS_DEV_A
else
  host=$CCS_TWO_HOSTS_B dev=$CCS_TWO_HOSTS_DEV_B
fi
CCS_NODE_ID=$host UCX_NET_DEVICES=$dev exec ip netns exec "$host" "$@"
