"""A tiny builder that emits ``remat`` dialect functions as MLIR text."""

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import shapes
from .mlir_types import (Attr, F64Attr, I64ArrayAttr, I64Attr, TensorType,
                         UnitAttr, format_attr_dict, format_float, is_float)

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.-]*$")


@dataclass(frozen=True)
class Value:
    """An SSA value: its printed name (without '%') and its type."""

    name: str
    type: TensorType

    def __str__(self) -> str:
        return "%" + self.name


@dataclass
class Argument:
    value: Value
    param: bool
    #: Non-trainable state the step reads and returns updated (``{remat.state}``).
    state: bool = False


@dataclass
class Operation:
    """One emitted op: ``%res = <name> operands {attrs} : (types) -> type``."""

    name: str
    result: Value
    operands: Tuple[Value, ...] = ()
    attrs: Tuple[Tuple[str, Attr], ...] = ()
    #: For ``arith.constant``: the splat value.
    splat: Optional[float] = None
    #: For ``arith.constant``: the raw little-endian bytes of a non-splat value.
    raw: Optional[bytes] = None
    #: For an op written verbatim (a ``linalg.generic``): its text after
    #: ``%result = ``.
    body: Optional[str] = None
    #: For an op with several results: all of them, ``result`` first, named
    #: ``<base>#<i>`` (defined as ``%<base>:<n>``).
    results: Tuple[Value, ...] = ()

    def render(self) -> str:
        if self.body is not None:
            return f"{self.result} = {self.body}"
        if self.name == "arith.constant" and self.raw is not None:
            return f'{self.result} = arith.constant dense<"0x{self.raw.hex().upper()}"> : {self.result.type}'
        if self.name == "arith.constant":
            lit = format_float(self.splat) if is_float(self.result.type.dtype) else str(int(self.splat))
            return f"{self.result} = arith.constant dense<{lit}> : {self.result.type}"
        operands = ", ".join(str(v) for v in self.operands)
        attrs = format_attr_dict(list(self.attrs))
        in_types = ", ".join(str(v.type) for v in self.operands)
        if self.results:
            base = self.results[0].name.split("#")[0]
            head = f"%{base}:{len(self.results)} = {self.name} {operands}"
            out_types = "(" + ", ".join(str(v.type) for v in self.results) + ")"
        else:
            head = f"{self.result} = {self.name} {operands}"
            out_types = str(self.result.type)
        if attrs:
            head += " " + attrs
        return f"{head} : ({in_types}) -> {out_types}"


@dataclass
class Function:
    """A finished function with its text and a few statistics."""

    name: str
    args: List[Argument]
    ops: List[Operation]
    result: Value
    #: (next value, index of the state argument it updates) per state result.
    state_results: List[Tuple[Value, int]] = field(default_factory=list)

    @property
    def params(self) -> List[Value]:
        return [a.value for a in self.args if a.param]

    @property
    def inputs(self) -> List[Value]:
        return [a.value for a in self.args if not a.param]

    @property
    def param_count(self) -> int:
        """Number of scalar parameters (sum of element counts of params)."""
        return sum(v.type.numel for v in self.params)

    @property
    def param_bytes(self) -> int:
        return sum(v.type.nbytes for v in self.params)

    @property
    def activation_bytes(self) -> int:
        """Total bytes of all op results (what a keep-everything schedule stores)."""
        return sum(v.type.nbytes for op in self.ops for v in (op.results or (op.result,)))

    def op_counts(self) -> Counter:
        return Counter(op.name for op in self.ops)

    def text(self) -> str:
        lines = [f"func.func @{self.name}("]
        for i, arg in enumerate(self.args):
            sep = "," if i + 1 < len(self.args) else ""
            attr = " {remat.param}" if arg.param else " {remat.state}" if arg.state else ""
            lines.append(f"    {arg.value}: {arg.value.type}{attr}{sep}")
        results = [self.result] + [v for v, _ in self.state_results]
        if self.state_results:
            types = [str(self.result.type)] + [f"{v.type} {{remat.state = {i} : i64}}"
                                               for v, i in self.state_results]
            lines.append(f") -> ({', '.join(types)}) {{")
        else:
            lines.append(f") -> {self.result.type} {{")
        lines.extend("  " + op.render() for op in self.ops)
        lines.append(f"  return {', '.join(str(v) for v in results)} : "
                     f"{', '.join(str(v.type) for v in results)}")
        lines.append("}")
        return "\n".join(lines) + "\n"


