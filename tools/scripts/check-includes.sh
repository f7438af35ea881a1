#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The include graph of the three parts (Documentation/accel/ane/design.rst,
# "Three parts"): every quoted #include of the kernel code is resolved to
# a file and the arrow from the including part to the included one must
# be allowed:
#
#   module    driver/ane_module.c     -> driver, hw, spec  (the module's init
#                                        and exit: the driver's entry points
#                                        and the device model's boards)
#   driver    driver/                 -> driver, spec
#   firmware  firmware/*.[ch]         -> firmware, spec, cpu
#   cpu       firmware/hw/ane_cpu.h   -> spec          (the firmware's view
#                                                       of its own chip)
#   hw        firmware/hw/            -> hw, cpu, spec, engine, and the
#                                        firmware image (the board loads
#                                        firmware/ane_fw_image.h as ROM)
#   engine    firmware/hw/engine/     -> engine, spec
#   spec      firmware/spec/          -> spec
#
# tests/kunit/ may include anything.  Angle-bracket includes are the
# kernel's and the uapi header's and are not checked.
#
# Usage: check-includes.sh [TOP]    (default: this tree)
# Prints every forbidden arrow as FILE:LINE: PART -> PART (HEADER) and
# exits 1 if there is one, 0 otherwise.
set -uo pipefail

top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 2

part() {
	case $1 in
	driver/ane_module.c) echo module ;;
	driver/*) echo driver ;;
	firmware/spec/*) echo spec ;;
	firmware/hw/ane_cpu.h) echo cpu ;;
	firmware/hw/engine/*) echo engine ;;
	firmware/hw/*) echo hw ;;
	firmware/*) echo firmware ;;
	*) echo other ;;
	esac
}

allowed() {
	case "$1>$2" in
	module\>driver | module\>hw | module\>spec) return 0 ;;
	driver\>driver | driver\>spec) return 0 ;;
	firmware\>firmware | firmware\>spec | firmware\>cpu) return 0 ;;
	cpu\>spec | cpu\>cpu) return 0 ;;
	hw\>hw | hw\>cpu | hw\>spec | hw\>engine) return 0 ;;
	engine\>engine | engine\>spec) return 0 ;;
	spec\>spec) return 0 ;;
	esac
	return 1
}

# Resolve "name" as the compiler does with Kbuild's -I$(src) -I$(src)/uapi:
# the including file's directory first, then the tree's root.
resolve() {
	local dir=$1 name=$2 p
	for p in "$dir/$name" "$name"; do
		if [ -f "$p" ]; then
			realpath -m --relative-to=. "$p"
			return 0
		fi
	done
	return 1
}

bad=0
while IFS= read -r f; do
	from=$(part "$f")
	while IFS=: read -r line name; do
		if ! to_file=$(resolve "$(dirname "$f")" "$name"); then
			echo "$f:$line: cannot resolve \"$name\""
			bad=1
			continue
		fi
		to=$(part "$to_file")
		# The one arrow by file: the board loads the firmware image.
		if [ "$from" = hw ] && [ "$to_file" = firmware/ane_fw_image.h ]; then
			continue
		fi
		if ! allowed "$from" "$to"; then
			echo "$f:$line: $from -> $to ($to_file)"
			bad=1
		fi
	done < <(awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
		match($0, /"[^"]*"/)
		print NR ":" substr($0, RSTART + 1, RLENGTH - 2)
	}' "$f")
done < <(find driver firmware -name '*.[ch]' | sort)

if [ $bad -ne 0 ]; then
	echo "check-includes: forbidden arrows above (see Documentation/accel/ane/design.rst)"
fi
exit $bad
