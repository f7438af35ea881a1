# SPDX-License-Identifier: GPL-2.0-only
#
# What tests/check.sh sums, sourced by it (and by tests/host/harness.sh,
# which tests it): run_suite runs one suite, streams its output to a log
# and adds up its "<suite>: N passed, N failed[, N skipped]" lines;
# check_summary prints the last line, "N passed, N failed, N skipped", and
# fails on any failure or when nothing passed.  Needs $logdir.

passed=0
failed=0
skipped=0

# run_suite NAME CMD...: run, stream, and add up its summary lines.
run_suite() {
	local name=$1 log=$logdir/$1.log rc p f s line got_fail=0
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	while read -r line; do
		p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
		f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
		s=0
		if [[ $line =~ failed,\ ([0-9]+)\ skipped ]]; then
			s=${BASH_REMATCH[1]}
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + s))
		[ "$f" -gt 0 ] && got_fail=1
	done < <(grep -E '^[A-Za-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$log")
	if [ "$rc" -ne 0 ] && [ "$got_fail" -eq 0 ]; then
		echo "$name: exited with status $rc without a failed case; counted as one failure (log: $log)"
		failed=$((failed + 1))
	fi
}

check_summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