class FunctionBuilder:
    """Appends ops to a function body, inferring every result type."""

    def __init__(self, name: str):
        if not _NAME_RE.match(name):
            raise ValueError(f"invalid function name {name!r}")
        self.name = name
        self.args: List[Argument] = []
        self.ops: List[Operation] = []
        self._names: set = set()
        self._next_id = 0

    # -- values ------------------------------------------------------------

    def _fresh(self) -> str:
        name = str(self._next_id)
        self._next_id += 1
        return name

    def _result(self, type_: TensorType, name: Optional[str]) -> Value:
        if name is None:
            name = self._fresh()
        elif name in self._names or not _NAME_RE.match(name):
            raise ValueError(f"duplicate or invalid SSA name {name!r}")
        self._names.add(name)
        return Value(name, type_)

    def arg(self, name: str, type_: TensorType, param: bool = False,
            state: bool = False) -> Value:
        """Adds a function argument; ``param`` marks it ``{remat.param}``,
        ``state`` ``{remat.state}``."""
        if self.ops:
            raise ValueError("add all arguments before the first op")
        value = self._result(type_, name)
        self.args.append(Argument(value, param, state))
        return value

    def param(self, name: str, type_: TensorType) -> Value:
        return self.arg(name, type_, param=True)

    def state(self, name: str, type_: TensorType) -> Value:
        return self.arg(name, type_, state=True)

    def _emit(self, op: str, operands: Sequence[Value], result_type: TensorType,
              attrs: Sequence[Tuple[str, Attr]] = (), name: Optional[str] = None) -> Value:
        for v in operands:
            if not isinstance(v, Value):
                raise TypeError(f"{op}: operand {v!r} is not a Value")
        result = self._result(result_type, name)
        self.ops.append(Operation(op, result, tuple(operands), tuple(attrs)))
        return result

    def constant(self, value: float, type_: TensorType, name: Optional[str] = None) -> Value:
        """``arith.constant dense<value> : type`` (a splat)."""
        result = self._result(type_, name)
        self.ops.append(Operation("arith.constant", result, splat=value))
        return result

    def dense_constant(self, raw: bytes, type_: TensorType, name: Optional[str] = None) -> Value:
        """``arith.constant dense<"0x...">``: ``raw`` holds the elements of
        ``type_`` in row-major order, little-endian."""
        if len(raw) != type_.nbytes:
            raise ValueError(f"{len(raw)} bytes for a constant of type {type_}")
        result = self._result(type_, name)
        self.ops.append(Operation("arith.constant", result, raw=raw))
        return result

    def increment(self, x: Value, step: int = 1, name: Optional[str] = None) -> Value:
        """``x + step`` for an integer tensor (a step counter such as a batch
        norm's ``num_batches_tracked``), as an upstream ``linalg.generic``
        (the remat elementwise ops are float-only)."""
        if is_float(x.type.dtype):
            raise ValueError(f"increment of a float tensor {x.type}")
        rank = len(x.type.shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        amap = f"affine_map<({dims}) -> ({dims})>"
        iters = ", ".join(['"parallel"'] * rank)
        elt = x.type.dtype
        init = self._result(x.type, None)
        self.ops.append(Operation("tensor.empty", init, body=f"tensor.empty() : {x.type}"))
        result = self._result(x.type, name)
        # Fresh names for the payload: a region may not redefine a name
        # visible from the function body.
        a, b, k, r = (self._fresh() for _ in range(4))
        body = (f"linalg.generic {{indexing_maps = [{amap}, {amap}], iterator_types = [{iters}]}} "
                f"ins({x} : {x.type}) outs({init} : {x.type}) {{\n"
                f"  ^bb0(%{a}: {elt}, %{b}: {elt}):\n"
                f"    %{k} = arith.constant {int(step)} : {elt}\n"
                f"    %{r} = arith.addi %{a}, %{k} : {elt}\n"
                f"    linalg.yield %{r} : {elt}\n"
                f"  }} -> {x.type}")
        self.ops.append(Operation("linalg.generic", result, (x,), body=body))
        return result

    # -- remat ops ---------------------------------------------------------

    def matmul(self, a: Value, b: Value, transpose_a: bool = False,
               transpose_b: bool = False, name=None) -> Value:
        t = shapes.infer_matmul(a.type, b.type, transpose_a, transpose_b)
        attrs = []
        if transpose_a:
            attrs.append(("transpose_a", UnitAttr()))
        if transpose_b:
            attrs.append(("transpose_b", UnitAttr()))
        return self._emit("remat.matmul", [a, b], t, attrs, name)

    def _binary(self, op: str, a: Value, b: Value, name=None) -> Value:
        return self._emit("remat." + op, [a, b], shapes.infer_binary(op, a.type, b.type), name=name)

    def add(self, a, b, name=None): return self._binary("add", a, b, name)
    def sub(self, a, b, name=None): return self._binary("sub", a, b, name)
    def mul(self, a, b, name=None): return self._binary("mul", a, b, name)
    def div(self, a, b, name=None): return self._binary("div", a, b, name)

    def unary(self, op: str, x: Value, name=None) -> Value:
        if op not in shapes.UNARY_OPS:
            raise ValueError(f"unknown unary op {op!r}")
        return self._emit("remat." + op, [x], shapes.infer_unary(op, x.type), name=name)

    def relu(self, x, name=None): return self.unary("relu", x, name)
    def relu6(self, x, name=None): return self.unary("relu6", x, name)
    def gelu(self, x, name=None): return self.unary("gelu", x, name)
    def gelu_erf(self, x, name=None): return self.unary("gelu_erf", x, name)
    def tanh(self, x, name=None): return self.unary("tanh", x, name)
    def sigmoid(self, x, name=None): return self.unary("sigmoid", x, name)
    def exp(self, x, name=None): return self.unary("exp", x, name)
    def log(self, x, name=None): return self.unary("log", x, name)
    def neg(self, x, name=None): return self.unary("neg", x, name)

    def softmax(self, x: Value, axis: int = -1, name=None) -> Value:
        t = shapes.infer_softmax(x.type, axis, "softmax")
        return self._emit("remat.softmax", [x], t, [("axis", I64Attr(axis))], name)

    def log_softmax(self, x: Value, axis: int = -1, name=None) -> Value:
        t = shapes.infer_softmax(x.type, axis, "log_softmax")
        return self._emit("remat.log_softmax", [x], t, [("axis", I64Attr(axis))], name)

    def layer_norm(self, x, gamma, beta, epsilon: float = 1e-5, name=None) -> Value:
        t = shapes.infer_layer_norm(x.type, gamma.type, beta.type)
        return self._emit("remat.layer_norm", [x, gamma, beta], t, [("epsilon", F64Attr(epsilon))], name)

    def batch_norm(self, x, gamma, beta, epsilon: float = 1e-5, name=None) -> Value:
        t = shapes.infer_batch_norm(x.type, gamma.type, beta.type)
        return self._emit("remat.batch_norm", [x, gamma, beta], t, [("epsilon", F64Attr(epsilon))], name)

    def batch_norm_with_stats(self, x, gamma, beta, epsilon: float = 1e-5,
                              name=None) -> Tuple[Value, Value, Value]:
        """``remat.batch_norm`` with its two statistics results: the
        normalized value, the batch mean and the unbiased batch variance
        (``[C]`` each), for a running-statistics update."""
        t = shapes.infer_batch_norm(x.type, gamma.type, beta.type)
        for v in (x, gamma, beta):
            if not isinstance(v, Value):
                raise TypeError(f"batch_norm: operand {v!r} is not a Value")
        if x.type.numel // x.type.shape[1] < 2:
            raise ValueError(f"batch_norm statistics of {x.type}: the unbiased variance "
                             "needs at least two elements per channel")
        base = self._result(t, name).name
        stat = gamma.type
        results = (Value(f"{base}#0", t), Value(f"{base}#1", stat), Value(f"{base}#2", stat))
        self.ops.append(Operation("remat.batch_norm", results[0], (x, gamma, beta),
                                  (("epsilon", F64Attr(epsilon)),), results=results))
        return results

    def conv2d(self, x, w, strides=(1, 1), padding=(0, 0), dilations=(1, 1),
               groups: int = 1, name=None) -> Value:
        t = shapes.infer_conv2d(x.type, w.type, strides, padding, dilations, groups)
        attrs = [("strides", I64ArrayAttr(strides)), ("padding", I64ArrayAttr(padding)),
                 ("dilations", I64ArrayAttr(dilations)), ("groups", I64Attr(groups))]
        return self._emit("remat.conv2d", [x, w], t, attrs, name)

    def _pool(self, op, x, kernel, strides, padding, name) -> Value:
        t = shapes.infer_pool2d(x.type, kernel, strides, padding, op)
        attrs = [("kernel", I64ArrayAttr(kernel)), ("strides", I64ArrayAttr(strides)),
                 ("padding", I64ArrayAttr(padding))]
        return self._emit("remat." + op, [x], t, attrs, name)

    def max_pool2d(self, x, kernel=(2, 2), strides=(2, 2), padding=(0, 0), name=None):
        return self._pool("max_pool2d", x, kernel, strides, padding, name)

    def avg_pool2d(self, x, kernel=(2, 2), strides=(2, 2), padding=(0, 0), name=None):
        return self._pool("avg_pool2d", x, kernel, strides, padding, name)

    def global_avg_pool(self, x, name=None) -> Value:
        return self._emit("remat.global_avg_pool", [x], shapes.infer_global_avg_pool(x.type), name=name)

    def reshape(self, x, shape: Sequence[int], name=None) -> Value:
        return self._emit("remat.reshape", [x], shapes.infer_reshape(x.type, shape), name=name)

    def transpose(self, x, permutation: Sequence[int], name=None) -> Value:
        t = shapes.infer_transpose(x.type, permutation)
        return self._emit("remat.transpose", [x], t, [("permutation", I64ArrayAttr(permutation))], name)

    def concat(self, xs: Sequence[Value], axis: int, name=None) -> Value:
        t = shapes.infer_concat([x.type for x in xs], axis)
        return self._emit("remat.concat", list(xs), t, [("axis", I64Attr(axis))], name)

    def slice(self, x, offsets: Sequence[int], sizes: Sequence[int],
              strides: Optional[Sequence[int]] = None, name=None) -> Value:
        strides = [1] * x.type.rank if strides is None else list(strides)
        t = shapes.infer_slice(x.type, offsets, sizes, strides)
        attrs = [("offsets", I64ArrayAttr(offsets)), ("strides", I64ArrayAttr(strides))]
        return self._emit("remat.slice", [x], t, attrs, name)

    def embedding(self, table, indices, name=None) -> Value:
        return self._emit("remat.embedding", [table, indices],
                          shapes.infer_embedding(table.type, indices.type), name=name)

    def dropout(self, x, seed, rate: float = 0.1, name=None) -> Value:
        t = shapes.infer_dropout(x.type, seed.type, rate)
        return self._emit("remat.dropout", [x, seed], t, [("rate", F64Attr(rate))], name)

    def softmax_cross_entropy(self, logits, labels, name=None) -> Value:
        t = shapes.infer_softmax_cross_entropy(logits.type, labels.type)
        return self._emit("remat.softmax_cross_entropy", [logits, labels], t, name=name)

    def mse(self, pred, target, name=None) -> Value:
        return self._emit("remat.mse", [pred, target], shapes.infer_mse(pred.type, target.type), name=name)

    # -- finishing ---------------------------------------------------------

    def finish(self, result: Value,
               state: Sequence[Tuple[Value, Value]] = ()) -> Function:
        """The function returning the loss ``result`` and, for each
        ``(next value, state argument)`` of ``state``, the next value marked
        ``{remat.state = <argument index>}``."""
        if result.type != TensorType((), "f32"):
            raise ValueError(f"function must return tensor<f32>, got {result.type}")
        index = {a.value.name: i for i, a in enumerate(self.args) if a.state}
        state_results = []
        for value, arg in state:
            if arg.name not in index or value.type != arg.type:
                raise ValueError(f"{value} is not the next value of a state argument ({arg})")
            state_results.append((value, index[arg.name]))
        return Function(self.name, list(self.args), list(self.ops), result, state_results)
