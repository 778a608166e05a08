"""Reading remat MLIR text: the one parser module of every Python reader.

Lexical rules (tensor types, splitting at top-level commas, attribute
values) and the readers built on them:

* :func:`parse_function` reads the custom form of the single function this
  package writes (``remat_models.textcheck`` checks it;
  ``python/tests/torch_interp.py``, ``test/Driver/Inputs/check_reference.py``
  and ``bench/torch_step.py`` evaluate it);
* :func:`parse_functions` reads every function of a module printed by
  ``remat-opt`` in the custom form with the same op reader in a lenient
  mode: several results per op and per function, any attributes, upstream
  arith/math/tensor/linalg ops (``test/Transforms/autodiff_gradcheck.py``);
* :func:`parse_generic` reads every function of a module printed with
  ``--mlir-print-op-generic`` (``test/Execution/remat_exec.py``), recompute
  regions included.

Errors are :class:`MlirTextError` (a ``ValueError``).
"""

import re
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

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
_ANY_FUNC_RE = re.compile(
    r"func\.func @(\w+)\((.*?)\) -> (\(.*?\)|tensor<[^>]*>)(?: attributes \{[^}]*\})? \{\n(.*?)\n  \}", re.S)
_ARG_RE = re.compile(r"^%([\w$.-]+)\s*:\s*(tensor<[^>]*>)\s*(\{remat\.param\})?$")
_LOOSE_ARG_RE = re.compile(r"%([\w$.-]+): (tensor<[^>]*>)( \{remat.param\})?")
_OP_RE = re.compile(r"^%([\w$.-]+)\s*=\s*([a-z_]+\.[a-z_0-9]+)\s+(.*)$")
_MULTI_OP_RE = re.compile(r"^(%[\w$.-]+(?:, %[\w$.-]+)*)(?::(\d+))? = ([a-z_]+\.[a-z_0-9]+) (.*)$")
_CONST_RE = re.compile(r"^dense<([^>]*)>\s*:\s*(tensor<[^>]*>)$")
_RET_RE = re.compile(r"^return\s+%([\w$.-]+)\s*:\s*(tensor<[^>]*>)$")
_MAP_RE = re.compile(r"^(#\w+) = affine_map<\((.*?)\) -> \((.*?)\)>", re.M)
_SCALAR_CONST_RE = re.compile(r"%([\w$.-]+) = arith\.constant (\S+) : (f\d+)")
_EMPTY_RE = re.compile(r"%([\w$.-]+) = tensor\.empty\(\) : (tensor<[^>]*>)")
_LINALG_RE = re.compile(
    r"%([\w$.-]+) = (linalg\.(?:fill|matmul)) ins\((.*?) : .*?\) outs\((%[\w$.-]+) : .*?\) -> (tensor<[^>]*>)")
_GENERIC_RE = re.compile(
    r"%([\w$.-]+) = linalg\.generic \{indexing_maps = \[(.*?)\], iterator_types = \[(.*?)\]\} "
    r"(?:ins\((.*?) : .*?\) )?outs\((%[\w$.-]+) : .*?\)")
_BODY_OP_RE = re.compile(r"%([\w$.-]+) = ([a-z]+\.[a-z]+) (.*) : f\d+")


@dataclass
class ParsedOp:
    """One op. ``result``/``result_type`` are the first result; ``results``/
    ``result_types`` all of them (``%0:2`` gives ``0#0, 0#1``). Names carry
    no ``%``. ``splat`` is the literal of an ``arith.constant`` (a dense
    splat, or a scalar constant with a rank-0 ``result_type``). A
    ``linalg.generic`` has ``attrs`` ``indexing_maps`` (a (dims, results)
    pair per map) and ``iterator_types``, and ``region`` = (block argument
    names, body), the body a list of (op name, operands, result) with
    ``("linalg.yield", [value], None)`` last."""

    result: str
    name: str
    operands: List[str]
    attrs: Dict[str, object]
    operand_types: List[TensorType]
    result_type: TensorType
    splat: Optional[str] = None
    results: Optional[List[str]] = None
    result_types: Optional[List[TensorType]] = None
    region: Optional[Tuple[List[str], list]] = None

    def __post_init__(self):
        if self.results is None:
            self.results = [self.result]
        if self.result_types is None:
            self.result_types = [self.result_type]


