#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test command behind `make check`: host tests (plain and ASan/UBSan),
# KUnit (kunit.py, x86_64, lockdep on) and the VM tests (QEMU + ane.ko).
#
#   tests/check.sh [host] [kunit] [vm]     (default: all three)
#
# Every suite prints "<suite>: N passed, N failed"; this script sums them.
# A layer that exits non-zero without reporting a failed case (a build
# error, a kernel WARN or Oops in the VM console, a timeout) counts as one
# failure.  The last line is "N passed, N failed"; the exit status is
# non-zero on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$top/build}
cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
logdir=$cache/check
mkdir -p "$logdir"

passed=0
failed=0

# run_suite NAME CMD...: run, stream, and add up its summary lines.
run_suite() {
	local name=$1 log=$logdir/$1.log rc p f line got_fail=0
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	while read -r line; do
		p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
		f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
		passed=$((passed + p))
		failed=$((failed + f))
		[ "$f" -gt 0 ] && got_fail=1
	done < <(grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log")
	if [ "$rc" -ne 0 ] && [ "$got_fail" -eq 0 ]; then
		echo "$name: exited with status $rc without a failed case; counted as one failure (log: $log)"
		failed=$((failed + 1))
	fi
}

layer_host() {
	local t
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
layer_kunit() {
	run_suite kunit "$top/tools/kunit/run-kunit.sh" \
		${ANE_KUNIT_FILTER:+-- "$ANE_KUNIT_FILTER"}
}

layer_vm() {
	# The runner's own self-test: it must pass clean runs, return the
	# command's status and fail on kernel failure reports.
	run_suite vm-smoke "$top/tests/vm/smoke.sh"
	run_suite vm "$top/tools/vm/ane-vm" --quiet --no-load --timeout 300 \
		--bin "$B/tests/vm/abi_test" --bin "$B/tests/vm/unplug_test" \
		--bin "$B/tests/vm/dart_test" --bin "$B/tests/vm/program_test" \
		--bin "$B/tests/vm/fw_test" \
		--bin "$B/tests/vm/net_test" \
		--bin "$B/tools/anectl" \
		--file "$top/tests/vm/lifecycle.sh:/bin/lifecycle.sh" \
		--file "$top/tests/vm/run-all.sh:/bin/run-all.sh" \
		-- run-all.sh
}

layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(host kunit vm)
for l in "${layers[@]}"; do
	case $l in
	host|kunit|vm) "layer_$l" ;;
	*) echo "check.sh: unknown layer '$l' (host, kunit, vm)" >&2; exit 2 ;;
	esac
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
