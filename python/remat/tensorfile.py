"""The tensor file that carries weights and batches to a compiled step.

A tensor file is two files side by side:

* ``NAME.bin``: the raw tensors, little-endian, row-major, one after the
  other in the order of the index, each starting at a multiple of 64 bytes;
* ``NAME.index``: text, one header line and one line per tensor::

      remat-tensors 1 NAME.bin
      <buffer> <dtype> <offset> <bytes> <rank> <dim>... <source>

  ``<buffer>`` is the buffer's name in the header that ``remat-compile
  --header`` writes (the function argument's SSA name), ``<dtype>`` one of
  ``f32 f64 f16 bf16 i64 i32 i16 i8 i1``, ``<source>`` the name the tensor
  has in the framework (``layer1.0.conv1.weight``) or ``-``.

``remat-runner --weights NAME.index`` / ``--inputs NAME.index`` read it
(tools/remat-runner/runner.cpp); :func:`read` reads it back in Python.
"""

import os
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

MAGIC = "remat-tensors"
VERSION = 1
ALIGN = 64

_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
          "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8,
          "i1": np.uint8}


@dataclass
class Entry:
    buffer: str
    dtype: str
    shape: Tuple[int, ...]
    source: str
    offset: int = 0
    nbytes: int = 0


def write(index_path: str, tensors: Sequence[Tuple[str, str, np.ndarray, str]]) -> List[Entry]:
    """Writes ``(buffer, dtype, array, source)`` tuples; returns the entries."""
    if not index_path.endswith(".index"):
        raise ValueError(f"tensor index {index_path!r} must end in .index")
    data_path = index_path[: -len(".index")] + ".bin"
    entries, offset = [], 0
    with open(data_path, "wb") as data:
        for buffer, dtype, array, source in tensors:
            if dtype not in _NUMPY:
                raise ValueError(f"{buffer}: unsupported dtype {dtype}")
            if any(c.isspace() for c in buffer + source) or not buffer:
                raise ValueError(f"tensor names may not contain spaces: {buffer!r} {source!r}")
            raw = np.ascontiguousarray(array, dtype=_NUMPY[dtype]).astype(
                np.dtype(_NUMPY[dtype]).newbyteorder("<"), copy=False).tobytes()
            pad = (-offset) % ALIGN
            data.write(b"\0" * pad)
            offset += pad
            entries.append(Entry(buffer, dtype, tuple(int(d) for d in array.shape),
                                 source or "-", offset, len(raw)))
            data.write(raw)
            offset += len(raw)
    with open(index_path, "w") as index:
        index.write(f"{MAGIC} {VERSION} {os.path.basename(data_path)}\n")
        for e in entries:
            dims = " ".join(str(d) for d in e.shape)
            index.write(f"{e.buffer} {e.dtype} {e.offset} {e.nbytes} {len(e.shape)}"
                        f"{' ' + dims if dims else ''} {e.source}\n")
    return entries


def read(index_path: str) -> Dict[str, np.ndarray]:
    """Reads a tensor file back: buffer name -> array."""
    with open(index_path) as f:
        lines = f.read().splitlines()
    head = lines[0].split()
    if len(head) != 3 or head[0] != MAGIC or head[1] != str(VERSION):
        raise ValueError(f"{index_path}: not a '{MAGIC} {VERSION}' index")
    data_path = os.path.join(os.path.dirname(index_path), head[2])
    with open(data_path, "rb") as f:
        data = f.read()
    out = {}
    for line in lines[1:]:
        parts = line.split()
        buffer, dtype, offset, nbytes, rank = parts[0], parts[1], int(parts[2]), int(parts[3]), int(parts[4])
        shape = tuple(int(d) for d in parts[5:5 + rank])
        out[buffer] = np.frombuffer(data[offset:offset + nbytes], dtype=_NUMPY[dtype]).reshape(shape)
    return out
