"""Compares the results of two compiled training steps within a tolerance.

usage: compare_dumps.py [--atol A] REFERENCE_DIR DUMP_DIR

Both directories hold what `runner --dump` wrote (manifest.txt and one .bin
per buffer) for the same model, inputs and parameters, e.g. the loop build
(`remat-compile --blas=false`) and the BLAS build. Every result (the loss and
each gradient) must agree to TOLERANCE relative to the largest magnitude of
the reference result, plus A (default 0: for results that are zero in exact
arithmetic, whose values are rounding noise that no two summation orders
share). Prints one line per result and a summary; exits non-zero on a
mismatch or when the manifests differ.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dumps import load_dump  # noqa: E402

TOLERANCE = 1e-4


def load_results(directory):
    return {name: array for name, (kind, array) in load_dump(directory).items()
            if kind == "result"}


def main():
    args = sys.argv[1:]
    atol = 0.0
    if len(args) == 4 and args[0] == "--atol":
        atol = float(args[1])
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    reference, actual = load_results(args[0]), load_results(args[1])
    if sorted(reference) != sorted(actual) or not reference:
        print("FAIL: the dumps hold different results")
        return 1
    failed = 0
    for name, ref in reference.items():
        got = actual[name]
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        error = float(np.max(np.abs(got.astype(np.float64) - ref)))
        ok = got.shape == ref.shape and error <= TOLERANCE * scale + atol
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name} max abs diff {error:.3g} "
              f"(scale {scale:.3g})")
    print(f"compared {len(reference)} results: "
          f"{'all within tolerance' if not failed else f'{failed} differ'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
