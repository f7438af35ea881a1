#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The release number is written in four places: the Makefile (libane's
# soname and .pc), dkms.conf, the module's MODULE_VERSION and libane.h's
# LIBANE_VERSION_MAJOR/MINOR/PATCH.  They agree.
top=$(cd "$(dirname "$0")/../.." && pwd)
mk=$(sed -n 's/^ANE_VERSION := //p' "$top/Makefile")
dk=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
mod=$(sed -n 's/^#define ANE_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' "$top/driver/ane_drv.h")
hdr=$(for p in MAJOR MINOR PATCH; do
	sed -n "s/^#define LIBANE_VERSION_$p[[:space:]]*\([0-9]*\)$/\1/p" "$top/lib/libane.h"
done | paste -sd.)
if [ -n "$mk" ] && [ "$mk" = "$dk" ] && [ "$mk" = "$mod" ] && [ "$mk" = "$hdr" ]; then
	echo "ok - release $mk in Makefile, dkms.conf, MODULE_VERSION and libane.h's LIBANE_VERSION_*"
	echo "versions: 1 passed, 0 failed"
else
	echo "not ok - Makefile '$mk', dkms.conf '$dk', MODULE_VERSION '$mod', libane.h LIBANE_VERSION_* '$hdr'"
	echo "versions: 0 passed, 1 failed"
	exit 1
fi
