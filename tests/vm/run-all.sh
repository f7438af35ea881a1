#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the VM (tools/vm/ane-vm --no-load): every VM suite in turn.
# Each suite prints its own "<suite>: N passed, N failed" line.
rc=0

# suite TAG "MODULE PARAMETERS" COMMAND...: load ane, run the suite, unload.
# A module that does not load ends the run; one that does not unload fails
# the suite's line.
suite() {
	tag=$1
	params=$2
	shift 2
	# shellcheck disable=SC2086 # the parameters are words
	modprobe ane $params ||
		{ echo "vm-setup-$tag: 0 passed, 1 failed"; exit 1; }
	"$@" || rc=1
	rmmod ane || { echo "vm-rmmod-$tag: 0 passed, 1 failed"; rc=1; }
}

anectl_info() {
	if anectl info >/dev/null; then
		echo "anectl-info: 1 passed, 0 failed"
	else
		echo "anectl-info: 0 passed, 1 failed"
		return 1
	fi
}

# `ane-run --resident 100`: the resident loop of the manual page, 100
# chained steps bit-identical to 100 selector-2 steps of the direct path.
ane_run_resident() {
	out=$(ane-run --resident 100 2>&1)
	st=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ $st -eq 0 ] &&
	   printf '%s\n' "$out" | grep -q '^final state after 100 steps, chain vs selector 2: bit-identical$' &&
	   printf '%s\n' "$out" | grep -q '^selector-2 step (direct-path submit + event) *p50' &&
	   printf '%s\n' "$out" | grep -q '^check: PASS$'; then
		echo "ane-run-resident: 1 passed, 0 failed"
	else
		echo "ane-run-resident: 0 passed, 1 failed"
		return 1
	fi
}

# `ane-bench load` with two requests in flight in every process (1, 8 and
# 64 processes): every process runs to the end without an error and the
# results say the depth; a depth out of range is refused, naming it.
ane_bench_load() {
	out=$(ANE_BENCH_LOAD="1 8 64" ANE_BENCH_DEPTH=2 ane-bench --json /tmp/load.json load 2>&1)
	st=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	bad=$(ANE_BENCH_LOAD="1 8 64" ANE_BENCH_DEPTH=17 ane-bench load 2>&1)
	bst=$?
	if [ $st -eq 0 ] &&
	   printf '%s\n' "$out" | grep -q '2 requests in flight each' &&
	   printf '%s\n' "$out" | grep -Eq '^ +64 +[1-9][0-9]* ' &&
	   grep -q '"depth": 2' /tmp/load.json &&
	   [ $bst -ne 0 ] && printf '%s\n' "$bad" | grep -q 'ANE_BENCH_DEPTH: 1 to 16'; then
		echo "ane-bench-load: 1 passed, 0 failed"
	else
		echo "# depth 17: status $bst: $bad"
		echo "ane-bench-load: 0 passed, 1 failed"
		return 1
	fi
}

# `ane-bench request`, the round trip a user pays, as a user runs it: both
# loops (libane's submit + wait, and the raw ioctl + blocking read())
# report the median of five sets beside five pipe sets with the sets'
# range, and the JSON holds both ratios with their targets.  The figures
# themselves are a benchmark's, not a test's: only that they are there.
ane_bench_request() {
	out=$(ane-bench --json /tmp/request.json request 2>&1)
	st=$?
	printf '%s
' "$out" | sed 's/^/# /'
	if [ $st -eq 0 ] &&
	   printf '%s
' "$out" | grep -q '5 sets of 2000 requests' &&
	   printf '%s
' "$out" | grep -Eq '^  ratio p50 +[0-9.]+ +\(median of 5 sets, [0-9.]+ - [0-9.]+; target <= 1.5: (met|MISSED)\)$' &&
	   printf '%s
' "$out" | grep -Eq '^  raw ratio p99 +[0-9.]+ +\(median of 5 sets, [0-9.]+ - [0-9.]+; target <= 3: (met|MISSED)\)$' &&
	   grep -q '"request_vs_pipe_p50"' /tmp/request.json &&
	   grep -q '"raw_vs_pipe_p99"' /tmp/request.json; then
		echo "ane-bench-request: 1 passed, 0 failed"
	else
		echo "ane-bench-request: 0 passed, 1 failed"
		return 1
	fi
}

