"""Each model generates well-typed text with the expected ops and params."""

import math
import re

import pytest

from remat_models import (MODELS, build_chain, build_gpt, build_lstm, build_mlp,
                          build_resnet)
from remat_models.mlir_types import TensorType
from remat_models.textcheck import CheckError, check_text, parse_type

OP_LINE = re.compile(r"^\s*%[\w$.-]+ = ([a-z]+\.[a-z_0-9]+) ", re.M)


def count_ops(text):
    """Counts op occurrences straight from the text (independent of the builder)."""
    counts = {}
    for name in OP_LINE.findall(text):
        counts[name] = counts.get(name, 0) + 1
    return counts


def remat_counts(text):
    return {k[len("remat."):]: v for k, v in count_ops(text).items() if k.startswith("remat.")}


def longest_path(fn):
    depth = {name: 0 for name, _, _ in fn.args}
    for op in fn.ops:
        depth[op.result] = 1 + max((depth[o] for o in op.operands), default=0)
    return depth[fn.result]


def check_model(kind, **kwargs):
    build, analytic = MODELS[kind]
    func = build(**kwargs)
    text = func.text()
    fn = check_text(text)
    assert fn.param_count == analytic(**kwargs) == func.param_count
    assert count_ops(text) == dict(func.op_counts())
    assert fn.result_type == TensorType((), "f32")
    return text, fn


@pytest.mark.parametrize("depth,width,batch", [(1, 8, 2), (5, 16, 4), (100, 256, 32)])
def test_mlp(depth, width, batch):
    text, fn = check_model("mlp", depth=depth, width=width, batch=batch, classes=10)
    assert remat_counts(text) == {"matmul": depth + 1, "add": depth, "relu": depth,
                                  "softmax_cross_entropy": 1}
    assert fn.param_count == depth * (width * width + width) + width * 10
    assert [n for n, _, p in fn.args if not p] == ["x", "labels"]
    assert longest_path(fn) == 3 * depth + 2          # a pure chain
    assert text.count("{remat.param}") == 2 * depth + 1


def test_mlp_in_features_and_dtypes():
    text, fn = check_model("mlp", depth=3, width=32, batch=4, in_features=20, classes=7,
                           dtype="bf16", label_dtype="i32")
    args = {n: t for n, t, _ in fn.args}
    assert args["x"] == TensorType((4, 20), "bf16")
    assert args["w0"] == TensorType((20, 32), "bf16")
    assert args["labels"] == TensorType((4,), "i32")
    assert "f32" not in text.replace("tensor<f32>", "")   # only the loss is f32
    assert fn.param_count == 20 * 32 + 2 * 32 * 32 + 3 * 32 + 32 * 7


@pytest.mark.parametrize("act", ["tanh", "relu", "alternate"])
def test_chain(act):
    text, fn = check_model("chain", length=7, width=3, batch=2, act=act)
    counts = remat_counts(text)
    assert counts["matmul"] == 7 and counts["mse"] == 1
    want = {"tanh": (7, 0), "relu": (0, 7), "alternate": (4, 3)}[act]
    assert (counts.get("tanh", 0), counts.get("relu", 0)) == want
    assert len(fn.ops) == 15 and longest_path(fn) == 15
    assert fn.param_count == 7 * 9


@pytest.mark.parametrize("blocks,stages,stem_pool,image", [
    (1, 1, False, 8), (4, 1, True, 16), (4, 2, True, 32), (6, 3, False, 32), (5, 3, True, 64)])
def test_resnet(blocks, stages, stem_pool, image):
    width, batch = 8, 2
    text, fn = check_model("resnet", blocks=blocks, width=width, batch=batch, image=image,
                           stages=stages, stem_pool=stem_pool, classes=10)
    counts = remat_counts(text)
    projections = stages - 1
    assert counts["conv2d"] == 1 + 2 * blocks + projections
    assert counts["batch_norm"] == 1 + 2 * blocks + projections
    assert counts["relu"] == 1 + 2 * blocks
    assert counts["add"] == blocks + 1
    assert counts.get("max_pool2d", 0) == int(stem_pool)
    assert counts["global_avg_pool"] == counts["matmul"] == counts["softmax_cross_entropy"] == 1
    # Spatial size halves per pool / per downsampling stage; channels double.
    side = image // 2 if stem_pool else image
    for _ in range(stages - 1):
        side = (side - 1) // 2 + 1
    gap = next(op for op in fn.ops if op.name == "remat.global_avg_pool")
    assert gap.operand_types[0] == TensorType((batch, width * 2 ** (stages - 1), side, side), "f32")
    # Stride-2 convs: one main conv + one projection per downsampling stage.
    assert text.count("strides = array<i64: 2, 2>, padding = array<i64: 1, 1>") == projections
    assert text.count("strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilations") == projections


def test_resnet_param_count_by_hand():
    # blocks=2, stages=2, width=4, 3 input channels, 5 classes
    stem = 4 * 3 * 9 + 8
    b0 = 4 * 4 * 9 * 2 + 16
    b1 = 8 * 4 * 9 + 8 * 8 * 9 + 32 + 8 * 4 + 16
    head = 8 * 5 + 5
    _, fn = check_model("resnet", blocks=2, stages=2, width=4, classes=5, image=8, batch=1)
    assert fn.param_count == stem + b0 + b1 + head


