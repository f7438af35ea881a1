#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-debug-kernel.sh - build (once) the ane debug kernel, and ane.ko for it.
#
# Usage: tools/vm/build-debug-kernel.sh [OPTIONS]
#
#   --module        also build ane.ko from this tree against the debug
#                   kernel and print its path as a second line
#   --env           print shell assignments instead of bare paths:
#                   ANE_DEBUG_KERNEL, ANE_DEBUG_KVER, ANE_DEBUG_BUILD and,
#                   with --module, ANE_DEBUG_MODULE
#   --jobs N        make -j (default: 2)
#   --clean         delete this configuration's build directory first
#   -h, --help      this help
#
# The kernel is Debian's linux-source-6.12, unpacked once by
# tools/kunit/run-kunit.sh (--print-srcdir) and shared with the KUnit
# build; this script never writes into that source tree.  Its
# configuration is `make allnoconfig` merged with
# tools/vm/debug-kernel.config (KASAN, KFENCE, kmemleak, UBSAN, lockdep,
# fault injection, DRM and what ane.ko needs), built out of tree in
#     $CACHE/debug-kernel/build-<package version>-<fragment hash>/
# once: the stamp .ane-done marks a finished build, and a different
# package version or fragment builds a new directory (older ones are
# removed).  One build at a time per cache (flock on
# $CACHE/debug-kernel/.lock); a second caller waits and reuses it.
#
# ane.ko for it is built from a copy of the module's sources in
#     $CACHE/debug-kernel/ane-src-<fragment hash>/
# (rsync, so kbuild rebuilds only what changed), never in the tree: the
# ane.ko at the top of the tree stays the stock-kernel build.
#
# Prints the kernel image (vmlinux, booted through its PVH entry by
# tools/vm/ane-vm) on stdout; progress and errors go to stderr, the make
# output to $CACHE/debug-kernel/build.log (its tail is shown on failure).
#
#   CACHE is ${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}.
set -euo pipefail

die() { printf 'build-debug-kernel: %s\n' "$*" >&2; exit 2; }
log() { printf 'build-debug-kernel: %s\n' "$*" >&2; }
usage() {
	sed -n '/^# build-debug-kernel.sh/,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$script_dir/../.." && pwd -P)
fragment=$script_dir/debug-kernel.config
module=0
env=0
jobs=2
clean=0

while [ $# -gt 0 ]; do
	case "$1" in
	--module) module=1; shift ;;
	--env) env=1; shift ;;
	--jobs|-j) [ $# -ge 2 ] || die "--jobs needs a number"; jobs=$2; shift 2 ;;
	--jobs=*) jobs=${1#*=}; shift ;;
	--clean) clean=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive number"