# `ane-bench dart`, the benchmark of the DART's map and unmap and of the
# page tables of a fully mapped 3.5 GiB context: with memory limits that
# allow its 512 MiB of surfaces, both figures are printed and the tables'
# (a size, not a time) meet the target; with a client's limit below that
# (as by default on a 1 GiB machine), it stops at the fill saying what to
# change.
ane_bench_dart() {
	out=$(ane-bench --json /tmp/dart.json dart 2>&1)
	st=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ $st -eq 0 ] &&
	   printf '%s\n' "$out" | grep -Eq '^  map\+unmap/page +[0-9.]+ ns$' &&
	   printf '%s\n' "$out" | grep -q '^  target           <= 1.8 MiB: met$' &&
	   grep -q '"full_context_tables_mib"' /tmp/dart.json; then
		echo "ane-bench-dart: 1 passed, 0 failed"
	else
		echo "ane-bench-dart: 0 passed, 1 failed"
		return 1
	fi
}

ane_bench_dart_limit() {
	out=$(ane-bench dart 2>&1)
	st=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	if [ $st -ne 0 ] &&
	   printf '%s\n' "$out" | grep -q 'ane-vm --mem 2048), or load ane with mem_client_mb=600 mem_device_mb=600$'; then
		echo "ane-bench-dart-limit: 1 passed, 0 failed"
	else
		echo "ane-bench-dart-limit: 0 passed, 1 failed"
		return 1
	fi
}

# The selector ABI, then the DRM core ioctls as an unprivileged user.
suite abi "" abi_test
suite coreioctl "" coreioctl_test
# The capability model: every gate from every kind of opener, dropped
# capabilities, a file handed over a unix socket.
suite caps "" caps_test
suite anectl-info "" anectl_info
suite ane-bench-load "" ane_bench_load
suite ane-bench-request "" ane_bench_request
suite ane-bench-dart "mem_client_mb=600 mem_device_mb=600" ane_bench_dart
suite ane-bench-dart-limit "mem_client_mb=300" ane_bench_dart_limit
# Two engines, so PRIME can cross devices.
suite dart "devices=2" dart_test
lifecycle.sh || rc=1
# The firmware: boot, round trips, crash dump and recovery.
suite fw "" fw_test
# Recovery from every firmware state; programs survive it.
suite recovery "" recovery_test
# Programs end to end: create, prepare, run, events, fences; then the
# same with the firmware sleeping at once when idle (no idle poll).
suite prog "" program_test
suite nopoll "fw_idle_poll_us=0" program_test
# The resident submission model: the program hand-off between clients.
suite resident "" resident_test
# Wait events and the shared event: requests held by the firmware until
# a fence ends or the shared event rings; limits, failures, exits, crash.
suite event "" event_test
# More clients than the DART's slots: every client its turn (a floor on
# the slowest one's requests), a client's requests in order while they
# wait in line, clients killed in line.
suite load "" load_test
suite ane-run-resident "" ane_run_resident
# aned, the broker daemon: tiers, sharing, adapters, the hand-off, a
# client gone mid-call, aned killed and restarted, malformed messages.
suite broker "" broker_test
# Networks end to end through libane: results against the CPU reference,
# malformed images refused, instances with their own weights.  These two
# run real arithmetic on an engine emulated under TCG, some fifty times
# slower than the host: the firmware's deadline is raised for them.
suite net "fw_deadline_ms=30000" net_test
# The engine's newer operations end to end: copies, transposes, paddings,
# concatenations, reshapes, reductions, elementwise math.
suite ops "fw_deadline_ms=30000" ops_test
# Memory limits: quotas, the memory cgroup, bursts without the OOM killer.
suite limits "" limits_test
# The seed's bounds on outstanding work: 127 a client at 1, 8 and 64
# clients on a hung engine, the eighth client parked, a request during
# recovery.  The deadline out of the way: only the tests end hung requests.
suite pool "fw_deadline_ms=600000" pool_test
# libane on a firmware left dead: bounded, sleeping, a clear error.
suite deadfw "" deadfw_test
# anectl doctor with ane not loaded (it loads it), healthy, a node nobody
# can open, a dead firmware; the health attributes in sysfs.
doctor_test || rc=1
rmmod ane || { echo "vm-rmmod-doctor: 0 passed, 1 failed"; rc=1; }
# anectl top: no client, then a busy client's engine time, requests, memory.
suite top "" top_test
# The ane: tracepoints: one request, a DART fault, a firmware crash.
suite trace "" trace_test
# The interrupt lines in /proc/interrupts: a round trip, a DART fault.
suite irq "" irq_test
# Runtime PM: idle power-down, power-up by a request, storms across cycles.
suite power "" power_test
# The methods beyond power: DART controls, registers, commands, diagnostics.
suite method "" method_test
exit $rc
