#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real networks through the ONNX front end (Documentation/accel/ane/
# onnx.rst, "Real networks"): ResNet-18, MobileNetV2, SqueezeNet 1.1 and
# a 4-layer transformer encoder, batch 1 and 8, exported from PyTorch with
# random weights from a fixed seed (tools/bench/torch_onnx.py, cached in
# $ANE_CACHE/onnx-nets), each run engine-only on the engine's userspace
# build (ane-run --engine host --engine-only) and compared with PyTorch's
# output: every element within 2e-2 * max|torch| + 2e-2 * |torch|, the
# suite's engine tolerance.  Needs Debian's python3-torch and
# python3-torchvision (make deps).  Last line: "real-nets: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
dir=$cache/onnx-nets/$(sha256sum "$top/tools/bench/torch_onnx.py" | cut -c1-12)
pass=0
fail=0

if ! /usr/bin/python3 -c 'import torch, torchvision, numpy' 2>/dev/null; then
	echo "not ok - python3-torch and python3-torchvision are not installed (make deps)"
	echo "real-nets: 0 passed, 1 failed"
	exit 1
fi
if [ ! -f "$dir/done" ]; then
	mkdir -p "$dir"
	/usr/bin/python3 "$top/tools/bench/torch_onnx.py" "$dir" >"$dir/export.log" 2>&1 &&
		touch "$dir/done" || { tail -n 20 "$dir/export.log"; }
fi
for m in "$dir"/*/; do
	[ -f "$m/model.onnx" ] || continue
	n=$(basename "$m")
	rm -rf "$m/out"
	if ! out=$("$B/tools/ane-run" "$m/model.onnx" --engine host --engine-only --quiet \
		--input "input=$m/input.npy" --output-dir "$m/out" 2>&1); then
		printf '%s\n' "$out" | tail -n 5
		echo "not ok - $n: ane-run failed"
		fail=$((fail + 1))
		continue
	fi
	if res=$(/usr/bin/python3 - "$m" <<'PY'
import glob, sys
import numpy as np
d = sys.argv[1]
t = np.load(d + "/torch.npy")
o = np.load(glob.glob(d + "/out/*.npy")[0])
if o.shape != t.shape:
    print("shape %s, PyTorch's %s" % (o.shape, t.shape)); sys.exit(1)
peak = float(np.abs(t).max())
err = np.abs(o - t) - (2e-2 * peak + 2e-2 * np.abs(t))
print("max error %.3g of peak %.3g (%.2f%%)" % (float(np.abs(o - t).max()), peak,
      100 * float(np.abs(o - t).max()) / peak))
sys.exit(1 if (err > 0).any() or not np.isfinite(o).all() else 0)
PY
	); then
		echo "ok - $n: engine-only, $res"
		pass=$((pass + 1))
	else
		echo "not ok - $n: $res"
		fail=$((fail + 1))
	fi
done
[ $((pass + fail)) -gt 0 ] || { echo "not ok - no network was exported (log: $dir/export.log)"; fail=1; }
echo "real-nets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