[ -r "$fragment" ] || die "missing $fragment"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "package linux-source-6.12 is not installed: run tools/scripts/setup-deps.sh"
ver=${pkgver//:/_}
fhash=$(sha256sum "$fragment" | cut -c1-12)

cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
ddir=$cache/debug-kernel
build=$ddir/build-$ver-$fhash
anesrc=$ddir/ane-src-$fhash
blog=$ddir/build.log
mkdir -p "$ddir"

exec 9>"$ddir/.lock"
if ! flock -n 9; then
	log "waiting for another build-debug-kernel.sh ($ddir/.lock)"
	flock 9
fi

# run_logged WHAT CMD...: run with output to the build log; on failure show
# its tail and stop.
run_logged() {
	local what=$1
	shift
	printf '\n==== %s: %s\n' "$what" "$*" >>"$blog"
	if ! "$@" >>"$blog" 2>&1 </dev/null; then
		tail -n 40 "$blog" >&2
		die "$what failed (log: $blog)"
	fi
}

# ------------------------------------------------------------------ kernel
if [ "$clean" = 1 ]; then
	log "removing $build"
	rm -rf "$build"
fi
if [ ! -e "$build/.ane-done" ]; then
	src=$("$project/tools/kunit/run-kunit.sh" --print-srcdir) ||
		die "cannot unpack the kernel source (tools/kunit/run-kunit.sh --print-srcdir)"
	[ -f "$src/Makefile" ] || die "$src is not a kernel tree"
	# Builds for another package version or fragment are dead weight.
	for old in "$ddir"/build-* "$ddir"/ane-src-*; do
		[ -d "$old" ] && [ "$old" != "$build" ] && [ "$old" != "$anesrc" ] &&
			rm -rf "$old"
	done
	rm -rf "$build"
	mkdir -p "$build"
	: >"$blog"
	start=$(date +%s)
	log "building the debug kernel ($pkgver, fragment $fhash) in $build"
	log "once, ~10-15 min on 2 cores; make output: $blog"
	export ARCH=x86_64
	# allnoconfig + fragment (merge_config.sh -n), then olddefconfig.
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_logged "merge_config" \
		bash -c 'cd "$1" && scripts/kconfig/merge_config.sh -n -O "$2" "$3"' \
		_ "$src" "$build" "$fragment"
	run_logged "olddefconfig" make -C "$src" O="$build" olddefconfig
	# Every option of the fragment must have the value asked for.
	missing=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} want=$line ;;
		'# CONFIG_'*' is not set') opt=${line#'# '}; opt=${opt%% *}; want=$line ;;
		*) continue ;;
		esac
		got=$(grep -E "^($opt=|# $opt is not set)" "$build/.config" || true)
		if [ "$got" != "$want" ] && ! { [ -z "$got" ] && [[ $want == *' is not set' ]]; }; then
			missing+=("$want (got: ${got:-absent})")
		fi
	done <"$fragment"
	if [ ${#missing[@]} -gt 0 ]; then
		printf '  %s\n' "${missing[@]}" >&2
		die "the merged configuration lacks options of $fragment (see above)"
	fi
	run_logged "kernel build" make -C "$src" O="$build" -j"$jobs" vmlinux modules_prepare
	# Module.symvers for the out-of-tree ane.ko (there are no other modules).
	run_logged "modules" make -C "$src" O="$build" -j"$jobs" modules
	[ -s "$build/vmlinux" ] || die "no vmlinux after the build (log: $blog)"
	readelf -n "$build/vmlinux" 2>/dev/null | grep -qE 'PHYS32_ENTRY|0x00000012' ||
		die "$build/vmlinux has no PVH entry note (CONFIG_PVH?)"
	end=$(date +%s)
	log "kernel built in $((end - start)) s"
	touch "$build/.ane-done"
fi
kver=$(cat "$build/include/config/kernel.release")
image=$build/vmlinux

# -------------------------------------------------------------------- ane.ko
ko=
if [ "$module" = 1 ]; then
	mkdir -p "$anesrc"
	# The module's sources only (Kbuild names them); no build products, so
	# the stock-kernel objects at the top of the tree never reach here and
	# nothing here reaches the tree.  Compared by content and written with
	# the time of the copy (no -t): a source that changed is newer than
	# its object here even when its own time is older (another worktree,
	# a checkout), so make rebuilds it; an unchanged one is not touched.
	rsync -rlpD --checksum --delete --prune-empty-dirs \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude='*.a' \
		--include='/Kbuild' --include='/Kconfig' \
		--include='/driver/***' --include='/firmware/***' --include='/uapi/***' \
		--include='/tests/' --include='/tests/kunit/***' \
		--exclude='*' \
		"$project/" "$anesrc/" ||
		die "rsync of the module sources to $anesrc failed"
	: >>"$blog"
	# Warnings are errors, as in the project's own stock build, except the
	# frame size: KASAN's stack redzones grow frames past the 2048 bytes
	# the stock build holds them to (KASAN doubles the kernel stack).
	run_logged "ane.ko" make -C "$build" M="$anesrc" -j"$jobs" \
		CONFIG_DRM_ACCEL_ANE=m ANE_WERROR=y KCFLAGS=-Wframe-larger-than=4096 modules
	ko=$anesrc/ane.ko
	[ -s "$ko" ] || die "no $ko after the build (log: $blog)"
fi

if [ "$env" = 1 ]; then
	printf 'ANE_DEBUG_KERNEL=%q\nANE_DEBUG_KVER=%q\nANE_DEBUG_BUILD=%q\n' \
		"$image" "$kver" "$build"
	[ -z "$ko" ] || printf 'ANE_DEBUG_MODULE=%q\n' "$ko"
else
	printf '%s\n' "$image"
	[ -z "$ko" ] || printf '%s\n' "$ko"
fi
