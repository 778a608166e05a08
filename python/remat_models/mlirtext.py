"""Reading remat MLIR text: the one parser module of every Python reader.

Lexical rules (tensor types, splitting at top-level commas, attribute
values) and two readers built on them:

* :func:`parse_function` reads the custom form of the single function this
  package writes (``remat_models.textcheck`` checks it;
  ``python/tests/torch_interp.py``, ``test/Driver/Inputs/check_reference.py``
  and ``bench/torch_step.py`` evaluate it);
* :func:`parse_generic` reads every function of a module printed with
  ``--mlir-print-op-generic`` (``test/Execution/remat_exec.py``), recompute
  regions included.

``test/Transforms/autodiff_gradcheck.py`` reads ``remat-opt`` output with the
lexical rules. Errors are :class:`MlirTextError` (a ``ValueError``).
"""

import re
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .mlir_types import TensorType

TENSOR_TYPE_RE = re.compile(r"tensor<((?:\d+x)*)([a-z0-9]+)>")


class MlirTextError(ValueError):
    """The text is malformed or outside the syntax these readers know."""


def parse_tensor_type(text: str) -> TensorType:
    """``tensor<4x8xf32>`` -> TensorType((4, 8), "f32")."""
    m = TENSOR_TYPE_RE.fullmatch(text.strip())
    if not m:
        raise MlirTextError(f"cannot parse type {text!r}")
    try:
        return TensorType(tuple(int(d) for d in m.group(1).split("x") if d), m.group(2))
    except ValueError as e:
        raise MlirTextError(f"cannot parse type {text!r}: {e}") from None


def split_top(text: str, sep: str = ",") -> List[str]:
    """Splits on ``sep`` outside of <>, (), [], {} and string literals (the
    ``>`` of ``->`` closes nothing)."""
    parts, depth, cur, quote = [], 0, [], False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif not quote and ch in "<([{":
            depth += 1
        elif not quote and ch in ">)]}" and not (ch == ">" and text[i - 1:i] == "-"):
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def matching_bracket(text: str) -> int:
    """Index of the bracket closing the one at ``text[0]`` (``->`` is no
    bracket; string literals are skipped)."""
    depth, quote = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch in "<({[":
            depth += 1
        elif ch in ">)}]" and not (ch == ">" and text[i - 1:i] == "-"):
            depth -= 1
            if depth == 0:
                return i
    raise MlirTextError(f"unbalanced {text!r}")


#: (integer, float) attribute patterns: any width, or what this package writes.
_NUMBERS = (r"(-?\d+)\s*:\s*i\d+", r"(-?[\d.]+(?:[eE][-+]?\d+)?)\s*:\s*f\d+")
_STRICT_NUMBERS = (r"(-?\d+)\s*:\s*i64", r"(-?\d+\.\d*(?:[eE][-+]?\d+)?)\s*:\s*f64")


def parse_attr_value(text: str, strict: bool = False):
    """An attribute value: ``array<i64: ...>`` -> tuple, ``N : iK`` -> int,
    ``X : fK`` -> float. With ``strict`` (what this package writes) only i64
    and f64 scalars are accepted and anything else raises; otherwise a string
    literal -> str, ``dense<L> : T`` -> ("dense", L, TensorType) and anything
    else -> ("raw", text)."""
    text = text.strip()
    m = re.fullmatch(r"array<i64(?::\s*(.*))?>", text, re.S)
    if m:
        return tuple(int(v) for v in m.group(1).split(",")) if m.group(1) else ()
    int_re, float_re = _STRICT_NUMBERS if strict else _NUMBERS
    m = re.fullmatch(int_re, text)
    if m:
        return int(m.group(1))
    m = re.fullmatch(float_re, text)
    if m:
        return float(m.group(1))
    if strict:
        raise MlirTextError(f"cannot parse attribute value {text!r}")
    m = re.fullmatch(r'"(.*)"', text, re.S)
    if m:
        return m.group(1)
    m = re.fullmatch(r"dense<(.*)>\s*:\s*(tensor<[^>]*>)", text, re.S)
    if m:
        return ("dense", m.group(1), parse_tensor_type(m.group(2)))
    return ("raw", text)


