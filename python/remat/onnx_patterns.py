"""Multi-node ONNX patterns that are one remat op.

``torch.onnx.export`` (PyTorch 1.13, opsets 13-17) has no single ONNX op for
some functions that remat has one for, and writes them as subgraphs:

* exact GELU: ``Div(x, sqrt(2)) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5)``
  (any association of the two products with ``x`` and 0.5; ``Mul(x,
  1/sqrt(2))`` for the division) becomes ``remat.gelu_erf``;
* layer normalization before opset 17: ``ReduceMean(x) -> Sub(x, mean) ->
  Pow(2) -> ReduceMean -> Add(eps) -> Sqrt -> Div``, optionally followed by
  ``Mul(scale) -> Add(bias)`` with rank-1 initializers, becomes
  ``remat.layer_norm`` (unit scale and zero bias when not affine).

:func:`find` returns the nodes a match covers; the importer skips the
interior ones and lowers the last one with the fused op. A subgraph matches
only when every interior value has exactly the pattern's consumers (none
is a graph output), so nothing that reads an interior value is lost. The
constants must be the pattern's (within float32 rounding); otherwise the
nodes stay separate and ``Erf`` / ``Sqrt`` on their own are reported as
unsupported.
"""

import math
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

#: Per fused node index: ("gelu_erf", x) or ("layer_norm", x, scale, bias, eps,
#: axis) with scale / bias an ONNX value name or None.
Match = Tuple


class _Graph:
    def __init__(self, nodes, outputs: Sequence[str], const: Callable[[str], Optional[np.ndarray]]):
        self.nodes = nodes
        self.const = const
        self.producer = {o: i for i, n in enumerate(nodes) for o in n.output}
        self.consumers: Dict[str, List[int]] = {}
        for i, n in enumerate(nodes):
            for name in n.input:
                if name:
                    self.consumers.setdefault(name, []).append(i)
        self.outputs = set(outputs)

    def only_consumer(self, value: str, op_type: str) -> Optional[int]:
        """The node reading ``value``, if it is the only reader and an
        ``op_type``, and ``value`` is no graph output."""
        users = self.consumers.get(value, [])
        if value in self.outputs or len(users) != 1 or self.nodes[users[0]].op_type != op_type:
            return None
        return users[0]

    def scalar(self, name: str, want: float, rel: float = 1e-6) -> bool:
        v = self.const(name)
        if v is None or v.size != 1 or v.dtype.kind != "f":
            return False
        return abs(float(v.reshape(-1)[0]) - want) <= rel * abs(want)

    def other(self, node, value: str) -> Optional[str]:
        """The other input of a binary node that reads ``value``."""
        a, b = node.input[0], node.input[1]
        return b if a == value else a if b == value else None


def _gelu(g: _Graph, ie: int):
    erf = g.nodes[ie]
    pre = g.producer.get(erf.input[0])
    if pre is None or g.only_consumer(erf.input[0], "Erf") != ie:
        return None
    scale = g.nodes[pre]
    if scale.op_type == "Div" and g.scalar(scale.input[1], math.sqrt(2.0)):
        x = scale.input[0]
    elif scale.op_type == "Mul" and g.scalar(scale.input[1], math.sqrt(0.5)):
        x = scale.input[0]
    elif scale.op_type == "Mul" and g.scalar(scale.input[0], math.sqrt(0.5)):
        x = scale.input[1]
    else:
        return None
    ia = g.only_consumer(erf.output[0], "Add")
    if ia is None or not g.scalar(g.other(g.nodes[ia], erf.output[0]), 1.0):
        return None
    a = g.nodes[ia].output[0]
    i1 = g.only_consumer(a, "Mul")
    if i1 is None:
        return None
    other = g.other(g.nodes[i1], a)
    if other == x or g.scalar(other, 0.5):
        # (x * a) * 0.5 or (a * 0.5) * x.
        i2 = g.only_consumer(g.nodes[i1].output[0], "Mul")
        if i2 is None:
            return None
        last = g.other(g.nodes[i2], g.nodes[i1].output[0])
        if not (g.scalar(last, 0.5) if other == x else last == x):
            return None
        return [pre, ie, ia, i1], i2, ("gelu_erf", x)
    # (x * 0.5) * a.
    ih = g.producer.get(other)
    h = g.nodes[ih] if ih is not None else None
    if h is None or h.op_type != "Mul" or g.only_consumer(other, "Mul") != i1:
        return None
    if g.other(h, x) is None or not g.scalar(g.other(h, x), 0.5):
        return None
    return [pre, ie, ia, ih], i1, ("gelu_erf", x)


