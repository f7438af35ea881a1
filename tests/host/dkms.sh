#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms.conf builds the module only where it can build: Linux 6.12 or later
# (BUILD_EXCLUSIVE_KERNEL_MIN) with the accel subsystem
# (BUILD_EXCLUSIVE_CONFIG="CONFIG_DRM_ACCEL"), so DKMS skips bookworm's
# stock 6.1 cleanly.  dkms.conf is read as DKMS reads it (sourced by a
# bash, which its arrays need) and its exclusion applied as DKMS 3.x applies it: the kernel
# version against the minimum by version order, each named option set to
# y or m in the kernel's .config (a leading '!' negates).
# Last line: "dkms: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }

# The variables of dkms.conf, as DKMS gets them.
vars=$(kernel_source_dir=/k dkms_tree=/d kernelver=0 bash -c \
	'. "$1" && printf "min=%s\ncfg=%s\nname=%s\n" "$BUILD_EXCLUSIVE_KERNEL_MIN" \
	 "$BUILD_EXCLUSIVE_CONFIG" "$PACKAGE_NAME"' bash "$top/dkms.conf" 2>&1) ||
	nok "dkms.conf does not read as a shell file"
min=$(printf '%s\n' "$vars" | sed -n 's/^min=//p')
cfg=$(printf '%s\n' "$vars" | sed -n 's/^cfg=//p')

# excluded KVER CONFIG: 0 when DKMS would skip the module for that kernel.
excluded() {
	if [ -n "$min" ] &&
	   [ "$(printf '%s\n%s\n' "$min" "${1%%[-+]*}" | sort -V | head -n 1)" != "$min" ]; then
		return 0
	fi
	for c in $cfg; do
		case $c in
		!*) grep -qE "^${c#!}=[ym]" "$2" && return 0 ;;
		*) grep -qE "^$c=[ym]" "$2" || return 0 ;;
		esac
	done
	return 1
}

printf 'CONFIG_DRM=m\n# CONFIG_DRM_ACCEL is not set\n' >"$tmp/stock-6.1"
printf 'CONFIG_DRM=m\nCONFIG_DRM_ACCEL=y\n' >"$tmp/accel"
printf 'CONFIG_DRM=m\n' >"$tmp/noaccel"

[ "$min" = 6.12 ] && ok "BUILD_EXCLUSIVE_KERNEL_MIN is 6.12" ||
	nok "BUILD_EXCLUSIVE_KERNEL_MIN is '$min', not 6.12"
[ "$cfg" = CONFIG_DRM_ACCEL ] && ok "BUILD_EXCLUSIVE_CONFIG is CONFIG_DRM_ACCEL" ||
	nok "BUILD_EXCLUSIVE_CONFIG is '$cfg', not CONFIG_DRM_ACCEL"
# The same requirement as Kconfig's and the Makefile's module check.
grep -q 'depends on .*DRM_ACCEL' "$top/Kconfig" &&
	grep -q "CONFIG_DRM_ACCEL=y" "$top/Makefile" &&
	ok "Kconfig and make module ask for the same CONFIG_DRM_ACCEL" ||
	nok "Kconfig or the Makefile's module check no longer names CONFIG_DRM_ACCEL"

excluded 6.1.0-28-amd64 "$tmp/stock-6.1" &&
	ok "skipped on bookworm's stock 6.1.0-28-amd64" ||
	nok "built on bookworm's stock 6.1.0-28-amd64 (no accel subsystem)"
excluded 6.11.10 "$tmp/accel" &&
	ok "skipped on 6.11.10 even with CONFIG_DRM_ACCEL=y" ||
	nok "built on 6.11.10, older than 6.12"
excluded 6.12.9-amd64 "$tmp/noaccel" &&
	ok "skipped on 6.12.9 without CONFIG_DRM_ACCEL" ||
	nok "built on 6.12.9 without CONFIG_DRM_ACCEL"
excluded 6.12.95+deb12-amd64 "$tmp/accel" &&
	nok "skipped on 6.12.95+deb12-amd64 with CONFIG_DRM_ACCEL=y" ||
	ok "built on 6.12.95+deb12-amd64 with CONFIG_DRM_ACCEL=y"
excluded 7.0.0 "$tmp/accel" &&
	nok "skipped on 7.0.0 with CONFIG_DRM_ACCEL=y" ||
	ok "built on 7.0.0 with CONFIG_DRM_ACCEL=y"

# The headers the build uses, when installed: DKMS would build there.
kver=$("$top/tools/scripts/setup-deps.sh" --kver 2>/dev/null)
kcfg=/lib/modules/$kver/build/.config
if [ -n "$kver" ] && [ -r "$kcfg" ]; then
	excluded "$kver" "$kcfg" && nok "skipped on the build's own kernel $kver" ||
		ok "built on the build's own kernel $kver"
fi

echo "dkms: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