@dataclass
class ParsedFunction:
    """``result``/``result_type`` are the first returned value; ``results``/
    ``result_types`` all of them."""

    name: str
    args: List[Tuple[str, TensorType, bool]]
    ops: List[ParsedOp]
    result: str
    result_type: TensorType
    results: Optional[List[str]] = None
    result_types: Optional[List[TensorType]] = None

    def __post_init__(self):
        if self.results is None:
            self.results = [self.result]
        if self.result_types is None:
            self.result_types = [self.result_type]

    def op_counts(self) -> Counter:
        return Counter(op.name for op in self.ops)

    @property
    def param_count(self) -> int:
        return sum(t.numel for _, t, is_param in self.args if is_param)


def _name(operand: str) -> str:
    return operand[1:] if operand.startswith("%") else operand


def _parse_upstream(line: str, lines: Iterator[str], maps: Dict[str, tuple]) -> Optional[ParsedOp]:
    """The upstream ops (arith/tensor/linalg) of a forward model, else None;
    a linalg.generic reads its region from ``lines``."""
    m = _SCALAR_CONST_RE.fullmatch(line)
    if m:
        return ParsedOp(m.group(1), "arith.constant", [], {}, [], TensorType((), m.group(3)), splat=m.group(2))
    m = _EMPTY_RE.fullmatch(line)
    if m:
        return ParsedOp(m.group(1), "tensor.empty", [], {}, [], parse_tensor_type(m.group(2)))
    m = _LINALG_RE.fullmatch(line)
    if m:
        operands = [_name(o) for o in split_top(m.group(3))] + [_name(m.group(4))]
        return ParsedOp(m.group(1), m.group(2), operands, {}, [], parse_tensor_type(m.group(5)))
    m = _GENERIC_RE.match(line)
    if not m:
        return None
    res, map_names, iters, ins, out = m.groups()
    args, body, rtype = [], [], None
    for inner in lines:
        inner = inner.strip()
        if inner.startswith("^bb0("):
            args = [_name(a.split(":")[0].strip()) for a in split_top(inner[5:inner.rindex(")")])]
        elif inner.startswith("} -> "):
            rtype = parse_tensor_type(inner[5:])
            break
        elif inner.startswith("linalg.yield"):
            body.append(("linalg.yield", [_name(inner.split()[1])], None))
        else:
            bm = _BODY_OP_RE.fullmatch(inner)
            if not bm:
                raise MlirTextError(f"cannot parse linalg.generic body line {inner!r}")
            body.append((bm.group(2), [_name(o) for o in split_top(bm.group(3))], bm.group(1)))
    if rtype is None:
        raise MlirTextError(f"unterminated linalg.generic {line!r}")
    try:
        indexing_maps = [maps[n] for n in split_top(map_names)]
    except KeyError as e:
        raise MlirTextError(f"unknown affine map {e} in {line!r}") from None
    operands = [_name(o) for o in (split_top(ins) if ins else [])] + [_name(out)]
    attrs = dict(indexing_maps=indexing_maps, iterator_types=[i.strip('"') for i in split_top(iters)])
    return ParsedOp(res, "linalg.generic", operands, attrs, [], rtype, region=(args, body))


