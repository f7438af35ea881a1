#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The networks of ane-netbench in PyTorch on the CPU, with the very inputs
# and weights ane-netbench exported (ane-netbench --export --dir DIR:
# DIR/<net>/<array>.f32, fp16 values stored as fp32), computed in fp32.
# Times each (best run of at least --time seconds, after a warm-up) with
# torch.set_num_threads(--threads), writes its output to
# DIR/<net>/torch_out.f32 and prints JSON:
#   {"tool": "torch_nets", "torch": VERSION, "threads": N,
#    "results": {"<net>": {"ms": BEST, "runs": N}, ...}}
# Documentation/accel/ane/performance.rst, "Real networks".
import argparse
import json
import os
import sys
import time

# One thread means one everywhere: Debian's torch calls the system BLAS
# (OpenBLAS), whose own thread pool torch.set_num_threads() does not
# size, so the BLAS and OpenMP pools are sized before torch is loaded.
_ap = argparse.ArgumentParser(
    description="ane-netbench's networks in PyTorch on the CPU")
_ap.add_argument("dir")
_ap.add_argument("--net", action="append")
_ap.add_argument("--threads", type=int, default=1)
_ap.add_argument("--time", type=float, default=2.0)
_ap.add_argument("--json")
ARGS = _ap.parse_args()
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = str(ARGS.threads)

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    sys.exit("torch_nets.py: %s: install Debian's python3-torch "
             "(apt-get install python3-torch)" % e)


def load(d, net, name, shape):
    a = np.fromfile(os.path.join(d, net, name + ".f32"), dtype="<f4")
    if a.size != int(np.prod(shape)):
        sys.exit("torch_nets.py: %s/%s: %d values, expected %s"
                 % (net, name, a.size, shape))
    return torch.from_numpy(a.reshape(shape).copy())


def mlp(d):
    width = [1024, 4096, 4096, 1024]
    x = load(d, "mlp", "x", (64, width[0]))
    ws = [load(d, "mlp", "w%d" % (i + 1), (width[i], width[i + 1]))
          for i in range(3)]
    bs = [load(d, "mlp", "b%d" % (i + 1), (width[i + 1],)) for i in range(3)]

    def run():
        t = x
        for i in range(3):
            t = torch.addmm(bs[i], t, ws[i])
            if i < 2:
                t = F.gelu(t)
        return t
    return run


def resnet(d):
    c, hw = 64, 56
    x = load(d, "resnet", "x", (1, c, hw, hw))
    blocks = []
    for i in range(3):
        blocks.append([load(d, "resnet", "w%d%s" % (i + 1, s), (c, c, 3, 3))
                       if k == "w" else
                       load(d, "resnet", "b%d%s" % (i + 1, s), (c,))
                       for s in "ab" for k in "wb"])

    def run():
        t = x
        for w1, b1, w2, b2 in blocks:
            y = F.relu(F.conv2d(t, w1, b1, padding=1))
            y = F.conv2d(y, w2, b2, padding=1)
            t = F.relu(y + t)
        return t
    return run


def encoder(d):
    # Post-norm encoder block as ane-netbench builds it; the 1/sqrt(64) of
    # the scores is folded into wq and bq there, so not applied here.  The
    # per-head weights [heads, D, 64] are laid out once as the usual
    # [D, heads * 64] of one projection.
    s, dm, nh, f = 128, 512, 8, 2048
    dk = dm // nh

    def heads_w(name):
        return load(d, "encoder", name, (nh, dm, dk)).permute(1, 0, 2) \
            .reshape(dm, dm).contiguous()

    x = load(d, "encoder", "x", (s, dm))
    wq, wk, wv = heads_w("wq"), heads_w("wk"), heads_w("wv")
    bq, bk, bv = (load(d, "encoder", n, (dm,)) for n in ("bq", "bk", "bv"))
    wo = load(d, "encoder", "wo", (nh * dk, dm))
    bo = load(d, "encoder", "bo", (dm,))
    g1, be1, g2, be2 = (load(d, "encoder", n, (dm,))
                        for n in ("g1", "be1", "g2", "be2"))
    w1, b1 = load(d, "encoder", "w1", (dm, f)), load(d, "encoder", "b1", (f,))
    w2, b2 = load(d, "encoder", "w2", (f, dm)), load(d, "encoder", "b2", (dm,))

    def run():
        q = torch.addmm(bq, x, wq).view(s, nh, dk).transpose(0, 1)
        k = torch.addmm(bk, x, wk).view(s, nh, dk).transpose(0, 1)
        v = torch.addmm(bv, x, wv).view(s, nh, dk).transpose(0, 1)
        p = torch.softmax(torch.bmm(q, k.transpose(1, 2)), dim=-1)
        o = torch.bmm(p, v).transpose(0, 1).reshape(s, dm)
        h = F.layer_norm(x + torch.addmm(bo, o, wo), (dm,), g1, be1)
        t = torch.addmm(b2, F.gelu(torch.addmm(b1, h, w1)), w2)
        return F.layer_norm(h + t, (dm,), g2, be2)
    return run


NETS = {"mlp": mlp, "resnet": resnet, "encoder": encoder}


def main():
    a = ARGS
    for name in a.net or []:
        if name not in NETS:
            sys.exit("torch_nets.py: unknown network %s (%s)"
                     % (name, ", ".join(sorted(NETS))))
    torch.set_num_threads(a.threads)
    res = {}
    with torch.no_grad():
        for name in a.net or sorted(NETS):
            run = NETS[name](a.dir)
            out = run()
            out.numpy().astype("<f4").tofile(
                os.path.join(a.dir, name, "torch_out.f32"))
            best, runs, start = float("inf"), 0, time.perf_counter()
            while runs < 3 or time.perf_counter() - start < a.time:
                t0 = time.perf_counter()
                run()
                best = min(best, time.perf_counter() - t0)
                runs += 1
            res[name] = {"ms": best * 1e3, "runs": runs}
    doc = {"tool": "torch_nets", "torch": torch.__version__,
           "threads": a.threads, "results": res}
    text = json.dumps(doc, indent=2)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
