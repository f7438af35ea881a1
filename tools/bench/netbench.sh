#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Real networks, ane against PyTorch on the CPU, the same number of threads
# each (default 1):
#   tools/bench/netbench.sh [--threads N] [--rounds N] [--time SEC] [--json FILE] [--net NAME]...
# Exports the inputs and weights once (ane-netbench --export), then runs
# PyTorch (tools/bench/torch_nets.py) and the engine alternately, N rounds
# (default 2), and prints ane-netbench's table with PyTorch's best time
# over the rounds and the engine's best in the last one.  Needs Debian's
# python3-torch (apt-get install python3-torch); OPENBLAS_CORETYPE is
# unset so that every library picks its own kernels.
# Documentation/accel/ane/performance.rst, "Real networks".
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
bin=$B/tools/ane-netbench
py=${PYTHON:-/usr/bin/python3}
rounds=2
threads=1
tsec=2
json=
nets=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds|--threads|--time|--json|--net)
		[ $# -ge 2 ] || { echo "netbench.sh: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--time) tsec=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--net) nets="$nets --net $2"; shift 2 ;;
	*) echo "netbench.sh: unknown argument '$1'" >&2
	   echo "usage: netbench.sh [--threads N] [--rounds N] [--time SEC] [--json FILE] [--net NAME]..." >&2
	   exit 2 ;;
	esac
done
unset OPENBLAS_CORETYPE
[ -x "$bin" ] || { echo "netbench.sh: $bin not built (make tools)" >&2; exit 2; }
if ! "$py" -c 'import torch' 2>/dev/null; then
	echo "netbench.sh: PyTorch is not installed for $py:" \
	     "apt-get install python3-torch (a benchmark-only dependency)" >&2
	exit 2
fi
dir=$(mktemp -d /tmp/ane-netbench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
"$bin" $nets --dir "$dir" --export
torch=
r=1
while [ "$r" -le "$rounds" ]; do
	# shellcheck disable=SC2086
	"$py" "$top/tools/bench/torch_nets.py" "$dir" --threads "$threads" --time "$tsec" \
		$(echo $nets) --json "$dir/torch-$r.json" >/dev/null
	torch="$torch --torch $dir/torch-$r.json"
	if [ "$r" -lt "$rounds" ]; then
		# shellcheck disable=SC2086
		"$bin" $nets --threads "$threads" --time "$tsec" >/dev/null 2>&1
	fi
	r=$((r + 1))
done
# shellcheck disable=SC2086
"$bin" $nets --dir "$dir" $torch --threads "$threads" --time "$tsec" ${json:+--json "$json"}
