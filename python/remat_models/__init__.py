"""Generators of ``remat`` dialect MLIR for forward functions returning a loss.

Quick use::

    from remat_models import build_mlp
    print(build_mlp(depth=4, width=64, batch=32).text())

Command line: ``PYTHONPATH=python python3 -m remat_models --help`` or
``python/remat-gen.py --help``.
"""

from .builder import Function, FunctionBuilder, Value
from .mlir_types import TensorType, tensor
from .models import (MODELS, build_chain, build_gpt, build_lstm, build_mlp,
                     build_resnet, causal_mask, chain_param_count,
                     gpt_param_count, lstm_param_count, mlp_param_count,
                     resnet_param_count)
from .shapes import ShapeError

__all__ = [
    "Function", "FunctionBuilder", "Value", "TensorType", "tensor", "ShapeError",
    "MODELS", "build_chain", "build_gpt", "build_lstm", "build_mlp", "build_resnet",
    "causal_mask", "chain_param_count", "gpt_param_count", "lstm_param_count",
    "mlp_param_count", "resnet_param_count",
]
