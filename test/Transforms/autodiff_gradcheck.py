"""Numerical check of the gradient rules used by --remat-autodiff.

Usage: autodiff_gradcheck.py <remat-opt> <input.mlir>

Runs `remat-opt --remat-autodiff` on every function of the input, evaluates
the resulting training step with torch in float64, and compares each
returned parameter gradient with torch autograd of the forward function.
Forward ops follow the dialect's documented semantics (gelu is the tanh
form); backward ops are evaluated from their documented semantics, most of
them as vector-Jacobian products of their forward op, so a rule that wires
the wrong operand, transpose or attribute gives a different number. Dropout
uses an arbitrary mask that is a deterministic function of the seed (the
rule only relies on the forward and the backward using the same mask).
Prints one line per gradient and a summary; exits 1 if any gradient differs.
"""
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from remat_models.mlirtext import parse_functions  # noqa: E402

torch.set_default_dtype(torch.float64)

SCALAR_FNS = {
    "arith.addf": lambda a, b: a + b, "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b, "arith.divf": lambda a, b: a / b,
    "arith.negf": lambda a: -a, "arith.maximumf": torch.maximum,
    "arith.minimumf": torch.minimum, "math.exp": torch.exp, "math.log": torch.log,
    "math.tanh": torch.tanh, "math.sqrt": torch.sqrt,
}

def eval_generic(op, x, shp):
    """A linalg.generic whose inputs and output map loop dimensions to
    trailing tensor dimensions (torch broadcasting) and whose reductions are
    sums (the body is evaluated with a zero accumulator, the contributions
    summed over the reduced loops and added to the init)."""
    reduced = [i for i, it in enumerate(op.attrs["iterator_types"]) if it == "reduction"]
    args, body = op.region
    env = dict(zip(args, list(x[:-1]) + [torch.zeros(()) if reduced else x[-1]]))
    for name, operands, res in body:
        vals = [env[o] for o in operands]
        if name == "linalg.yield":
            y = vals[0]
        else:
            env[res] = SCALAR_FNS[name](*vals)
    if reduced:
        y = y.sum(dim=tuple(reduced)) + x[-1]
    return y.expand(shp) if y.dim() < len(shp) else y

def dropout(x, seed, rate):
    g = torch.Generator().manual_seed(int(seed) * 7919 + 13)
    keep = (torch.rand(x.shape, generator=g) >= rate).to(x.dtype)
    return x * keep / (1 - rate)

def gelu(x): return F.gelu(x, approximate="tanh")

def bn(x, g, b, eps):
    dims = [0] if x.dim() == 2 else [0, 2, 3]
    mean = x.mean(dims, keepdim=True); var = x.var(dims, unbiased=False, keepdim=True)
    shape = [1, -1] + [1] * (x.dim() - 2)
    return (x - mean) / torch.sqrt(var + eps) * g.view(shape) + b.view(shape)

def mm(a, b, at):
    if at.get("transpose_a"): a = a.transpose(-1, -2)
    if at.get("transpose_b"): b = b.transpose(-1, -2)
    return a @ b

def sl(x, offs, strides, sizes):
    return x[tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offs, sizes, strides))]

def sum_to(x, shape):
    while x.dim() > len(shape): x = x.sum(0)
    for d, n in enumerate(shape):
        if n == 1 and x.shape[d] != 1: x = x.sum(d, keepdim=True)
    return x

def vjp(f, primals, g):
    primals = [p.detach().clone().requires_grad_(True) for p in primals]
    out = f(*primals)
    return torch.autograd.grad(out, primals, g, allow_unused=True)

def pool(kind, x, a):
    k = a.get("kernel", (2, 2)); s = a.get("strides", (2, 2)); p = a.get("padding", (0, 0))
    return (F.max_pool2d if kind == "max" else F.avg_pool2d)(x, k, s, p)

def conv(x, w, a):
    return F.conv2d(x, w, stride=a.get("strides", (1, 1)), padding=a.get("padding", (0, 0)),
                    dilation=a.get("dilations", (1, 1)), groups=a.get("groups", 1))

