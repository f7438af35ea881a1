#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# `make install` into a staging directory puts every piece where the
# documentation says (library and its links, .pc, headers, tools, the udev
# rule, the module source tree for DKMS), only what a user runs (the
# benchmarks and the fuzzer are `make install-bench`'s, and make install
# builds nothing that needs OpenBLAS or oneDNN), aned's default policy where
# aned looks for it, the staged module tree builds on its own against the
# kernel headers, and `make uninstall` (and uninstall-bench) leaves no file
# behind.  Last line: "install: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/ane-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
ver=$(sed -n 's/^ANE_VERSION := //p' "$top/Makefile")

if make -s -C "$top" install PREFIX=/usr DESTDIR="$stage" >"$stage.log" 2>&1; then
	ok "make install PREFIX=/usr DESTDIR=..."
else
	nok "make install failed:"; sed 's/^/#   /' "$stage.log"
fi
rm -f "$stage.log"

missing=
for f in usr/lib/libane.so.$ver usr/lib/libane.so.0 usr/lib/libane.so \
	 usr/lib/libane.a usr/lib/pkgconfig/libane.pc \
	 usr/include/libane/libane.h usr/include/libane/libane_net.h \
	 usr/include/libane/drm/ane_accel.h \
	 usr/bin/anectl usr/bin/ane-run \
	 usr/lib/udev/rules.d/70-ane.rules \
	 usr/sbin/aned usr/lib/systemd/system/aned.service \
	 usr/lib/systemd/system/aned.socket usr/share/ane/aned-policy.conf \
	 usr/share/man/man1/anectl.1 usr/share/man/man1/ane-run.1 \
	 usr/share/man/man3/libane.3 usr/share/man/man5/aned-policy.conf.5 \
	 usr/share/man/man8/aned.8 \
	 usr/src/ane-$ver/dkms.conf usr/src/ane-$ver/Kbuild \
	 usr/src/ane-$ver/Kconfig usr/src/ane-$ver/driver/ane_drv.c \
	 usr/src/ane-$ver/uapi/drm/ane_accel.h; do
	[ -e "$stage/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "every installed file is in place"
else
	nok "missing after install:$missing"
fi

if grep -qx 'ExecStart=/usr/sbin/aned' "$stage/usr/lib/systemd/system/aned.service"; then
	ok "aned.service starts the installed aned"
else
	nok "aned.service does not name /usr/sbin/aned"
fi

# make install is for users: no benchmark, no fuzzer, nothing built
# against OpenBLAS or oneDNN.
extra=
for t in ane-bench ane-mathbench ane-netbench ane-fuzz; do
	[ -e "$stage/usr/bin/$t" ] && extra="$extra $t"
	[ -e "$stage/usr/share/man/man1/$t.1" ] && extra="$extra $t.1"
done
[ -z "$extra" ] && ok "make install installs no benchmark or fuzzer" ||
	nok "make install installed developers' tools:$extra"
plan=$(make -n -B -C "$top" install PREFIX=/usr DESTDIR="$stage" 2>&1)
if printf '%s\n' "$plan" | grep -qE -- '-ldnnl|-lopenblas|ane-mathbench'; then
	nok "make install builds against oneDNN or OpenBLAS: $(printf '%s\n' "$plan" | grep -oE -- '-ldnnl|-lopenblas|ane-mathbench[^ ]*' | sort -u | tr '\n' ' ')"
else
	ok "make install needs neither oneDNN nor OpenBLAS (make -n -B install)"
fi
if make -s -C "$top" install-bench PREFIX=/usr DESTDIR="$stage" >"$stage.log" 2>&1 &&
   [ -x "$stage/usr/bin/ane-mathbench" ] && [ -x "$stage/usr/bin/ane-bench" ] &&
   [ -x "$stage/usr/bin/ane-netbench" ] && [ -x "$stage/usr/bin/ane-fuzz" ] &&
   [ -e "$stage/usr/share/man/man1/ane-fuzz.1" ]; then
	ok "make install-bench installs the benchmarks, the fuzzer and their pages"
else
	nok "make install-bench:"; sed 's/^/#   /' "$stage.log"
fi
rm -f "$stage.log"
make -s -C "$top" uninstall-bench PREFIX=/usr DESTDIR="$stage" >/dev/null 2>&1
left=$(ls "$stage/usr/bin" | grep -E 'bench|fuzz')
[ -z "$left" ] && ok "make uninstall-bench removes them" ||
	nok "left after make uninstall-bench: $left"

# aned's default policy is where the installed aned looks for it when
# there is no /etc/aned/policy.conf.
vendor=$("$stage/usr/sbin/aned" --help | sed -n 's/^ *else \(.*\))$/\1/p')
if [ "$vendor" = /usr/share/ane/aned-policy.conf ] && [ -s "$stage$vendor" ]; then
	ok "the installed aned's default policy, $vendor, is installed"
else
	nok "the installed aned reads '$vendor' without /etc/aned/policy.conf; not installed there"
fi

if grep -q 'GROUP="render", MODE="0660"' "$stage/usr/lib/udev/rules.d/70-ane.rules"; then
	ok "the udev rule gives the render group 0660"
else
	nok "the udev rule does not set GROUP=render MODE=0660"
fi

# The module tree as DKMS gets it builds by itself, and a compiler
# warning does not fail it: a probe header with a #warning is forced into
# every object.  The same warning fails the project's own build
# (ANE_WERROR=y, as make check, KUnit and lint build).
kver=$("$top/tools/scripts/setup-deps.sh" --kver 2>/dev/null)
kdir=/lib/modules/$kver/build
if [ -n "$kver" ] && [ -e "$kdir/Makefile" ]; then
	src=$stage/usr/src/ane-$ver
	probe=$stage/warn-probe.h
	echo '#warning "ane install test: a new compiler warning"' >"$probe"
	if make -s -C "$kdir" M="$src" CONFIG_DRM_ACCEL_ANE=m KCFLAGS="-include $probe" \
		-j2 modules >"$stage/build.log" 2>&1 && [ -f "$src/ane.ko" ] &&
	   grep -q 'a new compiler warning' "$stage/build.log"; then
		ok "the installed module tree builds ane.ko against $kver, warnings and all"
	else
		nok "the installed module tree does not build (with a warning in it):"
		tail -n 20 "$stage/build.log" | sed 's/^/#   /'
	fi
	if ! make -s -C "$kdir" M="$src" CONFIG_DRM_ACCEL_ANE=m ANE_WERROR=y \
		KCFLAGS="-include $probe" driver/ane_sysfs.o >"$stage/build.log" 2>&1 &&
	   grep -q 'error: #warning "ane install test' "$stage/build.log"; then
		ok "with ANE_WERROR=y the same warning is an error"
	else
		nok "ANE_WERROR=y let a warning through"
	fi
	make -s -C "$kdir" M="$src" clean >/dev/null 2>&1
	rm -f "$stage/build.log" "$probe"
else
	nok "no kernel headers to build the installed module tree (run make deps)"
fi

if make -s -C "$top" uninstall PREFIX=/usr DESTDIR="$stage" >/dev/null 2>&1 &&
   [ -z "$(find "$stage" ! -type d)" ]; then
	ok "make uninstall removes every installed file"
else
	nok "left after make uninstall: $(find "$stage" ! -type d | sed "s|$stage/||" | tr '\n' ' ')"
fi

# Without usable kernel headers, make says what to install instead of
# letting the compiler fail.
fake=$(mktemp -d "${TMPDIR:-/tmp}/ane-kdir.XXXXXX")
touch "$fake/Makefile"
out1=$(make -s -C "$top" module KDIR="$fake/none" 2>&1)
rc1=$?
out2=$(make -s -C "$top" module KDIR="$fake" 2>&1)
rc2=$?
rm -rf "$fake"
if [ $rc1 -ne 0 ] && echo "$out1" | grep -q "make deps" &&
   [ $rc2 -ne 0 ] && echo "$out2" | grep -q "CONFIG_DRM_ACCEL=y" &&
   ! echo "$out1$out2" | grep -q "error:"; then
	ok "make module without usable headers says what to install"
else
	nok "make module without usable headers: '$out1' / '$out2'"
fi

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
