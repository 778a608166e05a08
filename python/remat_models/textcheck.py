"""An independent check of the MLIR text this package writes.

It re-parses a function (signature, ops, attributes, types) with
:mod:`remat_models.mlirtext`, checks SSA def-before-use, that each op's
printed operand types equal the types of the values it uses, and re-derives every result type from
the operand types and attributes with :mod:`remat_models.shapes`.  It only
understands the subset of MLIR syntax this package emits.
"""

import re
from typing import Dict

from . import shapes
from .mlir_types import TensorType
from .mlirtext import MlirTextError, ParsedFunction, ParsedOp, parse_function  # noqa: F401
from .mlirtext import parse_tensor_type

#: The errors of this module are those of the reader (one class).
CheckError = MlirTextError
parse_type = parse_tensor_type


def _infer(op: ParsedOp) -> TensorType:
    n = op.name.split(".", 1)[1]
    t, a = op.operand_types, op.attrs
    allowed = {
        "matmul": {"transpose_a", "transpose_b"}, "softmax": {"axis"}, "log_softmax": {"axis"},
        "layer_norm": {"epsilon"}, "batch_norm": {"epsilon"},
        "conv2d": {"strides", "padding", "dilations", "groups"},
        "max_pool2d": {"kernel", "strides", "padding"}, "avg_pool2d": {"kernel", "strides", "padding"},
        "transpose": {"permutation"}, "concat": {"axis"}, "slice": {"offsets", "strides"},
        "dropout": {"rate"},
    }.get(n, set())
    if set(a) - allowed:
        raise CheckError(f"{op.name}: unexpected attributes {sorted(set(a) - allowed)}")

    def arity(k):
        if len(t) != k:
            raise CheckError(f"{op.name}: expected {k} operands, got {len(t)}")

    if n == "matmul":
        arity(2)
        return shapes.infer_matmul(t[0], t[1], bool(a.get("transpose_a")), bool(a.get("transpose_b")))
    if n in shapes.BINARY_OPS:
        arity(2)
        return shapes.infer_binary(n, t[0], t[1])
    if n in shapes.UNARY_OPS:
        arity(1)
        return shapes.infer_unary(n, t[0])
    if n in ("softmax", "log_softmax"):
        arity(1)
        return shapes.infer_softmax(t[0], a.get("axis", -1), n)
    if n == "layer_norm":
        arity(3)
        return shapes.infer_layer_norm(*t)
    if n == "batch_norm":
        arity(3)
        return shapes.infer_batch_norm(*t)
    if n == "conv2d":
        arity(2)
        return shapes.infer_conv2d(t[0], t[1], a.get("strides", (1, 1)), a.get("padding", (0, 0)),
                                   a.get("dilations", (1, 1)), a.get("groups", 1))
    if n in ("max_pool2d", "avg_pool2d"):
        arity(1)
        return shapes.infer_pool2d(t[0], a["kernel"], a.get("strides", a["kernel"]),
                                   a.get("padding", (0, 0)), n)
    if n == "global_avg_pool":
        arity(1)
        return shapes.infer_global_avg_pool(t[0])
    if n == "reshape":
        arity(1)
        return shapes.infer_reshape(t[0], op.result_type.shape)
    if n == "transpose":
        arity(1)
        return shapes.infer_transpose(t[0], a["permutation"])
    if n == "concat":
        return shapes.infer_concat(t, a["axis"])
    if n == "slice":
        arity(1)
        return shapes.infer_slice(t[0], a["offsets"], op.result_type.shape, a.get("strides"))
    if n == "embedding":
        arity(2)
        return shapes.infer_embedding(t[0], t[1])
    if n == "dropout":
        arity(2)
        return shapes.infer_dropout(t[0], t[1], a.get("rate", 0.5))
    if n == "softmax_cross_entropy":
        arity(2)
        return shapes.infer_softmax_cross_entropy(t[0], t[1])
    if n == "mse":
        arity(2)
        return shapes.infer_mse(t[0], t[1])
    raise CheckError(f"unknown op {op.name}")


def check_text(text: str) -> ParsedFunction:
    """Parses and type-checks one function; raises CheckError/ShapeError."""
    fn = parse_function(text)
    env: Dict[str, TensorType] = {}
    for name, type_, _ in fn.args:
        if name in env:
            raise CheckError(f"duplicate argument %{name}")
        env[name] = type_
    for op in fn.ops:
        if op.result in env:
            raise CheckError(f"%{op.result} defined twice")
        for name, type_ in zip(op.operands, op.operand_types):
            if name not in env:
                raise CheckError(f"{op.name}: %{name} used before definition")
            if env[name] != type_:
                raise CheckError(f"{op.name}: %{name} has type {env[name]}, printed as {type_}")
        if op.name == "arith.constant":
            float(op.splat)  # must be a plain number literal
        else:
            inferred = _infer(op)
            if inferred != op.result_type:
                raise CheckError(f"{op.name} -> %{op.result}: printed {op.result_type}, inferred {inferred}")
        env[op.result] = op.result_type
    if env.get(fn.result) != fn.result_type or fn.result_type != TensorType((), "f32"):
        raise CheckError(f"return of %{fn.result} does not match tensor<f32>")
    used = {o for op in fn.ops for o in op.operands} | {fn.result}
    dead = [op.result for op in fn.ops if op.result not in used]
    if dead:
        raise CheckError(f"dead values: {dead[:5]}")
    return fn


def to_generic(text: str) -> str:
    """Rewrites ``remat.*`` ops into MLIR's generic form (``"remat.x"(%a) ...``).

    Stock ``mlir-opt --allow-unregistered-dialect`` parses the result, which
    checks this package's syntax (signature, attributes, types) without the
    remat dialect being built.
    """
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*%[\w$.-]+ = )(remat\.[a-z_0-9]+) (.*)$", line)
        if m:
            head, _, sig = m.group(3).rpartition(" : (")
            operands, brace, attrs = head.partition(" {")
            line = f'{m.group(1)}"{m.group(2)}"({operands.strip()})' + \
                (f" {{{attrs}" if brace else "") + f" : ({sig}"
        out.append(line)
    return "\n".join(out) + "\n"