def _axes(node) -> Optional[List[int]]:
    """The axes of a ReduceMean that keeps its dimensions (None otherwise)."""
    at = {a.name: a for a in node.attribute}
    if "keepdims" in at and at["keepdims"].i == 0:
        return None
    return list(at["axes"].ints) if "axes" in at else None


def _layer_norm(g: _Graph, ir: int):
    r1 = g.nodes[ir]
    axes = _axes(r1)
    if axes is None or len(axes) != 1 or len(r1.input) != 1:
        return None
    x, mean = r1.input[0], r1.output[0]
    isub = g.only_consumer(mean, "Sub")
    if isub is None or list(g.nodes[isub].input) != [x, mean]:
        return None
    d = g.nodes[isub].output[0]
    users = sorted(g.consumers.get(d, []), key=lambda i: g.nodes[i].op_type)
    if d in g.outputs or [g.nodes[i].op_type for i in users] != ["Div", "Pow"]:
        return None
    idiv, ipow = users
    if g.nodes[ipow].input[0] != d or not g.scalar(g.nodes[ipow].input[1], 2.0):
        return None
    ir2 = g.only_consumer(g.nodes[ipow].output[0], "ReduceMean")
    if ir2 is None or _axes(g.nodes[ir2]) != axes:
        return None
    iadd = g.only_consumer(g.nodes[ir2].output[0], "Add")
    if iadd is None:
        return None
    eps_name = g.other(g.nodes[iadd], g.nodes[ir2].output[0])
    eps = g.const(eps_name) if eps_name else None
    if eps is None or eps.size != 1 or not float(eps.reshape(-1)[0]) > 0:
        return None
    isqrt = g.only_consumer(g.nodes[iadd].output[0], "Sqrt")
    if isqrt is None or g.only_consumer(g.nodes[isqrt].output[0], "Div") != idiv:
        return None
    if list(g.nodes[idiv].input) != [d, g.nodes[isqrt].output[0]]:
        return None
    covered = [ir, isub, ipow, ir2, iadd, isqrt]
    last, scale, bias = idiv, None, None
    imul = g.only_consumer(g.nodes[idiv].output[0], "Mul")
    if imul is not None:
        w = g.other(g.nodes[imul], g.nodes[idiv].output[0])
        iab = g.only_consumer(g.nodes[imul].output[0], "Add")
        b = g.other(g.nodes[iab], g.nodes[imul].output[0]) if iab is not None else None
        if g.rank1(w) and b is not None and g.rank1(b):
            covered += [idiv, imul]
            last, scale, bias = iab, w, b
    return covered, last, ("layer_norm", x, scale, bias, float(eps.reshape(-1)[0]), axes[0])


def find(nodes, outputs: Sequence[str], const: Callable[[str], Optional[np.ndarray]],
         rank1: Callable[[str], bool]) -> Tuple[set, Dict[int, Match]]:
    """Returns (indices of the nodes a fused op replaces, {index of the last
    node of each match: the fused op}). ``const(name)`` is a value known
    before import (a Constant node or an initializer that is not trained),
    ``rank1(name)`` whether a value is a rank-1 initializer (a norm's scale
    or bias)."""
    g = _Graph(nodes, outputs, const)
    g.rank1 = rank1
    skip, fused = set(), {}
    for i, node in enumerate(nodes):
        match = None
        if node.op_type == "Erf":
            match = _gelu(g, i)
        elif node.op_type == "ReduceMean":
            match = _layer_norm(g, i)
        if match is None:
            continue
        covered, last, op = match
        if any(j in skip or j in fused for j in covered + [last]):
            continue
        skip.update(covered)
        fused[last] = op
    return skip, fused
