"""ONNX models in: an inference graph (as torch.onnx.export writes it,
opset 13-17) plus a loss become a remat forward function; float
initializers are the parameters (``{remat.param}``, their values go to the
tensor file), the graph inputs and the loss target are inputs.

Nodes whose inputs are all known at import time (shape arithmetic,
constant masks) are evaluated with numpy; subgraphs that are one remat op
(the exact GELU, the layer norm of opsets < 17) are matched by
:mod:`remat.onnx_patterns`; every other node needs a rule in :data:`RULES`. An op without one is an :class:`remat.aten.UnsupportedOp`
naming the ONNX op type and node. For a training step export in training
mode (``torch.onnx.export(..., training=torch.onnx.TrainingMode.TRAINING,
do_constant_folding=False)``): batch normalization with batch statistics
(the running statistics are state that the step updates), dropout kept. In
an inference export batch normalization uses its running statistics as
constants (frozen; a note says so).

    python3 -m remat.onnx_import model.onnx --loss cross-entropy -o model.mlir \\
        --weights w.index
"""

import argparse
import sys
from typing import Dict, List, Optional, Sequence

import numpy as np
import onnx
import torch
from onnx import numpy_helper

from remat_models.mlir_types import TensorType

from . import onnx_patterns
from .aten import Const, CseBuilder, Lowering, UnsupportedOp, _c_name, _slice
from .imported import Imported


class OnnxLowering(Lowering):
    def fail(self, why: str):
        raise UnsupportedOp(f"ONNX {self.node.op_type} (node '{self.node.name}'): {why}")


def _attrs(node) -> Dict[str, object]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _const(x) -> Optional[np.ndarray]:
    return x.tensor.numpy() if isinstance(x, Const) else None


def _c(a) -> Const:
    return Const(torch.from_numpy(np.array(a, copy=True)))


# -- numpy evaluation of constant subgraphs -----------------------------------


def _eval_const(op, x: List[np.ndarray], at) -> List[np.ndarray]:
    if op == "Shape":
        return [np.array(x[0].shape, dtype=np.int64)]
    if op in ("Add", "Sub", "Mul", "Div", "Equal", "Pow"):
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
             "Equal": np.equal, "Pow": np.power}[op]
        r = f(x[0], x[1])
        if op == "Div" and x[0].dtype.kind == "i":
            r = np.trunc(r).astype(x[0].dtype)
        return [np.asarray(r, dtype=x[0].dtype if op != "Equal" else bool)]
    if op == "Gather":
        return [np.take(x[0], x[1], axis=at.get("axis", 0))]
    if op == "Unsqueeze":
        r = x[0]
        for ax in sorted(int(a) % (r.ndim + len(x[1])) for a in x[1]):
            r = np.expand_dims(r, ax)
        return [r]
    if op == "Squeeze":
        return [np.squeeze(x[0], axis=tuple(int(a) for a in x[1])) if len(x) > 1 else np.squeeze(x[0])]
    if op == "Concat":
        return [np.concatenate(x, axis=at["axis"])]
    if op == "Cast":
        to = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[at["to"]]
        return [x[0].astype(to)]
    if op == "Reshape":
        return [x[0].reshape(_reshape_target(x[0].shape, x[1]))]
    if op == "Transpose":
        return [np.transpose(x[0], at.get("perm"))]
    if op == "Where":
        return [np.where(x[0], x[1], x[2])]
    if op == "Slice":
        idx = _slice_index(x[0].shape, *x[1:])
        return [x[0][tuple(slice(s, e, st) for s, e, st in idx)]]
    if op == "ConstantOfShape":
        v = numpy_helper.to_array(at["value"]) if "value" in at else np.zeros(1, np.float32)
        return [np.full(tuple(x[0]), v.reshape(-1)[0], dtype=v.dtype)]
    if op == "Range":
        return [np.arange(x[0], x[1], x[2])]
    if op == "Expand":
        return [x[0] * np.ones(tuple(x[1]), dtype=x[0].dtype)]
    if op == "Identity":
        return [x[0]]
    if op in ("Sqrt", "Reciprocal", "Neg"):
        return [{"Sqrt": np.sqrt, "Reciprocal": np.reciprocal, "Neg": np.negative}[op](x[0])]
    return None


def _reshape_target(shape, target) -> List[int]:
    out = [int(shape[i]) if int(d) == 0 else int(d) for i, d in enumerate(target)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1]))
        out[out.index(-1)] = int(np.prod(shape)) // known
    return out


