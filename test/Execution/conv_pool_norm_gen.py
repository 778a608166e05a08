#!/usr/bin/env python3
"""Generates the conv/pool/norm execution tests and their PyTorch reference.

Usage: conv_pool_norm_gen.py SUITE EXPECTED_JSON > test.mlir

SUITE is one of `conv`, `pool`, `norm` (f32) and `half` (f16 and bf16).
The script draws small random inputs (fixed seed), writes a module whose
`main` calls one function per case (each holding one remat op) on the inputs
as dense constants and prints every result (widened to f32) with
printMemrefF32, and writes the PyTorch 1.13 results of the same computation,
in print order, to EXPECTED_JSON. Gradient ops are checked against
torch.autograd.grad of the forward op with a random output gradient.
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


def ttype(t, elem="f32"):
    return "tensor<" + "x".join(str(v) for v in t.shape) + "x%s>" % elem


def scalar(v):
    if math.isnan(v):
        return "0x7FC00000"
    if math.isinf(v):
        return "0x7F800000" if v > 0 else "0xFF800000"
    return "%.8e" % v


def dense(t, elem):
    flat = ", ".join(scalar(v) for v in t.reshape(-1).tolist())
    return "dense<[%s]> : tensor<%sx%s>" % (flat, t.numel(), elem)


def pair(name, v):
    return "%s = array<i64: %d, %d>" % (name, v[0], v[1])


# 16-bit element types: torch dtype used to round the inputs, and the
# tolerance of a result computed in f32 and rounded once to the type (twice
# the relative half-ulp: 2^-11 for f16, 2^-8 for bf16).
HALF_TYPES = {"f16": (torch.float16, 1e-3), "bf16": (torch.bfloat16, 8e-3)}


def rounded(t, elem):
    """`t` rounded to the 16-bit type `elem`, as f32."""
    return t.to(HALF_TYPES[elem][0]).to(torch.float32)


class Suite:
    def __init__(self):
        self.cases = []

    def add(self, name, op, attrs, operands, results, elem="f32"):
        """One case: remat.`op` with `attrs` on `operands` (f32 tensors whose
        values are representable in `elem`) must give `results`."""
        self.cases.append((name, op, attrs, operands, results, elem))

    def emit(self, out, expected_path):
        expected = []
        lines = []
        for i, (name, op, attrs, operands, results, elem) in \
                enumerate(self.cases):
            args = ", ".join("%%a%d: %s" % (j, ttype(t, elem))
                             for j, t in enumerate(operands))
            rtypes = ", ".join(ttype(t, elem) for t in results)
            lines.append("// %s" % name)
            lines.append("func.func @case%d(%s) -> (%s) {" % (i, args, rtypes))
            names = ", ".join("%%a%d" % j for j in range(len(operands)))
            res = "%%r:%d" % len(results) if len(results) > 1 else "%r"
            attr = (" {%s}" % ", ".join(attrs)) if attrs else ""
            lines.append("  %s = remat.%s %s%s : (%s) -> (%s)" % (
                res, op, names, attr,
                ", ".join(ttype(t, elem) for t in operands), rtypes))
            if len(results) > 1:
                rets = ", ".join("%%r#%d" % k for k in range(len(results)))
            else:
                rets = "%r"
            lines.append("  return %s : %s" % (rets, rtypes))
            lines.append("}")
            tol = HALF_TYPES[elem][1] if elem in HALF_TYPES else None
            for k, t in enumerate(results):
                entry = {"name": "%s#%d" % (name, k), "shape": list(t.shape),
                         "data": t.reshape(-1).tolist()}
                if tol is not None:
                    entry["rtol"] = tol
                expected.append(entry)
        lines.append("func.func @main() {")
        for i, (name, op, attrs, operands, results, elem) in \
                enumerate(self.cases):
            for j, t in enumerate(operands):
                if t.dim() == 1:
                    lines.append("  %%in%d_%d = arith.constant %s"
                                 % (i, j, dense(t, elem)))
                    continue
                lines.append("  %%flat%d_%d = arith.constant %s"
                             % (i, j, dense(t, elem)))
                lines.append("  %%in%d_%d = tensor.expand_shape %%flat%d_%d "
                             "[[%s]] output_shape [%s] : tensor<%dx%s> into %s"
                             % (i, j, i, j,
                                ", ".join(str(d) for d in range(t.dim())),
                                ", ".join(str(v) for v in t.shape),
                                t.numel(), elem, ttype(t, elem)))
            rtypes = ", ".join(ttype(t, elem) for t in results)
            res = "%%res%d:%d" % (i, len(results)) if len(results) > 1 \
                else "%%res%d" % i
            lines.append("  %s = func.call @case%d(%s) : (%s) -> (%s)" % (
                res, i, ", ".join("%%in%d_%d" % (i, j)
                                  for j in range(len(operands))),
                ", ".join(ttype(t, elem) for t in operands), rtypes))
            for k, t in enumerate(results):
                val = "%%res%d#%d" % (i, k) if len(results) > 1 \
                    else "%%res%d" % i
                if elem != "f32":
                    # Widen the 16-bit result to f32 for printing.
                    ids = ", ".join("d%d" % d for d in range(t.dim()))
                    amap = "affine_map<(%s) -> (%s)>" % (ids, ids)
                    lines.append("  %%e%d_%d = tensor.empty() : %s"
                                 % (i, k, ttype(t)))
                    lines.append(
                        "  %%w%d_%d = linalg.generic {indexing_maps = [%s, %s],"
                        " iterator_types = [%s]} ins(%s : %s) outs(%%e%d_%d : %s)"
                        " {" % (i, k, amap, amap,
                                ", ".join(['"parallel"'] * t.dim()),
                                val, ttype(t, elem), i, k, ttype(t)))
                    lines.append("  ^bb0(%%x: %s, %%y: f32):" % elem)
                    lines.append("    %%z = arith.extf %%x : %s to f32" % elem)
                    lines.append("    linalg.yield %z : f32")
                    lines.append("  } -> %s" % ttype(t))
                    val = "%%w%d_%d" % (i, k)
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
        # Depthwise with unit column stride (the runtime's contiguous rows),
        # rectangular kernel, padding and dilation, two images.
        ("depthwise_rect_dil2", 2, 4, 9, 8, 4, 3, 2, (2, 1), (2, 1), (2, 1), 4),
        ("k1_pad1_stride2", 1, 2, 5, 6, 3, 1, 1, (2, 2), (1, 1), (1, 1), 1),
        ("k2_pad2_stride3", 1, 2, 7, 7, 2, 2, 2, (3, 3), (2, 2), (1, 1), 1),
        ("k1_stride1", 2, 3, 4, 5, 2, 1, 1, (1, 1), (0, 0), (1, 1), 1),
        ("k1_groups2", 2, 4, 3, 4, 6, 1, 1, (1, 1), (0, 0), (1, 1), 2),
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
        # Ties, padding and overlapping windows (stride < kernel) together:
        # an input element covered by several windows gets the gradient of
        # each window whose first maximum it is.
        ("k3_s2_p1_ties", 2, 3, 9, 8, (3, 3), (2, 2), (1, 1), True),
        ("rect_k3x2_s2x1_p1x1_ties", 1, 2, 7, 6, (3, 2), (2, 1), (1, 1),
         True),
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


def half_suite(s):
    """f16 and bf16 operands: the reference is the f32 computation on the
    inputs rounded to the type; the lowering computes in f32 and rounds the
    result once, so it must agree to about one rounding of the result."""
    for elem in ("f16", "bf16"):
        r = lambda t: rounded(t, elem)
        # Convolution: groups 2, stride 2, padding 1, dilation 2.
        st, pd, dl, g = (2, 2), (1, 1), (2, 1), 2
        x = r(randn(2, 4, 9, 8)).requires_grad_()
        w = r(randn(6, 2, 3, 3)).requires_grad_()
        y = F.conv2d(x, w, stride=st, padding=pd, dilation=dl, groups=g)
        dy = r(randn(*y.shape))
        dx, dw = torch.autograd.grad(y, [x, w], dy)
        attrs = [pair("strides", st), pair("padding", pd),
                 pair("dilations", dl), "groups = %d : i64" % g]
        s.add("conv2d_" + elem, "conv2d", attrs, [x.detach(), w.detach()],
              [y.detach()], elem)
        s.add("conv2d_input_grad_" + elem, "conv2d_input_grad", attrs,
              [dy, w.detach()], [dx], elem)
        s.add("conv2d_filter_grad_" + elem, "conv2d_filter_grad", attrs,
              [dy, x.detach()], [dw], elem)

        # Pooling: kernel 3, stride 2, padding 1 (overlapping windows).
        attrs = [pair("kernel", (3, 3)), pair("strides", (2, 2)),
                 pair("padding", (1, 1))]
        xv = r(randn(2, 3, 7, 8))
        x = xv.clone().requires_grad_()
        y = F.max_pool2d(x, 3, stride=2, padding=1)
        dy = r(randn(*y.shape))
        (dx,) = torch.autograd.grad(y, [x], dy)
        s.add("max_pool2d_" + elem, "max_pool2d", attrs, [xv], [y.detach()],
              elem)
        s.add("max_pool2d_grad_" + elem, "max_pool2d_grad", attrs, [dy, xv],
              [dx], elem)
        x = xv.clone().requires_grad_()
        y = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=True)
        dy = r(randn(*y.shape))
        (dx,) = torch.autograd.grad(y, [x], dy)
        s.add("avg_pool2d_" + elem, "avg_pool2d", attrs, [xv], [y.detach()],
              elem)
        s.add("avg_pool2d_grad_" + elem, "avg_pool2d_grad", attrs, [dy], [dx],
              elem)
        x = xv.clone().requires_grad_()
        y = x.mean(dim=(2, 3))
        dy = r(randn(*y.shape))
        (dx,) = torch.autograd.grad(y, [x], dy)
        s.add("global_avg_pool_" + elem, "global_avg_pool", [], [xv],
              [y.detach()], elem)
        s.add("global_avg_pool_grad_" + elem, "global_avg_pool_grad", [],
              [dy], [dx], elem)

        # Norms.
        attrs = ["epsilon = %.6e : f64" % 1e-5]
        for op, shape in (("layer_norm", (2, 3, 16)),
                          ("batch_norm", (4, 3, 5, 4))):
            c = shape[-1] if op == "layer_norm" else shape[1]
            xv = r(randn(*shape) * 2.0 + 0.5)
            gv, bv = r(randn(c)), r(randn(c))
            x = xv.clone().requires_grad_()
            gm = gv.clone().requires_grad_()
            bt = bv.clone().requires_grad_()
            if op == "layer_norm":
                y = F.layer_norm(x, (c,), gm, bt, 1e-5)
            else:
                y = F.batch_norm(x, None, None, gm, bt, training=True,
                                 eps=1e-5)
            dy = r(randn(*shape))
            grads = torch.autograd.grad(y, [x, gm, bt], dy)
            s.add("%s_%s" % (op, elem), op, attrs, [xv, gv, bv],
                  [y.detach()], elem)
            s.add("%s_grad_%s" % (op, elem), op + "_grad", attrs,
                  [dy, xv, gv], list(grads), elem)


def main():
    suites = {"conv": conv_suite, "pool": pool_suite, "norm": norm_suite,
              "half": half_suite}
    if len(sys.argv) != 3 or sys.argv[1] not in suites:
        sys.stderr.write(__doc__)
        return 2
    s = Suite()
    suites[sys.argv[1]](s)
    s.emit(sys.stdout, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
