#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The documentation stays true to the tree: every file of the tree (but
# the documentation pages themselves) is named in design.rst's list of
# source files, every page of Documentation/accel/ane/ is in index.rst's
# toctree and linked from README.md, and every page README.md or a
# toctree names exists.  No sentence of README.md, the pages or the
# manual pages says a selector or a method is not implemented (yet) when
# the driver's selector table and method switches implement it (the
# claims guard below).  Every program `make install` or `make
# install-bench` installs has a manual page and every manual page is
# installed; libane(3) names every
# function lib/libane.h exports and every environment variable lib/
# reads; README.md names every instruction set of the engine.  make lint
# runs this too.
# Last line: "docs: N passed, N failed".
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

# The claims guard.  A unit of text (a sentence of a paragraph, a cell of
# a table, a list item; literal blocks left out) that claims something is
# not implemented -- "not yet", "not implemented", "not built (yet)",
# "still to come", "still answer -EOPNOTSUPP", "later work", ... -- fails
# when it names a selector of the table ane_selectors[]
# (driver/ane_selector.c) whose handler is not the stub
# ane_sel_unsupported(), or a method (enum drm_ane_method) that a case of
# driver/ane_method.c's switches handles, or a part of the driver that
# exists (the capability model, the resident submission model); or when
# it says so of "a selector", or of the methods of Table 27.5 in general,
# while no selector has the stub and every method is handled.  Families
# of methods ("the register methods", "the diagnostics") count where the
# unit speaks of methods.  A
# refusal by design (LoadFirmware's -EOPNOTSUPP) may be called "not
# implemented", never "not yet".  A phrase in double quotes is not a
# claim.  ANE_DOCS_ROOT checks another tree's documentation against this
# tree's driver.
if ! command -v python3 >/dev/null; then
	nok "claims guard: python3 missing (make deps installs it)"
