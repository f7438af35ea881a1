#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-kunit.sh - build and run the ane KUnit suites in a QEMU x86_64 guest,
# or the engine's alone under User-Mode Linux on the host's CPU (--arch um).
#
# Usage: tools/kunit/run-kunit.sh [OPTIONS] [-- KUNIT_PY_ARGS...]
#
#   --arch ARCH     x86_64 (default): the whole driver, tests/kunit/.kunitconfig,
#                   in QEMU under TCG (no AVX-512 there).
#                   um: User-Mode Linux, tests/kunit/um.kunitconfig: only the
#                   engine (firmware/hw/engine/*, the device model's engine)
#                   and its suites (UML has no DMA, so no DRM), run as kernel
#                   code on the host CPU, so the kernel-built AVX-512 objects
#                   execute when the CPU has AVX-512.  It prints the ISA the
#                   engine picked ("kunit-um: engine isa: ...") and fails
#                   unless that is the widest the host's /proc/cpuinfo
#                   allows; its summary line is "kunit-um: N passed, ...".
#   --project DIR   ane project root to test (default: the repo holding
#                   this script).  Linked into the kernel tree as
#                   drivers/accel/ane.
#   The guest CPU is QEMU's "max" model (-cpu max), so the engine's AVX2
#   cases run rather than skip, as they do on the VM runner's guest.
#
#   --timeout SEC   guest timeout passed to kunit.py (default: 900).  The
#                   guest runs under TCG (kunit.py's x86_64 QEMU config
#                   passes no -enable-kvm/-accel); --qemu_args after "--"
#                   can change that, but nested KVM hung on this machine.
#   --jobs N        make -j for the kernel build (default: 2).
#   --clean         delete the cached build directory first (full rebuild).
#   --print-srcdir  unpack the kernel source if needed, print its path, exit
#                   (tools/scripts/lint.sh runs checkpatch from it).
#   -h, --help      show this help.
#
#   Anything after "--" goes to `kunit.py run` unchanged, e.g. a suite
#   filter glob:   tools/kunit/run-kunit.sh -- 'ane_selector*'
#   or extra kconfig: tools/kunit/run-kunit.sh -- --kconfig_add CONFIG_KASAN=y
#
# What it does:
#   1. Unpacks /usr/src/linux-source-6.12.tar.xz (Debian package
#      linux-source-6.12, see tools/scripts/setup-deps.sh) once into
#      $CACHE/kunit/src-<package version>/ (atomic, stamped).
#   2. Symlinks the project as drivers/accel/ane in that tree and hooks it
#      into drivers/accel/{Kconfig,Makefile} (idempotent); for UML also
#      copies tests/kunit/Kconfig to drivers/accel/Kconfig.ane-um, sources
#      it after drivers/accel/Kconfig's DRM_ACCEL block and names the
#      project's directory in drivers/Makefile (both inert on x86_64).
#   3. Runs tools/testing/kunit/kunit.py run --arch=ARCH with
#      tests/kunit/.kunitconfig (um: tests/kunit/um.kunitconfig) and the
#      cached build directory $CACHE/kunit/build-ARCH-<package version>/
#      (incremental).
#   4. Streams kunit.py's output, keeps the raw log in $CACHE/kunit/last.log,
#      scans the guest's console log for kernel splats (lockdep, WARNING,
#      BUG, Oops, panic) and prints as its last line
#          kunit: N passed, N failed        (um: kunit-um: ...)
#
#   CACHE is ${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}.
#
# Exit status: 0 only if the kernel built and booted, at least one test
# case ran, none failed or crashed, kunit.py reported no errors and the
# console log has no kernel splat.
#
# The project is linked in as a symlink.  Objects left in the project by
# its own out-of-tree build (*.o, .*.cmd, *.mod, modules.order, ...) are
# reachable through kbuild's VPATH but are never used: every kbuild object
# rule depends on FORCE, so make throws the VPATH match away and builds the
# object in the O= build directory (checked with a stale, newer *.o built
# from different source).  Switching --project to another tree wipes the
# ane objects in the build directory, as their sources' mtimes say nothing
# about the other tree.
set -euo pipefail

die() { printf 'run-kunit: %s\n' "$*" >&2; exit 2; }
log() { printf 'run-kunit: %s\n' "$*" >&2; }