def _parse_op(line: str, strict: bool = True, lines: Optional[Iterator[str]] = None,
              maps: Optional[Dict[str, tuple]] = None) -> ParsedOp:
    """One op line. ``strict``: the custom form this package writes (one
    tensor result, a functional type, i64/f64 attributes, dense constants);
    otherwise what ``remat-opt`` prints as well: several results, any
    attribute, ops typed ``: T``, and the upstream ops of
    :func:`_parse_upstream` (whose regions are read from ``lines``)."""
    if not strict:
        up = _parse_upstream(line, lines if lines is not None else iter(()), maps or {})
        if up:
            return up
    m = (_OP_RE if strict else _MULTI_OP_RE).match(line)
    if not m:
        raise MlirTextError(f"cannot parse op line {line!r}")
    if strict:
        result, name, rest = m.groups()
        results, count = [result], None
    else:
        res, count, name, rest = m.groups()
        results = [_name(r) for r in res.split(", ")]
        result = results[0]
    if name == "arith.constant":
        c = _CONST_RE.match(rest.strip()) if strict else re.search(r"dense<([^>]*)> : (tensor<[^>]*>)", rest)
        if not c:
            raise MlirTextError(f"cannot parse constant {line!r}")
        return ParsedOp(result, name, [], {}, [], parse_tensor_type(c.group(2)), splat=c.group(1))
    head, colon, sig = rest.rpartition(" : ")
    if not colon:
        raise MlirTextError(f"missing functional type in {line!r}")
    if strict:
        sm = re.fullmatch(r"\((.*)\)\s*->\s*(tensor<[^>]*>)", sig.strip())
        if not sm:
            raise MlirTextError(f"cannot parse functional type {sig!r}")
        operand_types = [parse_tensor_type(t) for t in split_top(sm.group(1))]
        result_types = [parse_tensor_type(sm.group(2))]
    else:
        sm = re.fullmatch(r"\((.*)\) -> \(?(.*?)\)?", sig.strip())
        if sm:
            operand_types = [parse_tensor_type(t) for t in split_top(sm.group(1))]
            result_types = [parse_tensor_type(t) for t in split_top(sm.group(2))]
        else:
            operand_types, result_types = [], [parse_tensor_type(sig)]
    attrs = {}
    brace = head.find("{")
    if brace >= 0:
        if not head.rstrip().endswith("}"):
            raise MlirTextError(f"unterminated attribute dict in {line!r}")
        attrs = parse_attr_dict(head[brace + 1:head.rstrip().rfind("}")], strict=strict)
        head = head[:brace]
    operands = []
    for o in split_top(head):
        if not re.fullmatch(r"%[\w$.#-]+" if not strict else r"%[\w$.-]+", o):
            raise MlirTextError(f"bad operand {o!r} in {line!r}")
        operands.append(o[1:])
    if strict and len(operands) != len(operand_types):
        raise MlirTextError(f"{len(operands)} operands but {len(operand_types)} types in {line!r}")
    if count:
        results = [f"{result}#{i}" for i in range(int(count))]
    return ParsedOp(results[0], name, operands, attrs, operand_types, result_types[0],
                    results=results, result_types=result_types)


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


def parse_functions(text: str) -> List[ParsedFunction]:
    """Every ``func.func`` of a module as ``remat-opt`` prints it (custom
    form): ops with several results, any attributes, ``remat.keep`` skipped,
    several returned values, and upstream arith/math/tensor/linalg ops, a
    ``linalg.generic``'s indexing maps resolved through the module's
    ``affine_map`` aliases."""
    maps = {m.group(1): (split_top(m.group(2)), split_top(m.group(3))) for m in _MAP_RE.finditer(text)}
    funcs = []
    for m in _ANY_FUNC_RE.finditer(text):
        name, arg_text, _, body = m.groups()
        args = []
        for item in split_top(arg_text):
            am = _LOOSE_ARG_RE.match(item)
            if not am:
                raise MlirTextError(f"cannot parse argument {item!r}")
            args.append((am.group(1), parse_tensor_type(am.group(2)), bool(am.group(3))))
        ops, rets, ret_types = [], None, []
        lines = iter(body.splitlines())
        for line in lines:
            line = line.strip()
            if not line or line.startswith("remat.keep"):
                continue
            if line.startswith("return"):
                vals, _, types = line[len("return "):].partition(" : ")
                rets = [_name(r) for r in split_top(vals)]
                ret_types = [parse_tensor_type(t) for t in split_top(types)]
                continue
            ops.append(_parse_op(line, strict=False, lines=lines, maps=maps))
        if not rets:
            raise MlirTextError(f"no return in @{name}")
        funcs.append(ParsedFunction(name, args, ops, rets[0], ret_types[0], results=rets,
                                    result_types=ret_types))
    return funcs


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