def parse_attr_dict(text: str, strict: bool = False) -> Dict[str, object]:
    """The inside of ``{name = value, unit_name}``; a unit attribute is True.
    With ``strict``, names must be lower-case identifiers."""
    attrs = {}
    for item in split_top(text):
        name, eq, value = item.partition("=")
        name = name.strip()
        if strict and not re.fullmatch(r"[a-z_][a-z_0-9]*", name):
            raise MlirTextError(f"bad attribute name {name!r}")
        attrs[name] = parse_attr_value(value, strict) if eq else True
    return attrs


# --------------------------------------------------------------------------
# The custom form of one function written by this package
# --------------------------------------------------------------------------

_FUNC_RE = re.compile(r"func\.func\s+@([\w$.-]+)\s*\((.*?)\)\s*->\s*(tensor<[^>]*>)\s*\{", re.S)
_ARG_RE = re.compile(r"^%([\w$.-]+)\s*:\s*(tensor<[^>]*>)\s*(\{remat\.param\})?$")
_OP_RE = re.compile(r"^%([\w$.-]+)\s*=\s*([a-z_]+\.[a-z_0-9]+)\s+(.*)$")
_CONST_RE = re.compile(r"^dense<([^>]*)>\s*:\s*(tensor<[^>]*>)$")
_RET_RE = re.compile(r"^return\s+%([\w$.-]+)\s*:\s*(tensor<[^>]*>)$")


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
        raise MlirTextError(f"cannot parse op line {line!r}")
    result, name, rest = m.groups()
    if name == "arith.constant":
        c = _CONST_RE.match(rest.strip())
        if not c:
            raise MlirTextError(f"cannot parse constant {line!r}")
        return ParsedOp(result, name, [], {}, [], parse_tensor_type(c.group(2)), splat=c.group(1))
    head, colon, sig = rest.rpartition(" : ")
    if not colon:
        raise MlirTextError(f"missing functional type in {line!r}")
    sm = re.fullmatch(r"\((.*)\)\s*->\s*(tensor<[^>]*>)", sig.strip())
    if not sm:
        raise MlirTextError(f"cannot parse functional type {sig!r}")
    operand_types = [parse_tensor_type(t) for t in split_top(sm.group(1))]
    attrs = {}
    brace = head.find("{")
    if brace >= 0:
        if not head.rstrip().endswith("}"):
            raise MlirTextError(f"unterminated attribute dict in {line!r}")
        attrs = parse_attr_dict(head[brace + 1:head.rstrip().rfind("}")], strict=True)
        head = head[:brace]
    operands = []
    for o in split_top(head):
        if not re.fullmatch(r"%[\w$.-]+", o):
            raise MlirTextError(f"bad operand {o!r} in {line!r}")
        operands.append(o[1:])
    if len(operands) != len(operand_types):
        raise MlirTextError(f"{len(operands)} operands but {len(operand_types)} types in {line!r}")
    return ParsedOp(result, name, operands, attrs, operand_types, parse_tensor_type(sm.group(2)))


def parse_function(text: str) -> ParsedFunction:
    """The first ``func.func`` of ``text`` in the custom form this package
    writes: one tensor result per op, ``arith.constant`` splats, one
    returned tensor."""
    m = _FUNC_RE.search(text)
    if not m:
        raise MlirTextError("no func.func found")
    args = []
    for item in split_top(m.group(2)):
        am = _ARG_RE.match(item.strip())
        if not am:
            raise MlirTextError(f"cannot parse argument {item!r}")
        args.append((am.group(1), parse_tensor_type(am.group(2)), bool(am.group(3))))
    body = text[m.end():]
    end = body.rfind("}")
    if end < 0:
        raise MlirTextError("function body is not closed")
    lines = [l.strip() for l in body[:end].splitlines() if l.strip()]
    if not lines:
        raise MlirTextError("empty body")
    rm = _RET_RE.match(lines[-1])
    if not rm:
        raise MlirTextError(f"last line is not a return: {lines[-1]!r}")
    ops = [_parse_op(l) for l in lines[:-1]]
    return ParsedFunction(m.group(1), args, ops, rm.group(1), parse_tensor_type(rm.group(2)))


# --------------------------------------------------------------------------
# The generic form of a whole module
# --------------------------------------------------------------------------

