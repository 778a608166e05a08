#!/usr/bin/env python3
"""Generates the conv/pool/norm execution tests and their PyTorch reference.

Usage: conv_pool_norm_gen.py SUITE EXPECTED_JSON > test.mlir

SUITE is one of `conv`, `pool`, `norm`. The script draws small random inputs
(fixed seed), writes a module whose `main` calls one function per case (each
holding one remat op) on the inputs as dense constants and prints every
result with printMemrefF32, and writes the PyTorch 1.13 results of the same
computation, in print order, to EXPECTED_JSON. Gradient ops are checked
against torch.autograd.grad of the forward op with a random output gradient.
It runs nothing itself; conv_pool_norm_check.py compares the mlir-runner
output with EXPECTED_JSON.
"""

import json
import math
import sys

import torch
import torch.nn.functional as F

torch.manual_seed(1234)


def randn(*shape):
    return torch.randn(*shape, dtype=torch.float32)


def ttype(t):
    return "tensor<" + "x".join(str(s) for s in t.shape) + "xf32>"


def scalar(v):
    if math.isnan(v):
        return "0x7FC00000"
    if math.isinf(v):
        return "0x7F800000" if v > 0 else "0xFF800000"
    return "%.8e" % v


def dense(t):
    flat = ", ".join(scalar(v) for v in t.reshape(-1).tolist())
    return "dense<[%s]> : tensor<%sxf32>" % (flat, t.numel())


def pair(name, v):
    return "%s = array<i64: %d, %d>" % (name, v[0], v[1])


class Suite:
    def __init__(self):
        self.cases = []  # (name, op, attrs, operands, results)

    def add(self, name, op, attrs, operands, results):
        self.cases.append((name, op, attrs, operands, results))

    def emit(self, out, expected_path):
        expected = []
        lines = []
        for i, (name, op, attrs, operands, results) in enumerate(self.cases):
            args = ", ".join("%%a%d: %s" % (j, ttype(t))
                             for j, t in enumerate(operands))
            rtypes = ", ".join(ttype(t) for t in results)
            lines.append("// %s" % name)
            lines.append("func.func @case%d(%s) -> (%s) {" % (i, args, rtypes))
            names = ", ".join("%%a%d" % j for j in range(len(operands)))
            res = "%%r:%d" % len(results) if len(results) > 1 else "%r"
            attr = (" {%s}" % ", ".join(attrs)) if attrs else ""
            lines.append("  %s = remat.%s %s%s : (%s) -> (%s)" % (
                res, op, names, attr,
                ", ".join(ttype(t) for t in operands), rtypes))
            if len(results) > 1:
                rets = ", ".join("%%r#%d" % k for k in range(len(results)))
            else:
                rets = "%r"
            lines.append("  return %s : %s" % (rets, rtypes))
            lines.append("}")
            for k, t in enumerate(results):
                expected.append({"name": "%s#%d" % (name, k),
                                 "shape": list(t.shape),
                                 "data": t.reshape(-1).tolist()})
        lines.append("func.func @main() {")
        for i, (name, op, attrs, operands, results) in enumerate(self.cases):
            for j, t in enumerate(operands):
                if t.dim() == 1:
                    lines.append("  %%in%d_%d = arith.constant %s"
                                 % (i, j, dense(t)))
                    continue
                lines.append("  %%flat%d_%d = arith.constant %s"
                             % (i, j, dense(t)))
                lines.append("  %%in%d_%d = tensor.expand_shape %%flat%d_%d "
                             "[[%s]] output_shape [%s] : tensor<%dxf32> into %s"
                             % (i, j, i, j,
                                ", ".join(str(d) for d in range(t.dim())),
                                ", ".join(str(v) for v in t.shape),
                                t.numel(), ttype(t)))
            rtypes = ", ".join(ttype(t) for t in results)
            res = "%%res%d:%d" % (i, len(results)) if len(results) > 1 \
                else "%%res%d" % i
            lines.append("  %s = func.call @case%d(%s) : (%s) -> (%s)" % (
                res, i, ", ".join("%%in%d_%d" % (i, j)
                                  for j in range(len(operands))),
                ", ".join(ttype(t) for t in operands), rtypes))
            for k, t in enumerate(results):
                val = "%%res%d#%d" % (i, k) if len(results) > 1 else "%%res%d" % i
                lines.append("  %%u%d_%d = tensor.cast %s : %s to tensor<*xf32>"
                             % (i, k, val, ttype(t)))
                lines.append("  func.call @printMemrefF32(%%u%d_%d) : "
                             "(tensor<*xf32>) -> ()" % (i, k))
        lines.append("  return")
        lines.append("}")
        lines.append("func.func private @printMemrefF32(tensor<*xf32>)")
        out.write("\n".join(lines) + "\n")
        with open(expected_path, "w") as f:
            json.dump(expected, f)


