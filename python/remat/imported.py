"""What an importer returns: the MLIR text of the forward function, the
parameters (with their framework names) and the example batch."""

from dataclasses import dataclass, field
from typing import Any, List, Tuple

import numpy as np

from . import tensorfile


def _array(t) -> np.ndarray:
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


@dataclass
class Imported:
    """The result of an import: MLIR text, the weights and the batch."""

    mlir: str
    func_name: str
    #: (buffer name, framework name, tensor or array) per parameter, in argument order.
    params: List[Tuple[str, str, Any]]
    #: (buffer name, tensor) per data input (inputs, target, dropout seeds).
    inputs: List[Tuple[str, Any]]
    #: Notes for the user (state the step does not update, ...).
    notes: List[str] = field(default_factory=list)

    def write_weights(self, index_path: str):
        return tensorfile.write(index_path, [(b, "f32", _array(t), n)
                                             for b, n, t in self.params])

    def write_inputs(self, index_path: str):
        out = []
        for b, t in self.inputs:
            a = _array(t)
            out.append((b, "f32" if a.dtype.kind == "f" else "i64", a, "-"))
        return tensorfile.write(index_path, out)
