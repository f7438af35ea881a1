#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# This driver and Asahi Linux's driver of the real Apple Neural Engine are
# both named "ane"; what tells them apart agrees everywhere: the udev rule
# matches only devices with emulated = 1, the driver has that attribute,
# and libane's DRM description is the driver's.  (tests/vm/asahi.sh
# refuses a stand-in of the other driver in the VM.)
# Last line: "asahi-host: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
rule=$top/tools/udev/70-ane.rules
grep -v '^#' "$rule" | grep -q 'DRIVERS=="ane", ATTRS{emulated}=="1", GROUP="render"' &&
	! grep -v '^#' "$rule" | grep 'DRIVERS=="ane"' | grep -qv 'ATTRS{emulated}=="1"' &&
	ok "every rule of 70-ane.rules asks for ATTRS{emulated}==\"1\"" ||
	nok "70-ane.rules has a rule for DRIVERS==\"ane\" without ATTRS{emulated}==\"1\""
grep -q 'DEVICE_ATTR_RO(emulated)' "$top/driver/ane_sysfs.c" &&
	grep -q '&dev_attr_emulated.attr' "$top/driver/ane_sysfs.c" &&
	ok "the driver's device has the attribute 'emulated'" ||
	nok "driver/ane_sysfs.c has no 'emulated' attribute"
drv=$(sed -n 's/^#define ANE_DRIVER_DESC[[:space:]]*"\(.*\)"/\1/p' "$top/driver/ane_drv.h")
lib=$(sed -n 's/^#define ANE_EMU_DRIVER_DESC[[:space:]]*"\(.*\)"/\1/p' "$top/lib/ane_device.c")
[ -n "$drv" ] && [ "$drv" = "$lib" ] && ok "libane expects the driver's DRM description '$drv'" ||
	nok "DRM description: driver '$drv', libane '$lib'"
echo "asahi-host: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