usage() {
	sed -n '/^# run-kunit.sh/,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$script_dir/../.." && pwd)
arch=x86_64
timeout=900
jobs=2
clean=0
print_srcdir=0
extra=()

while [ $# -gt 0 ]; do
	case "$1" in
	--project) [ $# -ge 2 ] || die "--project needs a directory"; project=$2; shift 2 ;;
	--project=*) project=${1#*=}; shift ;;
	--arch) [ $# -ge 2 ] || die "--arch needs x86_64 or um"; arch=$2; shift 2 ;;
	--arch=*) arch=${1#*=}; shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout=$2; shift 2 ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--jobs|-j) [ $# -ge 2 ] || die "--jobs needs a number"; jobs=$2; shift 2 ;;
	--jobs=*) jobs=${1#*=}; shift ;;
	--clean) clean=1; shift ;;
	--print-srcdir) print_srcdir=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	*) die "unknown option '$1' (see --help; kunit.py arguments go after --)" ;;
	esac
done

[ -d "$project" ] || die "project directory '$project' does not exist"
project=$(cd "$project" && pwd -P)
[ -f "$project/Kconfig" ] && [ -f "$project/Kbuild" ] ||
	die "$project has no Kconfig/Kbuild: not an ane project root"
case "$arch" in
x86_64) kunitconfig=$project/tests/kunit/.kunitconfig; name=kunit ;;
um) kunitconfig=$project/tests/kunit/um.kunitconfig; name=kunit-um ;;
*) die "--arch must be x86_64 or um, not '$arch'" ;;
esac
[ -f "$kunitconfig" ] || die "missing $kunitconfig"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout must be a number of seconds"
[[ $jobs =~ ^[0-9]+$ ]] || die "--jobs must be a number"

tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || die "$tarball missing: run tools/scripts/setup-deps.sh"
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "package linux-source-6.12 is not installed: run tools/scripts/setup-deps.sh"
# Make cannot cope with ':' (an epoch) in paths; keep the rest verbatim.
ver=${pkgver//:/_}

cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
kdir=$cache/kunit
src=$kdir/src-$ver
build=$kdir/build-$arch-$ver
rawlog=$kdir/last.log
[ "$arch" = x86_64 ] || rawlog=$kdir/last-$arch.log
mkdir -p "$kdir"

# An unpacked tree needs no lock to be named.
if [ "$print_srcdir" -eq 1 ] && [ -e "$src/.ane-unpacked" ]; then
	printf '%s\n' "$src"
	exit 0
fi

# One run at a time per cache: the source tree and build dir are shared.
exec 9>"$kdir/.lock"
if ! flock -n 9; then
	log "waiting for another run-kunit.sh using $kdir"
	flock 9
fi

# ---------------------------------------------------------------- 1. source
stamp=.ane-unpacked
if [ ! -e "$src/$stamp" ]; then
	rm -rf "$src"
	tmp=$(mktemp -d "$kdir/.unpack.XXXXXX")
	log "unpacking $tarball ($pkgver) into $src (once)"
	tar -xJf "$tarball" -C "$tmp"
	[ -f "$tmp/linux-source-6.12/Makefile" ] || die "unexpected tarball layout"
	printf '%s\n' "$pkgver" >"$tmp/linux-source-6.12/$stamp"
	mv "$tmp/linux-source-6.12" "$src"
	rmdir "$tmp"
fi
# Leftovers of an interrupted unpack.
rm -rf "$kdir"/.unpack.* 2>/dev/null || true
# --print-srcdir: unpack if needed and print the source tree (for lint).
if [ "$print_srcdir" -eq 1 ]; then
	printf '%s\n' "$src"
	exit 0
fi

# ------------------------------------------------------------ 2. hook it in
link=$src/drivers/accel/ane
if [ "$(readlink "$link" 2>/dev/null || true)" != "$project" ]; then
	rm -rf "$link"
	ln -s "$project" "$link"
fi

akconfig=$src/drivers/accel/Kconfig
amakefile=$src/drivers/accel/Makefile
if ! grep -q '^source "drivers/accel/ane/Kconfig"' "$akconfig"; then
	# Insert before the file's last "endif" (the "if DRM" block), i.e.
	# right after the other accel drivers, under the DRM_ACCEL menu.
	last=$(grep -n '^endif' "$akconfig" | tail -n1 | cut -d: -f1)
	[ -n "$last" ] || die "no endif in $akconfig"
	sed -i "${last}i source \"drivers/accel/ane/Kconfig\"" "$akconfig"
fi
if ! grep -q '^obj-$(CONFIG_DRM_ACCEL_ANE)' "$amakefile"; then
	printf 'obj-$(CONFIG_DRM_ACCEL_ANE)\t\t+= ane/\n' >>"$amakefile"
fi
# The engine-only UML build: its Kconfig outside the DRM_ACCEL block (UML
# has no DRM), and drivers/Makefile enters drivers/accel/ only with
# DRM_ACCEL, so the directory is named there.  Both are inert on x86_64.
# The Kconfig is a copy in the kernel tree, not a path through the link:
# a later x86_64 run may link a project without tests/kunit/Kconfig, and
# kconfig stops at a missing file (6.12 has no "osource").
if [ "$arch" = um ]; then
	dmakefile=$src/drivers/Makefile
	umkconfig=$src/drivers/accel/Kconfig.ane-um
	cmp -s "$project/tests/kunit/Kconfig" "$umkconfig" ||
		cp "$project/tests/kunit/Kconfig" "$umkconfig"
	if ! grep -q '^source "drivers/accel/Kconfig.ane-um"' "$akconfig"; then
		printf 'source "drivers/accel/Kconfig.ane-um"\n' >>"$akconfig"
	fi
	if ! grep -q '^obj-$(CONFIG_ANE_ENGINE_KUNIT_TEST)' "$dmakefile"; then
		printf 'obj-$(CONFIG_ANE_ENGINE_KUNIT_TEST)\t+= accel/ane/\n' >>"$dmakefile"
	fi
fi

# ------------------------------------------------------------- 3. kunit.py
if [ "$clean" = 1 ]; then
	log "removing $build"
	rm -rf "$build"
fi
mkdir -p "$build"
# Objects built from another project tree may look newer than this tree's
# sources: rebuild the ane part of the kernel when the project changes.
if [ "$(cat "$build/.ane-project" 2>/dev/null || true)" != "$project" ]; then
	rm -rf "$build/drivers/accel/ane"
	printf '%s\n' "$project" >"$build/.ane-project"
fi

# test.log is rewritten by kunit.py when the guest runs; remove the old
# one so a failed build can't be judged by a stale log.
rm -f "$build/test.log"

cmd=(python3 tools/testing/kunit/kunit.py run
	--arch="$arch"
	--kunitconfig="$kunitconfig"
	--build_dir="$build"
	--jobs="$jobs"
	--timeout="$timeout"
	--make_options=ANE_WERROR=y)
[ "$arch" = um ] || cmd+=("--qemu_args=-cpu max")
cmd+=("${extra[@]}")

log "project: $project"
log "kernel:  $src"
log "build:   $build"
start=$(date +%s)
set +e
# At most 64 MiB of output: a kernel that crashes in a loop once made
# kunit.py print hundreds of megabytes of "[CRASHED]" lines and grow to
# gigabytes; cut there, kunit.py dies of SIGPIPE and the run fails.
(cd "$src" && "${cmd[@]}" </dev/null 2>&1) | head -c $((64 << 20)) | tee "$rawlog"
rc=${PIPESTATUS[0]}
set -e
end=$(date +%s)

# ------------------------------------------------------------- 4. verdict
strip_ansi() { sed 's/\x1b\[[0-9;]*m//g' "$@"; }

passed=0 failed=0 crashed=0 skipped=0 errors=0
summary=$(strip_ansi "$rawlog" | grep -Eo 'Testing complete\. Ran [0-9]+ tests:.*' | tail -n1 || true)
if [ -z "$summary" ] && [ -s "$build/test.log" ]; then
	# e.g. --raw_output was passed: let kunit.py parse the console log.
	summary=$(cd "$src" && python3 tools/testing/kunit/kunit.py parse "$build/test.log" 2>&1 |
		strip_ansi | grep -Eo 'Testing complete\. Ran [0-9]+ tests:.*' | tail -n1 || true)
fi
field() { printf '%s\n' "$summary" | grep -Eo "$1: [0-9]+" | grep -Eo '[0-9]+' || echo 0; }
if [ -n "$summary" ]; then
	passed=$(field passed)
	failed=$(field failed)
	crashed=$(field crashed)
	skipped=$(field skipped)
	errors=$(field errors)
fi

bad=()
[ "$rc" -eq 0 ] || bad+=("kunit.py exited with status $rc")
if [ ! -s "$build/test.log" ]; then
	bad+=("the kernel did not run (configuration or build failure?)")
elif [ -z "$summary" ]; then
	bad+=("no KUnit results found in the kernel log")
fi
[ "$crashed" -eq 0 ] || bad+=("$crashed test case(s) crashed")
[ "$errors" -eq 0 ] || bad+=("kunit.py reported $errors error(s)")
[ -z "$summary" ] || [ $((passed + failed + crashed + skipped)) -gt 0 ] ||
	bad+=("no test ran")
[ -z "$summary" ] || [ "$skipped" -eq 0 ] || [ $((passed + failed + crashed)) -gt 0 ] ||
	bad+=("every test was skipped")

# The parsed output hides console messages outside the tests' own logs:
# scan the raw console for kernel splats.
splat_re='possible circular locking|possible recursive locking|inconsistent lock state|possible irq lock inversion|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|WARNING:|BUG:|Oops|Kernel panic|kernel BUG at|general protection fault|Call Trace:|UBSAN:|KASAN:|kfence:|kmemleak:'
if [ -s "$build/test.log" ]; then
	if splats=$(strip_ansi "$build/test.log" | grep -En "$splat_re"); then
		bad+=("kernel splat(s) in the console log ($build/test.log)")
		first=$(printf '%s\n' "$splats" | head -n1 | cut -d: -f1)
		{
			echo "---- kernel splat lines (console log: $build/test.log) ----"
			printf '%s\n' "$splats" | head -n 20
			echo "---- first splat ----"
			strip_ansi "$build/test.log" | sed -n "$((first > 2 ? first - 2 : 1)),$((first + 45))p"
			echo "----"
		} | tee -a "$rawlog" >&2
	fi
fi

# The instruction set the engine picked (ane_engine_init_picks_the_widest_isa
# prints it).  Under UML it runs on the host's CPU: it must be the widest
# that CPU's flags allow, or the path users take on it went untested.
host_isa() {
	local f
	f=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
	has() { local x; for x; do [[ $f == *" $x "* ]] || return 1; done; }
	if has avx2 fma f16c xsave avx512f avx512bw avx512vl; then
		echo avx512
	elif has avx2 fma f16c xsave; then
		echo avx2+fma+f16c
	else
		echo sse2
	fi
}
isa=
if [ -s "$build/test.log" ]; then
	isa=$(strip_ansi "$build/test.log" | grep -Eo 'engine isa: [a-z0-9+]+' |
		head -n1 | cut -d' ' -f3 || true)
fi
if [ "$arch" = um ]; then
	want=$(host_isa)
	printf '%s: engine isa: %s (the host CPU allows %s)\n' "$name" \
		"${isa:-not printed}" "$want" | tee -a "$rawlog"
	if [ -z "$isa" ]; then
		# a suite filter may leave the case out; a full run may not
		[ ${#extra[@]} -gt 0 ] ||
			bad+=("ane_engine_init_picks_the_widest_isa printed no instruction set")
	elif [ "$isa" != "$want" ]; then
		bad+=("the engine picked $isa where the host CPU allows $want")
	fi
elif [ -n "$isa" ]; then
	printf '%s: engine isa: %s (QEMU guest CPU)\n' "$name" "$isa" | tee -a "$rawlog"
fi

for b in "${bad[@]}"; do
	log "FAIL: $b" 2>&1 | tee -a "$rawlog" >&2
done
log "took $((end - start))s; raw log: $rawlog" 2>&1 | tee -a "$rawlog" >&2

nfail=$((failed + crashed))
line="$name: $passed passed, $nfail failed"
[ "$skipped" -eq 0 ] || line+=", $skipped skipped"
printf '%s\n' "$line" | tee -a "$rawlog"
[ ${#bad[@]} -eq 0 ] && [ "$nfail" -eq 0 ]