def eval_op(op, x):
    n, a = op.name, op.attrs
    shp = op.result_type.shape
    if n == "arith.constant": return [torch.full(shp, float(op.splat))]
    if n == "tensor.empty": return [torch.zeros(shp)]
    if n == "linalg.fill": return [torch.full(shp, float(x[0]))]
    if n == "linalg.matmul": return [x[2] + x[0] @ x[1]]
    if n == "linalg.generic": return [eval_generic(op, x, shp)]
    if n in SCALAR_FNS: return [SCALAR_FNS[n](*x)]
    n = n[6:]
    if n == "matmul": return [mm(x[0], x[1], a)]
    if n in ("add", "sub", "mul", "div"): return [getattr(torch, n)(x[0], x[1])]
    if n in ("relu", "tanh", "sigmoid", "exp", "log", "neg"): return [getattr(torch, n)(x[0])]
    if n == "gelu": return [gelu(x[0])]
    if n == "gelu_erf": return [F.gelu(x[0])]
    if n == "relu6": return [F.relu6(x[0])]
    if n == "relu_grad": return vjp(torch.relu, [x[1]], x[0])
    if n == "relu6_grad": return vjp(F.relu6, [x[1]], x[0])
    if n == "gelu_grad": return vjp(gelu, [x[1]], x[0])
    if n == "gelu_erf_grad": return vjp(F.gelu, [x[1]], x[0])
    if n == "tanh_grad": return [x[0] * (1 - x[1] ** 2)]
    if n == "sigmoid_grad": return [x[0] * x[1] * (1 - x[1])]
    ax = a.get("axis", -1)
    if n == "softmax": return [torch.softmax(x[0], ax)]
    if n == "log_softmax": return [torch.log_softmax(x[0], ax)]
    if n == "softmax_grad": return [x[1] * (x[0] - (x[0] * x[1]).sum(ax, keepdim=True))]
    if n == "log_softmax_grad": return [x[0] - torch.exp(x[1]) * x[0].sum(ax, keepdim=True)]
    eps = a.get("epsilon", 1e-5)
    ln = lambda i, g, b: F.layer_norm(i, i.shape[-1:], g, b, eps)
    bnf = lambda i, g, b: bn(i, g, b, eps)
    if n == "layer_norm": return [ln(*x)]
    if n == "batch_norm": return [bnf(*x)]
    if n in ("layer_norm_grad", "batch_norm_grad"):
        f = ln if n.startswith("layer") else bnf
        return list(vjp(f, [x[1], x[2], torch.zeros_like(x[2])], x[0]))
    if n == "conv2d": return [conv(x[0], x[1], a)]
    if n == "conv2d_input_grad": return vjp(lambda i: conv(i, x[1], a), [torch.zeros(shp)], x[0])
    if n == "conv2d_filter_grad": return vjp(lambda w: conv(x[1], w, a), [torch.zeros(shp)], x[0])
    if n == "max_pool2d": return [pool("max", x[0], a)]
    if n == "avg_pool2d": return [pool("avg", x[0], a)]
    if n == "max_pool2d_grad": return vjp(lambda i: pool("max", i, a), [x[1]], x[0])
    if n == "avg_pool2d_grad": return vjp(lambda i: pool("avg", i, a), [torch.zeros(shp)], x[0])
    if n == "global_avg_pool": return [x[0].mean((2, 3))]
    if n == "global_avg_pool_grad": return vjp(lambda i: i.mean((2, 3)), [torch.zeros(shp)], x[0])
    if n == "reshape": return [x[0].reshape(shp)]
    if n == "transpose": return [x[0].permute(*a["permutation"])]
    if n == "concat": return [torch.cat(x, ax)]
    if n == "slice": return [sl(x[0], a["offsets"], a["strides"], shp)]
    if n == "slice_grad": return vjp(lambda i: sl(i, a["offsets"], a["strides"], x[0].shape), [torch.zeros(shp)], x[0])
    if n == "broadcast_to": return [x[0].expand(shp) if x[0].dim() == len(shp) else x[0].reshape((1,) * (len(shp) - x[0].dim()) + tuple(x[0].shape)).expand(shp)]
    if n == "sum_to": return [sum_to(x[0], shp)]
    if n == "embedding": return [F.embedding(x[1].long(), x[0])]
    if n == "embedding_grad": return vjp(lambda t: F.embedding(x[1].long(), t), [torch.zeros(shp)], x[0])
    if n == "dropout": return [dropout(x[0], x[1], a["rate"])]
    if n == "softmax_cross_entropy": return [F.cross_entropy(x[0].reshape(-1, x[0].shape[-1]), x[1].reshape(-1).long())]
    if n == "softmax_cross_entropy_grad":
        return vjp(lambda l: F.cross_entropy(l.reshape(-1, l.shape[-1]), x[1].reshape(-1).long()), [x[0]], x[2])
    if n == "mse": return [F.mse_loss(x[0], x[1])]
    if n == "mse_grad": return vjp(lambda p: F.mse_loss(p, x[1]), [x[0]], x[2])
    raise NotImplementedError(n)

def run(fn, inputs):
    env = dict(inputs)
    for op in fn.ops:
        vals = eval_op(op, [env[o] for o in op.operands])
        for r, v, t in zip(op.results, vals, op.result_types):
            if v is None: v = torch.zeros(t.shape)
            assert tuple(v.shape) == t.shape, (op.name, v.shape, t)
            env[r] = v
    return [env[r] for r in fn.results]

def check(opt, src):
    out = subprocess.run([opt, "--remat-autodiff", src], capture_output=True, text=True, check=True).stdout
    fwd_text = subprocess.run([opt, src], capture_output=True, text=True, check=True).stdout
    fwds = {f.name: f for f in parse_functions(fwd_text)}
    ok, count = True, 0
    for fn in parse_functions(out):
        # log needs positive inputs.
        positive = any(op.name in ("remat.log", "math.log", "math.sqrt") for op in fn.ops)
        g = torch.Generator().manual_seed(1)
        inputs = {}
        for name, t, _ in fn.args:
            shape, dt = t.shape, t.dtype
            if dt.startswith("i"):
                inputs[name] = torch.randint(0, 3, shape, generator=g)
            else:
                inputs[name] = torch.rand(shape, generator=g) + 0.5 if positive else torch.randn(shape, generator=g)
        got = run(fn, inputs)
        params = [n for n, t, p in fn.args if p]
        leaves = {n: inputs[n].clone().requires_grad_(True) for n in params}
        loss = run(fwds[fn.name], {**inputs, **leaves})[0]
        want = torch.autograd.grad(loss, [leaves[n] for n in params], allow_unused=True) if loss.requires_grad else [None] * len(params)
        assert torch.allclose(got[0], loss), fn.name
        for n, gv, wv in zip(params, got[1:], want):
            if wv is None: wv = torch.zeros_like(gv)
            err = (gv - wv).abs().max().item()
            good = torch.allclose(gv, wv, atol=1e-9, rtol=1e-7)
            ok &= good
            count += 1
            print(f"{'ok ' if good else 'BAD'} {fn.name:24s} d%{n:7s} max err {err:.2e}")
    print(f"checked {count} gradients: {'all agree' if ok else 'SOME DIFFER'}")
    return ok


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(0 if check(sys.argv[1], sys.argv[2]) else 1)
