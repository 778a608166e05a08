"""PyTorch models in: a torch.nn.Module, example inputs and a loss become a
remat forward function (parameters as ``{remat.param}`` arguments, the
buffers the step updates as ``{remat.state}`` arguments, the scalar loss and
the next state values as the results) and a tensor file with the model's
weights and state.

Tracing uses ``functorch.make_fx`` over ``functionalize`` (aten-level,
mutation-free graphs, the tools of PyTorch 1.13). Every aten op that the
loss depends on is mapped to remat ops with the same semantics by
:mod:`remat.aten`; an op without a mapping is an :class:`UnsupportedOp`
error naming the aten op and the module it came from.

    python3 -m remat.torch_import --zoo resnet18 -o model.mlir --weights w.index
"""

import argparse
import contextlib
import importlib.util
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.fx
from functorch import make_fx
from functorch.experimental import functionalize
from torch.nn.utils import stateless

from . import aten
from .imported import Imported

# -- dropout as one traced op ------------------------------------------------

_ORIG_DROPOUT = torch.nn.functional.dropout


@contextlib.contextmanager
def _dropout_as_op(counter: List[int]):
    """Makes F.dropout in training mode one ``remat::dropout`` node per call
    site, instead of the bernoulli/mul decomposition whose mask could not be
    reproduced."""

    def patched(input, p=0.5, training=True, inplace=False):
        if not training or p == 0.0:
            return _ORIG_DROPOUT(input, p, training, inplace)
        site = counter[0]
        counter[0] += 1
        return torch.ops.remat.dropout(input, float(p), site)

    torch.nn.functional.dropout = patched
    try:
        yield
    finally:
        torch.nn.functional.dropout = _ORIG_DROPOUT


@contextlib.contextmanager
def _record_module_paths(model: torch.nn.Module):
    """Stamps every traced node with the qualified name of the innermost
    module whose forward was running (``node.meta['remat_module']``)."""
    names = {id(m): n for n, m in model.named_modules()}
    stack: List[str] = []

    def pre(module, inputs):
        stack.append(names.get(id(module), type(module).__name__))

    def post(module, inputs, output):
        if stack:
            stack.pop()

    original = torch.fx.Graph.create_node

    def create_node(graph, *args, **kwargs):
        node = original(graph, *args, **kwargs)
        node.meta["remat_module"] = stack[-1] if stack else ""
        return node

    h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
    h2 = torch.nn.modules.module.register_module_forward_hook(post)
    torch.fx.Graph.create_node = create_node
    try:
        yield
    finally:
        torch.fx.Graph.create_node = original
        h1.remove()
        h2.remove()


# -- the importer --------------------------------------------------------------


def import_module(model: torch.nn.Module, inputs: Sequence[torch.Tensor],
                  target: torch.Tensor, loss: Callable, func_name: str = "forward",
                  input_names: Optional[Sequence[str]] = None,
                  dropout_seed: int = 1) -> Imported:
    """Traces ``loss(model(*inputs), target)`` and maps it to remat IR.

    The model runs in its current mode (``model.train()`` for a training
    step: batch statistics in batch norm, dropout active)."""
    for path, m in model.named_modules():
        if (isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training
                and m.track_running_stats and m.momentum is None):
            raise aten.UnsupportedOp(
                f"batch norm '{path}' has momentum=None (a cumulative moving average, whose "
                "factor 1/num_batches_tracked PyTorch computes outside the traced graph); "
                "set a momentum")
    params = list(model.named_parameters())
    # Snapshots: tracing runs the model, and a training-mode batch norm
    # updates the running statistics it is given in place; the model's own
    # buffers must not change, and the state arguments start from their
    # values before the import.
    buffers = [(n, b.detach().clone()) for n, b in model.named_buffers()]
    names = [n for n, _ in params] + [n for n, _ in buffers]
    n_state = len(names)

    def step(*args):
        state = dict(zip(names, args[:n_state]))
        out = stateless.functional_call(model, state, tuple(args[n_state:-1]))
        return loss(out, args[-1])

    sites = [0]
    example = [p.detach() for _, p in params] + [b.clone() for _, b in buffers] + \
        [t.detach() for t in inputs] + [target.detach()]
    with _dropout_as_op(sites), _record_module_paths(model):
        graph = make_fx(functionalize(step))(*example)

    if input_names is None:
        input_names = ["input"] if len(inputs) == 1 else [f"input{i}" for i in range(len(inputs))]
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    kinds = []
    for i, node in enumerate(placeholders):
        if i < len(params):
            kinds.append(("param", params[i][0], params[i][1]))
        elif i < n_state:
            kinds.append(("buffer", buffers[i - len(params)][0], buffers[i - len(params)][1]))
        elif i < len(placeholders) - 1:
            kinds.append(("input", input_names[i - n_state], inputs[i - n_state]))
        else:
            kinds.append(("input", "target", target))
    return aten.lower_graph(graph, placeholders, kinds, sites[0], func_name,
                            dropout_seed, Imported)


# -- command line ---------------------------------------------------------------


def _load_spec(args):
    if args.zoo:
        from . import zoo
        return zoo.build(args.zoo)
    path, _, fn = args.model.partition(":")
    spec = importlib.util.spec_from_file_location("remat_user_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, fn or "model")()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="remat-import-torch",
        description="Import a torch.nn.Module with example inputs and a loss as a remat "
                    "forward function (then remat-opt --remat-autodiff or remat-compile).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="FILE.py:FUNCTION returning (module, inputs, target, loss)")
    src.add_argument("--zoo", help="a bundled model: " + ", ".join(__import__(
        "remat.zoo", fromlist=["MODELS"]).MODELS))
    p.add_argument("-o", "--output", required=True, help="the MLIR file to write")
    p.add_argument("--weights", help="write the parameters to this tensor index (.index)")
    p.add_argument("--inputs", help="write the example batch to this tensor index (.index)")
    p.add_argument("--func-name", default="forward")
    args = p.parse_args(argv)
    model, inputs, target, loss = _load_spec(args)
    try:
        imported = import_module(model, inputs, target, loss, func_name=args.func_name)
    except aten.UnsupportedOp as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with open(args.output, "w") as f:
        f.write(imported.mlir)
    if args.weights:
        imported.write_weights(args.weights)
    if args.inputs:
        imported.write_inputs(args.inputs)
    for note in imported.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
