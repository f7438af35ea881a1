#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The release number is written in three places: the Makefile (libane's
# soname and .pc), dkms.conf and the module's MODULE_VERSION.  They agree.
top=$(cd "$(dirname "$0")/../.." && pwd)
mk=$(sed -n 's/^ANE_VERSION := //p' "$top/Makefile")
dk=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
mod=$(sed -n 's/^#define ANE_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' "$top/driver/ane_drv.h")
if [ -n "$mk" ] && [ "$mk" = "$dk" ] && [ "$mk" = "$mod" ]; then
	echo "ok - release $mk in Makefile, dkms.conf and MODULE_VERSION"
	echo "versions: 1 passed, 0 failed"
else
	echo "not ok - Makefile '$mk', dkms.conf '$dk', MODULE_VERSION '$mod'"
	echo "versions: 0 passed, 1 failed"
	exit 1
fi
