#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Asahi Linux's driver of the real Apple Neural Engine is also a DRM
# driver named "ane": builds the stand-in tests/vm/asahi-stub/ (a platform
# and DRM accel driver named "ane" without the 'emulated' attribute)
# against the VM's kernel and runs tests/vm/asahi-in-vm.sh in the VM with
# it and ane.ko.  Last line: "asahi: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
kver=${KVER:-$("$top/tools/scripts/setup-deps.sh" --kver)}
kdir=${KDIR:-/lib/modules/$kver/build}
stub=$top/tests/vm/asahi-stub
if ! out=$(make -s -C "$kdir" M="$stub" modules 2>&1) || [ ! -f "$stub/ane_asahi_stub.ko" ]; then
	printf '%s\n' "$out" | tail -n 20
	echo "not ok - the stand-in module does not build against $kver"
	echo "asahi: 0 passed, 1 failed"
	exit 1
fi
exec "$top/tools/vm/ane-vm" --quiet --no-load --timeout 300 \
	--module "$top/ane.ko" --module "$stub/ane_asahi_stub.ko" \
	--bin "$B/tools/anectl" --bin "$B/tools/ane-run" \
	--file "$top/tests/vm/asahi-in-vm.sh:/bin/asahi-in-vm.sh" \
	-- 'sh /bin/asahi-in-vm.sh'
