#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# `make run` as a new user runs it (on the host: it boots the VM itself):
# it prints the demo's result, not the VM console, and passes; with V=1 the
# console is there too; as typed (no -s) with something to build it prints
# at most 60 lines and names the build's log.  Last line: "make-run: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
out=$(mktemp "${TMPDIR:-/tmp}/ane-make-run.XXXXXX")
# ANE_WERROR=y as make check built it: the same flags, so nothing is rebuilt.
W=ANE_WERROR=y
trap 'rm -f "$out"' EXIT

if make -s -C "$top" run $W >"$out" 2>&1; then
	ok "make run passes"
else
	nok "make run failed:"; tail -n 30 "$out" | sed 's/^/#   /'
fi
n=$(grep -c . "$out")
if [ "$(grep -c 'check: PASS' "$out")" -eq 2 ] && grep -q 'firmware' "$out" &&
   ! grep -q '^\[ *[0-9]*\.[0-9]*\]' "$out" && [ "$n" -lt 120 ]; then
	ok "make run shows the result ($n lines), not the console"
else
	nok "make run output: $n lines, console lines $(grep -c '^\[ *[0-9]*\.[0-9]*\]' "$out")"
	head -n 20 "$out" | sed 's/^/#   /'
fi
# As a person types it (no -s), with something to build: at most 60
# lines, the compiler's in the log it names.
touch "$top/lib/ane_device.c"
if make -C "$top" run $W >"$out" 2>&1; then
	ok "make run (no -s) passes after a change"
else
	nok "make run (no -s) failed:"; tail -n 30 "$out" | sed 's/^/#   /'
fi
n=$(wc -l <"$out")
log=$(sed -n 's/^ane: building (make all; the full log: \(.*\))$/\1/p' "$out")
if [ "$n" -le 60 ] && [ -n "$log" ] && grep -q 'ane_device.c' "$log" &&
   ! grep -q 'ane_device.c' "$out" && grep -q 'its console: ' "$out"; then
	ok "make run prints $n lines (at most 60); the build's lines are in $log"
else
	nok "make run printed $n lines, build log '$log'"
	head -n 20 "$out" | sed 's/^/#   /'
fi
if make -s -C "$top" run V=1 $W >"$out" 2>&1 &&
   grep -q '^\[ *[0-9]*\.[0-9]*\]' "$out" && grep -q 'check: PASS' "$out"; then
	ok "make run V=1 shows the console too"
else
	nok "make run V=1 shows no console"
fi
echo "make-run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
