#!/usr/bin/env bash
# Runs a peer-failure program: rank 1 kills itself (SIGKILL, status 137
# from ccsrun --keep-going); ranks 0 and 2 must both report "survivor ok",
# and nothing a transport library prints itself (UCX's warnings) may appear:
# CCS reports the failure.
set -u
ccsrun=$1
program=$2
out=$("$ccsrun" -n 3 --prefix --keep-going --timeout 60 "$program" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 77 ] && exit 77  # the launcher could not run here (ctest: skipped)
survivors=$(echo "$out" | grep -c "survivor ok")
foreign=$(echo "$out" | grep -cE "UCX +(WARN|ERROR)")
if [ "$rc" -eq 137 ] && [ "$survivors" -eq 2 ] && [ "$foreign" -eq 0 ]; then
  echo "peer failure: ok (exit $rc, $survivors survivors ok)"
  exit 0
fi
echo "peer failure: FAILED (exit $rc, wanted 137; $survivors of 2 survivors ok; $foreign lines from UCX)"
exit 1
