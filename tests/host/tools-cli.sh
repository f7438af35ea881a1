#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every tool answers --version with the release (the Makefile's
# ANE_VERSION, libane's ane_version()) and exit status 0, and --help with
# its usage on stdout and exit status 0.  libane.so exports only ane_*
# functions, each versioned LIBANE_0.1 (lib/libane.map), under the soname
# libane.so.0.  The manual pages (Documentation/accel/ane/man/) carry the
# release and render without warnings.  Bad values and nodes that are not
# ane's are refused with a message before anything runs.  Every tool
# parses with getopt_long through tools/common/ane_opt.c: --opt=value, --,
# options after the command, extra operands refused, every usage error
# naming its argument on stderr (exit 2) before a device is looked for;
# errors on stderr; --json (json-c) parses.
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
	"--seed 'x' is not a number" -- "$B/tools/ane-fuzz" --seed x
want "ane-fuzz --iterations -3 is a usage error" 2 \
	"--iterations '-3' is not a number" -- "$B/tools/ane-fuzz" --iterations -3

# Every tool parses with getopt_long through tools/common/ane_opt.c: a usage error
# names the argument on stderr (stdout empty) and exits 2, before any
# device is looked for.
# uerr NAME TEXT -- COMMAND...: COMMAND exits 2, prints TEXT on stderr and
# nothing on stdout.
uerr() {
	name=$1 text=$2
	shift 3
	"$@" >"$tmpd/out" 2>"$tmpd/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$text" "$tmpd/err" && [ ! -s "$tmpd/out" ]; then
		ok "$name"
	else
		nok "$name: exit $rc, stderr '$(head -n1 "$tmpd/err")', stdout '$(head -n1 "$tmpd/out")'"
	fi
}
tmpd=$(mktemp -d)
T=$B/tools
for t in anectl ane-run ane-bench ane-mathbench ane-fuzz ane-netbench aned; do
	uerr "$t --bogus names the option" "unknown option '--bogus'" -- "$T/$t" --bogus
	uerr "$t --version=1 names the value" "--version takes no value, not '1'" -- \
		"$T/$t" --version=1
done
uerr "ane-fuzz --bogus is unknown (not 'needs a value')" "ane-fuzz: unknown option '--bogus'" -- \
	"$T/ane-fuzz" --bogus --seed 1
uerr "aned --cache-mb without a value is named" "aned: --cache-mb needs a value" -- \
	"$T/aned" --cache-mb
uerr "aned --idle-ms -1 is in ms, not MiB" "--idle-ms '-1' is not a number of ms from 0 to" -- \
	"$T/aned" --idle-ms -1
uerr "ane-mathbench matmul 0 names the size and its range" \
	"matmul '0' is not a number from 1 to 4096" -- "$T/ane-mathbench" matmul 0
uerr "ane-mathbench cores 1 names the threads" "cores '1' is not a number of threads from 2 to 16" -- \
	"$T/ane-mathbench" cores 1
uerr "ane-netbench --threads 0 names the range" "--threads '0' is not a number from 1 to 16" -- \
	"$T/ane-netbench" --threads 0
uerr "ane-run --timeout x names the value" "--timeout 'x' is not a number of ms" -- \
	"$T/ane-run" --timeout x
uerr "anectl top --interval 0 names the range" "--interval '0' is not a number of ms from 1 to 3600000" -- \
	"$T/anectl" top --interval 0
# --opt=value reaches the option
uerr "ane-fuzz --seed=x: --opt=value" "--seed 'x' is not a number" -- "$T/ane-fuzz" --seed=x
uerr "aned --idle-ms=-1: --opt=value" "--idle-ms '-1' is not a number" -- "$T/aned" --idle-ms=-1
uerr "ane-bench --json=FILE bogus: --opt=value" "unknown bench 'bogus'" -- \
	"$T/ane-bench" --json="$tmpd/b.json" bogus
# -- ends the options: what follows is an operand
uerr "ane-mathbench -- --json: an operand after --" "unknown case '--json'" -- \
	"$T/ane-mathbench" -- --json
uerr "ane-run -- --direct: an operand after --" "unknown network '--direct'" -- \
	"$T/ane-run" -- --direct
uerr "anectl -- info: the command after --" "unexpected operand" -- "$T/anectl" info -- extra
# an extra operand is refused, named
uerr "ane-bench dart NODE extra is refused" "unexpected operand 'extra'" -- \
	"$T/ane-bench" dart /dev/null extra
uerr "ane-run mlp conv is refused" "unexpected operand 'conv'" -- "$T/ane-run" mlp conv
# ane-run MODEL.onnx parses on the same parser (tools/ane-run/ane-run-onnx.c),
# before the model is read.
uerr "ane-run M.onnx --bogus names the option" "ane-run: unknown option '--bogus'" -- \
	"$T/ane-run" "$tmpd/m.onnx" --bogus
uerr "ane-run M.onnx --runs=0: --opt=value and the range" "--runs '0' is not a number from 1 to 1000000" -- \
	"$T/ane-run" "$tmpd/m.onnx" --runs=0