elif out=$(python3 - "$top" "${ANE_DOCS_ROOT:-$top}" <<'PY'
import glob, os, re, sys

top, docs = sys.argv[1], sys.argv[2]
src = lambda p: open(os.path.join(top, p), encoding="utf-8").read()

# The selector table: name, handler; and what each handler's body is.
table = src("driver/ane_selector.c")
table = table[table.index("ane_selectors[ANE_SEL_COUNT]"):]
sels = re.findall(r'ANE_SEL(?:_COPY)?\(\s*\w+,\s*\w+,\s*\d+,\s*"ANE_(\w+)",'
                  r'[^;]*?\b(ane_sel_\w+)', table.split("};")[0])
if len(sels) < 20:
    sys.exit("claims guard: cannot read the selector table (%d entries)" % len(sels))
bodies = {}
for f in glob.glob(os.path.join(top, "driver", "*.c")):
    for m in re.finditer(r'^int (ane_sel_\w+)\([^)]*\)\s*\{(.*?)^\}', open(f).read(),
                         re.S | re.M):
        bodies[m.group(1)] = re.sub(r'\s+', ' ', m.group(2)).strip()
STUB = "ane_sel_unsupported"

def camel_aliases(name):
    out = {name}
    for pre in ("Program",):
        rest = name[len(pre):]
        if name.startswith(pre) and len(re.findall(r'[A-Z][a-z]+', rest)) >= 2:
            out.add(rest)
    for n in list(out):
        if n.endswith("Request") and len(n) > len("Request") + 6:
            out.add(n[:-len("Request")])
        if "DebugWorkProcessor" in n:
            out.add(n.replace("DebugWorkProcessor", "DWP"))
        if "ChainingSetActiveProcedure" in n:
            out.add("SetActiveProcedure")
    return out

items = []      # (pattern, label, state): state "works", "refuses" or "stub"
for name, fn in sels:
    state = ("stub" if fn == STUB else
             "refuses" if bodies.get(fn) == "return -EOPNOTSUPP;" else "works")
    for a in camel_aliases(name):
        items.append((re.compile(r'\b%s\b' % a), "selector %s (%s)" % (name, fn), state))
stub_sels = [n for n, fn in sels if fn == STUB]

# The methods: the enum, and the cases that handle them.
uapi = src("uapi/drm/ane_accel.h")
enum = {m.group(1): int(m.group(2))
        for m in re.finditer(r'\bANE_METHOD_(\w+) = (\d+)', uapi)}
if len(enum) < 20:
    sys.exit("claims guard: cannot read enum drm_ane_method (%d)" % len(enum))
meth = src("driver/ane_method.c")
handled, refused = set(), set()
for m in re.finditer(r'((?:\s*case ANE_METHOD_\w+(?: \.\.\. ANE_METHOD_\w+)?:)+)'
                     r'(\s*return -EOPNOTSUPP;)?', meth):
    for a, b in re.findall(r'case ANE_METHOD_(\w+)(?: \.\.\. ANE_METHOD_(\w+))?:',
                           m.group(1)):
        lo, hi = enum[a], enum[b or a]
        names = [n for n, v in enum.items() if lo <= v <= hi]
        (refused if m.group(2) else handled).update(names)
handled -= refused
unhandled = set(enum) - handled - refused
for n in enum:
    state = "works" if n in handled else "refuses" if n in refused else "stub"
    camel = "".join(w.capitalize() for w in n.split("_"))
    lab = "method %s (%d)" % (n, enum[n])
    items.append((re.compile(r'\b%s\b' % camel, re.I), lab, state))
    items.append((re.compile(r'\b(?:ANE_METHOD_)?%s\b' % n), lab, state))

# Families of methods, by a word of their names ("the exclave methods"),
# named only where the unit speaks of methods.
families = []
for word, pat in (("EXCLAVE", None), ("FIRMWARE", r'\bfirmware[ -]lifecycle'),
                  ("POWER", None), ("REGISTER", None), ("COMMAND", None),
                  ("DOORBELL", None), ("SHARED_EVENT", None), ("DART", r'\bDART'),
                  ("PERSISTENT", None), ("THROTTLING", None),
                  ("SHOW|CLIENTS_INFO", r'\bdiagnostics?\b')):
    names = [n for n in enum if re.search(word, n)]
    states = {"works" if n in handled else "refuses" if n in refused else "stub"
              for n in names}
    state = "works" if "works" in states else "refuses" if "refuses" in states else "stub"
    pat = pat or r'\b%s' % word.lower().replace("_", "[ -]")
    families.append((re.compile(pat, re.I), "the methods %s" % ", ".join(sorted(names)),
                     state))

# Parts of the driver that exist or not.
for pat, what, path in ((r'\bcapability (?:model|sets?)\b', "the capability model",
                         "driver/ane_caps.c"),
                        (r'\bresident (?:submission )?model\b', "the resident model",
                         "driver/ane_chain.c")):
    there = os.path.exists(os.path.join(top, path))
    items.append((re.compile(pat, re.I), "%s (%s)" % (what, path),
                  "works" if there else "stub"))

GENERIC_SEL = re.compile(r'\bselectors?\b', re.I)
GENERIC_METH = re.compile(r'\bmethods?\b|Table 27\.5', re.I)
# "the methods" of this driver, not any method: with Table 27.5 or the ioctl.
THE_METHODS = re.compile(r'Table 27\.5|DRM_IOCTL_ANE_METHOD')
FUTURE = re.compile(r'\bnot yet\b\s*(?:[:;,.)]|$)|\bimplemented yet\b|\bnot built yet\b|'
                    r'\b(?:still|yet|is|are) to\s+come\b|'
                    r'\bstill (?:answers?|returns?|fails?)\b[^.]*?EOPNOTSUPP|'
                    r'\blater work\b|\bnot (?:supported|available|there|in place|wired up) yet\b',
                    re.I)
ABSENT = re.compile(r'\bnot (?:yet )?(?:implemented|built)\b|\bunimplemented\b', re.I)

def units_rst(text):
    """(line, text) for each sentence, table cell and list item."""
    lines = text.split("\n")
    i, n = 0, len(lines)
    literal_indent = None
    while i < n:
        l = lines[i]
        ind = len(l) - len(l.lstrip())
        if literal_indent is not None:
            if l.strip() and ind <= literal_indent:
                literal_indent = None
            else:
                i += 1
                continue
        if re.match(r'^\s*=+( +=+)+\s*$', l):            # a simple table
            start = i
            cols = [(m.start(), m.end()) for m in re.finditer(r'=+', l)]
            borders, j = 0, i
            while j < n and borders < 3 and (lines[j].strip() or borders < 1):
                if re.match(r'^\s*=+( +=+)*\s*$', lines[j]):
                    borders += 1
                j += 1
            cells, row = {}, None
            for k in range(start, j):
                t = lines[k]
                if re.match(r'^\s*=+( +=+)*\s*$', t) or not t.strip():
                    continue
                bounds = [(c[0], cols[x + 1][0] if x + 1 < len(cols) else 10**6)
                          for x, c in enumerate(cols)]
                first = t[bounds[0][0]:bounds[0][1]].strip()
                if first or row is None:
                    row = k
                for x, (a, b) in enumerate(bounds):
                    cell = t[a:b].strip()
                    if cell:
                        cells.setdefault((row, x), []).append(cell)
            for (row, x), parts in cells.items():
                yield row + 1, " ".join(parts)
            i = j
            continue
        if not l.strip():
            i += 1
            continue
        para, first = [], i
        while i < n and lines[i].strip() and not re.match(r'^\s*=+( +=+)+\s*$', lines[i]):
            para.append(lines[i].strip())
            i += 1
        ptxt = " ".join(para)
        if re.match(r'\.\. (?:code-block|code|literalinclude|kernel-doc)::', ptxt):
            literal_indent = ind              # code: not prose
            continue
        if ptxt.startswith(".. ") and "::" not in ptxt.split()[1]:
            continue                          # a comment or a target
        if ptxt.startswith(".. "):
            ptxt = ptxt.split("::", 1)[1]     # a directive's own text (note, ...)
        if ptxt.endswith("::"):
            literal_indent = ind
        for item in re.split(r'(?:^|\s)(?=(?:[*-]|\d+\.) )', ptxt):
            for sent in re.split(r'(?<=[.!?])\s+(?=[A-Z(`*"])', item):
                yield first + 1, sent

def units_md(text):
    out = []
    for k, l in enumerate(text.split("\n")):
        if l.startswith("|"):                 # a table: each cell is a unit
            for cell in l.strip("|").split("|"):
                out.append((k + 1, cell))
    rest = "\n".join("" if l.startswith("|") or l.startswith("```") else l
                     for l in text.split("\n"))
    out.extend(units_rst(re.sub(r'(?m)^- ', '* ', rest)))
    return out

def units_man(text):
    plain = []
    for l in text.split("\n"):
        if l.startswith('.\\"'):
            plain.append("")
        elif l.startswith("."):
            m = re.match(r'^\.(\w+)\s*(.*)$', l)
            if not m or m.group(1) in ("SH", "SS", "PP", "TP", "IP", "LP", "P", "br", "sp", "TH"):
                plain.append("")
                if m and m.group(1) in ("SH", "SS", "IP", "TP") and m.group(2):
                    plain.append(m.group(2).replace('"', ''))
                continue
            plain.append(m.group(2).replace('"', ''))
        else:
            plain.append(l)
    t = "\n".join(plain)
    t = re.sub(r'\\f[BIRP]|\\&', '', t).replace('\\-', '-').replace('\\(em', '--')
    return units_rst(t)

bad = []
pages = sorted(glob.glob(os.path.join(docs, "Documentation/accel/ane/*.rst")))
mans = sorted(glob.glob(os.path.join(docs, "Documentation/accel/ane/man/*.[0-9]")))
for path in [os.path.join(docs, "README.md")] + pages + mans:
    if not os.path.exists(path):
        continue
    text = open(path, encoding="utf-8").read()
    units = (units_md(text) if path.endswith(".md") else
             units_man(text) if re.search(r'\.\d$', path) else units_rst(text))
    rel = os.path.relpath(path, docs)
    for line, u in units:
        said = re.sub(r'"[^"]*"', '""', u)    # a quoted phrase is named, not said
        fut, absn = FUTURE.search(said), ABSENT.search(said)
        if not fut and not absn:
            continue
        named = [(lab, st) for pat, lab, st in items if pat.search(u)]
        if GENERIC_METH.search(u):
            named += [(lab, st) for pat, lab, st in families if pat.search(u)]
        wrong = sorted({lab for lab, st in named
                        if st == "works" or (st == "refuses" and fut)})
        claim = (fut or absn).group(0)
        if wrong:
            bad.append("%s:%d: '%s' of %s, which the driver implements (or refuses "
                       "by design): %s"
                       % (rel, line, claim, ", ".join(wrong), u[:160]))
        elif not named and GENERIC_SEL.search(u) and not stub_sels:
            bad.append("%s:%d: '%s' of a selector, but no selector of ane_selectors[] "
                       "has the stub %s(): %s" % (rel, line, claim, STUB, u[:160]))
        elif not named and THE_METHODS.search(u) and not unhandled:
            bad.append("%s:%d: '%s' of the methods, but driver/ane_method.c handles "
                       "every method of enum drm_ane_method: %s" % (rel, line, claim, u[:160]))
print("%d selectors (%d with the stub), %d methods (%d handled, %d refused by design, "
      "%d unhandled); %d pages" % (len(sels), len(stub_sels), len(enum), len(handled),
                                   len(refused), len(unhandled), len(pages) + len(mans) + 1))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
); then
	ok "no page claims an implemented selector or method is not implemented ($out)"
