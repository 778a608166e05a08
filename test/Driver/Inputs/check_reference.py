"""Checks a compiled training step against torch autograd.

usage: check_reference.py MODEL.mlir DUMP_DIR

MODEL.mlir is the forward model in the remat dialect (as written by
python/remat-gen.py); DUMP_DIR holds the buffers `runner --dump` wrote after
its last step. The forward function is evaluated in float64 with torch on the
dumped inputs and parameters (python/tests/torch_interp.py), the loss is
differentiated with autograd, and the loss and every gradient are compared
with the compiled results. Prints one line per result and exits non-zero on
a mismatch.
"""

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

from remat_models.mlirtext import parse_function  # noqa: E402
import torch_interp  # noqa: E402
from dumps import load_dump  # noqa: E402

# Relative error allowed on a result, measured against its max magnitude.
TOLERANCE = 2e-4


def load_step(model, directory, dtype):
    """The forward function of MODEL.mlir and its arguments as torch tensors
    from the dump in DIRECTORY: floats as `dtype` (parameters requiring
    grad), integers as they are. Returns (function, buffers, inputs by name,
    parameter names in argument order); bench/torch_step.py uses it too."""
    with open(model) as f:
        fn = parse_function(f.read())
    buffers = load_dump(directory)
    inputs, params = {}, []
    for name, _, is_param in fn.args:
        array = buffers[name][1]
        if array.dtype.kind == "f":
            tensor = torch.tensor(array, dtype=dtype, requires_grad=is_param)
        else:
            tensor = torch.tensor(array)
        inputs[name] = tensor
        if is_param:
            params.append(name)
    return fn, buffers, inputs, params


def main():
    model, directory = sys.argv[1], sys.argv[2]
    fn, buffers, inputs, params = load_step(model, directory, torch.float64)
    loss = torch_interp.evaluate(fn, inputs)
    grads = torch.autograd.grad(loss, [inputs[p] for p in params])

    expected = {"loss": loss.detach().numpy()}
    for name, grad in zip(params, grads):
        expected["grad_" + name] = grad.numpy()
    failures = 0
    worst = 0.0
    for name, reference in expected.items():
        actual = buffers[name][1].astype(np.float64)
        scale = max(np.abs(reference).max(), 1e-30)
        error = float(np.abs(actual - reference).max() / scale)
        worst = max(worst, error)
        if not error <= TOLERANCE:
            failures += 1
            print(f"MISMATCH {name}: relative error {error:.3g}")
    print(f"checked {len(expected)} results against torch: "
          f"{'all match' if failures == 0 else f'{failures} mismatches'} "
          f"(tolerance {TOLERANCE})")
    print(f"worst relative error {worst:.3g}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
