#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make lint: checkpatch --strict (from the unpacked linux-source-6.12 the
# KUnit runner caches), sparse (an out-of-tree build with C=2) and
# kernel-doc -none -Wall over the kernel code and the uapi header, and
# the include graph of the three parts (tools/scripts/check-includes.sh), the
# seams at link level (tools/scripts/check-seams.sh), the size of every
# .c of driver/, firmware/, lib/ and tools/ (at most 750 lines), and the
# documentation against the tree (tests/host/docs.sh: among its checks, no
# page says a selector or method is not implemented when the driver's
# selector table and method switches implement it).
# Prints every finding and exits non-zero if there is any.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${KVER:-$("$top/tools/scripts/setup-deps.sh" --kver)}
kdir=${KDIR:-/lib/modules/$kver/build}
fail=0

mapfile -t kfiles < <(cd "$top" && ls driver/*.[ch] firmware/*.[ch] \
	firmware/spec/*.[ch] firmware/hw/*.[ch] tests/kunit/*.[ch] uapi/drm/ane_accel.h 2>/dev/null)
# The instruction-set header and its operation checks are also plain
# userspace C (the host tests and ane-mathbench build the engine with
# them, see firmware/hw/engine/ane_math.h): <stdint.h> types and no BIT(),
# which userspace lacks.
portable=(firmware/spec/ane_isa.h firmware/spec/ane_op_check.c)
mapfile -t kfiles < <(printf '%s\n' "${kfiles[@]}" |
	grep -vxF -f <(printf '%s\n' "${portable[@]}"))

step() { printf '=== lint: %s\n' "$*"; }

max_lines=750

# First: it needs no kernel tree, so a missing one does not hide it.
step "documentation (tests/host/docs.sh)"
out=$("$top/tests/host/docs.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v '^ok - '
[ $rc -eq 0 ] || fail=1

step "checkpatch --strict"
src=$("$top/tools/kunit/run-kunit.sh" --print-srcdir) || {
	echo "lint: cannot unpack the kernel source for checkpatch" >&2
	exit 1
}
if ! (cd "$top" && "$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
	--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	--ignore CONFIG_DESCRIPTION -f "${kfiles[@]}"); then
	fail=1
fi
if ! (cd "$top" && "$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
	--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	--ignore PREFER_KERNEL_TYPES,BIT_MACRO -f "${portable[@]}"); then
	fail=1
fi

step "sparse (C=2)"
out=$(make -s -C "$kdir" M="$top" CONFIG_DRM_ACCEL_ANE=m ANE_WERROR=y C=2 modules 2>&1)
if grep -E '(warning|error):' <<<"$out"; then
	fail=1
fi

step "kernel-doc -none -Wall"
out=$("$kdir/scripts/kernel-doc" -none -Wall \
	$(cd "$top" && printf "$top/%s " "${kfiles[@]}" "${portable[@]}") 2>&1)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	fail=1
fi

step "include graph (driver, device model, firmware)"
if ! "$top/tools/scripts/check-includes.sh" "$top"; then
	fail=1
fi

# The module's objects are fresh from the sparse build above; libane's
# are built if missing.
step "seams at link level (tools/scripts/check-seams.sh)"
if ! "$top/tools/scripts/check-seams.sh" "$top"; then
	fail=1
fi

# No C file a reader must scroll: at most 750 lines in every part's code
# and the tools (the tests' suites are tables of cases, and not counted).
step "file sizes (at most $max_lines lines a .c)"
while read -r n f; do
	[ "$f" = total ] && continue
	if [ "$n" -gt "$max_lines" ]; then
		echo "$f: $n lines (at most $max_lines)"
		fail=1
	fi
done < <(cd "$top" && find driver firmware lib tools -name '*.c' -print0 |
	sort -z | xargs -0 wc -l)

if [ $fail -eq 0 ]; then
	echo "lint: clean"
else
	echo "lint: findings above"
fi
exit $fail
