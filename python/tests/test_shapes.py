"""Shape rules of each op, checked against hand-computed values and, where
available, against numpy / torch as oracles."""

import itertools

import numpy as np
import pytest

from remat_models import shapes
from remat_models.mlir_types import (F64Attr, I64ArrayAttr, I64Attr, TensorType,
                                     UnitAttr, format_attr_dict, format_float, tensor)
from remat_models.shapes import ShapeError


def T(*shape, dtype="f32"):
    return TensorType(shape, dtype)


# --- printing --------------------------------------------------------------

def test_tensor_type_printing():
    assert str(T(4, 8)) == "tensor<4x8xf32>"
    assert str(T(dtype="f32")) == "tensor<f32>"
    assert str(T(2, 3, 5, dtype="bf16")) == "tensor<2x3x5xbf16>"
    assert str(T(7, dtype="i64")) == "tensor<7xi64>"
    assert T(2, 3, dtype="f16").nbytes == 12
    with pytest.raises(ValueError):
        T(2, dtype="f8")


def test_float_literals_always_have_a_dot():
    assert format_float(1e-5) == "1.0e-05"
    assert format_float(0.1) == "0.1"
    assert format_float(1) == "1.0"
    assert format_float(-2.5e20) == "-2.5e+20"
    assert float(format_float(1.0 / 3.0)) == 1.0 / 3.0


def test_attr_dict_printing():
    attrs = [("transpose_b", UnitAttr()), ("axis", I64Attr(-1)),
             ("epsilon", F64Attr(1e-5)), ("strides", I64ArrayAttr([2, 1])),
             ("offsets", I64ArrayAttr([]))]
    assert format_attr_dict(attrs) == (
        "{transpose_b, axis = -1 : i64, epsilon = 1.0e-05 : f64, "
        "strides = array<i64: 2, 1>, offsets = array<i64>}")
    assert format_attr_dict([]) == ""


# --- broadcasting ----------------------------------------------------------

@pytest.mark.parametrize("a,b,out", [
    ((4, 1, 3), (5, 3), (4, 5, 3)),
    ((), (2, 3), (2, 3)),
    ((2, 3), (3,), (2, 3)),
    ((8, 4, 16, 16), (16, 16), (8, 4, 16, 16)),
    ((1,), (6, 1), (6, 1)),
])
def test_broadcast_matches_numpy(a, b, out):
    assert shapes.broadcast_shapes(a, b) == out
    assert np.broadcast_shapes(a, b) == out
    assert shapes.infer_binary("add", T(*a), T(*b)) == T(*out)


@pytest.mark.parametrize("a,b", [((2, 3), (3, 2)), ((4,), (5,)), ((2, 3, 4), (3, 1, 5))])
def test_broadcast_rejects(a, b):
    with pytest.raises(ShapeError):
        shapes.infer_binary("mul", T(*a), T(*b))


def test_binary_rejects_mixed_or_integer_element_types():
    with pytest.raises(ShapeError):
        shapes.infer_binary("add", T(2, 3), T(2, 3, dtype="f16"))
    with pytest.raises(ShapeError):
        shapes.infer_binary("add", T(2, 3, dtype="i64"), T(2, 3, dtype="i64"))


# --- matmul -----------------------------------------------------------------

@pytest.mark.parametrize("a,b,ta,tb,out", [
    ((4, 8), (8, 6), False, False, (4, 6)),
    ((4, 8), (6, 8), False, True, (4, 6)),
    ((8, 4), (8, 6), True, False, (4, 6)),
    ((8, 4), (6, 8), True, True, (4, 6)),
    ((2, 3, 4, 8), (2, 3, 8, 5), False, False, (2, 3, 4, 5)),
    ((2, 3, 4, 8), (2, 3, 5, 8), False, True, (2, 3, 4, 5)),
    ((2, 7, 8), (8, 5), False, False, (2, 7, 5)),
    ((2, 7, 8), (5, 8), False, True, (2, 7, 5)),
])
def test_matmul_shapes_match_numpy(a, b, ta, tb, out):
    assert shapes.infer_matmul(T(*a), T(*b), ta, tb) == T(*out)
    x = np.zeros(a)
    y = np.zeros(b)
    if ta:
        x = np.swapaxes(x, -1, -2)
    if tb:
        y = np.swapaxes(y, -1, -2)
    assert np.matmul(x, y).shape == out


