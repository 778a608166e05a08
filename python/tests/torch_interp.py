"""Evaluates parsed remat text with torch (test helper, not part of the package).

Semantics follow the dialect contract; dropout is only supported with the
identity (tests build models with dropout=0).  gelu is the tanh approximation, as the dialect specifies; gelu_erf the exact GELU.
"""

import torch
import torch.nn.functional as F

DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
          "bf16": torch.bfloat16, "i32": torch.int32, "i64": torch.int64}


def _wide(x):
    """Losses are f32: upcast 16-bit floats, keep f32/f64 as they are."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _matmul(a, b, attrs):
    if attrs.get("transpose_a"):
        a = a.transpose(-1, -2)
    if attrs.get("transpose_b"):
        b = b.transpose(-1, -2)
    return torch.matmul(a, b)


def _batch_norm(x, g, b, eps):
    dims = [0] if x.dim() == 2 else [0, 2, 3]
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=False, keepdim=True)
    shape = [1, -1] + [1] * (x.dim() - 2)
    return (x - mean) / torch.sqrt(var + eps) * g.view(shape) + b.view(shape)


def _slice(x, offsets, strides, sizes):
    idx = tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offsets, sizes, strides))
    return x[idx]


def evaluate(fn, inputs):
    """``fn``: a ParsedFunction; ``inputs``: name -> tensor for every argument."""
    env = dict(inputs)
    for op in fn.ops:
        a = op.attrs
        x = [env[o] for o in op.operands]
        n = op.name
        if n == "arith.constant":
            r = torch.full(op.result_type.shape, float(op.splat), dtype=DTYPES[op.result_type.dtype])
        elif n == "remat.matmul":
            r = _matmul(x[0], x[1], a)
        elif n in ("remat.add", "remat.sub", "remat.mul", "remat.div"):
            r = getattr(torch, n[6:])(x[0], x[1])
        elif n in ("remat.relu", "remat.tanh", "remat.sigmoid", "remat.exp", "remat.log", "remat.neg"):
            r = getattr(torch, n[6:])(x[0])
        elif n == "remat.gelu":
            r = F.gelu(x[0], approximate="tanh")
        elif n == "remat.gelu_erf":
            r = F.gelu(x[0])
        elif n == "remat.softmax":
            r = torch.softmax(x[0], a["axis"])
        elif n == "remat.log_softmax":
            r = torch.log_softmax(x[0], a["axis"])
        elif n == "remat.layer_norm":
            r = F.layer_norm(x[0], x[0].shape[-1:], x[1], x[2], a["epsilon"])
        elif n == "remat.batch_norm":
            r = _batch_norm(x[0], x[1], x[2], a["epsilon"])
        elif n == "remat.conv2d":
            r = F.conv2d(x[0], x[1], stride=a["strides"], padding=a["padding"],
                         dilation=a["dilations"], groups=a["groups"])
        elif n == "remat.max_pool2d":
            r = F.max_pool2d(x[0], a["kernel"], a["strides"], a["padding"])
        elif n == "remat.avg_pool2d":
            r = F.avg_pool2d(x[0], a["kernel"], a["strides"], a["padding"])
        elif n == "remat.global_avg_pool":
            r = x[0].mean((2, 3))
        elif n == "remat.reshape":
            r = x[0].reshape(op.result_type.shape)
        elif n == "remat.transpose":
            r = x[0].permute(*a["permutation"])
        elif n == "remat.concat":
            r = torch.cat(x, a["axis"])
        elif n == "remat.slice":
            r = _slice(x[0], a["offsets"], a["strides"], op.result_type.shape)
        elif n == "remat.embedding":
            r = F.embedding(x[1].long(), x[0])
        elif n == "remat.dropout":
            if a["rate"] != 0.0:
                raise NotImplementedError("dropout with a non-zero rate")
            r = x[0]
        elif n == "remat.softmax_cross_entropy":
            r = F.cross_entropy(_wide(x[0]).reshape(-1, x[0].shape[-1]), x[1].reshape(-1).long())
        elif n == "remat.mse":
            r = F.mse_loss(_wide(x[0]), _wide(x[1]))
        else:
            raise NotImplementedError(n)
        assert tuple(r.shape) == op.result_type.shape, (n, tuple(r.shape), op.result_type)
        env[op.result] = r
    return env[fn.result]


def random_inputs(fn, seed=0, int_high=None):
    """Random float tensors for every float arg; ints drawn in [0, int_high[name])."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, t, _ in fn.args:
        if t.dtype.startswith("i"):
            out[name] = torch.randint(0, int_high[name], t.shape, generator=g, dtype=DTYPES[t.dtype])
        else:
            fan_in = t.shape[0] if len(t.shape) == 2 else 1
            if len(t.shape) == 4:
                fan_in = t.shape[1] * t.shape[2] * t.shape[3]
            scale = 1.0 / fan_in ** 0.5 if len(t.shape) in (2, 4) else 0.5
            out[name] = (torch.randn(t.shape, generator=g) * scale).to(DTYPES[t.dtype])
    return out
