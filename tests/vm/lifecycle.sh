#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs inside the VM (tools/vm/ane-vm --no-load): module load/unload cycles
# with files opened and closed in between, the "devices" parameter, and
# unload after unbinding.  Last line: "lifecycle: N passed, N failed".

pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }

cycles=${1:-20}
good=0
i=1
while [ "$i" -le "$cycles" ]; do
	if ! modprobe ane; then
		echo "#   cycle $i: modprobe ane failed"
		break
	fi
	# Open and close the node twice, once with a DeviceOpen'ed client.
	if ! { exec 3<>/dev/accel/accel0; } 2>/dev/null; then
		echo "#   cycle $i: cannot open /dev/accel/accel0"
		break
	fi
	exec 3>&-
	if ! anectl status >/dev/null; then
		echo "#   cycle $i: anectl status failed"
		break
	fi
	if ! rmmod ane; then
		echo "#   cycle $i: rmmod ane failed"
		break
	fi
	good=$i
	i=$((i + 1))
done
if [ "$good" -eq "$cycles" ]; then
	ok "$cycles load/open/close/unload cycles"
else
	nok "load/open/close/unload cycles: $good of $cycles"
fi

# The devices parameter: N engines give N nodes; out of range is refused.
if modprobe ane devices=3 && [ "$(anectl list | wc -l)" -eq 3 ] &&
   anectl -d "$(anectl list | tail -n 1)" status >/dev/null && rmmod ane; then
	ok "devices=3 gives three working nodes"
else
	nok "devices=3 gives three working nodes"
	rmmod ane 2>/dev/null
fi
if ! modprobe ane devices=0 2>/dev/null && ! modprobe ane devices=9 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules; then
	ok "devices=0 and devices=9 are refused"
else
	nok "devices=0 and devices=9 are refused"
	rmmod ane 2>/dev/null
fi
# fw_idle_poll_us: 0..1000 at load and at run time, nothing above.
P=/sys/module/ane/parameters/fw_idle_poll_us
if ! modprobe ane fw_idle_poll_us=1001 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules && modprobe ane fw_idle_poll_us=1000 &&
   [ "$(cat $P)" = 1000 ] && ! echo 5000 > $P 2>/dev/null &&
   [ "$(cat $P)" = 1000 ] && echo 0 > $P && [ "$(cat $P)" = 0 ]; then
	ok "fw_idle_poll_us takes 0..1000 and refuses more"
else
	nok "fw_idle_poll_us takes 0..1000 and refuses more"
fi
rmmod ane 2>/dev/null
# host_spin_us: 0..100 at load and at run time, nothing above; a ping
# answers with either.
P=/sys/module/ane/parameters/host_spin_us
D=/sys/kernel/debug/accel
if ! modprobe ane host_spin_us=101 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules && modprobe ane host_spin_us=100 &&
   [ "$(cat $P)" = 100 ] && ! echo 500 > $P 2>/dev/null &&
   [ "$(cat $P)" = 100 ] && cat $D/*/fw_ping >/dev/null &&
   echo 0 > $P && [ "$(cat $P)" = 0 ] && cat $D/*/fw_ping >/dev/null; then
	ok "host_spin_us takes 0..100 and refuses more"
else
	nok "host_spin_us takes 0..100 and refuses more"
fi
rmmod ane 2>/dev/null

# read_spin_us: 0..1000 at load and at run time, nothing above; a request
# completes (ane-run) with the watch off and at its longest (pool_test
# reads with a blocking read() at each).
P=/sys/module/ane/parameters/read_spin_us
if ! modprobe ane read_spin_us=1001 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules && modprobe ane read_spin_us=1000 &&
   [ "$(cat $P)" = 1000 ] && ane-run mlp >/dev/null &&
   ! echo 2000 > $P 2>/dev/null && [ "$(cat $P)" = 1000 ] &&
   echo 0 > $P && [ "$(cat $P)" = 0 ] && ane-run mlp >/dev/null; then
	ok "read_spin_us takes 0..1000 and refuses more; requests complete either way"
