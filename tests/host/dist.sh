#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make dist makes a release tarball that builds: ane-VERSION.tar.gz with
# every file of the tree under ane-VERSION/ (the licences, NEWS, README,
# the Makefile, dkms.conf) and no build product; unpacked in a temporary
# directory, outside any git checkout, `make lib tools` builds there and
# the tools report the release; make dist there makes the same file list.
# Last line: "dist: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ane-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }
ver=$(sed -n 's/^ANE_VERSION := //p' "$top/Makefile")
tgz=$tmp/ane-$ver.tar.gz

if out=$(make -s -C "$top" dist DISTDIR="$tmp" 2>&1) && [ "$out" = "$tgz" ] && [ -s "$tgz" ]; then
	ok "make dist makes ane-$ver.tar.gz and names it"
else
	nok "make dist: '$out'"
fi
list=$(tar tzf "$tgz" 2>/dev/null)
bad=$(printf '%s\n' "$list" | grep -v "^ane-$ver/" | head -n 3)
[ -n "$list" ] && [ -z "$bad" ] && ok "every entry is under ane-$ver/" ||
	nok "entries outside ane-$ver/: $bad"
missing=
for f in LICENSES/GPL-2.0 LICENSES/MIT LICENSES/Linux-syscall-note NEWS README.md Makefile \
	 Kbuild dkms.conf lib/libane.h uapi/drm/ane_accel.h tools/aned/aned.service; do
	printf '%s\n' "$list" | grep -qx "ane-$ver/$f" || missing="$missing $f"
done
[ -z "$missing" ] && ok "the licences, NEWS, README and the sources are in it" ||
	nok "missing from the tarball:$missing"
prod=$(printf '%s\n' "$list" | grep -E "^ane-$ver/build/|\\.o\$|\\.ko\$|/\\.git/" | head -n 3)
[ -z "$prod" ] && ok "no build product or .git in it" || nok "build products in the tarball: $prod"
grep -q "^$ver " "$top/NEWS" && ok "NEWS has an entry for $ver" || nok "NEWS has no entry for $ver"
grep -q "SPDX-License-Identifier" "$top/LICENSES/GPL-2.0" 2>/dev/null ||
	grep -q "GNU GENERAL PUBLIC LICENSE" "$top/LICENSES/GPL-2.0" &&
	grep -q "MIT License" "$top/LICENSES/MIT" && grep -q "Linux-syscall-note" "$top/LICENSES/Linux-syscall-note" &&
	ok "LICENSES/ holds the three licence texts README names" || nok "LICENSES/ texts missing"

tar xzf "$tgz" -C "$tmp" || nok "the tarball does not unpack"
src=$tmp/ane-$ver
if make -C "$src" -j2 lib tools >"$tmp/build.log" 2>&1; then
	ok "the unpacked tarball builds (make lib tools)"
else
	nok "the unpacked tarball does not build:"; tail -n 20 "$tmp/build.log" | sed 's/^/#   /'
fi
v=$("$src/build/tools/anectl" --version 2>&1)
case $v in
*" $ver") ok "its anectl reports $ver" ;;
*) nok "its anectl --version: '$v'" ;;
esac
rm -rf "$src/build"
mkdir "$tmp/again"
if out=$(make -s -C "$src" dist DISTDIR="$tmp/again" 2>&1) &&
   [ "$(tar tzf "$tmp/again/ane-$ver.tar.gz" | sort)" = "$(printf '%s\n' "$list" | sort)" ]; then
	ok "make dist in the unpacked tree makes the same file list"
else
	nok "make dist in the unpacked tree: '$out', other files"
fi

echo "dist: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
