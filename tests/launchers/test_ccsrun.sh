#!/usr/bin/env bash
# ccsrun's contract: exit status of the first failing process, the others
# stopped, the job's shared memory removed, output prefixed, timeouts.
set -u
ccsrun=$1
pingpong=$2
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; fail=1; fi; }

# Other tests may run at the same time: look only at this job's segments.
job_segments() { ls /dev/shm | grep -c "^ccs-$(cat /tmp/ccsrun-test-id.$$)-" || true; }

# A normal job exits 0 and leaves nothing in /dev/shm.
"$ccsrun" -n 2 --timeout 60 bash -c 'echo $CCS_JOB_ID > /tmp/ccsrun-test-id.'$$'; exec "$0" 1000' "$pingpong" > /tmp/ccsrun-test.$$ 2>&1
check "a good job exits 0" "[ $? -eq 0 ]"
check "it prints its latency" "grep -q 'one-way latency' /tmp/ccsrun-test.$$"
check "no shared memory left after a normal job" "[ $(job_segments) -eq 0 ]"

# The first non-zero status is returned and the others are stopped.
start=$(date +%s)
"$ccsrun" -n 3 --timeout 60 bash -c 'if [ "$CCS_RANK" = 1 ]; then exit 7; fi; sleep 30' > /dev/null 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
check "exit status of the failing rank (7), got $rc" "[ $rc -eq 7 ]"
check "the other ranks were stopped quickly (${elapsed}s)" "[ $elapsed -lt 10 ]"

# A crashed job's shared segment is removed by ccsrun. Only the rank that
# crashes makes it: a touch by another rank, killed while its touch ran,
# could land after ccsrun cleaned up (seen once, on a loaded machine).
"$ccsrun" -n 2 --timeout 60 bash -c 'echo $CCS_JOB_ID > /tmp/ccsrun-test-id.'$$'; [ "$CCS_RANK" = 0 ] && { touch /dev/shm/ccs-$CCS_JOB_ID-n0; kill -SEGV $$; }; sleep 30' > /dev/null 2>&1
rc=$?
check "a killed rank gives 128+signal (139), got $rc" "[ $rc -eq 139 ]"
check "no shared memory left after a crash" "[ $(job_segments) -eq 0 ]"

# Output prefixing and pass-through.
out=$("$ccsrun" -n 2 --prefix bash -c 'echo "hello from $CCS_RANK"' 2>&1)
check "prefixed output" "echo \"\$out\" | grep -q '^\[1\] hello from 1$'"
out=$("$ccsrun" -n 2 bash -c 'echo "plain $CCS_RANK"' 2>&1)
check "pass-through output" "echo \"\$out\" | grep -q '^plain 0$'"

# Timeouts end a hung job with 124.
"$ccsrun" -n 2 --timeout 1 sleep 30 > /dev/null 2>&1
check "timeout exits 124" "[ $? -eq 124 ]"

# A program that does not exist: 127, and a usage error: 2.
"$ccsrun" -n 2 /nonexistent/program > /dev/null 2>&1
check "missing program exits 127" "[ $? -eq 127 ]"
"$ccsrun" -n 0 true > /dev/null 2>&1
check "bad -n is a usage error (2)" "[ $? -eq 2 ]"

rm -f /tmp/ccsrun-test.$$ /tmp/ccsrun-test-id.$$
exit $fail
