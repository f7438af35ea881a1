#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every tool answers --version with the release (the Makefile's
# ANE_VERSION, libane's ane_version()) and exit status 0, and --help with
# its usage on stdout and exit status 0.  libane.so exports only ane_*
# functions, each versioned LIBANE_0.1 (lib/libane.map), under the soname
# libane.so.0.  The manual pages (Documentation/accel/ane/man/) carry the
# release and render without warnings.  Bad values and nodes that are not
# ane's are refused with a message before anything runs.
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
ver=$(sed -n 's/^ANE_VERSION := //p' "$top/Makefile")
so=$(sed -n 's/^ANE_SOVERSION := //p' "$top/Makefile")
pass=0 fail=0

ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }

for t in anectl ane-run ane-bench ane-mathbench ane-fuzz ane-netbench aned; do
	bin=$B/tools/$t
	if [ ! -x "$bin" ]; then
		nok "$t: $bin not built"
		continue
	fi
	out=$("$bin" --version 2>&1)
	rc=$?
	first=$(printf '%s\n' "$out" | head -n1)
	case $first in
	"$t "*" $ver") [ $rc -eq 0 ] && ok "$t --version: $first" ||
		nok "$t --version exits $rc" ;;
	*) nok "$t --version prints '$first' (exit $rc), not '$t (...) $ver'" ;;
	esac
	out=$("$bin" --help 2>/dev/null)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^usage: '"$t"; then
		ok "$t --help"
	else
		nok "$t --help exits $rc, stdout '$(printf '%s' "$out" | head -n1)'"
	fi
done

# A value that is not a number, or a node that is not ane's, is named and
# refused before anything runs (no device needed).
# want NAME STATUS TEXT -- COMMAND...: COMMAND exits STATUS and prints TEXT.
want() {
	name=$1 st=$2 text=$3
	shift 4
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq "$st" ] && printf '%s\n' "$out" | grep -qF -- "$text"; then
		ok "$name"
	else
		nok "$name: exit $rc, '$(printf '%s' "$out" | head -n1)'"
	fi
}
want "anectl power delay 5s is a usage error" 2 \
	"delay '5s' is not a number of ms from 0 to 600000" -- "$B/tools/anectl" power delay 5s
want "anectl power delay 600001 is a usage error" 2 \
	"delay '600001' is not a number" -- "$B/tools/anectl" power delay 600001
want "anectl -d without a NODE" 2 "-d needs a NODE" -- "$B/tools/anectl" -d
want "anectl -d /dev/null power: not an ane node" 1 \
	"/dev/null is not an ane node" -- "$B/tools/anectl" -d /dev/null power status
want "ane-bench dart /dev/null: not an ane node" 1 \
	"/dev/null: not an ane node" -- "$B/tools/ane-bench" dart /dev/null
want "ane-fuzz --seed x is a usage error" 2 \
	"--seed takes a number, not 'x'" -- "$B/tools/ane-fuzz" --seed x
want "ane-fuzz --iterations -3 is a usage error" 2 \
	"--iterations takes a number, not '-3'" -- "$B/tools/ane-fuzz" --iterations -3

lib=$B/lib/libane.so
if [ ! -e "$lib" ]; then
	nok "libane.so not built"
else
	syms=$(nm -D --defined-only "$lib" | awk '{ print $NF }')
	n=$(printf '%s\n' "$syms" | grep -c '^ane_[a-z0-9_]*@@LIBANE_0\.1$')
	bad=$(printf '%s\n' "$syms" | grep -v '^ane_[a-z0-9_]*@@LIBANE_0\.1$' |
		grep -v '^LIBANE_0\.1$')
	if [ -z "$bad" ] && [ "$n" -gt 50 ] &&
	   ! printf '%s\n' "$syms" | grep -q '^ane__'; then
		ok "libane.so exports $n ane_* symbols, all LIBANE_0.1"
	else
		nok "libane.so exports, besides ane_*@@LIBANE_0.1 ($n): $(echo $bad)"
	fi
	printf '%s\n' "$syms" | grep -q '^ane_version@@LIBANE_0\.1$' &&
		ok "ane_version is exported" || nok "ane_version is not exported"
	sn=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$sn" = "libane.so.$so" ] && ok "soname $sn" ||
		nok "soname '$sn', not libane.so.$so"
fi

