#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The real networks' throughput through the ONNX front end on the engine's
# userspace build (ane-run --engine host --engine-only) against PyTorch CPU
# eager on the same machine, one thread and all threads, in the same run:
# each network's best time of --runs runs of each, alternately, and their
# ratio (PyTorch's time over ane's: above 1, ane is faster), printed
# beside the target of issue 27, >= 1.0.  OPENBLAS_CORETYPE is unset so
# that PyTorch's BLAS takes the CPU's best kernels.
#
#   tools/bench/onnx-bench.sh [--runs N] [--dir DIR] [NET...]
#
# NET is a directory name of tools/bench/torch_onnx.py's export
# (resnet18-b1 ...); DIR defaults to make check's cache of them.
# Documentation/accel/ane/onnx.rst, "Throughput".
set -euo pipefail
unset OPENBLAS_CORETYPE
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
dir=$cache/onnx-nets/$(sha256sum "$top/tools/bench/torch_onnx.py" | cut -c1-12)
runs=10
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--runs=*) runs=${1#*=}; shift ;;
	--dir) dir=$2; shift 2 ;;
	--dir=*) dir=${1#*=}; shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "onnx-bench: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $runs in ''|*[!0-9]*) echo "onnx-bench: --runs '$runs': a count" >&2; exit 2 ;; esac
[ -d "$dir" ] || /usr/bin/python3 "$top/tools/bench/torch_onnx.py" "$dir" >/dev/null
nets=("$@")
[ ${#nets[@]} -gt 0 ] || nets=(resnet18-b1 resnet18-b8 mobilenet_v2-b1 mobilenet_v2-b8 \
	squeezenet1_1-b1 squeezenet1_1-b8 encoder-b1 encoder-b8)
all=$(nproc)
printf '%-18s %7s %12s %12s %8s  %s\n' network threads "ane ms" "torch ms" ratio target
for n in "${nets[@]}"; do
	for t in 1 "$all"; do
		ane=$("$B/tools/ane-run" "$dir/$n/model.onnx" --engine host --engine-only --quiet \
			--threads "$t" --runs "$runs" --input "input=$dir/$n/input.npy" |
			sed -n 's/.*best \([0-9.]*\) ms.*/\1/p')
		torch=$(/usr/bin/python3 "$top/tools/bench/torch_onnx.py" "$dir" --no-export \
			--net "${n%-b*}" --batch "${n##*-b}" --threads "$t" --time 2 |
			/usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print("%.3f" % list(r.values())[0]["ms"])')
		ratio=$(awk -v a="$ane" -v b="$torch" 'BEGIN { printf "%.2f", b / a }')
		met=$(awk -v r="$ratio" 'BEGIN { print (r >= 1.0) ? "met" : "not met" }')
		printf '%-18s %7s %12s %12s %7sx  >= 1.0x (%s)\n' "$n" "$t" "$ane" "$torch" "$ratio" "$met"
	done
done
