#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The documentation stays true to the tree: every file of the tree (but
# the documentation pages themselves) is named in design.rst's list of
# source files, every page of Documentation/accel/ane/ is in index.rst's
# toctree and linked from README.md, and every page README.md or a
# toctree names exists.  Last line: "docs: N passed, N failed".
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/Documentation/accel/ane
pass=0
fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
nok() { echo "not ok - $*"; fail=$((fail + 1)); }

# The tree's files: git's view when there is one (tracked and new), else
# everything but build products.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	files=$(cd "$top" && { git ls-files; git ls-files --others --exclude-standard; } | sort -u)
else
	files=$(cd "$top" && find . -type f ! -path './build/*' ! -name '*.o' \
		! -name '*.ko' ! -name '.*.cmd' ! -name '*.mod*' | sed 's|^\./||' | sort)
fi
missing=
for f in $files; do
	case $f in
	Documentation/*) continue ;;
	esac
	[ -e "$top/$f" ] || continue
	grep -qF "\`\`$f\`\`" "$doc/design.rst" || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "every file of the tree is named in design.rst"
else
	nok "not named in design.rst's source file list:$missing"
fi

toc=$(sed -n '/^\.\. toctree::/,/^[^ ]/p' "$doc/index.rst" | sed -n 's/^   \([a-z0-9-]*\)$/\1/p')
unlisted=
unlinked=
for p in "$doc"/*.rst; do
	n=$(basename "$p" .rst)
	[ "$n" = index ] && continue
	echo "$toc" | grep -qx "$n" || unlisted="$unlisted $n"
	grep -qF "(Documentation/accel/ane/$n.rst)" "$top/README.md" || unlinked="$unlinked $n"
done
if [ -z "$unlisted" ]; then
	ok "every page is in index.rst's toctree"
else
	nok "pages missing from index.rst's toctree:$unlisted"
fi
if [ -z "$unlinked" ]; then
	ok "every page is linked from README.md"
else
	nok "pages README.md does not link:$unlinked"
fi

dangling=
for n in $toc; do
	[ -f "$doc/$n.rst" ] || dangling="$dangling index:$n"
done
for l in $(grep -o '(Documentation/[^)]*)' "$top/README.md" | tr -d '()'); do
	[ -e "$top/$l" ] || dangling="$dangling README:$l"
done
if [ -z "$dangling" ]; then
	ok "every page the index and README name exists"
else
	nok "named but missing:$dangling"
fi

echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