@dataclass
class GenericOp:
    """One op in generic form; ``region`` is (block args, ops) for an op with
    one region (remat.recompute), else None."""

    results: List[str]
    name: str
    operands: List[str]
    attrs: Dict[str, object]
    in_types: List[TensorType]
    out_types: List[TensorType]
    region: Optional[Tuple[list, list]] = None


@dataclass
class GenericFunction:
    """A function in generic form: argument names and types, the indices of
    the remat.param arguments, result types and the body's ops."""

    name: str
    args: List[str]
    arg_types: List[TensorType]
    params: List[int]
    result_types: List[TensorType]
    ops: List[GenericOp]


_GENERIC_OP_RE = re.compile(
    r'^(?:(%[\w.$-]+)(?::(\d+))?\s*=\s*)?"([\w.]+)"\((.*?)\)\s*(.*)$')


def parse_type_list(text: str) -> List[TensorType]:
    """``(T1, T2)``, ``T1, T2`` or ``T`` -> the tensor types."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return [parse_tensor_type(t) for t in split_top(text) if t]


def _parse_properties(rest):
    """`<{props}> {attrs} : (ins) -> outs` with optional parts; also `({`."""
    props, attrs = {}, {}
    rest = rest.strip()
    if rest.startswith("<{"):
        i = matching_bracket(rest)
        props = parse_attr_dict(rest[2:i - 1])
        rest = rest[i + 1:].strip()
    if rest.startswith("{"):
        i = matching_bracket(rest)
        attrs = parse_attr_dict(rest[1:i])
        rest = rest[i + 1:].strip()
    props.update(attrs)
    return props, rest


def _parse_functional(text):
    text = text.strip()
    if not text.startswith(":"):
        raise MlirTextError(f"expected a functional type: {text!r}")
    ins, _, outs = text[1:].rpartition("->")
    return parse_type_list(ins), parse_type_list(outs)


def parse_generic(text: str) -> Dict[str, GenericFunction]:
    """The functions of a module printed with --mlir-print-op-generic, by
    name (external functions are skipped)."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    funcs = {}
    pos = 0

    def parse_block(pos):
        """Parses `^bb0(args):` and ops up to the closing `})`."""
        m = re.match(r"\^bb\d+\((.*)\):$", lines[pos])
        args = []
        if m:
            for a in split_top(m.group(1)):
                name, _, ty = a.partition(":")
                args.append((name.strip(), parse_tensor_type(ty)))
            pos += 1
        ops = []
        while not lines[pos].startswith("})"):
            op, pos = parse_op(pos)
            ops.append(op)
        return args, ops, pos

    def parse_op(pos):
        line = lines[pos]
        m = _GENERIC_OP_RE.match(line)
        if not m:
            raise MlirTextError(f"cannot parse {line!r}")
        res, count, name, operands, rest = m.groups()
        operands = [o.strip() for o in operands.split(",") if o.strip()]
        results = []
        if res:
            n = int(count) if count else 1
            results = [res] if n == 1 and not count else ["%s#%d" % (res, i) for i in range(n)]
        props, rest = _parse_properties(rest)
        if rest.startswith("({"):
            args, ops, pos = parse_block(pos + 1)
            ins, outs = _parse_functional(lines[pos][2:])
            op = GenericOp(results, name, operands, props, ins, outs)
            op.region = (args, ops)
            return op, pos + 1
        ins, outs = _parse_functional(rest)
        return GenericOp(results, name, operands, props, ins, outs), pos + 1

    while pos < len(lines):
        line = lines[pos]
        if line.startswith('"func.func"'):
            props, rest = _parse_properties(line[len('"func.func"() '):])
            name = props["sym_name"]
            ftype = props["function_type"][1]
            if rest.startswith("({"):
                args, ops, pos = parse_block(pos + 1)
                arg_attrs = props.get("arg_attrs", ("raw", "[]"))[1]
                attrs_list = split_top(arg_attrs.strip()[1:-1]) if arg_attrs.strip() != "[]" else []
                params = [i for i, a in enumerate(attrs_list) if "remat.param" in a]
                outs = ftype.rpartition("->")[2]
                funcs[name] = GenericFunction(name, [a for a, _ in args], [t for _, t in args],
                                              params, parse_type_list(outs), ops)
        pos += 1
    return funcs
