"""What an importer returns: the MLIR text of the forward function, the
parameters and the state (with their framework names) and the example
batch."""

from dataclasses import dataclass, field
from typing import Any, List, Tuple

import numpy as np

from . import tensorfile


def _array(t) -> np.ndarray:
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _dtype(t) -> str:
    return "f32" if _array(t).dtype.kind == "f" else "i64"


@dataclass
class Imported:
    """The result of an import: MLIR text, the weights and the batch."""

    mlir: str
    func_name: str
    #: (buffer name, framework name, tensor or array) per parameter, in argument order.
    params: List[Tuple[str, str, Any]]
    #: (buffer name, tensor) per data input (inputs, target, dropout seeds).
    inputs: List[Tuple[str, Any]]
    #: Notes for the user (buffers the step does not update, ...).
    notes: List[str] = field(default_factory=list)
    #: (buffer name, framework name, tensor) per state argument (batch-norm
    #: running statistics, num_batches_tracked), in argument order; the step
    #: returns the next value of each as its ``next_<buffer>`` result.
    state: List[Tuple[str, str, Any]] = field(default_factory=list)

    def write_weights(self, index_path: str):
        """The parameters and the current state (what the runner's
        ``--weights`` reads: a model's state_dict)."""
        return tensorfile.write(index_path, [(b, "f32", _array(t), n)
                                             for b, n, t in self.params] +
                                [(b, _dtype(t), _array(t), n) for b, n, t in self.state])

    def write_inputs(self, index_path: str):
        out = []
        for b, t in self.inputs:
            a = _array(t)
            out.append((b, "f32" if a.dtype.kind == "f" else "i64", a, "-"))
        return tensorfile.write(index_path, out)
