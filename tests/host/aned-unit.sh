#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# aned after `make install` and `systemctl enable --now aned.socket`: a
# policy it finds by itself (no --policy in the unit; the default is
# DATADIR's, see install.sh), no restart loop (a policy it cannot read is
# exit status 78, which the unit's RestartPreventExitStatus names, and the
# journal says so; without a device aned waits and serves, each call
# answered with the reason), and the unit's hardening
# (systemd-analyze security --offline, when systemd-analyze is there).
# Last line: "aned-unit: N passed, N failed, N skipped".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
unit=$top/tools/aned/aned.service
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0
fail=0
skip=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
skp() { echo "SKIP - $*"; skip=$((skip + 1)); }

# The unit.
grep -qx 'ExecStart=@SBINDIR@/aned' "$unit" &&
	ok "aned.service gives no --policy: aned finds /etc's or the installed default" ||
	nok "aned.service's ExecStart is '$(sed -n 's/^ExecStart=//p' "$unit")'"
prevent=$(sed -n 's/^RestartPreventExitStatus=//p' "$unit")
if grep -qw 2 <<<"$prevent" && grep -qw 78 <<<"$prevent" && grep -qx 'Restart=on-failure' "$unit"; then
	ok "aned.service restarts on failure but not on status 2 or 78"
else
	nok "aned.service: RestartPreventExitStatus='$prevent' (wants 2 and 78)"
fi
grep -q '^#define ANED_EXIT_CONFIG[[:space:]]*78$' "$top/tools/aned/aned.h" &&
	grep -q '^#define ANED_EXIT_USAGE[[:space:]]*2$' "$top/tools/aned/aned.h" &&
	ok "aned.h's exit statuses are the unit's" ||
	nok "aned.h's ANED_EXIT_CONFIG/ANED_EXIT_USAGE differ from the unit's 78 and 2"
if command -v systemd-analyze >/dev/null; then
	sed "s|@SBINDIR@|/usr/sbin|" "$unit" >"$tmp/aned.service"
	cp "$top/tools/aned/aned.socket" "$tmp/"
	out=$(cd "$tmp" && systemd-analyze security --offline=yes --threshold=20 aned.service 2>&1)
	lvl=$(sed -n 's/.*Overall exposure level for aned.service: \([0-9.]*\).*/\1/p' <<<"$out")
	if [ -n "$lvl" ] && awk -v l="$lvl" 'BEGIN { exit !(l <= 2.0) }'; then
		ok "systemd-analyze security rates aned.service $lvl (at most 2.0)"
	else
		nok "systemd-analyze security rates aned.service '${lvl:-?}', above 2.0:"
		grep '✗' <<<"$out" | sed 's/^/#   /'
	fi
else
	skp "systemd-analyze security: no systemd-analyze here"
fi

aned=$B/tools/aned
if [ ! -x "$aned" ]; then
	nok "$aned is not built (make tools)"
else
	# A policy it cannot read: 78, said in the journal (stderr).
	"$aned" --policy "$tmp/none.conf" --socket "$tmp/s0" --foreground 2>"$tmp/err0"
	rc=$?
	if [ "$rc" -eq 78 ] && grep -q 'none.conf: No such file' "$tmp/err0" &&
	   grep -q 'does not restart' "$tmp/err0"; then
		ok "an unreadable policy is exit status 78, named, and the log says the unit will not restart"
	else
		nok "an unreadable policy: status $rc, '$(head -n 1 "$tmp/err0")'"
	fi
	# No device: aned waits and serves.
	"$aned" --policy "$top/tools/aned/policy.conf" --socket "$tmp/s" \
		--node "$tmp/accel9" --foreground 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 50); do [ -S "$tmp/s" ] && break; sleep 0.1; done
	sleep 0.3
	if kill -0 "$pid" 2>/dev/null && [ -S "$tmp/s" ] &&
	   grep -q "accel9.*waiting: methods fail with this error until an ane device appears" "$tmp/err" &&
	   grep -q 'device none yet' "$tmp/err"; then
		ok "without a device aned keeps running and says it waits"
	else
		nok "without a device aned: $(tr '\n' ' ' <"$tmp/err")"
	fi
	out=$(timeout 30 "$B/tools/ane-run" --socket "$tmp/s" mlp 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'aned: the daemon cannot open the device: .*accel9' <<<"$out"; then
		ok "a call without a device is answered with the reason"
	else
		nok "a call without a device: status $rc: $(tr '\n' ' ' <<<"$out")"
	fi
	kill -0 "$pid" 2>/dev/null && ok "aned still runs after the call" ||
		nok "aned exited after a call without a device"
	kill "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	pid=
	[ "$rc" -eq 0 ] && ok "SIGTERM ends it with status 0" || nok "SIGTERM: status $rc"
	# --help names both policy paths, /etc's first.
	h=$("$aned" --help)
	grep -q 'default /etc/aned/policy.conf' <<<"$h" && grep -q 'else .*/ane/aned-policy.conf' <<<"$h" &&
		ok "aned --help names /etc/aned/policy.conf, else the installed default" ||
		nok "aned --help does not name both policy paths"
fi

echo "aned-unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