else
	nok "pages claim that implemented selectors or methods are not:"
	printf '%s\n' "$out" | sed 's/^/#   /'
fi

# Every program `make install` or `make install-bench` installs has a
# manual page, and every manual page is in one of the Makefile's MAN lists,
# which those targets install (MAN1_BENCH: install-bench).
man=$doc/man
mk=$top/Makefile
progs="$(sed -n 's/^TOOLS := //p; s/^BENCH_TOOLS := //p' "$mk") aned"
mans=$(sed -n 's/^MAN[0-9]\(_BENCH\)* := //p' "$mk" | tr '\n' ' ')
nopage=
for t in $progs; do
	ls "$man/$t".[0-9] >/dev/null 2>&1 || nopage="$nopage $t"
done
if [ -z "$nopage" ]; then
	ok "every installed program has a manual page ($(echo $progs))"
else
	nok "installed programs without a manual page:$nopage"
fi
uninst=
for p in "$man"/*.[0-9]; do
	n=$(basename "$p")
	sec=${n##*.}
	echo " $mans " | grep -qF " $n " || { uninst="$uninst $n"; continue; }
	if grep "^MAN${sec}_BENCH := " "$mk" | tr ' ' '\n' | grep -qxF "$n"; then
		target=install-bench list=MAN${sec}_BENCH
	elif grep "^MAN$sec := " "$mk" | tr ' ' '\n' | grep -qxF "$n"; then
		target=install list=MAN$sec
	else
		uninst="$uninst $n(not in MAN$sec)"
		continue
	fi
	sed -n "/^$target:/,/^\$/p" "$mk" | grep -qF ",\$($list))" ||
		uninst="$uninst $n($target has no \$($list))"
done
if [ -z "$uninst" ]; then
	ok "every manual page is installed ($(echo $mans))"
else
	nok "manual pages the Makefile does not install:$uninst"
fi

# libane(3) names every function lib/libane.h exports and every
# environment variable lib/ reads.
hdr=$top/lib/libane.h
fns=$(tr '\n' ' ' <"$hdr" | grep -o 'LIBANE_EXPORT [^;(]*(' |
	sed -n 's/.*[ *]\(ane_[a-z0-9_]*\)($/\1/p' | sort -u)
nfns=$(printf '%s\n' "$fns" | grep -c .)
unnamed=
for f in $fns; do
	grep -qw "$f" "$man/libane.3" || unnamed="$unnamed $f"
done
vars=$(cat "$top"/lib/*.c | sed -n 's/.*getenv(\([A-Z_"]*\)).*/\1/p' | tr -d '"' | sort -u)
evars=
for v in $vars; do
	case $v in
	*_ENV) v=$(sed -n "s/^#define ${v}[[:space:]]*\"\(.*\)\"/\1/p" "$hdr") ;;
	esac
	[ -n "$v" ] || continue
	evars="$evars $v"
	grep -qw "$v" "$man/libane.3" || unnamed="$unnamed \$$v"
done
if [ "$nfns" -lt 50 ]; then
	nok "libane(3): cannot read lib/libane.h's exports ($nfns)"
elif [ -z "$unnamed" ]; then
	ok "libane(3) names all $nfns exported functions and$evars"
else
	nok "libane(3) does not name:$unnamed"
fi

# README.md names every instruction set the engine has.
isas=$(sed -n 's/^[[:space:]]*ANE_MATH_ISA_\([A-Z0-9_]*\) = .*/\1/p' \
	"$top/firmware/hw/engine/ane_math.h")
noisa=
for i in $isas; do
	case $i in
	AVX512) w=AVX-512 ;;
	AVX2_FMA) w=AVX2 ;;
	*) w=$i ;;
	esac
	grep -qF "$w" "$top/README.md" || noisa="$noisa $w"
done
if [ -n "$isas" ] && [ -z "$noisa" ]; then
	ok "README.md names the engine's instruction sets ($(echo $isas))"
else
	nok "README.md does not name the engine's instruction sets:$noisa"
fi

echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
