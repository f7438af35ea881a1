#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the VM (tools/vm/ane-vm --no-load): every VM suite in turn.
# Each suite prints its own "<suite>: N passed, N failed" line.
rc=0
modprobe ane || { echo "vm-setup: 0 passed, 1 failed"; exit 1; }
abi_test || rc=1
# DRM core ioctls on the node, as an unprivileged user.
coreioctl_test || rc=1
anectl info >/dev/null && echo "anectl-info: 1 passed, 0 failed" ||
	{ echo "anectl-info: 0 passed, 1 failed"; rc=1; }
rmmod ane || { echo "vm-rmmod: 0 passed, 1 failed"; rc=1; }
# Two engines, so PRIME can cross devices.
modprobe ane devices=2 || { echo "vm-setup2: 0 passed, 1 failed"; exit 1; }
dart_test || rc=1
rmmod ane || { echo "vm-rmmod2: 0 passed, 1 failed"; rc=1; }
lifecycle.sh || rc=1
# The firmware: boot, round trips, crash dump and recovery.
modprobe ane || { echo "vm-setup-fw: 0 passed, 1 failed"; exit 1; }
fw_test || rc=1
rmmod ane || { echo "vm-rmmod-fw: 0 passed, 1 failed"; rc=1; }
# Recovery from every firmware state; programs survive it.
modprobe ane || { echo "vm-setup-recovery: 0 passed, 1 failed"; exit 1; }
recovery_test || rc=1
rmmod ane || { echo "vm-rmmod-recovery: 0 passed, 1 failed"; rc=1; }
# Programs end to end: create, prepare, run, events, fences.
modprobe ane || { echo "vm-setup-prog: 0 passed, 1 failed"; exit 1; }
program_test || rc=1
rmmod ane || { echo "vm-rmmod-prog: 0 passed, 1 failed"; rc=1; }
# The same with the firmware sleeping at once when idle (no idle poll).
modprobe ane fw_idle_poll_us=0 || { echo "vm-setup-nopoll: 0 passed, 1 failed"; exit 1; }
program_test || rc=1
rmmod ane || { echo "vm-rmmod-nopoll: 0 passed, 1 failed"; rc=1; }
# Networks end to end through libane: results against the CPU reference,
# malformed images refused, instances with their own weights.
modprobe ane || { echo "vm-setup-net: 0 passed, 1 failed"; exit 1; }
net_test || rc=1
rmmod ane || { echo "vm-rmmod-net: 0 passed, 1 failed"; rc=1; }
# Memory limits: quotas, the memory cgroup, bursts without the OOM killer.
modprobe ane || { echo "vm-setup-limits: 0 passed, 1 failed"; exit 1; }
limits_test || rc=1
rmmod ane || { echo "vm-rmmod-limits: 0 passed, 1 failed"; rc=1; }
# libane on a firmware left dead: bounded, sleeping, a clear error.
modprobe ane || { echo "vm-setup-deadfw: 0 passed, 1 failed"; exit 1; }
deadfw_test || rc=1
rmmod ane || { echo "vm-rmmod-deadfw: 0 passed, 1 failed"; rc=1; }
# anectl doctor with ane not loaded (it loads it), healthy, a node nobody
# can open, a dead firmware; the health attributes in sysfs.
doctor_test || rc=1
rmmod ane || { echo "vm-rmmod-doctor: 0 passed, 1 failed"; rc=1; }
# anectl top: no client, then a busy client's engine time, requests, memory.
modprobe ane || { echo "vm-setup-top: 0 passed, 1 failed"; exit 1; }
top_test || rc=1
rmmod ane || { echo "vm-rmmod-top: 0 passed, 1 failed"; rc=1; }
# The ane: tracepoints: one request, a DART fault, a firmware crash.
modprobe ane || { echo "vm-setup-trace: 0 passed, 1 failed"; exit 1; }
trace_test || rc=1
rmmod ane || { echo "vm-rmmod-trace: 0 passed, 1 failed"; rc=1; }
exit $rc
