#!/usr/bin/env bash
# Runs a command only where the verbs plugin finds a usable RDMA device
# (a real adapter, or soft-RoCE/siw); elsewhere exits 77, which ctest shows
# as skipped, after printing the plugin's own reason.
#   with_rdma_device.sh <ccs_info> <command> [args...]
set -u
info=$1
shift
status=$(CCS_LOG_LEVEL=error "$info" 2>/dev/null | sed -n '/^  verbs$/,/status:/p' | grep 'status:')
if [ -z "$status" ]; then
  echo "skipped: ccs_info lists no verbs plugin"
  exit 77
fi
case $status in
  *"status:  usable"*) exec "$@" ;;
  *) echo "skipped: no usable RDMA device here; ccs_info says: ${status#*status:  }"; exit 77 ;;
esac