@pytest.mark.parametrize("a,b,ta,tb", [
    ((4, 8), (6, 8), False, False),     # K mismatch without transpose
    ((4, 8), (8, 6), True, False),      # transpose_a makes K = 4
    ((2, 4, 8), (3, 8, 5), False, False),  # batch dims differ
    ((4, 8), (2, 8, 5), False, False),  # only the rhs may be broadcast
    ((2, 2, 4, 8), (2, 8, 5), False, False),  # 3-D rhs is not broadcast
    ((8,), (8, 4), False, False),       # rank 1
])
def test_matmul_rejects(a, b, ta, tb):
    with pytest.raises(ShapeError):
        shapes.infer_matmul(T(*a), T(*b), ta, tb)


# --- conv / pool -----------------------------------------------------------

def test_conv_out_size_formula():
    assert shapes.conv_out_size(32, 3, 1, 1) == 32
    assert shapes.conv_out_size(32, 3, 2, 1) == 16
    assert shapes.conv_out_size(7, 3, 2, 1) == 4
    assert shapes.conv_out_size(7, 1, 2, 0) == 4
    assert shapes.conv_out_size(10, 3, 1, 0, 2) == 6
    assert shapes.conv_out_size(224, 7, 2, 3) == 112
    with pytest.raises(ShapeError):
        shapes.conv_out_size(2, 5, 1, 0)


