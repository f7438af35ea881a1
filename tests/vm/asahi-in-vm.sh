#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the VM (tests/vm/asahi.sh): with only the stand-in for Asahi
# Linux's driver (ane_asahi_stub: a platform and DRM accel driver named
# "ane", no 'emulated' attribute) loaded, libane's discovery, an explicit
# node, anectl and ane-run refuse it, naming it; with ane.ko instead, the
# same node is this driver's.  Last line: "asahi: N passed, N failed".
p=0
f=0
ok() { echo "ok - $*"; p=$((p + 1)); }
nok() { echo "not ok - $*"; f=$((f + 1)); }
other="another driver named 'ane' (Asahi Linux's driver of the real Apple Neural Engine?)"

modprobe ane_asahi_stub || { echo "not ok - modprobe ane_asahi_stub"; echo "asahi: 0 passed, 1 failed"; exit 1; }
node=/dev/accel/accel0
[ -c $node ] && [ "$(basename "$(readlink /sys/class/accel/accel0/device/driver)")" = ane ] &&
	ok "the stand-in's node $node is bound to a driver named ane" || nok "the stand-in has no node"
[ ! -e /sys/class/accel/accel0/device/emulated ] &&
	ok "the stand-in has no 'emulated' attribute" || nok "the stand-in has 'emulated'"
out=$(anectl list 2>&1) && nok "anectl list lists the other ane: $out" ||
	{ echo "$out" | grep -qF "accel0 is $other" && ok "anectl list: none, and names the other ane" ||
	  nok "anectl list: $out"; }
out=$(anectl info 2>&1) && nok "anectl info took the other ane" ||
	{ echo "$out" | grep -qF "no /dev/accel node is bound to this ane driver; $node is $other" &&
	  ok "anectl info refuses, naming the other driver" || nok "anectl info: $out"; }
out=$(anectl -d $node info 2>&1) && nok "anectl -d $node info took the other ane" ||
	{ echo "$out" | grep -qF "not this ane: $other" && echo "$out" | grep -q "no 'emulated' attribute" &&
	  ok "an explicit node of the other driver is refused, named" || nok "anectl -d $node info: $out"; }
out=$(ane-run --direct mlp 2>&1) && nok "ane-run ran on the other ane" ||
	{ echo "$out" | grep -qF "$other" && ok "ane-run refuses it, naming it" || nok "ane-run: $out"; }
# The two cannot be loaded at once: both register the platform driver "ane".
if modprobe ane 2>/dev/null; then
	nok "ane.ko loaded beside the other ane driver"
	rmmod ane
else
	ok "ane.ko does not load beside the other driver (both are the platform driver 'ane')"
fi
rmmod ane_asahi_stub || nok "rmmod ane_asahi_stub"
modprobe ane || nok "modprobe ane after the stand-in"
[ "$(cat /sys/class/accel/accel0/device/emulated 2>/dev/null)" = 1 ] &&
	ok "ane.ko's device has emulated = 1" || nok "ane.ko's device lacks emulated = 1"
anectl info >/dev/null 2>&1 && [ "$(anectl list)" = $node ] &&
	ok "with ane.ko the node is this driver's" || nok "anectl with ane.ko: $(anectl info 2>&1 | tail -n 1)"
echo "asahi: $p passed, $f failed"
[ $f -eq 0 ]