def conv_suite(s):
    # (name, N, C, H, W, O, KH, KW, strides, padding, dilations, groups)
    configs = [
        ("basic", 2, 3, 6, 6, 4, 3, 3, (1, 1), (0, 0), (1, 1), 1),
        ("stride2_pad1_nondiv", 2, 3, 7, 8, 4, 3, 3, (2, 2), (1, 1), (1, 1), 1),
        ("dilation2_pad2", 1, 2, 9, 9, 3, 3, 3, (1, 1), (2, 2), (2, 2), 1),
        ("groups2_stride2_pad1", 2, 4, 7, 7, 6, 3, 3, (2, 2), (1, 1), (1, 1), 2),
        ("groups2_dil2_rect", 1, 4, 10, 9, 4, 3, 2, (2, 3), (1, 1), (2, 2), 2),
        ("depthwise_stride2", 1, 3, 8, 7, 3, 3, 3, (2, 2), (1, 1), (1, 1), 3),
        ("k1_pad1_stride2", 1, 2, 5, 6, 3, 1, 1, (2, 2), (1, 1), (1, 1), 1),
        ("k2_pad2_stride3", 1, 2, 7, 7, 2, 2, 2, (3, 3), (2, 2), (1, 1), 1),
    ]
    for (name, n, c, h, w, o, kh, kw, st, pd, dl, g) in configs:
        x = randn(n, c, h, w).requires_grad_()
        wt = randn(o, c // g, kh, kw).requires_grad_()
        y = F.conv2d(x, wt, stride=st, padding=pd, dilation=dl, groups=g)
        dy = randn(*y.shape)
        dx, dw = torch.autograd.grad(y, [x, wt], dy)
        attrs = [pair("strides", st), pair("padding", pd),
                 pair("dilations", dl), "groups = %d : i64" % g]
        xd, wd = x.detach(), wt.detach()
        s.add("conv2d_" + name, "conv2d", attrs, [xd, wd], [y.detach()])
        s.add("conv2d_input_grad_" + name, "conv2d_input_grad", attrs,
              [dy, wd], [dx])
        s.add("conv2d_filter_grad_" + name, "conv2d_filter_grad", attrs,
              [dy, xd], [dw])


def pool_suite(s):
    # (name, N, C, H, W, kernel, strides, padding, integer-valued input)
    configs = [
        ("k3_s2_p1_overlap", 2, 3, 7, 8, (3, 3), (2, 2), (1, 1), False),
        ("k2_s2_p0", 1, 2, 6, 6, (2, 2), (2, 2), (0, 0), False),
        ("k3_s2_p0_ties", 2, 2, 9, 7, (3, 3), (2, 2), (0, 0), True),
        ("k3_s1_p1_ties", 1, 2, 5, 6, (3, 3), (1, 1), (1, 1), True),
        ("rect_k3x2_s1x2_p1x1", 1, 3, 6, 7, (3, 2), (1, 2), (1, 1), False),
    ]
    for (name, n, c, h, w, k, st, pd, ints) in configs:
        if ints:
            # Few distinct values: windows hold ties, which the first-maximum
            # rule must break like PyTorch (first in kh-major scan order).
            xv = torch.randint(0, 3, (n, c, h, w)).to(torch.float32)
        else:
            xv = randn(n, c, h, w)
        attrs = [pair("kernel", k), pair("strides", st), pair("padding", pd)]

        x = xv.clone().requires_grad_()
        y = F.max_pool2d(x, k, stride=st, padding=pd)
        dy = randn(*y.shape)
        (dx,) = torch.autograd.grad(y, [x], dy)
        s.add("max_pool2d_" + name, "max_pool2d", attrs, [xv], [y.detach()])
        s.add("max_pool2d_grad_" + name, "max_pool2d_grad", attrs, [dy, xv],
              [dx])

        x = xv.clone().requires_grad_()
        y = F.avg_pool2d(x, k, stride=st, padding=pd, count_include_pad=True)
        dy = randn(*y.shape)
        (dx,) = torch.autograd.grad(y, [x], dy)
        s.add("avg_pool2d_" + name, "avg_pool2d", attrs, [xv], [y.detach()])
        s.add("avg_pool2d_grad_" + name, "avg_pool2d_grad", attrs, [dy], [dx])

    # Non-finite inputs (max pooling only): a window whose real elements are
    # all -inf routes its gradient to its first real element, and a NaN wins
    # over any number (the last NaN of a window in scan order), like PyTorch.
    xv = randn(1, 2, 7, 7)
    xv[0, 0, 0:2, 0:2] = float("-inf")
    xv[0, 0, 4:6, 5:7] = float("-inf")
    xv[0, 1, 3, 4] = float("nan")
    xv[0, 1, 4, 4] = float("nan")
    attrs = [pair("kernel", (3, 3)), pair("strides", (2, 2)),
             pair("padding", (1, 1))]
    x = xv.clone().requires_grad_()
    y = F.max_pool2d(x, 3, stride=2, padding=1)
    dy = randn(*y.shape)
    (dx,) = torch.autograd.grad(y, [x], dy)
    s.add("max_pool2d_nonfinite", "max_pool2d", attrs, [xv], [y.detach()])
    s.add("max_pool2d_grad_nonfinite", "max_pool2d_grad", attrs, [dy, xv],
          [dx])

    for (n, c, h, w) in [(2, 3, 5, 4), (1, 4, 1, 7)]:
        x = randn(n, c, h, w).requires_grad_()
        y = x.mean(dim=(2, 3))
        dy = randn(*y.shape)
        (dx,) = torch.autograd.grad(y, [x], dy)
        name = "%dx%dx%dx%d" % (n, c, h, w)
        s.add("global_avg_pool_" + name, "global_avg_pool", [], [x.detach()],
              [y.detach()])
        s.add("global_avg_pool_grad_" + name, "global_avg_pool_grad", [], [dy],
              [dx])


def norm_suite(s):
    for shape, eps in [((4, 10), 1e-5), ((2, 3, 8), 1e-3), ((16,), 1e-5)]:
        d = shape[-1]
        xv = randn(*shape) * 2.0 + 0.5
        gv = randn(d)
        bv = randn(d)
        x = xv.clone().requires_grad_()
        g = gv.clone().requires_grad_()
        b = bv.clone().requires_grad_()
        y = F.layer_norm(x, (d,), g, b, eps)
        dy = randn(*shape)
        dx, dg, db = torch.autograd.grad(y, [x, g, b], dy)
        attrs = ["epsilon = %.6e : f64" % eps]
        name = "x".join(str(v) for v in shape)
        s.add("layer_norm_" + name, "layer_norm", attrs, [xv, gv, bv],
              [y.detach()])
        s.add("layer_norm_grad_" + name, "layer_norm_grad", attrs,
              [dy, xv, gv], [dx, dg, db])

    for shape, eps in [((8, 5), 1e-5), ((3, 4, 5, 6), 1e-5),
                       ((2, 3, 3, 2), 1e-2)]:
        c = shape[1]
        xv = randn(*shape) * 1.5 - 0.25
        gv = randn(c)
        bv = randn(c)
        x = xv.clone().requires_grad_()
        g = gv.clone().requires_grad_()
        b = bv.clone().requires_grad_()
        y = F.batch_norm(x, None, None, g, b, training=True, eps=eps)
        dy = randn(*shape)
        dx, dg, db = torch.autograd.grad(y, [x, g, b], dy)
        attrs = ["epsilon = %.6e : f64" % eps]
        name = "x".join(str(v) for v in shape)
        s.add("batch_norm_" + name, "batch_norm", attrs, [xv, gv, bv],
              [y.detach()])
        s.add("batch_norm_grad_" + name, "batch_norm_grad", attrs,
              [dy, xv, gv], [dx, dg, db])


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("conv", "pool", "norm"):
        sys.stderr.write(__doc__)
        return 2
    s = Suite()
    {"conv": conv_suite, "pool": pool_suite, "norm": norm_suite}[sys.argv[1]](s)
    s.emit(sys.stdout, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
