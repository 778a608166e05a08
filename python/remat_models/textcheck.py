"""An independent reader for the MLIR text this package writes.

It re-parses a function (signature, ops, attributes, types) with regular
expressions, checks SSA def-before-use, that each op's printed operand types
equal the types of the values it uses, and re-derives every result type from
the operand types and attributes with :mod:`remat_models.shapes`.  It only
understands the subset of MLIR syntax this package emits.
"""

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import shapes
from .mlir_types import TensorType

_TYPE_RE = re.compile(r"tensor<((?:\d+x)*)([a-z0-9]+)>")
_FUNC_RE = re.compile(r"func\.func\s+@([\w$.-]+)\s*\((.*?)\)\s*->\s*(tensor<[^>]*>)\s*\{", re.S)
_ARG_RE = re.compile(r"^%([\w$.-]+)\s*:\s*(tensor<[^>]*>)\s*(\{remat\.param\})?$")
_OP_RE = re.compile(r"^%([\w$.-]+)\s*=\s*([a-z_]+\.[a-z_0-9]+)\s+(.*)$")
_CONST_RE = re.compile(r"^dense<([^>]*)>\s*:\s*(tensor<[^>]*>)$")
_RET_RE = re.compile(r"^return\s+%([\w$.-]+)\s*:\s*(tensor<[^>]*>)$")


class CheckError(ValueError):
    """The text is malformed or ill typed."""


def parse_type(text: str) -> TensorType:
    m = _TYPE_RE.fullmatch(text.strip())
    if not m:
        raise CheckError(f"cannot parse type {text!r}")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return TensorType(dims, m.group(2))


def _split_top(text: str, sep: str = ",") -> List[str]:
    """Splits on ``sep`` outside of <>, (), [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_attr_value(text: str):
    text = text.strip()
    m = re.fullmatch(r"array<i64(?::\s*(.*))?>", text)
    if m:
        return tuple(int(v) for v in m.group(1).split(",")) if m.group(1) else ()
    m = re.fullmatch(r"(-?\d+)\s*:\s*i64", text)
    if m:
        return int(m.group(1))
    m = re.fullmatch(r"(-?\d+\.\d*(?:[eE][-+]?\d+)?)\s*:\s*f64", text)
    if m:
        return float(m.group(1))
    raise CheckError(f"cannot parse attribute value {text!r}")


def parse_attr_dict(text: str) -> Dict[str, object]:
    attrs = {}
    for item in _split_top(text):
        name, eq, value = item.partition("=")
        name = name.strip()
        if not re.fullmatch(r"[a-z_][a-z_0-9]*", name):
            raise CheckError(f"bad attribute name {name!r}")
        attrs[name] = parse_attr_value(value) if eq else True
    return attrs


@dataclass
class ParsedOp:
    result: str
    name: str
    operands: List[str]
    attrs: Dict[str, object]
    operand_types: List[TensorType]
    result_type: TensorType
    splat: Optional[str] = None


@dataclass
class ParsedFunction:
    name: str
    args: List[Tuple[str, TensorType, bool]]
    ops: List[ParsedOp]
    result: str
    result_type: TensorType

    def op_counts(self) -> Counter:
        return Counter(op.name for op in self.ops)

    @property
    def param_count(self) -> int:
        return sum(t.numel for _, t, is_param in self.args if is_param)


def _parse_op(line: str) -> ParsedOp:
    m = _OP_RE.match(line)
    if not m:
        raise CheckError(f"cannot parse op line {line!r}")
    result, name, rest = m.groups()
    if name == "arith.constant":
        c = _CONST_RE.match(rest.strip())
        if not c:
            raise CheckError(f"cannot parse constant {line!r}")
        return ParsedOp(result, name, [], {}, [], parse_type(c.group(2)), splat=c.group(1))
    head, colon, sig = rest.rpartition(" : ")
    if not colon:
        raise CheckError(f"missing functional type in {line!r}")
    sm = re.fullmatch(r"\((.*)\)\s*->\s*(tensor<[^>]*>)", sig.strip())
    if not sm:
        raise CheckError(f"cannot parse functional type {sig!r}")
    operand_types = [parse_type(t) for t in _split_top(sm.group(1))]
    attrs = {}
    brace = head.find("{")
    if brace >= 0:
        if not head.rstrip().endswith("}"):
            raise CheckError(f"unterminated attribute dict in {line!r}")
        attrs = parse_attr_dict(head[brace + 1:head.rstrip().rfind("}")])
        head = head[:brace]
    operands = []
    for o in _split_top(head):
        if not re.fullmatch(r"%[\w$.-]+", o):
            raise CheckError(f"bad operand {o!r} in {line!r}")
        operands.append(o[1:])
    if len(operands) != len(operand_types):
        raise CheckError(f"{len(operands)} operands but {len(operand_types)} types in {line!r}")
    return ParsedOp(result, name, operands, attrs, operand_types, parse_type(sm.group(2)))


def parse_function(text: str) -> ParsedFunction:
    m = _FUNC_RE.search(text)
    if not m:
        raise CheckError("no func.func found")
    args = []
    for item in _split_top(m.group(2)):
        am = _ARG_RE.match(item.strip())
        if not am:
            raise CheckError(f"cannot parse argument {item!r}")
        args.append((am.group(1), parse_type(am.group(2)), bool(am.group(3))))
    body = text[m.end():]
    end = body.rfind("}")
    if end < 0:
        raise CheckError("function body is not closed")
    lines = [l.strip() for l in body[:end].splitlines() if l.strip()]
    if not lines:
        raise CheckError("empty body")
    rm = _RET_RE.match(lines[-1])
    if not rm:
        raise CheckError(f"last line is not a return: {lines[-1]!r}")
    ops = [_parse_op(l) for l in lines[:-1]]
    return ParsedFunction(m.group(1), args, ops, rm.group(1), parse_type(rm.group(2)))


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