# The manual pages carry the release and render without a warning.
for m in "$top"/Documentation/accel/ane/man/*.[0-9]; do
	name=$(basename "$m")
	if ! grep -q "^\.TH .* \"ane $ver\" " "$m"; then
		nok "$name: .TH does not name ane $ver"
	elif ! command -v groff >/dev/null; then
		ok "$name names ane $ver (groff missing: not rendered)"
	elif w=$(groff -man -Tutf8 -ww -z "$m" 2>&1) && [ -z "$w" ]; then
		ok "$name renders cleanly"
	else
		nok "$name: groff says: $w"
	fi
done
for t in anectl ane-run ane-bench ane-netbench; do
	[ -f "$top/Documentation/accel/ane/man/$t.1" ] || nok "no manual page $t.1"
done
[ -f "$top/Documentation/accel/ane/man/libane.3" ] || nok "no manual page libane.3"

# tools/perf-report makes the performance page's tables and plots from the
# results committed beside them: the same inputs give the same page, so
# the page is the data's (and nobody edited it by hand); a file that is not
# JSON is refused with its name.
perf=$top/Documentation/accel/ane/perf
tmp=$(mktemp -d)
if ! command -v python3 >/dev/null; then
	nok "perf-report: python3 missing"
elif ! "$top/tools/perf-report" -o "$tmp" "$perf"/res-*.json "$perf"/math-*.json >/dev/null; then
	nok "perf-report fails on $perf/res-*.json $perf/math-*.json"
else
	for f in $(cd "$tmp" && ls); do
		if cmp -s "$tmp/$f" "$perf/$f"; then
			ok "perf-report remakes perf/$f from the committed results"
		else
			nok "perf-report's perf/$f differs from the committed one (run tools/perf-report $perf/res-*.json $perf/math-*.json)"
		fi
	done
	# the kernels' GFLOP/s against size and against threads
	[ -s "$tmp/gflops-math-sizes.svg" ] && [ -s "$tmp/gflops-math-cores.svg" ] &&
		grep -q 'math-kernels_\|matmul512_best_over_engine' "$tmp/results.inc" &&
		ok "perf-report plots the kernels against size and threads, with their targets" ||
		nok "perf-report made no GFLOP/s plots or kernel targets from $perf/math-*.json"
	if python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' \
		"$tmp"/*.svg 2>/dev/null; then
		ok "perf-report's plots are well-formed SVG"
	else
		nok "perf-report writes malformed SVG"
	fi
	grep -q 'request_vs_pipe_p50' "$tmp/results.inc" &&
		grep -q '\*\*missed\*\*' "$tmp/results.inc" &&
		ok "perf-report lists each target with its verdict" ||
		nok "perf-report's targets table lacks a figure or a verdict"
	echo '{ "tool": ' > "$tmp/bad.json"
	out=$("$top/tools/perf-report" -o "$tmp" "$tmp/bad.json" 2>&1) &&
		nok "perf-report accepts a file that is not JSON" ||
		{ echo "$out" | grep -q "bad.json: not JSON" &&
			ok "perf-report names a file that is not JSON" ||
			nok "perf-report's message for bad JSON: $out"; }
	# ane-mathbench's own JSON, as perf-report reads it: a sweep of n x n
	# x n matmuls gives a curve per engine path and baseline, a single
	# size (no curve) only its target
	if "$B/tools/ane-mathbench" --json "$tmp/sweep.json" matmul 16 matmul 32 >/dev/null;
		[ $? -le 1 ] &&
		"$B/tools/ane-mathbench" --json "$tmp/one.json" matmul 16 >/dev/null;
		[ $? -le 1 ] &&
		python3 - "$tmp/sweep.json" "$tmp/one.json" <<'PY'
import json, sys
s, o = (json.load(open(p)) for p in sys.argv[1:])
assert s["tool"] == "ane-mathbench" and s["bench"] == "kernels"
assert set(s["results"]) == {"matmul16_best_over_engine", "matmul32_best_over_engine"}
assert {"openblas", "onednn", "engine sse2"} <= set(s["series"])
assert all([p[0] for p in v] == [16, 32] for v in s["series"].values())
assert "series" not in o and "matmul16_best_over_engine" in o["results"]
PY
	then
		"$top/tools/perf-report" -o "$tmp/plots" "$tmp/sweep.json" "$tmp/one.json" >/dev/null &&
			[ -s "$tmp/plots/gflops-sweep.svg" ] && [ ! -e "$tmp/plots/gflops-one.svg" ] &&
			ok "ane-mathbench --json: targets, and a GFLOP/s curve for a sweep that perf-report plots" ||
			nok "perf-report made no plot (or one too many) of ane-mathbench's sweep"
	else
		nok "ane-mathbench --json: no targets, or a curve where it should (not) be"
	fi
fi
rm -rf "$tmp"

echo "tools-cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
