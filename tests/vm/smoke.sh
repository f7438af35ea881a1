#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Self-test of tools/vm/ane-vm: boots the VM a few times and checks that
# the runner passes exit statuses through and fails on kernel reports.
# Needs no ane.ko (only the stock kernel and its modules).
#
# The VM commands are single-quoted on purpose: they expand in the VM.
# shellcheck disable=SC2016
set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
VM=$ROOT/tools/vm/ane-vm
KVER=$("$ROOT/tools/scripts/setup-deps.sh" --kver)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vm-smoke.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

PASS=0
FAIL=0
N=0

# check NAME WANT_STATUS GREP_OUTPUT -- ane-vm args...
# WANT_STATUS: a number, or "nonzero".  GREP_OUTPUT: an ERE the combined
# output must match ("" for none).
check() {
	local name=$1 want=$2 re=$3 rc=0 ok=1
	shift 4
	N=$((N + 1))
	local out=$TMP/$N.out
	"$VM" --quiet --log "$TMP/$N.log" "$@" >"$out" 2>&1 || rc=$?
	if [[ $want == nonzero ]]; then
		[[ $rc -ne 0 ]] || ok=0
	else
		[[ $rc -eq $want ]] || ok=0
	fi
	if [[ -n $re ]] && ! grep -qE -- "$re" "$out"; then
		ok=0
	fi
	if [[ $ok -eq 1 ]]; then
		PASS=$((PASS + 1))
		printf 'ok   %s (exit %d; %s)\n' "$name" "$rc" "$(grep -o 'boot-to-command.*' "$out" | tail -n1)"
	else
		FAIL=$((FAIL + 1))
		printf 'FAIL %s: exit %d, wanted %s%s\n' "$name" "$rc" "$want" "${re:+ and output matching /$re/}"
		sed 's/^/    | /' "$out" | tail -n 30
		printf '    console log: %s\n' "$TMP/$N.log"
		cp "$TMP/$N.log" "${TMPDIR:-/tmp}/vm-smoke-$N.log" 2>/dev/null &&
			printf '    kept as %s\n' "${TMPDIR:-/tmp}/vm-smoke-$N.log"
	fi
}

SHMEM=$(find "/lib/modules/$KVER/kernel/drivers/gpu/drm/" -maxdepth 1 -name 'drm_shmem_helper.ko*' | head -n1)

check "boots, runs a command, exits 0" 0 'Linux version' -- \
	--no-load -- 'cat /proc/version; ls /dev'
check "passes the exit status through" 3 '' -- \
	--no-modules -- 'exit 3'
check "argv form with quoting" 0 '^a b c$' -- \
	--no-modules -- sh -c 'echo "$1"' sh "a b c"
check "user output saying WARNING:/BUG: is not a kernel report" 0 'WARNING: only text' -- \
	--no-modules -- 'echo "WARNING: only text"; echo "BUG: only text"; echo "Call Trace"'
check "fails on a kernel backtrace (sysrq l)" 125 'first offending line: .*(Call Trace|NMI backtrace|sysrq)' -- \
	--no-modules -- 'echo l > /proc/sysrq-trigger; sleep 1'
check "--allow exempts a provoked report" 0 '' -- \
	--no-modules --allow 'Call Trace' -- 'echo l > /proc/sysrq-trigger; sleep 1'
check "fails on a kernel panic (sysrq c)" nonzero 'FAIL: ' -- \
	--no-modules -- 'echo c > /proc/sysrq-trigger; sleep 5'
check "fails on timeout" 124 'FAIL: timeout' -- \
	--no-modules --timeout 10 -- 'sleep 100'
if [[ -n $SHMEM ]]; then
	check "loads a .ko.xz after its dependencies, with parameters" 0 \
		'^drm\.ko,drm_kms_helper\.ko,drm_shmem_helper\.ko,4$' -- \
		--module "$SHMEM" --modparam 'drm debug=0x4' --unload -- \
		'printf "%s," $(sed "s,.*/,," /ane-vm/modules); cat /sys/module/drm/parameters/debug'
	check "a failing insmod fails the run" 125 'ANE-VM-ERROR=insmod drm' -- \
		--module "$SHMEM" --modparam 'drm debug=bogus' -- 'echo not reached'
fi
check "--bin copies a dynamic binary and its libraries" 0 'GNU coreutils' -- \
	--no-modules --bin "$(command -v od)" -- '/bin/od --version | head -n 1'
echo smoke-file-ok >"$TMP/f.txt"
check "--file copies a file" 0 '^smoke-file-ok$' -- \
	--no-modules --file "$TMP/f.txt:/etc/" -- 'cat /etc/f.txt'

echo "vm-smoke: $PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
