#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real networks through the driver: SqueezeNet 1.1 and the transformer
# encoder (batch 1), exported by tests/onnx/real-nets.sh, run engine-only
# by ane-run on ane.ko in the VM (each engine segment a request) and
# checked against PyTorch's output with --expect.  The firmware's deadline
# is raised to 30 s (fw_deadline_ms): the engine runs under QEMU's TCG,
# some fifty times slower than on the host, and SqueezeNet's classifier
# came within reach of the stock 2 s on a loaded machine.  The VM's console fails
# the run on any kernel report, as in the other VM suites.  Last line:
# "vm-onnx: N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
cache=${ANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ane}
dir=$cache/onnx-nets/$(sha256sum "$top/tools/bench/torch_onnx.py" | cut -c1-12)
nets=(squeezenet1_1-b1 encoder-b1)
files=()
cmd='modprobe ane fw_deadline_ms=30000 || exit 1; p=0; f=0;'
for n in "${nets[@]}"; do
	if [ ! -f "$dir/$n/model.onnx" ]; then
		echo "not ok - $n: not exported (run tests/onnx/real-nets.sh first)"
		echo "vm-onnx: 0 passed, 1 failed"
		exit 1
	fi
	for a in model.onnx input.npy torch.npy; do
		files+=(--file "$dir/$n/$a:/nets/$n/$a")
	done
	cmd+=" if ane-run /nets/$n/model.onnx --engine-only --quiet --input input=/nets/$n/input.npy --expect output=/nets/$n/torch.npy; then echo 'ok - $n on the device'; p=\$((p + 1)); else echo 'not ok - $n on the device'; f=\$((f + 1)); fi;"
done
cmd+=' echo "vm-onnx: $p passed, $f failed"; [ $f -eq 0 ]'
exec "$top/tools/vm/ane-vm" --quiet --no-load --timeout 600 --bin "$B/tools/ane-run" \
	"${files[@]}" -- "$cmd"
