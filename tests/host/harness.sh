#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test harness tells skipped from passed: a case of tests/harness.h
# that calls T_SKIP() prints "SKIP - CASE: WHY" and counts as skipped (a
# case that failed before it skipped still fails); the suite's last line is
# "<suite>: N passed, N failed, N skipped"; an engine test with a path
# taken away (ANE_TEST_NO_ISA) skips that path's cases; and tests/check.sh's
# sum (tests/check-lib.sh) adds the skipped up, its last line "N passed,
# N failed, N skipped", non-zero on a failure.
# Last line: "harness: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
# has WHAT PATTERN TEXT: TEXT has a line matching PATTERN (grep -E).
has() {
	if grep -qE -- "$2" <<<"$3"; then ok "$1"; else nok "$1 (no line /$2/ in:)"; sed 's/^/#   /' <<<"$3"; fi
}

cat >"$tmp/demo.c" <<'C'
#include "harness.h"
static void passes(void) { T_CHECK(1, "no"); }
static void fails(void) { T_CHECK(0, "on purpose"); }
static void skips(void) { T_SKIP("this CPU lacks it"); }
static void fails_then_skips(void) { T_CHECK(0, "first"); T_SKIP("then"); }
static void never_runs(void) { T_CHECK(0, "ran while t_skip_why was set"); }
int main(void)
{
	T_RUN(passes);
	T_RUN(fails);
	T_RUN(skips);
	T_RUN(fails_then_skips);
	t_skip_why = "the whole group";
	T_RUN(never_runs);
	t_skip_why = NULL;
	return t_summary("demo");
}
C
if ! ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$top/tests" -o "$tmp/demo" "$tmp/demo.c" 2>"$tmp/cc.log"; then
	nok "a program of tests/harness.h builds: $(cat "$tmp/cc.log")"
else
	out=$("$tmp/demo")
	rc=$?
	has "a passing case prints ok" '^ok - passes$' "$out"
	has "a skipped case prints SKIP and why" '^SKIP - skips: this CPU lacks it$' "$out"
	has "a case that failed before it skipped fails" '^not ok - fails_then_skips$' "$out"
	has "t_skip_why skips a case without running it" '^SKIP - never_runs: the whole group$' "$out"
	has "the suite's last line counts the skipped apart" \
		'^demo: 1 passed, 2 failed, 2 skipped$' "$(tail -n 1 <<<"$out")"
	[ "$rc" -eq 1 ] && ok "a suite with a failure exits 1" ||
		nok "a suite with a failure exits $rc, not 1"
fi

# An engine path taken away: its cases are SKIP, none passes in its name.
t=$B/tests/host/reduce_test
if [ -x "$t" ]; then
	out=$(ANE_TEST_NO_ISA=avx512 "$t")
	rc=$?
	has "ANE_TEST_NO_ISA=avx512: reduce_test's AVX-512 cases SKIP" \
		'^SKIP - .* \[avx512\]: ANE_TEST_NO_ISA names it$' "$out"
	if grep -qE '^ok - .*\[avx512\]' <<<"$out"; then
		nok "ANE_TEST_NO_ISA=avx512: an AVX-512 case still counted as passed"
	else
		ok "ANE_TEST_NO_ISA=avx512: no AVX-512 case counted as passed"
	fi
	has "reduce_test's last line counts them as skipped" \
		'^reduce: [1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped$' "$(tail -n 1 <<<"$out")"
	[ "$rc" -eq 0 ] && ok "a suite with skips and no failure exits 0" ||
		nok "a suite with skips and no failure exits $rc"
else
	nok "$t is not built (make tests)"
fi

# tests/check.sh's sum.
sum() {
	# shellcheck source=tests/check-lib.sh
	( logdir=$tmp; . "$top/tests/check-lib.sh"
	  for s in "$@"; do run_suite "s$((n = ${n:-0} + 1))" bash -c "$s" >/dev/null; done
	  check_summary )
}
out=$(sum 'echo "a: 2 passed, 0 failed, 1 skipped"' 'echo "b: 1 passed, 1 failed"; exit 1' \
	'echo "c: 0 passed, 0 failed, 1 skipped"')
rc=$?
has "check.sh's last line sums passed, failed and skipped" \
	'^3 passed, 1 failed, 2 skipped$' "$(tail -n 1 <<<"$out")"
[ "$rc" -ne 0 ] && ok "check.sh fails on a failure" || nok "check.sh exits 0 with a failure"
out=$(sum 'echo "a: 2 passed, 0 failed, 1 skipped"' 'echo "k: 5 passed, 0 failed, 3 skipped"')
rc=$?
has "skips alone do not fail check.sh" '^7 passed, 0 failed, 4 skipped$' "$(tail -n 1 <<<"$out")"
[ "$rc" -eq 0 ] && ok "check.sh exits 0 with skips and no failure" ||
	nok "check.sh exits $rc with skips and no failure"
out=$(sum 'echo "a: 1 passed, 0 failed"; exit 3')
has "a suite that exits non-zero without a failed case counts as one failure" \
	'^1 passed, 1 failed, 0 skipped$' "$(tail -n 1 <<<"$out")"
# CI greps the prefix "N passed, N failed".
grep -qE '^[0-9]+ passed, [0-9]+ failed' <<<"$(tail -n 1 <<<"$out")" &&
	ok "the last line keeps the prefix 'N passed, N failed'" ||
	nok "the last line lost the prefix 'N passed, N failed'"

echo "harness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
