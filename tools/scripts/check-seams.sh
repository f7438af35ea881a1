#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The seams at link level (Documentation/accel/ane/design.rst, "Three
# parts"): from the built objects, every symbol a part leaves undefined
# (nm -u) that another part defines must be an arrow the parts allow.
# The include check (tools/scripts/check-includes.sh) sees the headers; this sees
# the calls, whatever header declared them.
#
#   module    driver/ane_module.o      -> driver, hw     (the module's init
#                                                          and exit)
#   driver    driver/                  -> (spec only)
#   firmware  firmware/*.o             -> cpu            (the controller
#                                                          CPU's loads,
#                                                          stores and DMA:
#                                                          what
#                                                          firmware/hw/ane_cpu.h
#                                                          declares)
#   hw        firmware/hw/             -> engine, rom    (the engine's
#                                                          math; the
#                                                          firmware image
#                                                          the board loads
#                                                          as its ROM:
#                                                          what
#                                                          firmware/ane_fw_image.h
#                                                          declares)
#   engine    firmware/hw/engine/      -> (spec only)
#   lib       lib/ (userspace)         -> (spec only)
#
# Every part may reference the specification (firmware/spec/, shared:
# ane_td.c, ane_op_check.c) and the uapi header (declarations only).  A
# symbol defined by no part (the kernel's, libc's) is not looked at.  The
# objects are the module's (in the tree, from `make module`), libane's
# (build/lib/) and, when built, the engine's and the image validator's
# userspace builds (build/engine/, build/kshim/); an object is counted
# only if its source exists.  Exceptions, each with its reason, are in
# the ALLOW list below; there are none.
#
# Usage: check-seams.sh [--no-build] [TOP [OBJROOT]]
#   TOP      the tree (default: this one)
#   OBJROOT  where the objects are, laid out as TOP is (default: TOP)
#   --no-build  use the objects as they are; without it the module and
#            libane are built first (make module lib) if an object is
#            missing or older than its source.
# Prints every forbidden reference as PART -> PART: SYMBOL (OBJECT) and
# exits 1 if there is one, 0 otherwise (2: no objects to read).
set -uo pipefail

build=1
if [ "${1:-}" = --no-build ]; then
	build=0
	shift
fi
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
root=$(cd "${2:-$top}" && pwd)

# Exceptions: "FROM TO SYMBOL reason...".  None.
ALLOW=(
)

allowed_arrow() {
	case "$1>$2" in
	*\>spec) return 0 ;;
	module\>driver | module\>hw) return 0 ;;
	firmware\>cpu) return 0 ;;
	hw\>engine | hw\>rom) return 0 ;;
	esac
	return 1
}

allowed_symbol() {
	local a
	for a in "${ALLOW[@]}"; do
		set -- $a
		[ "$1 $2 $3" = "$4 $5 $6" ] && return 0
	done 2>/dev/null
	return 1
}

# OBJECT (relative to OBJROOT) -> its part and its source (relative to TOP)
classify() {
	local o=$1 src
	case $o in
	build/lib/onnx.pb-c.o) echo "lib -" ; return ;;
	build/lib/*) src=lib/${o#build/lib/} ;;
	build/engine/*)
		src=firmware/hw/engine/${o#build/engine/}
		[ -f "$top/${src%.o}.c" ] || src=firmware/spec/${o#build/engine/} ;;
	build/kshim/*) src=${o#build/kshim/} ;;
	*) src=$o ;;
	esac
	src=${src%.o}.c
	[ -f "$top/$src" ] || return 1
	case $src in
	driver/ane_module.c) echo "module $src" ;;
	driver/*) echo "driver $src" ;;
	firmware/spec/*) echo "spec $src" ;;
	firmware/hw/engine/*) echo "engine $src" ;;
	firmware/hw/*) echo "hw $src" ;;
	firmware/*) echo "firmware $src" ;;
	lib/*) echo "lib $src" ;;
	*) return 1 ;;
	esac
}

objects() {
	(cd "$root" && find driver firmware build/lib build/engine build/kshim \
		-name '*.o' 2>/dev/null | sort)
}

# stale DIR SOURCES...: is an object under DIR missing or older than its source?
stale() {
	local dir=$1 c o
	shift
	for c in "$@"; do
		o=$dir/${c%.c}.o
		[ -f "$o" ] && [ "$o" -nt "$top/$c" ] || return 0
	done
	return 1
}

if [ $build -eq 1 ]; then
	targets=
	if stale "$root" $(cd "$top" && ls driver/*.c firmware/*.c firmware/*/*.c firmware/*/*/*.c); then
		targets=module
	fi
	if stale "$root/build" $(cd "$top" && ls lib/*.c lib/onnx/*.c); then
		targets="$targets lib"
	fi
	if [ -n "$targets" ]; then
		echo "check-seams: building the objects (make ${targets# })"
		make -s -C "$top" $targets >/dev/null || {
			echo "check-seams: the build failed" >&2
			exit 2
		}
	fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The CPU view and the ROM: symbols the headers declare, parts of their own.
sed -n 's/^[a-z][^(]*[ *]\([a-z_][a-z_0-9]*\)(.*/\1/p' "$top/firmware/hw/ane_cpu.h" |
	sed 's/^/cpu /' >"$tmp/iface"
sed -n 's/^extern .*[ *]\([a-z_][a-z_0-9]*\);.*/\1/p' "$top/firmware/ane_fw_image.h" |
	sed 's/^/rom /' >>"$tmp/iface"

n=0
while IFS= read -r o; do
	read -r p src < <(classify "$o") || continue
	[ -n "${p:-}" ] || continue
	n=$((n + 1))
	nm --defined-only -g "$root/$o" |
		awk -v p="$p" -v o="$o" 'NF == 3 && $2 ~ /[A-Z]/ { print $3, p, o }' >>"$tmp/def"
	nm -u "$root/$o" | awk -v p="$p" -v o="$o" '{ print $NF, p, o }' >>"$tmp/und"
done < <(objects)
if [ $n -eq 0 ]; then
	echo "check-seams: no objects under $root (make module lib first)" >&2
	exit 2
fi
touch "$tmp/def" "$tmp/und"

# A symbol the CPU view or the ROM declares is of that interface's part.
awk 'FILENAME == ARGV[1] { iface[$2] = $1; next }
     FILENAME == ARGV[2] { p = ($1 in iface) ? iface[$1] : $2
			   if (!((($1) SUBSEP p) in seen)) { seen[$1, p] = 1; defs[$1] = defs[$1] " " p }
			   own[$1, $2] = 1; next }
     { if (!($1 in defs) || (($1) SUBSEP ($2)) in own) next
       n = split(defs[$1], q, " ")
       for (i = 1; i <= n; i++) if (q[i] != $2) print $2, q[i], $1, $3 }' \
	"$tmp/iface" "$tmp/def" "$tmp/und" | sort -u >"$tmp/refs"

bad=0
while read -r from to sym obj; do
	allowed_arrow "$from" "$to" && continue
	allowed_symbol "$from" "$to" "$sym" && continue
	echo "$from -> $to: $sym ($obj)"
	bad=1
done <"$tmp/refs"

if [ $bad -ne 0 ]; then
	echo "check-seams: forbidden references above (see Documentation/accel/ane/design.rst)"
else
	echo "check-seams: $n objects, no forbidden reference"
fi
exit $bad