def test_conv2d_against_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    for (h, k, s, p, d, g) in itertools.product((5, 8, 9), (1, 3), (1, 2), (0, 1, 2), (1, 2), (1, 2)):
        if h + 2 * p < d * (k - 1) + 1:
            continue
        x = T(2, 4, h, h + 1)
        w = T(6, 4 // g, k, k)
        got = shapes.infer_conv2d(x, w, (s, s), (p, p), (d, d), g)
        ref = F.conv2d(torch.zeros(x.shape), torch.zeros(w.shape), stride=s, padding=p,
                       dilation=d, groups=g).shape
        assert got.shape == tuple(ref), (h, k, s, p, d, g)


def test_conv2d_rejects():
    with pytest.raises(ShapeError):  # in-channels mismatch
        shapes.infer_conv2d(T(1, 3, 8, 8), T(4, 4, 3, 3), (1, 1), (1, 1))
    with pytest.raises(ShapeError):  # groups must divide out-channels
        shapes.infer_conv2d(T(1, 4, 8, 8), T(3, 2, 3, 3), (1, 1), (1, 1), (1, 1), 2)
    with pytest.raises(ShapeError):  # not NCHW
        shapes.infer_conv2d(T(3, 8, 8), T(4, 3, 3, 3))
    with pytest.raises(ShapeError):
        shapes.infer_conv2d(T(1, 3, 8, 8), T(4, 3, 3, 3), (1,), (1, 1))


def test_pools_against_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    for (h, k, s, p) in itertools.product((6, 7, 8), (2, 3), (1, 2), (0, 1)):
        if 2 * p > k:
            continue
        x = T(1, 2, h, h)
        got = shapes.infer_pool2d(x, (k, k), (s, s), (p, p), "max_pool2d")
        assert got.shape == tuple(F.max_pool2d(torch.zeros(x.shape), k, s, p).shape)
        got = shapes.infer_pool2d(x, (k, k), (s, s), (p, p), "avg_pool2d")
        assert got.shape == tuple(F.avg_pool2d(torch.zeros(x.shape), k, s, p).shape)
    assert shapes.infer_global_avg_pool(T(2, 5, 7, 3)) == T(2, 5)
    with pytest.raises(ShapeError):   # torch rejects this too
        shapes.infer_pool2d(T(1, 1, 8, 8), (2, 2), (1, 1), (2, 2))


# --- norms, softmax --------------------------------------------------------

def test_norms():
    assert shapes.infer_layer_norm(T(2, 3, 8), T(8), T(8)) == T(2, 3, 8)
    with pytest.raises(ShapeError):
        shapes.infer_layer_norm(T(2, 3, 8), T(3), T(3))
    assert shapes.infer_batch_norm(T(2, 5, 4, 4), T(5), T(5)) == T(2, 5, 4, 4)
    assert shapes.infer_batch_norm(T(2, 5), T(5), T(5)) == T(2, 5)
    with pytest.raises(ShapeError):
        shapes.infer_batch_norm(T(2, 5, 4, 4), T(4), T(4))
    with pytest.raises(ShapeError):
        shapes.infer_batch_norm(T(2, 5, 4), T(5), T(5))


def test_softmax_axis_range():
    assert shapes.infer_softmax(T(2, 3), -1) == T(2, 3)
    assert shapes.infer_softmax(T(2, 3), 1) == T(2, 3)
    with pytest.raises(ShapeError):
        shapes.infer_softmax(T(2, 3), 2)
    with pytest.raises(ShapeError):
        shapes.infer_softmax(T(2, 3), -3)
    with pytest.raises(ShapeError):
        shapes.infer_unary("tanh", T(3, dtype="i32"))


# --- data movement ---------------------------------------------------------

def test_reshape_transpose_concat_slice():
    assert shapes.infer_reshape(T(4, 16, 64), (4, 16, 4, 16)) == T(4, 16, 4, 16)
    with pytest.raises(ShapeError):
        shapes.infer_reshape(T(4, 6), (5, 5))
    assert shapes.infer_transpose(T(2, 3, 5, 7), (0, 2, 1, 3)) == T(2, 5, 3, 7)
    assert np.zeros((2, 3, 5, 7)).transpose(3, 0, 2, 1).shape == \
        shapes.infer_transpose(T(2, 3, 5, 7), (3, 0, 2, 1)).shape
    with pytest.raises(ShapeError):
        shapes.infer_transpose(T(2, 3), (0, 0))
    assert shapes.infer_concat([T(2, 3, 4), T(2, 5, 4)], 1) == T(2, 8, 4)
    assert shapes.infer_concat([T(2, 3), T(2, 3), T(2, 3)], -1) == T(2, 9)
    with pytest.raises(ShapeError):
        shapes.infer_concat([T(2, 3, 4), T(3, 5, 4)], 1)
    assert shapes.infer_slice(T(8, 4, 16), (3, 0, 0), (1, 4, 16), (1, 1, 1)) == T(1, 4, 16)
    assert shapes.infer_slice(T(4, 128), (0, 96), (4, 32)) == T(4, 32)
    assert shapes.infer_slice(T(10,), (1,), (5,), (2,)) == T(5)   # 1,3,5,7,9
    with pytest.raises(ShapeError):
        shapes.infer_slice(T(10,), (2,), (5,), (2,))                # would read 10
    with pytest.raises(ShapeError):
        shapes.infer_slice(T(4, 128), (0, 100), (4, 32))


def test_embedding_dropout_losses():
    assert shapes.infer_embedding(T(128, 64), T(4, 16, dtype="i64")) == T(4, 16, 64)
    assert shapes.infer_embedding(T(10, 3, dtype="bf16"), T(5, dtype="i32")) == T(5, 3, dtype="bf16")
    with pytest.raises(ShapeError):
        shapes.infer_embedding(T(128, 64), T(4, 16))            # float indices
    assert shapes.infer_dropout(T(3, 4), T(dtype="i64"), 0.1) == T(3, 4)
    with pytest.raises(ShapeError):
        shapes.infer_dropout(T(3, 4), T(1, dtype="i64"))
    assert shapes.infer_softmax_cross_entropy(T(4, 16, 128), T(4, 16, dtype="i32")) == T()
    assert shapes.infer_softmax_cross_entropy(T(4, 16, 128, dtype="f16"), T(4, 16, dtype="i64")) == T()
    with pytest.raises(ShapeError):
        shapes.infer_softmax_cross_entropy(T(4, 10), T(10, dtype="i64"))
    assert shapes.infer_mse(T(4, 8), T(4, 8)) == T()
    with pytest.raises(ShapeError):
        shapes.infer_mse(T(4, 8), T(8, 4))
