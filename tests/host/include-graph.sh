#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The three parts stay apart: tools/scripts/check-includes.sh passes on this tree,
# and it does fail -- naming the file, the line and the arrow -- when a
# copy of the tree gets a forbidden include in each direction the design
# forbids.  Last line: "include-graph: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/tools/scripts/check-includes.sh
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }

if out=$("$check" "$top" 2>&1); then
	ok "the tree's include graph has only allowed arrows"
else
	printf '%s\n' "$out"
	nok "the tree's include graph has forbidden arrows"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/driver" "$top/firmware" "$tmp/"

# plant FILE HEADER EXPECTED-ARROW: add '#include "HEADER"' to FILE in a
# fresh copy and expect the checker to fail naming FILE and the arrow.
plant() {
	rm -rf "$tmp/driver" "$tmp/firmware"
	cp -r "$top/driver" "$top/firmware" "$tmp/"
	printf '#include "%s"\n' "$2" >>"$tmp/$1"
	if out=$("$check" "$tmp" 2>&1); then
		nok "$1 including $2 passed the check"
	elif printf '%s\n' "$out" | grep -q "^$1:[0-9]*: $3 "; then
		ok "$1 including $2 is refused as $3"
	else
		printf '%s\n' "$out"
		nok "$1 including $2 failed without naming $3"
	fi
}

plant driver/ane_drv.c firmware/ane_fw.h "driver -> firmware"
plant driver/ane_drv.c firmware/hw/ane_hw.h "driver -> hw"
plant driver/ane_drv.c firmware/hw/engine/ane_math.h "driver -> engine"
plant firmware/ane_fw_exec.c driver/ane_drv.h "firmware -> driver"
plant firmware/ane_fw_exec.c hw/ane_hw.h "firmware -> hw"
plant firmware/hw/ane_hw.c driver/ane_dart.h "hw -> driver"
plant firmware/spec/ane_td.c firmware/hw/ane_cpu.h "spec -> cpu"
plant driver/ane_module.c firmware/ane_fw.h "module -> firmware"

echo "include-graph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