else
	nok "read_spin_us takes 0..1000 and refuses more; requests complete either way"
fi
rmmod ane 2>/dev/null

# fw_deadline_ms: 10..600000 at load and at run time, nothing else; a
# request on a hung engine is aborted at it (ane-run fails with the
# firmware's -ETIMEDOUT, naming the parameter, well inside its own 1.5 s
# wait), and a write applies from the next firmware boot (a recovery):
# with 20000 the same request outlasts ane-run's wait instead.
P=/sys/module/ane/parameters/fw_deadline_ms
D=/sys/kernel/debug/accel
# The engine held up (a resume resets it, and the hang with it); after
# a crash, the recovery's boot waited for.
hang() { for q in 0 1 2 3 4 5 6 7; do echo "hang $q" > $D/ane.0/fw_inject; done; }
ready() {
	n=0
	while ! grep -q 'state: ready' $D/ane.0/fw_state && [ $n -lt 100 ]; do
		sleep 0.1; n=$((n + 1))
	done
	grep -q 'state: ready' $D/ane.0/fw_state
}
PC=/sys/bus/platform/devices/ane.0/power/control
if ! modprobe ane fw_deadline_ms=9 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules &&
   ! modprobe ane fw_deadline_ms=600001 2>/dev/null &&
   ! grep -q '^ane ' /proc/modules && modprobe ane fw_deadline_ms=100 &&
   [ "$(cat $P)" = 100 ] && ! echo 5 > $P 2>/dev/null &&
   ! echo 700000 > $P 2>/dev/null && [ "$(cat $P)" = 100 ]; then
	ok "fw_deadline_ms takes 10..600000 and refuses the rest"
else
	nok "fw_deadline_ms takes 10..600000 and refuses the rest"
fi
if grep -q '^ane ' /proc/modules && echo on > $PC && ready && hang &&
   out=$(ane-run --timeout 1500 mlp 2>&1); then
	nok "a hung request ends at fw_deadline_ms=100: ane-run succeeded"
elif echo "$out" | grep -q 'ETIMEDOUT.*fw_deadline_ms'; then
	ok "a hung request ends at fw_deadline_ms=100, the message names it"
else
	nok "a hung request ends at fw_deadline_ms=100: $out"
fi
echo unhang > $D/ane.0/fw_inject 2>/dev/null
if echo 20000 > $P && echo crash > $D/ane.0/fw_inject && sleep 0.2 &&
   ready && hang &&
   ! out=$(ane-run --timeout 1500 mlp 2>&1) &&
   ! echo "$out" | grep -q fw_deadline_ms; then
	ok "fw_deadline_ms=20000 applies from the next firmware boot"
else
	nok "fw_deadline_ms=20000 applies from the next firmware boot: $out"
fi
echo unhang > $D/ane.0/fw_inject 2>/dev/null
rmmod ane 2>/dev/null

# MODULE_VERSION: the release, as the build files name it (check.sh passes
# it in ANE_VERSION; a bare x.y.z without it).
want=${ANE_VERSION:-}
if modprobe ane && v=$(cat /sys/module/ane/version 2>/dev/null) &&
   echo "$v" | grep -Eq '^[0-9]+[.][0-9]+[.][0-9]+$' &&
   { [ -z "$want" ] || [ "$v" = "$want" ]; } && rmmod ane; then
	ok "module version $v"
else
	nok "module version: '$(cat /sys/module/ane/version 2>/dev/null)' (want ${want:-x.y.z})"
	rmmod ane 2>/dev/null
fi

# Unbind with a client open, unload refused while open, rebind.
if modprobe ane && unplug_test && rmmod ane; then
	ok "unplug with open clients"
else
	nok "unplug with open clients"
fi

echo "lifecycle: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