def _slice_index(shape, starts, ends, axes=None, steps=None):
    rank = len(shape)
    axes = list(range(len(starts))) if axes is None else [int(a) % rank for a in axes]
    steps = [1] * len(starts) if steps is None else list(steps)
    idx = [(0, d, 1) for d in shape]
    for s, e, a, st in zip(starts, ends, axes, steps):
        n = shape[a]
        if st != 1:
            raise ValueError("steps other than 1")
        s, e = int(s), int(e)
        s = max(0, min(n, s + n if s < 0 else s))
        e = max(s, min(n, e + n if e < 0 else e))
        idx[a] = (s, e, 1)
    return idx


# -- rules -------------------------------------------------------------------


def _binary(op):
    return lambda L, x, at: [getattr(L.fb, op)(L.value(x[0]), L.value(x[1]))]


def _unary(op):
    return lambda L, x, at: [L.fb.unary(op, L.value(x[0]))]


def _pow(L, x, at):
    e = _const(x[1])
    if e is None or e.size != 1 or float(e) not in (1.0, 2.0, 3.0):
        L.fail("an exponent other than the constant 1, 2 or 3")
    v = L.value(x[0])
    r = v
    for _ in range(int(float(e)) - 1):
        r = L.fb.mul(r, v)
    return [r]


def _reciprocal(L, x, at):
    return [L.fb.div(L.value(1.0), L.value(x[0]))]


def _gemm(L, x, at):
    if at.get("alpha", 1.0) != 1.0 or at.get("beta", 1.0) != 1.0:
        L.fail("alpha/beta other than 1")
    y = L.fb.matmul(L.value(x[0]), L.value(x[1]), bool(at.get("transA", 0)), bool(at.get("transB", 0)))
    return [L.fb.add(y, L.value(x[2])) if len(x) > 2 and x[2] is not None else y]


def _matmul(L, x, at):
    a, b = L.value(x[0]), L.value(x[1])
    if b.type.rank > 2 and b.type.rank != a.type.rank:
        L.fail("broadcast batch dimensions")
    return [L.fb.matmul(a, b)]


def _clip(L, x, at):
    lo = _const(x[1]) if len(x) > 1 and x[1] is not None else None
    hi = _const(x[2]) if len(x) > 2 and x[2] is not None else None
    if lo is None or hi is None or (float(lo), float(hi)) != (0.0, 6.0):
        L.fail("only Clip(0, 6) (ReLU6) has a remat op")
    return [L.fb.relu6(L.value(x[0]))]


def _conv(L, x, at):
    if at.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        L.fail("auto_pad")
    pads = list(at.get("pads", [0, 0, 0, 0]))
    if len(pads) != 4 or pads[:2] != pads[2:]:
        L.fail(f"pads {pads} (only symmetric 2-D padding)")
    y = L.fb.conv2d(L.value(x[0]), L.value(x[1]), list(at.get("strides", [1, 1])), pads[:2],
                    list(at.get("dilations", [1, 1])), int(at.get("group", 1)))
    if len(x) > 2 and x[2] is not None:
        b = L.value(x[2])
        y = L.fb.add(y, L.fb.reshape(b, [b.type.shape[0], 1, 1]))
    return [y]


def _bn_training(L, node, at) -> bool:
    """Whether a BatchNormalization node normalizes with batch statistics.
    Opsets 9-13 have no training_mode: a training-mode node also returns the
    updated running mean and variance (five outputs)."""
    return bool(at.get("training_mode", 0)) if L.opset >= 14 else len(node.output) == 5