@pytest.mark.parametrize("layers,dropout,tie", [(1, 0.1, False), (2, 0.1, False),
                                                (3, 0.0, True), (4, 0.2, True)])
def test_gpt(layers, dropout, tie):
    B, T, C, H, V = 2, 16, 64, 4, 128
    text, fn = check_model("gpt", layers=layers, embed=C, heads=H, seq=T, vocab=V, batch=B,
                           dropout=dropout, tie_embeddings=tie)
    L = layers
    want = {"layer_norm": 2 * L + 1, "matmul": 8 * L + 1, "add": 9 * L + 1, "mul": L,
            "softmax": L, "gelu": L, "reshape": 4 * L, "transpose": 4 * L, "embedding": 1,
            "softmax_cross_entropy": 1}
    if dropout > 0:
        want["dropout"] = 2 * L + 1
    assert remat_counts(text) == want
    assert count_ops(text)["arith.constant"] == 1
    assert f"arith.constant dense<{1 / math.sqrt(C // H)}> : tensor<f32>" in text
    data = [n for n, _, p in fn.args if not p]
    assert data == ["tokens", "targets", "mask"] + (["seed"] if dropout > 0 else [])
    per_layer = 12 * C * C + 13 * C
    assert fn.param_count == V * C + T * C + L * per_layer + 2 * C + (0 if tie else C * V)
    ops = {op.result: op for op in fn.ops}
    for op in fn.ops:
        if op.name == "remat.dropout":
            assert op.operands[1] == "seed" and op.attrs["rate"] == dropout
        if op.name == "remat.softmax":
            # softmax(add(mul(matmul(q, k, transpose_b), scale), mask))
            add = ops[op.operands[0]]
            assert add.name == "remat.add" and add.operands[1] == "mask"
            mul = ops[add.operands[0]]
            assert mul.name == "remat.mul" and mul.operands[1] == "scale"
            qk = ops[mul.operands[0]]
            assert qk.name == "remat.matmul" and qk.attrs == {"transpose_b": True}
            assert qk.result_type == TensorType((B, H, T, T), "f32")
    assert text.count("{transpose_b}") == L + int(tie)
    logits = ops["logits"]
    assert logits.result_type == TensorType((B, T, V), "f32")


def test_gpt_rejects_bad_heads():
    with pytest.raises(ValueError):
        build_gpt(embed=30, heads=4)


@pytest.mark.parametrize("steps,loss", [(1, "mse"), (8, "mse"), (5, "ce")])
def test_lstm(steps, loss):
    B, I, Hd, O = 3, 5, 6, 4
    text, fn = check_model("lstm", steps=steps, batch=B, input_size=I, hidden=Hd, outputs=O,
                           loss=loss)
    counts = remat_counts(text)
    assert counts["slice"] == 5 * steps and counts["reshape"] == steps
    assert counts["matmul"] == 2 * steps + 1
    assert counts["add"] == 3 * steps + 1 and counts["mul"] == 3 * steps
    assert counts["sigmoid"] == 3 * steps and counts["tanh"] == 2 * steps
    assert counts.get("mse", 0) == (loss == "mse")
    assert counts.get("softmax_cross_entropy", 0) == (loss == "ce")
    assert fn.param_count == I * 4 * Hd + Hd * 4 * Hd + 4 * Hd + Hd * O + O
    gate_offsets = sorted({op.attrs["offsets"] for op in fn.ops
                           if op.name == "remat.slice" and len(op.attrs["offsets"]) == 2})
    assert gate_offsets == [(0, k * Hd) for k in range(4)]
    step_offsets = [op.attrs["offsets"] for op in fn.ops
                    if op.name == "remat.slice" and len(op.attrs["offsets"]) == 3]
    assert step_offsets == [(t, 0, 0) for t in range(steps)]
    # The recurrence makes the critical path grow linearly with the steps.
    assert longest_path(fn) >= 5 * steps


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_all_models_accept_dtype(dtype):
    for kind, (build, _) in MODELS.items():
        text = build(dtype=dtype).text()
        check_text(text)
        float_types = set(re.findall(r"x(f16|bf16|f32|f64)>", text))
        assert float_types == {dtype}, kind


def test_checker_catches_errors():
    good = build_chain(length=2).text()
    check_text(good)
    with pytest.raises(CheckError):       # wrong printed result type
        check_text(good.replace("-> tensor<2x4xf32>\n  %1", "-> tensor<2x5xf32>\n  %1", 1))
    with pytest.raises(CheckError):       # use before def
        check_text(good.replace("remat.tanh %0", "remat.tanh %3", 1))
    with pytest.raises(Exception):        # operand type disagrees with its definition
        check_text(good.replace("(tensor<2x4xf32>, tensor<4x4xf32>)", "(tensor<2x4xf32>, tensor<4x5xf32>)", 1))


def test_parse_type():
    assert parse_type("tensor<f32>") == TensorType((), "f32")
    assert parse_type("tensor<1x2x3xbf16>") == TensorType((1, 2, 3), "bf16")
