#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The parts stay apart at link level: tools/scripts/check-seams.sh passes
# on this tree's objects, and it does fail -- naming the parts, the
# symbol and the object -- when a copy of the objects gets one that
# references another part's symbol, in each direction the design forbids.
# Last line: "seams: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/tools/scripts/check-seams.sh
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }

if out=$("$check" "$top" 2>&1); then
	ok "the tree's objects reference only allowed parts"
else
	printf '%s\n' "$out"
	nok "the tree's objects reference forbidden parts"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$top" && find driver firmware build/lib -name '*.o' 2>/dev/null) >"$tmp/list"

# plant DIR SYMBOL EXPECTED-ARROW: a copy of the objects with DIR/ane_planted.o
# (its source planted too) calling SYMBOL; the check must fail naming the
# arrow and the symbol.
plant() {
	rm -rf "$tmp/root" "$tmp/top"
	mkdir -p "$tmp/root" "$tmp/top"
	(cd "$top" && xargs -r cp --parents -t "$tmp/root" <"$tmp/list")
	cp -r "$top/driver" "$top/firmware" "$top/lib" "$tmp/top/"
	printf 'void %s(void);\nvoid ane_planted(void);\nvoid ane_planted(void) { %s(); }\n' \
		"$2" "$2" >"$tmp/top/$1/ane_planted.c"
	case $1 in
	lib) obj=$tmp/root/build/lib/ane_planted.o ;;
	*) obj=$tmp/root/$1/ane_planted.o ;;
	esac
	mkdir -p "$(dirname "$obj")"
	cc -c -o "$obj" "$tmp/top/$1/ane_planted.c" || { nok "$1: cannot build the plant"; return; }
	if out=$("$check" --no-build "$tmp/top" "$tmp/root" 2>&1); then
		nok "$1 calling $2 passed the check"
	elif printf '%s\n' "$out" | grep -q "^$3: $2 "; then
		ok "$1 calling $2 is refused as $3"
	else
		printf '%s\n' "$out"
		nok "$1 calling $2 failed without naming $3"
	fi
}

plant driver ane_op_run_planned "driver -> engine"
plant driver ane_hw_read32 "driver -> cpu"
plant driver ane_boards_create "driver -> hw"
plant firmware/hw ane_driver_init "hw -> driver"
plant firmware ane_dart_map "firmware -> driver"
plant firmware/hw/engine ane_hw_dma "engine -> cpu"
plant lib ane_op_run_planned "lib -> engine"

echo "seams: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