uerr "ane-run M.onnx --seed -1 names the value" "--seed '-1' is not a number" -- \
	"$T/ane-run" "$tmpd/m.onnx" --seed -1
uerr "ane-run M.onnx --threads without a value" "ane-run: --threads needs a value" -- \
	"$T/ane-run" "$tmpd/m.onnx" --threads
uerr "ane-run M.onnx --input without NAME=" "--input 'x.npy': takes NAME=FILE.npy" -- \
	"$T/ane-run" "$tmpd/m.onnx" --input x.npy
uerr "ane-run M.onnx extra is refused" "unexpected operand 'extra'" -- \
	"$T/ane-run" "$tmpd/m.onnx" extra
uerr "ane-run M.onnx --engine-only --cpu-only" "--engine-only and --cpu-only exclude each other" -- \
	"$T/ane-run" "$tmpd/m.onnx" --engine-only --cpu-only
uerr "ane-run -q M.onnx --version=1: options before and after the model" \
	"--version takes no value, not '1'" -- "$T/ane-run" -q "$tmpd/m.onnx" --version=1
uerr "anectl info extra is refused" "unexpected operand 'extra'" -- "$T/anectl" info extra
uerr "anectl power on extra is refused" "unexpected operand 'extra'" -- "$T/anectl" power on extra
uerr "ane-fuzz extra is refused" "unexpected operand 'extra'" -- "$T/ane-fuzz" extra
uerr "ane-netbench extra is refused" "unexpected operand 'extra'" -- "$T/ane-netbench" extra
uerr "aned extra is refused" "unexpected operand 'extra'" -- "$T/aned" extra
uerr "ane-mathbench cores with a case is refused" "cores [N] runs alone, not with 'matmul'" -- \
	"$T/ane-mathbench" cores 2 matmul
# the arguments are checked before the device is looked for
uerr "ane-bench bogus: the bench, not the device" "ane-bench: unknown bench 'bogus'" -- \
	"$T/ane-bench" bogus
uerr "anectl power sideways: a usage error before the device" "unknown 'sideways'" -- \
	"$T/anectl" power sideways
uerr "anectl doctor --json: no JSON there" "doctor has no JSON output" -- "$T/anectl" doctor --json
# an option after the command is the command's
want "anectl info -d NODE honours -d" 1 "/dev/null: not an ane node" -- "$T/anectl" info -d /dev/null
want "anectl clients --device=NODE honours it" 1 "anectl clients: /dev/null is not an ane node" -- \
	"$T/anectl" clients --device=/dev/null
want "anectl top -d (no NODE) after top" 2 "-d needs a NODE" -- "$T/anectl" top -d
# -h and -V, as ane-netbench(1) says
"$T/ane-netbench" -h | grep -q '^usage: ane-netbench' && ok "ane-netbench -h" || nok "ane-netbench -h"
"$T/ane-netbench" -V | grep -q "^ane-netbench .* $ver\$" && ok "ane-netbench -V" || nok "ane-netbench -V"
# --idle-ms 0 is a value (aned goes on to the policy, which is missing: status 78)
"$T/aned" --idle-ms 0 --policy "$tmpd/none.conf" >"$tmpd/out" 2>"$tmpd/err"
rc=$?
[ $rc -eq 78 ] && ! grep -q idle-ms "$tmpd/err" && ok "aned --idle-ms 0 is accepted" ||
	nok "aned --idle-ms 0: exit $rc, '$(head -n1 "$tmpd/err")'"
# errors on stderr: ane-fuzz without a device keeps only its last line on stdout
if [ ! -e /dev/accel ] || ! ls /dev/accel/accel* >/dev/null 2>&1; then
	"$T/ane-fuzz" --time 1 >"$tmpd/out" 2>"$tmpd/err"
	grep -q 'no ane node found' "$tmpd/err" && ! grep -q 'no ane node' "$tmpd/out" &&
		grep -q '^ane-fuzz: 0 passed, 1 failed$' "$tmpd/out" &&
		ok "ane-fuzz's error on stderr, its summary on stdout" ||
		nok "ane-fuzz without a device: stdout '$(head -n1 "$tmpd/out")', stderr '$(head -n1 "$tmpd/err")'"
	"$T/ane-bench" dart >"$tmpd/out" 2>"$tmpd/err"
	[ $? -eq 1 ] && grep -q 'no /dev/accel node' "$tmpd/err" && [ ! -s "$tmpd/out" ] &&
		ok "ane-bench dart without a device: the error on stderr" ||
		nok "ane-bench dart without a device: '$(head -n1 "$tmpd/err")'"
fi
# --json parses (device-free: anectl top and list with no client or
# device, ane-bench's file of a run that could not start)
json_ok() { python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; }
"$T/anectl" top --json --interval 1 | json_ok &&
	"$T/anectl" --json top --once -i 1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert isinstance(d["clients"], list) and d["interval_ms"] == 1' &&
	ok "anectl top --json parses" || nok "anectl top --json is not JSON"
