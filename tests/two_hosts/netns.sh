# Sourced: two hosts on one machine, as network namespaces joined by a veth
# pair. two_hosts_up creates them and exports
#   CCS_TWO_HOSTS_A / _B         namespace names
#   CCS_TWO_HOSTS_DEV_A / _DEV_B their veth ends
#   CCS_TWO_HOSTS_ADDR_A / _B    their addresses (10.77.<n>.1 and .2)
# and removes them when the sourcing shell exits. two_hosts_usable says
# why not (root, iproute2) and returns 1 where they cannot be made.
two_hosts_usable() {
  [ "$(id -u)" = 0 ] || { echo "two hosts: skipped, needs root (ip netns)"; return 1; }
  command -v ip > /dev/null || { echo "two hosts: skipped, iproute2 (ip) is not installed"; return 1; }
}
two_hosts_down() {
  ip netns del "$CCS_TWO_HOSTS_A" 2> /dev/null
  ip netns del "$CCS_TWO_HOSTS_B" 2> /dev/null
  return 0
}
two_hosts_up() {
  # Names unique to this shell (interface names: at most 15 characters).
  local tag=$(( $$ % 100000 )) net=$(( $$ % 200 + 20 ))
  export CCS_TWO_HOSTS_A=ccsA$tag CCS_TWO_HOSTS_B=ccsB$tag
  export CCS_TWO_HOSTS_DEV_A=vccsA$tag CCS_TWO_HOSTS_DEV_B=vccsB$tag
  export CCS_TWO_HOSTS_ADDR_A=10.77.$net.1 CCS_TWO_HOSTS_ADDR_B=10.77.$net.2
  trap two_hosts_down EXIT
  ip netns add "$CCS_TWO_HOSTS_A" &&
  ip netns add "$CCS_TWO_HOSTS_B" &&
  ip link add "$CCS_TWO_HOSTS_DEV_A" type veth peer name "$CCS_TWO_HOSTS_DEV_B" &&
  ip link set "$CCS_TWO_HOSTS_DEV_A" netns "$CCS_TWO_HOSTS_A" &&
  ip link set "$CCS_TWO_HOSTS_DEV_B" netns "$CCS_TWO_HOSTS_B" &&
  ip -n "$CCS_TWO_HOSTS_A" addr add "$CCS_TWO_HOSTS_ADDR_A/24" dev "$CCS_TWO_HOSTS_DEV_A" &&
  ip -n "$CCS_TWO_HOSTS_B" addr add "$CCS_TWO_HOSTS_ADDR_B/24" dev "$CCS_TWO_HOSTS_DEV_B" &&
  ip -n "$CCS_TWO_HOSTS_A" link set lo up &&
  ip -n "$CCS_TWO_HOSTS_B" link set lo up &&
  ip -n "$CCS_TWO_HOSTS_A" link set "$CCS_TWO_HOSTS_DEV_A" up &&
  ip -n "$CCS_TWO_HOSTS_B" link set "$CCS_TWO_HOSTS_DEV_B" up
}
