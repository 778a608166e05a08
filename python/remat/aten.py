"""aten ops (as ``make_fx`` traces them) to remat ops with the same semantics.

:func:`lower_graph` walks the nodes the loss depends on. A node whose
operands are all known at import time (buffers, ``arange``, comparisons of
them, ...) is evaluated with torch and becomes an ``arith.constant`` where a
remat op reads it; every other node needs a rule in :data:`RULES`. A node
without a rule, or a rule whose preconditions fail (a transposed
convolution, a GELU approximation other than 'none' and 'tanh', ...), raises :class:`UnsupportedOp` naming the
aten op, the module it came from and the reason. Nothing is dropped: dead
nodes (the ``detach`` that autograd adds for saved tensors) are not part of
the loss, and the buffers the step updates (batch-norm running statistics
and ``num_batches_tracked``) become ``{remat.state}`` arguments whose next
values the function returns (``{remat.state = N}`` results); a buffer
update without a mapping is an error.
"""

import math
import operator
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from remat_models.builder import FunctionBuilder, Value
from remat_models.mlir_types import TensorType

aten = torch.ops.aten

# Dropout is traced as one op per call site (remat.torch_import patches
# torch.nn.functional.dropout while tracing), so that it maps to
# remat.dropout, whose mask a recomputation reproduces.
_LIB = torch.library.Library("remat", "DEF")
_LIB.define("dropout(Tensor input, float p, int site) -> Tensor")
_LIB.impl("dropout", lambda x, p, site: x * 1.0, "CPU")  # shapes only


class UnsupportedOp(Exception):
    """An op (or an op's use) the importer cannot map exactly."""


class Const:
    """A tensor known at import time."""

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor


class LazyT:
    """The transpose of a 2-D value; matmuls fold it into transpose_a/b."""

    def __init__(self, value: Value):
        self.value = value
        self.materialized = None


class LogSoftmaxOf:
    """A log_softmax result, remembered so that nll_loss of it becomes
    softmax_cross_entropy of the logits."""

    def __init__(self, logits: Value, axis: int):
        self.logits = logits
        self.axis = axis
        self.value = None  # emitted when something other than nll_loss reads it


_DTYPES = {torch.float32: "f32", torch.int64: "i64", torch.int32: "i32"}
_RANDOM = {"bernoulli", "rand", "randn", "randint", "native_dropout", "normal", "uniform",
           "rand_like", "randn_like", "randperm", "multinomial", "exponential"}


