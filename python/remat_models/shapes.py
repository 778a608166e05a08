"""Result-type inference for every op of the ``remat`` dialect.

Each ``infer_<op>`` function mirrors the verifier rules of the dialect
contract and raises :class:`ShapeError` on ill-typed operands.  The builder
calls these so that generated IR is always well typed, and the text checker
calls them again on parsed IR.
"""

from typing import List, Optional, Sequence, Tuple

from .mlir_types import TensorType, is_float, is_int


class ShapeError(ValueError):
    """Raised when operands violate an op's typing rules."""


def _require(cond: bool, msg: str) -> None:
    if not cond:
        raise ShapeError(msg)


def _require_float(op: str, *types: TensorType) -> None:
    for t in types:
        _require(is_float(t.dtype), f"{op}: expected float tensor, got {t}")


def _same_dtype(op: str, *types: TensorType) -> str:
    dtypes = {t.dtype for t in types}
    _require(len(dtypes) == 1, f"{op}: mismatched element types {sorted(dtypes)}")
    return types[0].dtype


def _norm_axis(op: str, axis: int, rank: int) -> int:
    _require(-rank <= axis < rank, f"{op}: axis {axis} out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> Tuple[int, ...]:
    """Numpy broadcasting of two shapes (right-aligned, 1 stretches)."""
    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(pa, pb):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ShapeError(f"shapes {tuple(a)} and {tuple(b)} are not broadcastable")
    return tuple(out)


# --- elementwise -----------------------------------------------------------

BINARY_OPS = ("add", "sub", "mul", "div")
UNARY_OPS = ("relu", "relu6", "gelu", "gelu_erf", "tanh", "sigmoid", "exp", "log", "neg")


def infer_binary(op: str, a: TensorType, b: TensorType) -> TensorType:
    _require_float(op, a, b)
    dtype = _same_dtype(op, a, b)
    return TensorType(broadcast_shapes(a.shape, b.shape), dtype)


def infer_unary(op: str, x: TensorType) -> TensorType:
    _require_float(op, x)
    return x


def infer_softmax(x: TensorType, axis: int = -1, op: str = "softmax") -> TensorType:
    _require_float(op, x)
    _require(x.rank >= 1, f"{op}: rank-0 operand")
    _norm_axis(op, axis, x.rank)
    return x


# --- linear algebra --------------------------------------------------------

def infer_matmul(a: TensorType, b: TensorType, transpose_a: bool = False,
                 transpose_b: bool = False) -> TensorType:
    """[..., M, K] x [..., K, N] -> [..., M, N].

    Batch dims must be equal when both operands have the same rank; a 2-D
    rhs is broadcast over the batch dims of a higher-rank lhs.
    """
    dtype = _same_dtype("matmul", a, b)
    _require_float("matmul", a)
    _require(a.rank >= 2 and b.rank >= 2, f"matmul: operands must have rank >= 2, got {a} and {b}")
    m, ka = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if transpose_b else (b.shape[-2], b.shape[-1])
    _require(ka == kb, f"matmul: contraction sizes differ ({ka} vs {kb}) for {a} x {b}")
    if a.rank == b.rank:
        _require(a.shape[:-2] == b.shape[:-2],
                 f"matmul: batch dims differ: {a.shape[:-2]} vs {b.shape[:-2]}")
        batch = a.shape[:-2]
    else:
        _require(a.rank > 2 and b.rank == 2,
                 f"matmul: ranks {a.rank} and {b.rank}: only a 2-D rhs may be broadcast")
        batch = a.shape[:-2]
    return TensorType(batch + (m, n), dtype)


# --- normalisation ---------------------------------------------------------

def infer_layer_norm(x: TensorType, gamma: TensorType, beta: TensorType) -> TensorType:
    _require_float("layer_norm", x)
    _same_dtype("layer_norm", x, gamma, beta)
    _require(x.rank >= 1, "layer_norm: rank-0 operand")
    want = (x.shape[-1],)
    _require(gamma.shape == want and beta.shape == want,
             f"layer_norm: gamma/beta must be {want}, got {gamma.shape} / {beta.shape}")
    return x


def infer_batch_norm(x: TensorType, gamma: TensorType, beta: TensorType) -> TensorType:
    _require_float("batch_norm", x)
    _same_dtype("batch_norm", x, gamma, beta)
    _require(x.rank in (2, 4), f"batch_norm: operand must have rank 2 or 4, got {x}")
    want = (x.shape[1],)
    _require(gamma.shape == want and beta.shape == want,
             f"batch_norm: gamma/beta must be {want}, got {gamma.shape} / {beta.shape}")
    return x


# --- convolution and pooling ----------------------------------------------

def conv_out_size(size: int, kernel: int, stride: int, pad: int, dilation: int = 1) -> int:
    """out = (in + 2p - d*(k-1) - 1) / s + 1, rounded down."""
    _require(stride >= 1 and dilation >= 1 and pad >= 0 and kernel >= 1,
             f"bad window parameters k={kernel} s={stride} p={pad} d={dilation}")
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    _require(span >= 0, f"window (k={kernel}, d={dilation}) larger than padded input {size}+2*{pad}")
    return span // stride + 1


def _pair(op: str, name: str, values: Sequence[int]) -> Tuple[int, int]:
    _require(len(values) == 2, f"{op}: {name} must have 2 entries, got {list(values)}")
    return int(values[0]), int(values[1])


def infer_conv2d(x: TensorType, w: TensorType, strides=(1, 1), padding=(0, 0),
                 dilations=(1, 1), groups: int = 1) -> TensorType:
    _require_float("conv2d", x)
    dtype = _same_dtype("conv2d", x, w)
    _require(x.rank == 4 and w.rank == 4, f"conv2d: expected NCHW input and OIHW filter, got {x}, {w}")
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    _require(groups >= 1 and c % groups == 0 and o % groups == 0,
             f"conv2d: groups={groups} must divide C={c} and O={o}")
    _require(i * groups == c, f"conv2d: filter in-channels {i} * groups {groups} != input channels {c}")
    sh, sw = _pair("conv2d", "strides", strides)
    ph, pw = _pair("conv2d", "padding", padding)
    dh, dw = _pair("conv2d", "dilations", dilations)
    return TensorType((n, o, conv_out_size(h, kh, sh, ph, dh), conv_out_size(wd, kw, sw, pw, dw)), dtype)


def infer_pool2d(x: TensorType, kernel=(2, 2), strides=(2, 2), padding=(0, 0),
                 op: str = "max_pool2d") -> TensorType:
    _require_float(op, x)
    _require(x.rank == 4, f"{op}: expected NCHW operand, got {x}")
    kh, kw = _pair(op, "kernel", kernel)
    sh, sw = _pair(op, "strides", strides)
    ph, pw = _pair(op, "padding", padding)
    _require(2 * ph <= kh and 2 * pw <= kw, f"{op}: padding must be at most half the kernel")
    n, c, h, w = x.shape
    return x.with_shape((n, c, conv_out_size(h, kh, sh, ph), conv_out_size(w, kw, sw, pw)))


def infer_global_avg_pool(x: TensorType) -> TensorType:
    _require_float("global_avg_pool", x)
    _require(x.rank == 4, f"global_avg_pool: expected NCHW operand, got {x}")
    return x.with_shape(x.shape[:2])


# --- shape manipulation ----------------------------------------------------

def infer_reshape(x: TensorType, shape: Sequence[int]) -> TensorType:
    out = x.with_shape(shape)
    _require(out.numel == x.numel, f"reshape: {x} -> {out} changes the element count")
    return out


def infer_transpose(x: TensorType, permutation: Sequence[int]) -> TensorType:
    perm = [int(p) for p in permutation]
    _require(sorted(perm) == list(range(x.rank)),
             f"transpose: {perm} is not a permutation of rank {x.rank}")
    return x.with_shape(tuple(x.shape[p] for p in perm))


def infer_concat(xs: Sequence[TensorType], axis: int) -> TensorType:
    _require(len(xs) >= 1, "concat: needs at least one operand")
    dtype = _same_dtype("concat", *xs)
    rank = xs[0].rank
    _require(all(x.rank == rank for x in xs), "concat: operands must have equal rank")
    ax = _norm_axis("concat", axis, rank)
    for x in xs[1:]:
        for d in range(rank):
            _require(d == ax or x.shape[d] == xs[0].shape[d],
                     f"concat: dim {d} differs ({xs[0].shape} vs {x.shape})")
    shape = list(xs[0].shape)
    shape[ax] = sum(x.shape[ax] for x in xs)
    return TensorType(tuple(shape), dtype)


def infer_slice(x: TensorType, offsets: Sequence[int], sizes: Sequence[int],
                strides: Optional[Sequence[int]] = None) -> TensorType:
    """Result sizes come from the result type; checks the window is in bounds."""
    strides = [1] * x.rank if strides is None else list(strides)
    _require(len(offsets) == x.rank and len(sizes) == x.rank and len(strides) == x.rank,
             f"slice: offsets/sizes/strides must have {x.rank} entries")
    for d, (off, size, st) in enumerate(zip(offsets, sizes, strides)):
        _require(off >= 0 and size >= 0 and st >= 1, f"slice: bad window in dim {d}")
        _require(size == 0 or off + (size - 1) * st < x.shape[d],
                 f"slice: dim {d} window offset={off} size={size} stride={st} exceeds {x.shape[d]}")
    return x.with_shape(sizes)


# --- embedding, dropout, losses -------------------------------------------

def infer_embedding(table: TensorType, indices: TensorType) -> TensorType:
    _require(is_float(table.dtype) and table.rank == 2, f"embedding: table must be a 2-D float tensor, got {table}")
    _require(is_int(indices.dtype), f"embedding: indices must be integer, got {indices}")
    return TensorType(indices.shape + (table.shape[1],), table.dtype)


def infer_dropout(x: TensorType, seed: TensorType, rate: float = 0.1) -> TensorType:
    _require_float("dropout", x)
    _require(seed.rank == 0 and seed.dtype == "i64", f"dropout: seed must be tensor<i64>, got {seed}")
    _require(0.0 <= rate < 1.0, f"dropout: rate {rate} not in [0, 1)")
    return x


def infer_softmax_cross_entropy(logits: TensorType, labels: TensorType) -> TensorType:
    _require_float("softmax_cross_entropy", logits)
    _require(is_int(labels.dtype), f"softmax_cross_entropy: labels must be integer, got {labels}")
    _require(logits.rank >= 1 and labels.shape == logits.shape[:-1],
             f"softmax_cross_entropy: labels {labels.shape} must equal logits batch dims {logits.shape[:-1]}")
    return TensorType((), "f32")


def infer_mse(pred: TensorType, target: TensorType) -> TensorType:
    _require_float("mse", pred)
    _same_dtype("mse", pred, target)
    _require(pred.shape == target.shape, f"mse: shapes differ {pred.shape} vs {target.shape}")
    return TensorType((), "f32")
