"""Reads what `runner --dump` writes: manifest.txt (one line per buffer:
name, kind, dtype, rank, dims...) and one NAME.bin of raw values per buffer.
Shared by check_reference.py and compare_dumps.py; needs only numpy."""

import os

import numpy as np

NUMPY = {"f32": np.float32, "f64": np.float64, "i64": np.int64,
         "i32": np.int32}


def load_dump(directory):
    """{name: (kind, array)} for every buffer in the dump in DIRECTORY."""
    buffers = {}
    with open(os.path.join(directory, "manifest.txt")) as manifest:
        for line in manifest:
            name, kind, dtype, rank, *dims = line.split()
            assert int(rank) == len(dims)
            data = np.fromfile(os.path.join(directory, name + ".bin"),
                               dtype=NUMPY[dtype])
            buffers[name] = (kind, data.reshape([int(d) for d in dims]))
    return buffers