"$T/anectl" list --json 2>/dev/null | python3 -c '
import json, sys
assert isinstance(json.load(sys.stdin), list)' && ok "anectl list --json parses" ||
	nok "anectl list --json is not a JSON array"
uerr "anectl top --json -n 2 is refused" "--json prints one sample" -- "$T/anectl" top --json -n 2
"$T/ane-bench" --json "$tmpd/b.json" dart /dev/null >/dev/null 2>&1
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["exit"] == 1 and d["tool"] == "ane-bench"' \
	"$tmpd/b.json" 2>/dev/null && ok "ane-bench --json writes JSON (json-c) even when the bench fails" ||
	nok "ane-bench --json: $(head -c 200 "$tmpd/b.json" 2>&1)"
rm -rf "$tmpd"

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

# tools/bench/perf-report makes the performance page's tables and plots from the
# results committed beside them: the same inputs give the same page, so
# the page is the data's (and nobody edited it by hand); a file that is not
# JSON is refused with its name.
perf=$top/Documentation/accel/ane/perf
tmp=$(mktemp -d)
if ! command -v python3 >/dev/null; then
	nok "perf-report: python3 missing"
elif ! "$top/tools/bench/perf-report" -o "$tmp" "$perf"/res-*.json "$perf"/math-*.json >/dev/null; then
	nok "perf-report fails on $perf/res-*.json $perf/math-*.json"
else
	for f in $(cd "$tmp" && ls); do
		if cmp -s "$tmp/$f" "$perf/$f"; then
			ok "perf-report remakes perf/$f from the committed results"
		else
			nok "perf-report's perf/$f differs from the committed one (run tools/bench/perf-report $perf/res-*.json $perf/math-*.json)"
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
	out=$("$top/tools/bench/perf-report" -o "$tmp" "$tmp/bad.json" 2>&1) &&
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
		"$top/tools/bench/perf-report" -o "$tmp/plots" "$tmp/sweep.json" "$tmp/one.json" >/dev/null &&
			[ -s "$tmp/plots/gflops-sweep.svg" ] && [ ! -e "$tmp/plots/gflops-one.svg" ] &&
			ok "ane-mathbench --json: targets, and a GFLOP/s curve for a sweep that perf-report plots" ||
			nok "perf-report made no plot (or one too many) of ane-mathbench's sweep"
	else
		nok "ane-mathbench --json: no targets, or a curve where it should (not) be"
	fi
fi
rm -rf "$tmp"

# onnx-suite --expect: a listed model that does not pass engine-only is a
# failure named with the list; one that passes is not.
if [ -x "$B/tests/onnx-suite" ] && [ -d /usr/share/libonnx-testdata/data/node/test_abs ]; then
	lst=$(mktemp)
	printf '# a comment\nnode/test_abs\nnode/test_acos\n' > "$lst"
	want "onnx-suite --expect names a listed model that is refused" 1 \
		"not ok - node/test_acos (engine-only): refused, where $lst lists it as passing" -- \
		"$B/tests/onnx-suite" --expect "$lst" --filter test_a node
	printf 'node/test_abs\n' > "$lst"
	want "onnx-suite --expect passes when every listed model passes" 0 \
		"ok - 0 of the models $lst lists did not pass engine-only" -- \
		"$B/tests/onnx-suite" --expect "$lst" --filter test_abs node
	rm -f "$lst"
else
	nok "onnx-suite --expect: build/tests/onnx-suite or libonnx-testdata missing"
fi

# libsystemd: a static tool that never calls the broker client does not
# need it (--as-needed), libane.so does (libane.rst, "Who links libsystemd").
if command -v readelf >/dev/null; then
	if ! readelf -d "$T/anectl" | grep -q 'NEEDED.*libsystemd' &&
	   readelf -d "$T/ane-bench" | grep -q 'NEEDED.*libsystemd' &&
	   readelf -d "$B/lib/libane.so.$ver" | grep -q 'NEEDED.*libsystemd'; then
		ok "libsystemd: not in anectl, in ane-bench (its broker bench) and libane.so, as documented"
	else
		nok "libsystemd's NEEDED entries differ from libane.rst's account"
	fi
fi
# ane-mathbench says which CPU its figures come from: /proc/cpuinfo's
# model name, vendor, family and model, and the micro-architecture.
if [ -r /proc/cpuinfo ]; then
	name=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
	fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n1)
	line=$(env -u OPENBLAS_CORETYPE "$T/ane-mathbench" matmul 64 2>&1 | grep '^cpu: ')
	if [ -n "$line" ] && printf '%s\n' "$line" | grep -qF "cpu: $name (" &&
	   printf '%s\n' "$line" | grep -q "family $(printf '0x%x' "$fam") model 0x[0-9a-f]*): ."; then
		ok "ane-mathbench names the CPU: $line"
	else
		nok "ane-mathbench's cpu line: '$line' (model name '$name', family $fam)"
	fi
fi
echo "tools-cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
