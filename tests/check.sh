#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test command behind `make check`: host tests (plain and ASan/UBSan),
# KUnit (kunit.py: x86_64 with lockdep on, and the engine under User-Mode
# Linux on the host CPU) and the VM tests (QEMU + ane.ko),
# on the stock Debian kernel (vm) and on the debug kernel (vm-debug).
#
#   tests/check.sh [host] [kunit] [vm] [vm-debug]     (default: all four)
#
# Every suite prints "<suite>: N passed, N failed[, N skipped]"; this
# script sums them.  A case that cannot run here (no AVX-512 on this CPU)
# prints "SKIP - CASE: WHY" and counts as skipped, never as passed.  A
# layer that exits non-zero without reporting a failed case (a build
# error, a kernel WARN or Oops in the VM console, a timeout) counts as one
# failure.  The last line is "N passed, N failed, N skipped"; the exit
# status is non-zero on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
logdir=$cache/check
mkdir -p "$logdir"

# run_suite and the counts (tests/check-lib.sh).
. "$top/tests/check-lib.sh"

layer_host() {
	local t
	# The uapi header compiles alone under every C and C++ standard.
	run_suite uapi-header "$top/tests/host/uapi-header.sh"
	run_suite versions "$top/tests/host/versions.sh"
	run_suite dkms "$top/tests/host/dkms.sh"
	run_suite harness "$top/tests/host/harness.sh"
	run_suite aned-unit "$top/tests/host/aned-unit.sh"
	run_suite dist "$top/tests/host/dist.sh"
	run_suite asahi-host "$top/tests/host/asahi.sh"
	run_suite install "$top/tests/host/install.sh"
	run_suite docs "$top/tests/host/docs.sh"
	run_suite include-graph "$top/tests/host/include-graph.sh"
	run_suite seams "$top/tests/host/seams.sh"
	run_suite tools-cli "$top/tests/host/tools-cli.sh"
	# ONNX's own test models through the ONNX front end (onnx.rst).
	# tests/onnx/engine-only.list: the models that pass engine-only today;
	# one that no longer does is a failure (a lowering lost, not a target).
	run_suite onnx-suite "$B/tests/onnx-suite" --log "$logdir/onnx-suite-models.log" \
		--expect "$top/tests/onnx/engine-only.list"
	run_suite real-nets "$top/tests/onnx/real-nets.sh"
	for t in "$B"/tests/host/*; do
		[ -x "$t" ] && run_suite "host-$(basename "$t")" "$t"
	done
	for t in "$B"/tests/host-san/*; do
		[ -x "$t" ] && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			run_suite "host-san-$(basename "$t")" "$t"
	done
}

# ANE_KUNIT_FILTER (a kunit.py suite glob) narrows the KUnit layer.
# The layer runs twice: every suite in QEMU x86_64 (under TCG: no
# AVX-512), then the engine's suites under User-Mode Linux as kernel code
# on this machine's CPU, whose widest path (AVX-512 if it has it) the
# engine must pick; that run is left out only when the filter matches
# none of its suites.
um_suites=(ane_engine ane_engine_isa ane_engine_ops)
layer_kunit() {
	local s
	run_suite kunit "$top/tools/kunit/run-kunit.sh" \
		${ANE_KUNIT_FILTER:+-- "$ANE_KUNIT_FILTER"}
	for s in "${um_suites[@]}"; do
		# shellcheck disable=SC2053 # the filter is a glob
		if [ -z "${ANE_KUNIT_FILTER:-}" ] || [[ $s == ${ANE_KUNIT_FILTER%%.*} ]]; then
			run_suite kunit-um "$top/tools/kunit/run-kunit.sh" --arch um \
				${ANE_KUNIT_FILTER:+-- "$ANE_KUNIT_FILTER"}
			return
		fi
	done
}

layer_vm() {
	# The runner's own self-test: it must pass clean runs, return the
	# command's status and fail on kernel failure reports.
	run_suite vm-smoke "$top/tests/vm/smoke.sh"
	# `make run` as a user runs it: the demo's result, not the console.
	run_suite make-run "$top/tests/vm/make-run.sh"
	run_suite vm "$top/tools/vm/ane-vm" --quiet --no-load --timeout 300 \
		--bin "$B/tests/vm/abi_test" --bin "$B/tests/vm/unplug_test" \
		--bin "$B/tests/vm/dart_test" --bin "$B/tests/vm/program_test" \
		--bin "$B/tests/vm/fw_test" \
		--bin "$B/tests/vm/recovery_test" \
		--bin "$B/tests/vm/net_test" \
		--bin "$B/tests/vm/ops_test" \
		--bin "$B/tests/vm/coreioctl_test" \
		--bin "$B/tests/vm/caps_test" \
		--bin "$B/tests/vm/limits_test" \
		--bin "$B/tests/vm/pool_test" \
		--bin "$B/tests/vm/deadfw_test" --bin "$B/tools/ane-run" \
		--bin "$B/tests/vm/doctor_test" \
		--bin "$B/tests/vm/trace_test" \
		--bin "$B/tests/vm/irq_test" \
		--bin "$B/tests/vm/power_test" \
		--bin "$B/tests/vm/method_test" \
		--bin "$B/tests/vm/top_test" \
		--bin "$B/tests/vm/resident_test" \
		--bin "$B/tests/vm/event_test" \
		--bin "$B/tests/vm/load_test" \
		--bin "$B/tests/vm/broker_test" --bin "$B/tools/aned" \
		--bin "$B/tools/anectl" --bin "$B/tools/ane-bench" \
		--file "$top/tests/vm/lifecycle.sh:/bin/lifecycle.sh" \
		--file "$top/tests/vm/run-all.sh:/bin/run-all.sh" \
		-- run-all.sh
	# Asahi Linux's "ane" driver (a stand-in) refused by name.
	run_suite vm-asahi "$top/tests/vm/asahi.sh"
	# Real networks from ONNX through the driver (onnx.rst).
	run_suite vm-onnx "$top/tests/onnx/vm-nets.sh"
	# The fuzzer (tools/fuzz/, build/tools/ane-fuzz): fixed seeds, bounded time; as root with
	# the fault-injection knobs, then with unprivileged workers, then with
	# the devices unbound and bound again under the workers.
	run_suite vm-fuzz "$top/tools/vm/ane-vm" --quiet --no-load --timeout 480 \
		--bin "$B/tools/ane-fuzz" \
		-- 'modprobe ane || exit 1; rc=0;
		knobs() { grep -r . /sys/module/ane/parameters /sys/bus/platform/devices/ane.0/power/control /sys/bus/platform/devices/ane.0/power/autosuspend_delay_ms; };
		k0=$(knobs);
		ane-fuzz --seed 1 --time 60 --procs 4 --threads 2 --inject || rc=1;
		[ "$k0" = "$(knobs)" ] || { printf "ane-fuzz left the knobs changed; before:\n%s\nafter:\n" "$k0"; knobs; rc=1; };
		echo 65534 >/sys/module/ane/parameters/client_gid;
		ane-fuzz --seed 2 --time 30 --procs 2 --threads 2 --user 65534 || rc=1;
		rmmod ane && modprobe ane devices=2 || exit 1;
		ane-fuzz --seed 3 --time 40 --procs 4 --threads 2 --inject --unplug || rc=1;
		exit $rc'
}

# vm_debug_selftest BUILDDIR ANE-VM-COMMAND...: the debug kernel's reports
# fail a run -- a module that leaks on purpose (with --kmemleak) and one
# that provokes KASAN reports, each a run that must end in status 125 with
# the report on the console.
vm_debug_selftest() {
	local build=$1 p=0 f=0 rc out
	shift
	out=$("$@" --timeout 300 --module "$build/samples/kmemleak/kmemleak-test.ko" \
		-- 'modprobe kmemleak-test' 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 125 ] && grep -q 'kmemleak' <<<"$out"; then
		echo "ok - a leaking module fails the run"; p=$((p + 1))
	else
		printf '%s\n' "$out" | tail -n 20
		echo "not ok - a leaking module fails the run (status $rc)"; f=$((f + 1))
	fi
	# Its first case trips the usercopy size check (a WARNING); the
	# KASAN reports of the others must be on the console too.
	out=$("$@" --timeout 300 --log "$logdir/vm-debug-selftest-kasan.console" \
		--module "$build/mm/kasan/kasan_test_module.ko" \
		-- 'modprobe kasan_test_module; true' 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 125 ] && grep -q 'BUG: KASAN' "$logdir/vm-debug-selftest-kasan.console"; then
		echo "ok - a KASAN report fails the run"; p=$((p + 1))
	else
		printf '%s\n' "$out" | tail -n 20
		echo "not ok - a KASAN report fails the run (status $rc)"; f=$((f + 1))
	fi
	echo "vm-debug-selftest: $p passed, $f failed"
	[ "$f" -eq 0 ]
}

# The debug kernel (tools/vm/build-debug-kernel.sh: KASAN, KFENCE, kmemleak,
# UBSAN, lockdep, fault injection), built once and cached: the VM suites of
# run-all.sh, the allocation-failure injection and the fuzzer run under it;
# any kernel report or leak fails the run.  Every VM test and tool built is
# copied in, so run-all.sh finds the same binaries as in layer_vm.
layer_vm_debug() {
	local dlog=$logdir/vm-debug-build.log t
	local ANE_DEBUG_KERNEL='' ANE_DEBUG_KVER='' ANE_DEBUG_MODULE='' ANE_DEBUG_BUILD=''
	run_suite vm-debug-build "$top/tools/vm/build-debug-kernel.sh" --module --env
	eval "$(grep -E '^ANE_DEBUG_(KERNEL|KVER|MODULE|BUILD)=' "$dlog")"
	if [ -z "$ANE_DEBUG_KERNEL" ] || [ -z "$ANE_DEBUG_MODULE" ]; then
		echo "vm-debug: no debug kernel, its suites did not run (log: $dlog)"
		return
	fi
	local vm=("$top/tools/vm/ane-vm" --quiet --no-load --kmemleak --mem 2048
		--kernel "$ANE_DEBUG_KERNEL" --kver "$ANE_DEBUG_KVER"
		--module "$ANE_DEBUG_MODULE")
	local bins=()
	for t in "$B"/tests/vm/*_test "$B"/tools/*; do
		[ -f "$t" ] && [ -x "$t" ] && bins+=(--bin "$t")
	done
	for t in "$top"/tests/vm/*.sh; do
		bins+=(--file "$t:/bin/$(basename "$t")")
	done
	run_suite vm-debug-selftest vm_debug_selftest "$ANE_DEBUG_BUILD" "${vm[@]}"
	run_suite vm-debug "${vm[@]}" --timeout 1800 "${bins[@]}" -- run-all.sh
	run_suite vm-debug-failinject "${vm[@]}" --timeout 900 "${bins[@]}" \
		-- 'modprobe ane devices=2 && failinject_test'
	# The fuzzer (tools/fuzz/, build/tools/ane-fuzz), when built: a bounded run, fixed seed.
	if [ -x "$B/tools/ane-fuzz" ]; then
		run_suite vm-debug-fuzz "${vm[@]}" --timeout 900 "${bins[@]}" \
			-- "${ANE_DEBUG_FUZZ_CMD:-modprobe ane devices=2 && ane-fuzz --seed 1 --time 60 --inject --unplug}"
	fi
}

layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(host kunit vm vm-debug)
for l in "${layers[@]}"; do
	case $l in
	host|kunit|vm) "layer_$l" ;;
	vm-debug) layer_vm_debug ;;
	*) echo "check.sh: unknown layer '$l' (host, kunit, vm, vm-debug)" >&2; exit 2 ;;
	esac
done

check_summary
