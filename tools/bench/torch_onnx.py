#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Real networks for the ONNX front end, exported with torch.onnx.export
# from Debian's python3-torch and python3-torchvision, random weights from
# a fixed seed (nothing is downloaded): ResNet-18, MobileNetV2, SqueezeNet
# 1.1 and a 4-layer transformer encoder (d 256, 4 heads, seq 128,
# LayerNorm, exact GELU), at batch 1 and 8.  For each, DIR/<net>-b<B>/
# gets model.onnx, input.npy and PyTorch's output torch.npy (fp32, eval
# mode), and with --time the best time of PyTorch CPU eager over --time
# seconds at --threads threads, printed as JSON:
#   {"tool": "torch_onnx", "threads": N, "results": {"<net>-b<B>": {"ms": ..}}}
# Documentation/accel/ane/onnx.rst, "Real networks".
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser(description="export the real networks to ONNX")
ap.add_argument("dir")
ap.add_argument("--net", action="append",
                help="resnet18, mobilenet_v2, squeezenet1_1, encoder (default: all)")
ap.add_argument("--batch", action="append", type=int, help="default: 1 and 8")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--time", type=float, default=0.0,
                help="also time PyTorch for this many seconds per net")
ap.add_argument("--no-export", action="store_true",
                help="only time (the models exist)")
args = ap.parse_args()
for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = str(args.threads)

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:
    sys.exit("torch_onnx.py: %s: install Debian's python3-torch and "
             "python3-torchvision" % e)

torch.set_num_threads(args.threads)


class Layer(torch.nn.Module):
    """Post-LayerNorm encoder layer: 4-head attention, MLP 1024, exact GELU."""

    def __init__(self, d=256, heads=4, mlp=1024):
        super().__init__()
        self.h = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, mlp)
        self.fc2 = torch.nn.Linear(mlp, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        k = k.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        v = v.reshape(b, s, self.h, d // self.h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // self.h) ** 0.5, dim=-1)
        o = (a @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.proj(o))
        return self.ln2(x + self.fc2(torch.nn.functional.gelu(self.fc1(x))))


class Encoder(torch.nn.Module):
    """4 layers of d 256, 4 heads, seq 128 (the input's), MLP 1024."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(*[Layer() for _ in range(4)])

    def forward(self, x):
        return self.layers(x)


def make(name):
    """The net with its random weights; a CNN's BatchNorm statistics are
    those of a few random batches (train mode), so that activations keep
    their scale through the layers as a trained net's do (torchvision's
    initial statistics, mean 0 and variance 1, let MobileNetV2's output
    shrink to 1e-9)."""
    torch.manual_seed(1234)
    if name == "encoder":
        return Encoder(), (128, 256)
    net = getattr(torchvision.models, name)(weights=None)
    g = torch.Generator().manual_seed(7)
    net.train()
    with torch.no_grad():
        for _ in range(4):
            net(torch.rand((8, 3, 224, 224), generator=g) * 2 - 1)
    return net, (3, 224, 224)


def main():
    nets = args.net or ["resnet18", "mobilenet_v2", "squeezenet1_1", "encoder"]
    batches = args.batch or [1, 8]
    results = {}
    for name in nets:
        net, shape = make(name)
        net.eval()
        for b in batches:
            tag = "%s-b%d" % (name, b)
            d = os.path.join(args.dir, tag)
            os.makedirs(d, exist_ok=True)
            g = torch.Generator().manual_seed(99 + b)
            x = torch.rand((b,) + shape, generator=g) * 2 - 1
            with torch.no_grad():
                if not args.no_export:
                    y = net(x)
                    torch.onnx.export(net, x, os.path.join(d, "model.onnx"),
                                      input_names=["input"],
                                      output_names=["output"],
                                      opset_version=13,
                                      do_constant_folding=True)
                    np.save(os.path.join(d, "input.npy"), x.numpy())
                    np.save(os.path.join(d, "torch.npy"), y.numpy())
                if args.time > 0:
                    net(x)
                    best, n, t0 = 1e30, 0, time.perf_counter()
                    while time.perf_counter() - t0 < args.time or n < 3:
                        t = time.perf_counter()
                        net(x)
                        best = min(best, time.perf_counter() - t)
                        n += 1
                    results[tag] = {"ms": best * 1e3, "runs": n}
    print(json.dumps({"tool": "torch_onnx", "torch": torch.__version__,
                      "threads": args.threads, "results": results}))


main()