def _batch_norm(L, x, at):
    """Training mode: ``remat.batch_norm`` with batch statistics; when the
    running mean and variance are initializers they are state (``L.bn_state``)
    and outputs 1 and 2 are their next values as ONNX defines them:
    ``running * momentum + batch * (1 - momentum)`` with the *biased* batch
    variance (PyTorch's own update uses the unbiased one). Inference mode:
    the graph's frozen normalization ``(x - mean) / sqrt(var + eps) * scale
    + bias`` with the running statistics as constants, as a per-channel
    ``x * s + t`` (``s = scale / sqrt(var + eps)``, ``t = bias - mean * s``)
    through which scale and bias get their gradients."""
    eps = float(at.get("epsilon", 1e-5))
    v, scale, bias = L.value(x[0]), L.value(x[1]), L.value(x[2])
    if v.type.rank < 2:
        L.fail(f"batch normalization of a rank-{v.type.rank} input")
    channels = v.type.shape[1]
    bshape = [channels] + [1] * (v.type.rank - 2)
    if not _bn_training(L, L.node, at):
        mean, var = _const(x[3]), _const(x[4])
        if mean is None or var is None:
            L.fail("inference batch normalization whose running statistics are computed "
                   "(they must be initializers)")
        inv = _c((1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(np.float32))
        s = L.fb.mul(scale, L.value(inv))
        t = L.fb.sub(bias, L.fb.mul(L.value(_c(mean.astype(np.float32))), s))
        y = L.fb.add(L.fb.mul(v, L.fb.reshape(s, bshape)), L.fb.reshape(t, bshape))
        L.notes.append(f"batch normalization '{L.node.name}' is in inference mode: it normalizes "
                       "with its running statistics as constants (frozen), as the graph says; "
                       "export with training=torch.onnx.TrainingMode.TRAINING for batch "
                       "statistics and their update")
        return [y] + [None] * (len(L.node.output) - 1)
    names = L.node.input[3:5]
    if not all(n in L.bn_state for n in names):
        return [L.fb.batch_norm(v, scale, bias, eps)] + [None] * (len(L.node.output) - 1)
    if v.type.numel // channels < 2:
        L.fail("training-mode batch normalization over one value per channel")
    y, mean, var = L.fb.batch_norm_with_stats(v, scale, bias, eps)
    n = v.type.numel // channels
    momentum = float(at.get("momentum", 0.9))
    scalar = TensorType((), "f32")
    keep = L.fb.constant(momentum, scalar)
    take = L.fb.constant(1.0 - momentum, scalar)
    take_var = L.fb.constant((1.0 - momentum) * (n - 1) / n, scalar)
    running_mean, running_var = (L.value(x[i]) for i in (3, 4))
    next_mean = L.fb.add(L.fb.mul(running_mean, keep), L.fb.mul(mean, take))
    next_var = L.fb.add(L.fb.mul(running_var, keep), L.fb.mul(var, take_var))
    for name, value in zip(names, (next_mean, next_var)):
        if name in L.next_state:
            L.fail(f"running statistic '{name}' is updated twice in one step")
        L.next_state[name] = value
    return [y, next_mean, next_var] + [None] * (len(L.node.output) - 3)


def _pool(kind):
    def rule(L, x, at):
        if at.get("ceil_mode", 0) or any(d != 1 for d in at.get("dilations", [1, 1])):
            L.fail("ceil mode or dilation")
        pads = list(at.get("pads", [0, 0, 0, 0]))
        if pads[:2] != pads[2:]:
            L.fail(f"pads {pads}")
        if kind == "avg_pool2d" and pads != [0, 0, 0, 0] and not at.get("count_include_pad", 0):
            L.fail("count_include_pad=0 with padding")
        k = list(at["kernel_shape"])
        y = getattr(L.fb, kind)(L.value(x[0]), k, list(at.get("strides", k)), pads[:2])
        return [y] + [None] * 1
    return rule


def _reduce_mean(L, x, at):
    """The mean over ``axes`` (all when absent): the sum over them
    (``remat.sum_to`` a shape with 1 there) divided by their size."""
    v = L.value(x[0])
    rank = v.type.rank
    axes = at.get("axes")
    axes = sorted({int(a) % rank for a in axes}) if axes is not None else list(range(rank))
    kept = [1 if i in axes else d for i, d in enumerate(v.type.shape)]
    n = int(np.prod([v.type.shape[i] for i in axes]))
    y = v
    if kept != list(v.type.shape):
        y = L.fb._emit("remat.sum_to", [v], v.type.with_shape(kept))
        y = L.fb.div(y, L.value(float(n)))
    if not at.get("keepdims", 1):
        y = _reshape_to(L, y, [d for i, d in enumerate(v.type.shape) if i not in axes])
    return [y]


def _global_avg_pool(L, x, at):
    v = L.value(x[0])
    return [L.fb.reshape(L.fb.global_avg_pool(v), list(v.type.shape[:2]) + [1, 1])]


def _reshape_to(L, v, shape):
    v = L.value(v)
    return v if tuple(shape) == v.type.shape else L.fb.reshape(v, shape)


def _flatten(L, x, at):
    v = L.value(x[0])
    ax = at.get("axis", 1) % max(1, v.type.rank)
    s = v.type.shape
    return [_reshape_to(L, v, [int(np.prod(s[:ax])), int(np.prod(s[ax:]))])]


def _reshape(L, x, at):
    shape = _const(x[1])
    if shape is None:
        L.fail("a shape computed from the inputs")
    v = L.value(x[0])
    return [_reshape_to(L, v, _reshape_target(v.type.shape, shape))]


def _unsqueeze(L, x, at):
    v = L.value(x[0])
    axes = _const(x[1]) if len(x) > 1 else np.array(at["axes"])
    shape = list(v.type.shape)
    for ax in sorted(int(a) % (len(shape) + len(axes)) for a in axes):
        shape.insert(ax, 1)
    return [_reshape_to(L, v, shape)]


def _squeeze(L, x, at):
    v = L.value(x[0])
    axes = _const(x[1]) if len(x) > 1 else at.get("axes")
    rank = v.type.rank
    drop = {int(a) % rank for a in axes} if axes is not None else {i for i, d in enumerate(v.type.shape) if d == 1}
    return [_reshape_to(L, v, [d for i, d in enumerate(v.type.shape) if i not in drop])]


def _transpose(L, x, at):
    v = L.value(x[0])
    perm = list(at.get("perm", reversed(range(v.type.rank))))
    return [v if perm == list(range(v.type.rank)) else L.fb.transpose(v, perm)]


def _softmax(kind):
    def rule(L, x, at):
        return [getattr(L.fb, kind)(L.value(x[0]), int(at.get("axis", -1)))]
    return rule


def _layer_norm(L, x, at):
    v = L.value(x[0])
    if int(at.get("axis", -1)) % v.type.rank != v.type.rank - 1:
        L.fail("normalization over more than the last dimension")
    if len(x) < 3 or x[2] is None:
        L.fail("no bias")
    return [L.fb.layer_norm(v, L.value(x[1]), L.value(x[2]), float(at.get("epsilon", 1e-5))), None, None]


def _dropout(L, x, at):
    ratio = _const(x[1]) if len(x) > 1 and x[1] is not None else np.array(0.5)
    training = _const(x[2]) if len(x) > 2 and x[2] is not None else np.array(False)
    if ratio is None or training is None:
        L.fail("ratio or training_mode computed from the inputs")
    if not bool(training) or float(ratio) == 0.0:
        return [x[0], None]
    seed = L.new_seed()
    return [L.fb.dropout(L.value(x[0]), seed, float(ratio)), None]


def _gather(L, x, at):
    table = L.value(x[0])
    idx = x[1]
    c = _const(idx)
    axis = int(at.get("axis", 0)) % table.type.rank
    if c is not None and c.ndim == 0:
        # One index along an axis: a slice without that axis.
        i = int(c) % table.type.shape[axis]
        s = _slice(L, table, axis, i, i + 1)
        return [L.fb.reshape(s, [d for j, d in enumerate(table.type.shape) if j != axis])]
    if axis != 0:
        L.fail("a gather along an axis other than 0 with more than one index")
    if c is not None and c.ndim == 1 and np.array_equal(c, np.arange(c[0], c[0] + c.size)):
        return [L.fb.slice(table, [int(c[0]), 0], [c.size, table.type.shape[1]])]
    return [L.fb.embedding(table, L.value(idx))]


def _slice_rule(L, x, at):
    v = L.value(x[0])
    cs = [_const(a) if a is not None else None for a in x[1:]]
    if any(c is None for c in cs[:2]) or (len(cs) > 2 and any(c is None for c in cs[2:] if c is not None)):
        L.fail("bounds computed from the inputs")
    try:
        idx = _slice_index(v.type.shape, *cs)
    except ValueError as e:
        L.fail(str(e))
    if all(s == 0 and e == d for (s, e, _), d in zip(idx, v.type.shape)):
        return [v]
    return [L.fb.slice(v, [s for s, _, _ in idx], [e - s for s, e, _ in idx])]


def _split(L, x, at):
    v = L.value(x[0])
    ax = int(at.get("axis", 0)) % v.type.rank
    sizes = _const(x[1]) if len(x) > 1 and x[1] is not None else at.get("split")
    if sizes is None:
        L.fail("equal split without sizes")
    out, start = [], 0
    for s in sizes:
        out.append(_slice(L, v, ax, start, start + int(s)))
        start += int(s)
    return out


def _concat(L, x, at):
    vs = [L.value(v) for v in x]
    return [vs[0] if len(vs) == 1 else L.fb.concat(vs, int(at["axis"]) % vs[0].type.rank)]


def _where(L, x, at):
    cond = _const(x[0])
    if cond is None:
        L.fail("a condition computed from the inputs")
    keep = torch.from_numpy(cond.astype(np.float32))
    a, b = x[1], x[2]
    if _const(b) is not None and _const(a) is None:
        # where(c, a, B) = a * c + (c ? 0 : B): exact for finite a.
        fill = torch.from_numpy(np.where(cond, 0.0, _const(b)).astype(np.float32))
        return [L.fb.add(L.fb.mul(L.value(a), L.constant(keep)), L.constant(fill))]
    if _const(a) is not None and _const(b) is None:
        fill = torch.from_numpy(np.where(cond, _const(a), 0.0).astype(np.float32))
        return [L.fb.add(L.fb.mul(L.value(b), L.constant(1.0 - keep)), L.constant(fill))]
    L.fail("both branches computed from the inputs")


def _lstm_weights(L, w, d, rows, cols):
    """Direction ``d`` of a [directions, rows, cols] LSTM weight."""
    return L.fb.reshape(L.fb.slice(w, [d, 0, 0], [1, rows, cols]), [rows, cols])


def _lstm(L, x, at):
    """ONNX LSTM (gates i, o, f, c in W [dirs, 4H, I], R [dirs, 4H, H],
    B [dirs, 8H] = Wb then Rb), unrolled over the sequence: per step
    gates = x_t W^T + h R^T + Wb + Rb, c = f c + i tanh(g), h = o tanh(c)."""
    acts = [a.decode() if isinstance(a, bytes) else a for a in at.get("activations", [])]
    if acts and [a.lower() for a in acts] != ["sigmoid", "tanh", "tanh"] * (len(acts) // 3):
        L.fail(f"activations {acts} (only the default Sigmoid, Tanh, Tanh)")
    if "clip" in at or at.get("input_forget", 0):
        L.fail("clip or input_forget")
    if len(x) > 7 and x[7] is not None:
        L.fail("peephole weights (input P)")
    direction = at.get("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) else direction
    dirs = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}.get(direction)
    if dirs is None:
        L.fail(f"direction {direction!r}")
    batch_first = int(at.get("layout", 0)) == 1
    xv = L.value(x[0])
    if batch_first:
        xv = L.fb.transpose(xv, [1, 0, 2])
    seq, batch, features = xv.type.shape
    hidden = int(at["hidden_size"])
    if len(x) > 4 and x[4] is not None:
        lens = _const(x[4])
        if lens is None or not np.all(lens == seq):
            L.fail("sequence_lens other than the full length of every sequence")
    w, r = L.value(x[1]), L.value(x[2])
    b = L.value(x[3]) if len(x) > 3 and x[3] is not None else None
    init = []
    for k in (5, 6):
        if len(x) > k and x[k] is not None:
            v = L.value(x[k])
            init.append(L.fb.transpose(v, [1, 0, 2]) if batch_first else v)
        else:
            init.append(L.value(_c(np.zeros((len(dirs), batch, hidden), np.float32))))
    g4 = 4 * hidden
    ys = [[None] * len(dirs) for _ in range(seq)]
    last_h, last_c = [], []
    for d, reverse in enumerate(dirs):
        wd = _lstm_weights(L, w, d, g4, features)
        rd = _lstm_weights(L, r, d, g4, hidden)
        xw = L.fb.matmul(xv, wd, False, True)  # [seq, batch, 4H]
        if b is not None:
            bd = L.fb.reshape(L.fb.slice(b, [d, 0], [1, 2 * g4]), [2 * g4])
            bias = L.fb.add(L.fb.slice(bd, [0], [g4]), L.fb.slice(bd, [g4], [g4]))
            xw = L.fb.add(xw, bias)
        h = L.fb.reshape(L.fb.slice(init[0], [d, 0, 0], [1, batch, hidden]), [batch, hidden])
        c = L.fb.reshape(L.fb.slice(init[1], [d, 0, 0], [1, batch, hidden]), [batch, hidden])
        for t in (reversed(range(seq)) if reverse else range(seq)):
            xt = L.fb.reshape(L.fb.slice(xw, [t, 0, 0], [1, batch, g4]), [batch, g4])
            gates = L.fb.add(xt, L.fb.matmul(h, rd, False, True))
            i, o, f, g = (L.fb.slice(gates, [0, k * hidden], [batch, hidden]) for k in range(4))
            c = L.fb.add(L.fb.mul(L.fb.sigmoid(f), c), L.fb.mul(L.fb.sigmoid(i), L.fb.tanh(g)))
            h = L.fb.mul(L.fb.sigmoid(o), L.fb.tanh(c))
            ys[t][d] = h
        last_h.append(h)
        last_c.append(c)
    live = L.live_outputs

    def stacked(values, shape, axis):
        parts = [L.fb.reshape(v, shape) for v in values]
        return parts[0] if len(parts) == 1 else L.fb.concat(parts, axis)

    y = y_h = y_c = None
    if live[0]:
        steps = [stacked(ys[t], [1, 1, batch, hidden], 1) for t in range(seq)]
        y = steps[0] if seq == 1 else L.fb.concat(steps, 0)  # [seq, dirs, batch, H]
        if batch_first:
            y = L.fb.transpose(y, [2, 0, 1, 3])
    if len(live) > 1 and live[1]:
        y_h = stacked(last_h, [1, batch, hidden], 0)
        if batch_first:
            y_h = L.fb.transpose(y_h, [1, 0, 2])
    if len(live) > 2 and live[2]:
        y_c = stacked(last_c, [1, batch, hidden], 0)
        if batch_first:
            y_c = L.fb.transpose(y_c, [1, 0, 2])
    return [y, y_h, y_c]


def _shape(L, x, at):
    shape = np.array(L.shape(x[0]), np.int64)
    start, end = at.get("start", 0), at.get("end", None)
    return [_c(shape[start:end])]


def _identity(L, x, at):
    return [x[0]]


RULES = {
    "Add": _binary("add"), "Sub": _binary("sub"), "Mul": _binary("mul"), "Div": _binary("div"),
    "Relu": _unary("relu"), "Tanh": _unary("tanh"), "Sigmoid": _unary("sigmoid"),
    "Exp": _unary("exp"), "Log": _unary("log"), "Neg": _unary("neg"),
    "Pow": _pow, "Reciprocal": _reciprocal, "Gemm": _gemm, "MatMul": _matmul, "Clip": _clip,
    "Conv": _conv, "BatchNormalization": _batch_norm, "MaxPool": _pool("max_pool2d"),
    "AveragePool": _pool("avg_pool2d"), "GlobalAveragePool": _global_avg_pool,
    "Flatten": _flatten, "Reshape": _reshape, "Unsqueeze": _unsqueeze, "Squeeze": _squeeze,
    "Transpose": _transpose, "Softmax": _softmax("softmax"), "LogSoftmax": _softmax("log_softmax"),
    "LayerNormalization": _layer_norm, "Dropout": _dropout, "Gather": _gather,
    "Slice": _slice_rule, "Split": _split, "Concat": _concat, "Where": _where,
    "Identity": _identity, "Shape": _shape, "ReduceMean": _reduce_mean, "LSTM": _lstm,
}

_DTYPE = {onnx.TensorProto.FLOAT: "f32", onnx.TensorProto.INT64: "i64", onnx.TensorProto.INT32: "i64"}


#: Ops that are mapped only as part of a pattern (remat.onnx_patterns).
_PATTERN_ONLY = {
    "Erf": " (Erf is mapped only inside the exact GELU x * 0.5 * (1 + erf(x / sqrt(2))))",
    "Sqrt": " (Sqrt is mapped only inside the layer normalization pattern)",
}


def _fused(L, env, op):
    """The remat op of an onnx_patterns match."""
    if op[0] == "gelu_erf":
        return L.fb.gelu_erf(L.value(env[op[1]]))
    _, x, scale, bias, eps, axis = op
    v = L.value(env[x])
    if axis % v.type.rank != v.type.rank - 1:
        L.fail("layer normalization (ReduceMean/Sub/Pow/Sqrt/Div) over a dimension other "
               "than the last")
    d = v.type.shape[-1]
    one = L.value(_c(np.ones(d, np.float32))) if scale is None else L.value(env[scale])
    zero = L.value(_c(np.zeros(d, np.float32))) if bias is None else L.value(env[bias])
    if one.type.shape != (d,) or zero.type.shape != (d,):
        L.fail(f"layer normalization with a scale or bias not of shape [{d}]")
    return L.fb.layer_norm(v, one, zero, eps)


_CONST_ONLY = {"Shape", "Equal", "Cast", "ConstantOfShape", "Range", "Expand", "Sqrt", "Constant"}


def import_onnx(model, loss: str, target: np.ndarray, inputs: Optional[Dict[str, np.ndarray]] = None,
                func_name: str = "forward", dropout_seed: int = 1,
                params: Optional[Sequence[str]] = None) -> Imported:
    """Maps ``model`` (a path or ModelProto) and ``loss`` (``cross-entropy``:
    integer class targets, logits of shape S x [C]; ``mse``) to remat IR.
    ``inputs`` gives the example batch by graph input name (its shapes are
    used when the graph's are symbolic)."""
    if isinstance(model, str):
        model = onnx.load(model)
    graph = model.graph
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if not 13 <= opset <= 17:
        raise UnsupportedOp(f"opset {opset} (supported: 13 to 17)")
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    inputs = dict(inputs or {})

    # Which values the output depends on (nodes off that path are skipped).
    producers = {o: n for n in graph.node for o in n.output}
    live, stack = set(), [o.name for o in graph.output]
    while stack:
        name = stack.pop()
        if name in live:
            continue
        live.add(name)
        if name in producers:
            stack.extend(i for i in producers[name].input if i)
    if len(graph.output) != 1:
        raise UnsupportedOp(f"{len(graph.output)} graph outputs (the loss needs exactly one)")

    fb = CseBuilder(func_name)
    L = OnnxLowering(fb, 0)
    L.opset = opset
    env: Dict[str, object] = {}
    trainable = None if params is None else set(params)
    params, batch, comments, used = [], [], [], set()

    def unique(name):
        base, i = _c_name(name), 1
        name = base
        while name in used:
            name, i = f"{base}_{i}", i + 1
        used.add(name)
        return name

    trained = set(n for n, a in inits.items() if trainable is None or n in trainable)
    constants = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in graph.node
                 if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value"}
    constants.update((n, a) for n, a in inits.items() if n not in trained or a.ndim == 0)
    skip, fused = onnx_patterns.find(
        list(graph.node), [o.name for o in graph.output], constants.get,
        lambda n: n in inits and inits[n].ndim == 1)
    for i, node in enumerate(graph.node):
        if any(o in live for o in node.output) and node.op_type not in RULES \
                and node.op_type not in _CONST_ONLY and i not in skip and i not in fused:
            why = _PATTERN_ONLY.get(node.op_type, "")
            raise UnsupportedOp(f"ONNX {node.op_type} (node '{node.name}'): no remat mapping "
                                f"for this op{why}")
    # The running statistics of batch normalizations are not parameters: in
    # training mode they are state (updated by the step), in inference mode
    # constants.
    stats, L.bn_state, L.next_state, L.notes = set(), {}, {}, []
    for node in graph.node:
        if node.op_type == "BatchNormalization" and any(o in live for o in node.output):
            stats.update(i for i in node.input[3:5] if i in inits)
            if _bn_training(L, node, _attrs(node)):
                L.bn_state.update((i, None) for i in node.input[3:5]
                                  if i in inits and inits[i].dtype == np.float32)
    if trainable is not None and trainable & stats:
        raise UnsupportedOp(f"'{sorted(trainable & stats)[0]}' is given as a parameter but is a "
                            "batch normalization's running statistic (state, not trained)")
    float_params = [n for n, a in inits.items() if a.dtype == np.float32 and n in live and a.ndim > 0
                    and (trainable is None or n in trainable) and n not in stats]
    for name in float_params:
        buf = unique(name)
        env[name] = fb.param(buf, TensorType(inits[name].shape, "f32"))
        params.append((buf, name, inits[name]))
        comments.append(f"//   %{buf}: parameter '{name}'")
    state = []
    for name in L.bn_state:
        buf = unique(name)
        env[name] = L.bn_state[name] = fb.state(buf, TensorType(inits[name].shape, "f32"))
        state.append((buf, name, inits[name]))
        comments.append(f"//   %{buf}: state '{name}' (updated by the step)")
    for name, a in inits.items():
        if name not in env:
            env[name] = _c(a)
    for inp in graph.input:
        if inp.name in inits or inp.name not in live:
            continue
        tt = inp.type.tensor_type
        dtype = _DTYPE.get(tt.elem_type)
        if dtype is None:
            raise UnsupportedOp(f"graph input '{inp.name}' of ONNX type {tt.elem_type}")
        if inp.name in inputs:
            shape = inputs[inp.name].shape
        else:
            shape = tuple(d.dim_value for d in tt.shape.dim)
            if any(d.dim_value <= 0 for d in tt.shape.dim):
                raise UnsupportedOp(f"graph input '{inp.name}' has a symbolic shape; pass its example")
            inputs[inp.name] = np.zeros(shape, np.float32 if dtype == "f32" else np.int64)
        buf = unique(inp.name)
        env[inp.name] = fb.arg(buf, TensorType(shape, dtype))
        batch.append((buf, inputs[inp.name]))
    tbuf = unique("target")
    tdtype = "i64" if loss == "cross-entropy" else "f32"
    target = np.asarray(target, np.int64 if tdtype == "i64" else np.float32)
    tval = fb.arg(tbuf, TensorType(target.shape, tdtype))
    batch.append((tbuf, target))
    n_drop = sum(1 for n in graph.node if n.op_type == "Dropout" and n.output[0] in live)
    seeds = []
    for i in range(n_drop):
        buf = unique(f"dropout_seed{i}")
        seeds.append(fb.arg(buf, TensorType((), "i64")))
        batch.append((buf, np.array(dropout_seed + i, np.int64)))
    L.new_seed = lambda: seeds.pop(0)

    for index, node in enumerate(graph.node):
        if index in skip or not any(o in live for o in node.output):
            continue
        L.node = node
        L.live_outputs = [o in live for o in node.output]
        if index in fused:
            env[node.output[0]] = _fused(L, env, fused[index])
            continue
        at = _attrs(node)
        if node.op_type == "Constant":
            env[node.output[0]] = _c(numpy_helper.to_array(at["value"]))
            continue
        args = [env[i] if i else None for i in node.input]
        if all(a is None or isinstance(a, Const) for a in args):
            try:
                out = _eval_const(node.op_type, [_const(a) if a is not None else None for a in args], at)
            except Exception as e:  # noqa: BLE001 - reported with the node
                L.fail(f"evaluating it at import time failed: {e}")
            if out is None:
                L.fail("no remat mapping for this op (and its operands are constants)")
            for o, v in zip(node.output, out):
                env[o] = _c(np.asarray(v))
            continue
        rule = RULES.get(node.op_type)
        if rule is None:
            L.fail("no remat mapping for this op")
        outs = rule(L, args, at)
        for o, v in zip(node.output, outs):
            if v is None and o in live:
                L.fail(f"output '{o}' is used; only the first output is mapped")
            env[o] = v

    out = L.value(env[graph.output[0].name])
    L.node = graph.node[-1]
    if loss == "cross-entropy":
        if out.type.rank > 2:
            out = fb.reshape(out, [int(np.prod(out.type.shape[:-1])), out.type.shape[-1]])
        t = tval if tval.type.rank == 1 else fb.reshape(tval, [int(np.prod(tval.type.shape))])
        result = fb.softmax_cross_entropy(out, t)
    elif loss == "mse":
        result = fb.mse(out, tval)
    else:
        raise ValueError(f"unknown loss {loss!r} (cross-entropy or mse)")
    missing = [n for n in L.bn_state if n not in L.next_state]
    if missing:
        raise UnsupportedOp(f"running statistic '{missing[0]}' is read by more than a "
                            "training-mode batch normalization")
    func = fb.finish(result, [(L.next_state[n], L.bn_state[n]) for n in L.bn_state])
    header = ["// Imported from ONNX by remat.onnx_import; arguments:"] + comments
    return Imported("\n".join(header) + "\n" + func.text(), func_name, params, batch,
                    L.notes, state)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="remat-import-onnx", description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--loss", choices=("cross-entropy", "mse"), required=True)
    p.add_argument("--target-shape", help="shape of the loss target, e.g. 2 or 2x10 "
                   "(default: the output's batch dimensions)")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--weights", help="write the initializers to this tensor index (.index)")
    p.add_argument("--func-name", default="forward")
    args = p.parse_args(argv)
    model = onnx.load(args.model)
    if args.target_shape:
        shape = tuple(int(d) for d in args.target_shape.split("x"))
    else:
        dims = [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]
        shape = tuple(dims[:-1]) if args.loss == "cross-entropy" else tuple(dims)
    try:
        imported = import_onnx(model, args.loss, np.zeros(shape), func_name=args.func_name)
    except UnsupportedOp as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for note in imported.notes:
        print(f"note: {note}", file=sys.stderr)
    with open(args.output, "w") as f:
        f.write(imported.mlir)
    if args.weights:
        imported.write_weights(args.weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
