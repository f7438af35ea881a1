#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The uapi header test: uapi/drm/ane_accel.h compiles on its own, in
# userspace, under every C and C++ standard a client may use, as the
# kernel's own header test (usr/include/Makefile, headers_check.pl) checks
# its uapi headers:
#
#  - the header alone (included twice, to catch a missing include guard)
#    in an empty translation unit, with -Wall -Wextra -Werror and, from
#    C99 and C++98 on, -pedantic-errors; C90 as the kernel tests it
#    (-std=c90 -Wall) and also with -pedantic-errors;
#  - no libc header: a directory that shadows the usual ones with #error
#    stubs comes first on the include path (the kernel's usr/dummy-include);
#  - its compile-time size checks work in each: a copy of the header with
#    one selector size wrong must not compile;
#  - headers_check.pl's rules: no function or variable declarations, no
#    CONFIG_ symbols, and every <linux/...> or <asm/...> it includes exists.
#
#   tests/host/uapi-header.sh        (ANE_UAPI_DIR: the uapi directory to test)
#
# One case per standard; the last line is "uapi-header: N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
uapi=${ANE_UAPI_DIR:-$top/uapi}
hdr=$uapi/drm/ane_accel.h
CC=${CC:-cc}
CXX=${CXX:-c++}
passed=0
failed=0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The libc headers a uapi header must not need.
mkdir -p "$tmp/dummy"
for h in assert.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h; do
	printf '#error "a uapi header must not include <%s>"\n' "$h" >"$tmp/dummy/$h"
done

ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() {
	echo "not ok - $1"
	sed "s/^/#   /" "$tmp/out" | head -8
	failed=$((failed + 1))
}

# The header with one selector size wrong: every standard must refuse it.
mkdir -p "$tmp/broken/drm"
sed -E 's/^(#define ANE_DEVICE_INFO_SIZE\s+)104$/\1105/' "$hdr" >"$tmp/broken/drm/ane_accel.h"
if cmp -s "$hdr" "$tmp/broken/drm/ane_accel.h"; then
	echo "uapi-header: cannot find ANE_DEVICE_INFO_SIZE 104 in $hdr"
	echo "uapi-header: 0 passed, 1 failed"
	exit 1
fi

# compile NAME COMPILER LANG FLAGS...: the header alone, included twice,
# compiles; the broken copy does not (its size checks are there).
compile() {
	local name=$1 cc=$2 lang=$3
	shift 3
	if ! "$cc" "$@" -I"$tmp/dummy" -I"$uapi" -fsyntax-only -x "$lang" \
		-include "$hdr" -include "$hdr" /dev/null >"$tmp/out" 2>&1; then
		not_ok "$name"
	elif "$cc" "$@" -I"$tmp/dummy" -I"$tmp/broken" -fsyntax-only -x "$lang" \
		-include "$tmp/broken/drm/ane_accel.h" /dev/null >"$tmp/out" 2>&1; then
		echo "a wrong ANE_DEVICE_INFO_SIZE compiled: no size checks" >"$tmp/out"
		not_ok "$name"
	else
		ok "$name"
	fi
}

# Whether the compiler knows -std=$1 (newer standards on older compilers).
knows_std() {
	local cc=$1 lang=$2 std=$3
	"$cc" -std="$std" -fsyntax-only -x "$lang" /dev/null >/dev/null 2>&1
}

strict=(-Wall -Wextra -Werror)

# C, as the kernel tests it, then stricter.
compile "c90-kernel-flags" "$CC" c -std=c90 -Wall -Werror
compile "c90" "$CC" c -std=c90 "${strict[@]}" -pedantic-errors
compile "gnu89" "$CC" c -std=gnu89 "${strict[@]}"
for std in c99 c11 c17 c2x; do
	knows_std "$CC" c "$std" || continue
	compile "$std" "$CC" c -std="$std" "${strict[@]}" -pedantic-errors
done
# C++.
for std in c++98 c++11 c++14 c++17 c++20; do
	knows_std "$CXX" c++ "$std" || continue
	compile "$std" "$CXX" c++ -std="$std" "${strict[@]}" -pedantic-errors
done

# headers_check.pl's rules.
: >"$tmp/out"
grep -nE '^(\s*extern|unsigned|char|short|int|long|void)\b' "$hdr" |
	grep -v 'extern "C"' >>"$tmp/out"
grep -nE '[^A-Za-z0-9_]CONFIG_[A-Za-z0-9_]+' "$hdr" >>"$tmp/out"
while read -r inc; do
	[ -e "/usr/include/$inc" ] || echo "included <$inc> is not exported" >>"$tmp/out"
done < <(sed -nE 's/^\s*#\s*include\s+<((linux|asm)[^>]*)>.*/\1/p' "$hdr" |
	grep -v '^linux/build_bug.h$')
if [ -s "$tmp/out" ]; then not_ok "headers-check-rules"; else ok "headers-check-rules"; fi

echo "uapi-header: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