def _c_name(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    return text


class CseBuilder(FunctionBuilder):
    """A FunctionBuilder that emits an op identical to an earlier one (same
    name, operands, attributes and type) once: functionalization replays a
    view for every use of its result."""

    def __init__(self, name: str):
        super().__init__(name)
        self._seen = {}

    def _emit(self, op, operands, result_type, attrs=(), name=None):
        key = (op, tuple(v.name for v in operands), str(result_type),
               tuple((k, repr(a)) for k, a in attrs))
        if name is None and key in self._seen:
            return self._seen[key]
        value = super()._emit(op, operands, result_type, attrs, name)
        self._seen[key] = value
        return value


class Lowering:
    def __init__(self, fb: FunctionBuilder, n_sites: int):
        self.fb = fb
        self.seeds: List[Value] = []
        self.node = None
        #: Buffer placeholder -> the node that updates it (set by the importer).
        self.updates: Dict[Any, Any] = {}
        #: The batch mean and variance of the last batch norm whose running
        #: statistics the step updates.
        self.batch_stats: Optional[Tuple[Value, Value]] = None

    # -- errors and values ------------------------------------------------

    def where(self) -> str:
        module = self.node.meta.get("remat_module", "") if self.node is not None else ""
        return f"module '{module}'" if module else "the top-level forward"

    def fail(self, why: str):
        target = self.node.target
        name = getattr(target, "__name__", str(target))
        if hasattr(target, "_schema"):
            name = str(target).replace("aten.", "aten::", 1)
        raise UnsupportedOp(f"{name} (node '{self.node.name}', from {self.where()}): {why}")

    def value(self, x) -> Value:
        """An SSA value for ``x`` (materializing constants and transposes)."""
        if isinstance(x, Value):
            return x
        if isinstance(x, LazyT):
            if x.materialized is None:
                x.materialized = self.fb.transpose(x.value, [1, 0])
            return x.materialized
        if isinstance(x, LogSoftmaxOf):
            if x.value is None:
                x.value = self.fb.log_softmax(x.logits, x.axis)
            return x.value
        if isinstance(x, Const):
            return self.constant(x.tensor)
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return self.fb.constant(float(x), TensorType((), "f32"))
        self.fail(f"operand {x!r} is not a tensor")

    def constant(self, t: torch.Tensor) -> Value:
        t = t.detach()
        if t.dtype == torch.bool or t.dtype.is_floating_point:
            t = t.to(torch.float32)
            dtype = "f32"
        elif t.dtype in (torch.int64, torch.int32):
            t = t.to(torch.int64)
            dtype = "i64"
        else:
            self.fail(f"constant of type {t.dtype}")
        ty = TensorType(tuple(t.shape), dtype)
        flat = t.reshape(-1)
        if flat.numel() > 0 and bool((flat == flat[0]).all()) and math.isfinite(float(flat[0])):
            return self.fb.constant(float(flat[0]) if dtype == "f32" else int(flat[0]), ty)
        raw = t.contiguous().numpy().astype("<f4" if dtype == "f32" else "<i8").tobytes()
        return self.fb.dense_constant(raw, ty)

    def shape(self, x) -> Tuple[int, ...]:
        if isinstance(x, Const):
            return tuple(x.tensor.shape)
        if isinstance(x, LazyT):
            return tuple(reversed(x.value.type.shape))
        return self.value(x).type.shape


def _axis(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def _resolve(shape: Sequence[int], numel: int) -> List[int]:
    shape = list(shape)
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        shape[shape.index(-1)] = numel // known if known else 0
    return shape


# -- rules: (lowering, args, kwargs) -> lowered value -----------------------


def _identity(L, a, k):
    return a[0]


def _reshape(L, a, k):
    x = L.value(a[0])
    shape = _resolve(a[1], x.type.numel)
    if tuple(shape) == x.type.shape:
        return x
    return L.fb.reshape(x, shape)


def _t(L, a, k):
    x = a[0]
    if isinstance(x, LazyT):
        return x.value
    x = L.value(x)
    if x.type.rank != 2:
        L.fail(f"t of a rank-{x.type.rank} tensor")
    return LazyT(x)


def _transpose(L, a, k):
    rank = len(L.shape(a[0]))
    d0, d1 = _axis(a[1], rank), _axis(a[2], rank)
    if d0 == d1:
        return a[0]
    if rank == 2:
        return _t(L, a[:1], k)
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return L.fb.transpose(L.value(a[0]), perm)


def _permute(L, a, k):
    perm = [_axis(d, len(a[1])) for d in a[1]]
    if perm == list(range(len(perm))):
        return a[0]
    return L.fb.transpose(L.value(a[0]), perm)


def _matmul_operands(L, lhs, rhs):
    ta = tb = False
    if isinstance(lhs, LazyT):
        lhs, ta = lhs.value, True
    if isinstance(rhs, LazyT):
        rhs, tb = rhs.value, True
    return L.value(lhs), L.value(rhs), ta, tb


def _mm(L, a, k):
    lhs, rhs, ta, tb = _matmul_operands(L, a[0], a[1])
    return L.fb.matmul(lhs, rhs, ta, tb)


def _addmm(L, a, k):
    if k.get("beta", 1) != 1 or k.get("alpha", 1) != 1:
        L.fail("beta/alpha other than 1")
    lhs, rhs, ta, tb = _matmul_operands(L, a[1], a[2])
    return L.fb.add(L.fb.matmul(lhs, rhs, ta, tb), L.value(a[0]))


def _binary(op):
    def rule(L, a, k):
        lhs, rhs = a[0], a[1]
        alpha = k.get("alpha", 1)
        if alpha != 1:
            if op not in ("add", "sub"):
                L.fail("alpha")
            rhs = L.fb.mul(L.value(rhs), L.value(float(alpha)))
        return getattr(L.fb, op)(L.value(lhs), L.value(rhs))
    return rule


def _rsub(L, a, k):
    rhs = a[0]
    if k.get("alpha", 1) != 1:
        L.fail("alpha")
    return L.fb.sub(L.value(a[1]), L.value(rhs))


def _unary(op):
    return lambda L, a, k: L.fb.unary(op, L.value(a[0]))


def _hardtanh(L, a, k):
    lo = a[1] if len(a) > 1 else k.get("min_val", -1.0)
    hi = a[2] if len(a) > 2 else k.get("max_val", 1.0)
    if (lo, hi) != (0.0, 6.0):
        L.fail(f"hardtanh({lo}, {hi}): only the ReLU6 clamp (0, 6) has a remat op")
    return L.fb.relu6(L.value(a[0]))


def _gelu(L, a, k):
    approximate = k.get("approximate", a[1] if len(a) > 1 else "none")
    if approximate == "tanh":
        return L.fb.gelu(L.value(a[0]))
    if approximate == "none":
        return L.fb.gelu_erf(L.value(a[0]))
    L.fail(f"GELU approximation {approximate!r} (only 'none' and 'tanh')")


def _softmax(L, a, k):
    if a[2]:
        L.fail("half_to_float")
    return L.fb.softmax(L.value(a[0]), a[1])


def _log_softmax(L, a, k):
    if a[2]:
        L.fail("half_to_float")
    x = L.value(a[0])
    return LogSoftmaxOf(x, _axis(a[1], x.type.rank))


def _nll_loss(L, a, k):
    logp, target, weight, reduction, ignore_index = a
    if weight is not None:
        L.fail("class weights")
    if reduction != 1:
        L.fail("reduction other than 'mean'")
    if not isinstance(logp, LogSoftmaxOf):
        L.fail("nll_loss of a tensor that is not a log_softmax")
    logits = logp.logits
    if logp.axis != logits.type.rank - 1:
        L.fail("log_softmax over a dimension other than the last (class) dimension")
    return (L.fb.softmax_cross_entropy(logits, L.value(target)), None)


def _mse(L, a, k):
    reduction = a[2] if len(a) > 2 else k.get("reduction", 1)
    if reduction != 1:
        L.fail("reduction other than 'mean'")
    return L.fb.mse(L.value(a[0]), L.value(a[1]))


def _conv(L, a, k):
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = a
    if transposed:
        L.fail("transposed convolution")
    if len(stride) != 2:
        L.fail(f"{len(stride)}-D convolution (only 2-D)")
    y = L.fb.conv2d(L.value(x), L.value(w), list(stride), list(padding), list(dilation), groups)
    if b is not None:
        bias = L.value(b)
        y = L.fb.add(y, L.fb.reshape(bias, [bias.type.shape[0], 1, 1]))
    return y


def _batch_norm(L, a, k):
    """A training-mode batch norm. When the step updates its running
    statistics, the op also returns the batch mean and unbiased variance it
    normalized with (``L.batch_stats``, for ``_running_stats``)."""
    x, w, b, running_mean, running_var, training, momentum, eps = a
    if not training:
        L.fail("batch norm with running statistics (eval mode); import the model in train mode")
    if w is None or b is None:
        L.fail("batch norm without affine scale and bias")
    x, w, b = L.value(x), L.value(w), L.value(b)
    if L.node.args[3] not in L.updates:
        return (L.fb.batch_norm(x, w, b, float(eps)), None, None)
    if x.type.numel // x.type.shape[1] < 2:
        L.fail("batch norm over one value per channel (PyTorch refuses it in training mode)")
    y, mean, var = L.fb.batch_norm_with_stats(x, w, b, float(eps))
    L.batch_stats = (mean, var)
    return (y, None, None)


def _running_stats(L, batch_mean: Value, batch_var: Value, running_mean: Value,
                   running_var: Value, momentum: float) -> Tuple[Value, Value]:
    """The running statistics a training-mode batch norm leaves, as PyTorch
    computes them: ``(1 - momentum) * running + momentum * batch``, with the
    batch mean and the *unbiased* batch variance (sum of squared deviations
    / (n - 1), n = elements per channel) that the batch norm op returns
    (``[C]`` each: the update holds no full-size temporary)."""
    fb = L.fb
    scalar = TensorType((), "f32")
    keep, take = fb.constant(1.0 - momentum, scalar), fb.constant(momentum, scalar)
    return tuple(fb.add(fb.mul(running, keep), fb.mul(batch, take))
                 for running, batch in ((running_mean, batch_mean), (running_var, batch_var)))


def _layer_norm(L, a, k):
    x, shape, w, b, eps = a
    if len(shape) != 1:
        L.fail("layer norm over more than the last dimension")
    if w is None or b is None:
        L.fail("layer norm without elementwise affine scale and bias")
    return (L.fb.layer_norm(L.value(x), L.value(w), L.value(b), float(eps)), None, None)


def _pair(v):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * 2 if len(v) == 1 else v


def _max_pool(L, a, k):
    x = a[0]
    kernel = _pair(a[1])
    stride = _pair(a[2]) if len(a) > 2 and a[2] else kernel
    padding = _pair(a[3]) if len(a) > 3 else [0, 0]
    dilation = _pair(a[4]) if len(a) > 4 else [1, 1]
    ceil = a[5] if len(a) > 5 else False
    if dilation != [1, 1] or ceil:
        L.fail("dilated or ceil-mode max pooling")
    return (L.fb.max_pool2d(L.value(x), kernel, stride, padding), None)


def _avg_pool(L, a, k):
    kernel = _pair(a[1])
    stride = _pair(a[2]) if len(a) > 2 and a[2] else kernel
    padding = _pair(a[3]) if len(a) > 3 else [0, 0]
    ceil = a[4] if len(a) > 4 else False
    include = a[5] if len(a) > 5 else True
    divisor = a[6] if len(a) > 6 else None
    if ceil or (not include and padding != [0, 0]) or divisor is not None:
        L.fail("ceil mode, count_include_pad=False with padding, or divisor_override")
    return L.fb.avg_pool2d(L.value(a[0]), kernel, stride, padding)


def _mean(L, a, k):
    x = L.value(a[0])
    dims = sorted(_axis(d, x.type.rank) for d in a[1])
    keep = a[2] if len(a) > 2 else k.get("keepdim", False)
    if x.type.rank != 4 or dims != [2, 3]:
        L.fail(f"mean over dimensions {list(a[1])} (only the spatial mean of an NCHW tensor)")
    y = L.fb.global_avg_pool(x)
    if keep:
        y = L.fb.reshape(y, list(x.type.shape[:2]) + [1, 1])
    return y


def _adaptive_avg_pool(L, a, k):
    x = L.value(a[0])
    if list(a[1]) != [1, 1]:
        L.fail(f"adaptive average pooling to {list(a[1])} (only to 1x1)")
    return L.fb.reshape(L.fb.global_avg_pool(x), list(x.type.shape[:2]) + [1, 1])


def _embedding(L, a, k):
    weight, indices = a[0], a[1]
    padding_idx = a[2] if len(a) > 2 else -1
    if padding_idx != -1:
        L.fail("padding_idx")
    if len(a) > 4 and a[4]:
        L.fail("sparse gradients")
    if len(a) > 3 and a[3]:
        L.fail("scale_grad_by_freq")
    table = L.value(weight)
    if isinstance(indices, Const):
        idx = indices.tensor.reshape(-1)
        n = idx.numel()
        if n and bool((idx == torch.arange(int(idx[0]), int(idx[0]) + n)).all()) and indices.tensor.dim() == 1:
            # Rows start..start+n-1 of the table: a slice (same values, same gradient).
            return L.fb.slice(table, [int(idx[0]), 0], [n, table.type.shape[1]])
    return L.fb.embedding(table, L.value(indices))


def _slice_rule(L, a, k):
    x = a[0]
    shape = L.shape(x)
    dim = _axis(a[1] if len(a) > 1 else 0, len(shape))
    start = a[2] if len(a) > 2 and a[2] is not None else 0
    end = a[3] if len(a) > 3 and a[3] is not None else shape[dim]
    step = a[4] if len(a) > 4 else 1
    n = shape[dim]
    start = max(0, min(n, start + n if start < 0 else start))
    end = max(start, min(n, end + n if end < 0 else end))
    if start == 0 and end == n and step == 1:
        return x
    return _slice(L, L.value(x), dim, start, end, step)


def _slice(L, x: Value, dim: int, start: int, end: int, step: int = 1) -> Value:
    offsets = [0] * x.type.rank
    sizes = list(x.type.shape)
    strides = [1] * x.type.rank
    offsets[dim] = start
    sizes[dim] = (end - start + step - 1) // step
    strides[dim] = step
    return L.fb.slice(x, offsets, sizes, strides)


def _split(L, a, k):
    x = L.value(a[0])
    size = a[1]
    dim = _axis(a[2] if len(a) > 2 else k.get("dim", 0), x.type.rank)
    n = x.type.shape[dim]
    out = []
    for start in range(0, n, size):
        out.append(_slice(L, x, dim, start, min(n, start + size)))
    return tuple(out)


def _split_sizes(L, a, k):
    x = L.value(a[0])
    dim = _axis(a[2] if len(a) > 2 else k.get("dim", 0), x.type.rank)
    out, start = [], 0
    for size in a[1]:
        out.append(_slice(L, x, dim, start, start + size))
        start += size
    return tuple(out)


def _select(L, a, k):
    x = L.value(a[0])
    dim = _axis(a[1], x.type.rank)
    i = a[2] + x.type.shape[dim] if a[2] < 0 else a[2]
    s = _slice(L, x, dim, i, i + 1)
    return L.fb.reshape(s, [d for j, d in enumerate(x.type.shape) if j != dim])


def _unbind(L, a, k):
    x = L.value(a[0])
    dim = _axis(a[1] if len(a) > 1 else 0, x.type.rank)
    return tuple(_select(L, [x, dim, i], {}) for i in range(x.type.shape[dim]))


def _stack(L, a, k):
    xs = [L.value(v) for v in a[0]]
    dim = _axis(a[1] if len(a) > 1 else 0, xs[0].type.rank + 1)
    parts = []
    for x in xs:
        shape = list(x.type.shape)
        shape.insert(dim, 1)
        parts.append(L.fb.reshape(x, shape))
    return parts[0] if len(parts) == 1 else L.fb.concat(parts, dim)


def _cat(L, a, k):
    xs = [L.value(v) for v in a[0]]
    dim = _axis(a[1] if len(a) > 1 else 0, xs[0].type.rank)
    return xs[0] if len(xs) == 1 else L.fb.concat(xs, dim)


def _expand(L, a, k):
    shape = L.shape(a[0])
    target = [s if t == -1 else t for s, t in zip((1,) * (len(a[1]) - len(shape)) + tuple(shape), a[1])]
    if tuple(target) == tuple(shape):
        return a[0]
    x = L.value(a[0])
    if math.prod(target) == x.type.numel:
        return L.fb.reshape(x, target)
    return L.fb._emit("remat.broadcast_to", [x], x.type.with_shape(target))


def _masked_fill(L, a, k):
    x, mask, fill = a[0], a[1], a[2]
    if not isinstance(mask, Const):
        L.fail("a mask that depends on the inputs (only masks known at import time)")
    if isinstance(fill, Const):
        fill = float(fill.tensor)
    m = mask.tensor.to(torch.bool)
    xv = L.value(x)
    shape = torch.broadcast_shapes(tuple(m.shape), xv.type.shape)
    keep = (~m).to(torch.float32)
    # x * keep + fill * mask: x where the mask is clear, fill where it is set
    # (exact: x * 1 + 0 = x, x * 0 + fill = fill for finite x).
    fills = torch.where(m, torch.tensor(float(fill)), torch.tensor(0.0))
    y = L.fb.mul(xv, L.constant(keep))
    y = L.fb.add(y, L.constant(fills))
    if y.type.shape != tuple(shape):
        L.fail("mask broadcasting")
    return y


def _dropout(L, a, k):
    x, p, site = a
    return L.fb.dropout(L.value(x), L.seeds[site], float(p))


RULES = {
    aten.clone.default: _identity, aten.alias.default: _identity,
    aten.lift_fresh_copy.default: _identity,
    aten.view.default: _reshape, aten._unsafe_view.default: _reshape,
    aten._reshape_alias.default: _reshape, aten.reshape.default: _reshape,
    aten.t.default: _t, aten.transpose.int: _transpose, aten.permute.default: _permute,
    aten.mm.default: _mm, aten.bmm.default: _mm, aten.addmm.default: _addmm,
    aten.add.Tensor: _binary("add"), aten.sub.Tensor: _binary("sub"),
    aten.mul.Tensor: _binary("mul"), aten.div.Tensor: _binary("div"),
    aten.add.Scalar: _binary("add"), aten.sub.Scalar: _binary("sub"),
    aten.mul.Scalar: _binary("mul"), aten.div.Scalar: _binary("div"),
    aten.rsub.Scalar: _rsub, aten.rsub.Tensor: _rsub,
    aten.relu.default: _unary("relu"), aten.tanh.default: _unary("tanh"),
    aten.sigmoid.default: _unary("sigmoid"), aten.exp.default: _unary("exp"),
    aten.log.default: _unary("log"), aten.neg.default: _unary("neg"),
    aten.hardtanh.default: _hardtanh, aten.gelu.default: _gelu,
    aten._softmax.default: _softmax, aten._log_softmax.default: _log_softmax,
    aten.nll_loss_forward.default: _nll_loss, aten.mse_loss.default: _mse,
    aten.convolution.default: _conv, aten.native_batch_norm.default: _batch_norm,
    aten.native_layer_norm.default: _layer_norm,
    aten.max_pool2d_with_indices.default: _max_pool, aten.avg_pool2d.default: _avg_pool,
    aten.mean.dim: _mean, aten._adaptive_avg_pool2d.default: _adaptive_avg_pool,
    aten.embedding.default: _embedding,
    aten.slice.Tensor: _slice_rule, aten.split.Tensor: _split,
    aten.unsafe_split.Tensor: _split, aten.split_with_sizes.default: _split_sizes,
    aten.unsafe_split_with_sizes.default: _split_sizes,
    aten.select.int: _select, aten.unbind.int: _unbind,
    aten.stack.default: _stack, aten.cat.default: _cat, aten.expand.default: _expand,
    aten.masked_fill.Scalar: _masked_fill, aten.masked_fill.Tensor: _masked_fill,
    torch.ops.remat.dropout.default: _dropout,
}

#: Ops that a rule handles only partially: the second output is ignored if dead.
_TUPLE_OPS = {aten.native_batch_norm.default, aten.native_layer_norm.default,
              aten.max_pool2d_with_indices.default, aten.nll_loss_forward.default}


def _map(x, fn):
    if isinstance(x, (list, tuple)):
        return type(x)(_map(v, fn) for v in x)
    if isinstance(x, dict):
        return {k: _map(v, fn) for k, v in x.items()}
    return fn(x)


def _has(x, pred) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_has(v, pred) for v in x)
    if isinstance(x, dict):
        return any(_has(v, pred) for v in x.values())
    return pred(x)


def lower_graph(gm, placeholders, kinds, n_sites, func_name, dropout_seed, Imported):
    """Maps a functionalized make_fx graph module to a remat function."""
    graph = gm.graph
    output = next(n for n in graph.nodes if n.op == "output")
    # Liveness: the nodes the loss depends on.
    live = set()
    stack = [output]
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.all_input_nodes)

    fb = CseBuilder(func_name)
    L = Lowering(fb, n_sites)
    env: Dict[Any, Any] = {}
    used = set()
    params, inputs, notes, state = [], [], [], []
    comments = []

    # Buffers the step updates: the running statistics of training-mode
    # batch norms (native_batch_norm updates them in place, which
    # functionalize in PyTorch 1.13 does not show) and every buffer a copy_
    # writes (num_batches_tracked). They become {remat.state} arguments.
    buffer_nodes = {n for n, (kind, _, _) in zip(placeholders, kinds) if kind == "buffer"}
    updates: Dict[Any, Any] = L.updates  # buffer placeholder -> the node updating it
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is aten.native_batch_norm.default and node in live and node.args[5]:
            stats = [a for a in node.args[3:5] if a is not None]
            if len(stats) == 1:
                L.node = node
                L.fail("batch norm with only one of running_mean and running_var")
            targets = [a for a in stats if a in buffer_nodes]
        elif node.target is aten.copy_.default and node.args[0] in buffer_nodes:
            targets = [node.args[0]]
        else:
            continue
        for t in targets:
            if t in updates:
                L.node = node
                L.fail(f"buffer '{kinds[placeholders.index(t)][1]}' is updated twice in one step")
            updates[t] = node

    def unique(name):
        base, i = _c_name(name), 1
        name = base
        while name in used:
            name = f"{base}_{i}"
            i += 1
        used.add(name)
        return name

    for node, (kind, name, tensor) in zip(placeholders, kinds):
        if kind == "param":
            dtype = _DTYPES.get(tensor.dtype)
            if dtype != "f32":
                raise UnsupportedOp(f"parameter '{name}' has type {tensor.dtype} (only float32)")
            buf = unique(name)
            env[node] = fb.param(buf, TensorType(tuple(tensor.shape), "f32"))
            params.append((buf, name, tensor))
            comments.append(f"//   %{buf}: parameter '{name}'")
        elif kind == "buffer" and node in updates:
            dtype = _DTYPES.get(tensor.dtype)
            if dtype not in ("f32", "i64"):
                raise UnsupportedOp(f"buffer '{name}' has type {tensor.dtype} (state must be "
                                    f"float32 or int64)")
            buf = unique(name)
            env[node] = fb.state(buf, TensorType(tuple(tensor.shape), dtype))
            state.append((buf, name, tensor))
            comments.append(f"//   %{buf}: state '{name}' (updated by the step)")
        elif kind == "buffer":
            env[node] = Const(tensor.detach().clone())
        else:
            dtype = _DTYPES.get(tensor.dtype)
            if dtype is None:
                raise UnsupportedOp(f"input '{name}' has type {tensor.dtype}")
            if dtype == "i32":
                dtype = "i64"
            buf = unique(name)
            env[node] = fb.arg(buf, TensorType(tuple(tensor.shape), dtype))
            inputs.append((buf, tensor))
    for site in range(n_sites):
        buf = unique(f"dropout_seed{site}")
        L.seeds.append(fb.arg(buf, TensorType((), "i64")))
        inputs.append((buf, torch.tensor(dropout_seed + site, dtype=torch.int64)))
        comments.append(f"//   %{buf}: the seed of dropout site {site}")

    # Tensors the trace captured as constants: a module that reads its
    # parameters behind functional_call's back (nn.LSTM's _flat_weights)
    # still reads the parameter, so it becomes that argument.
    by_storage = {}
    for node, (kind, name, tensor) in zip(placeholders, kinds):
        if kind != "input":
            by_storage[(tensor.data_ptr(), tuple(tensor.shape), tensor.stride())] = node
    for node in graph.nodes:
        if node.op == "get_attr" and node in live:
            t = getattr(gm, node.target)
            key = (t.data_ptr(), tuple(t.shape), t.stride())
            env[node] = env[by_storage[key]] if key in by_storage else Const(t.detach().clone())

    # Updates of inputs and parameters are not part of the step.
    for node in graph.nodes:
        if node.op == "call_function" and node.target is aten.copy_.default and node not in live:
            dst = node.args[0]
            if dst in placeholders and dst not in updates:
                kind, name, _ = kinds[placeholders.index(dst)]
                notes.append(f"the step does not update {kind} '{name}' (the model writes it "
                             f"in place; it does not affect the loss or the gradients)")
    next_state: Dict[Any, Value] = {}

    for node in graph.nodes:
        if node.op != "call_function" or node not in live:
            continue
        L.node = node
        args = _map(node.args, lambda v: env[v] if isinstance(v, torch.fx.Node) else v)
        kwargs = _map(dict(node.kwargs), lambda v: env[v] if isinstance(v, torch.fx.Node) else v)
        if node.target is operator.getitem:
            src, i = args
            res = src[i]
            if res is None:
                L.fail(f"output {i} of {node.args[0].target} is used; only the first is mapped")
            env[node] = res
            continue
        name = str(node.target)
        dynamic = _has((args, kwargs), lambda v: isinstance(v, (Value, LazyT, LogSoftmaxOf)))
        if not dynamic and node.target is not torch.ops.remat.dropout.default:
            if any(r in name for r in _RANDOM):
                L.fail("random op (only dropout through torch.nn.functional.dropout is supported)")
            try:
                concrete = _map((args, kwargs), lambda v: v.tensor if isinstance(v, Const) else v)
                out = node.target(*concrete[0], **concrete[1])
            except Exception as e:  # noqa: BLE001 - reported with the node
                L.fail(f"evaluating it at import time failed: {e}")
            env[node] = _map(out, lambda v: Const(v) if isinstance(v, torch.Tensor) else v)
            continue
        if node.target is aten.detach.default:
            L.fail("detach (a stop-gradient) on the path to the loss")
        rule = RULES.get(node.target)
        if rule is None:
            L.fail("no remat mapping for this op")
        env[node] = rule(L, args, kwargs)
        _check_shape(L, node, env[node])
        if node.target is aten.native_batch_norm.default and node.args[3] in updates:
            # Right after the batch norm, as PyTorch updates them.
            next_state[node.args[3]], next_state[node.args[4]] = _running_stats(
                L, *L.batch_stats, env[node.args[3]], env[node.args[4]], float(args[6]))

    for dst, node in updates.items():
        if node.target is not aten.copy_.default:
            continue
        L.node = node
        src = node.args[1]
        name = kinds[placeholders.index(dst)][1]
        step = src.args[1] if (isinstance(src, torch.fx.Node) and src.op == "call_function"
                               and src.target is aten.add.Tensor and len(src.args) == 2
                               and src.args[0] is dst and not src.kwargs) else None
        if not isinstance(step, int) or env[dst].type.dtype != "i64":
            L.fail(f"the update of buffer '{name}' is not mapped (only batch-norm running "
                   "statistics and integer counters incremented by a constant are)")
        next_state[dst] = fb.increment(env[dst], step)

    result = env[output.args[0]] if not isinstance(output.args[0], (list, tuple)) else None
    if not isinstance(result, Value) or result.type.shape != ():
        raise UnsupportedOp("the loss must be a scalar float tensor that depends on the inputs")
    func = fb.finish(result, [(next_state[n], env[n]) for n in placeholders if n in updates])
    header = [f"// Imported from PyTorch by remat.torch_import; arguments:"] + comments
    return Imported("\n".join(header) + "\n" + func.text(), func_name, params, inputs, notes,
                    state)


def _check_shape(L, node, lowered):
    val = node.meta.get("val", node.meta.get("tensor_meta"))
    if val is None or isinstance(lowered, tuple):
        return
    shape = tuple(getattr(val, "shape", ()))
    got = L.shape(lowered) if not isinstance(lowered, LogSoftmaxOf) else lowered.logits.type.shape
    if tuple(got) != shape:
        L.fail(f"internal error: lowered to shape {tuple(got)}, PyTorch says {shape}")
