#!/usr/bin/env python3
"""Compares mlir-runner output with the reference of conv_pool_norm_gen.py.

Usage: conv_pool_norm_check.py EXPECTED_JSON RUNNER_OUTPUT [ATOL [RTOL]]

RUNNER_OUTPUT holds one printMemrefF32 dump per expected result, in order.
An element passes if |got - want| <= ATOL + RTOL * |want| (both 1e-4 by
default; printMemrefF32 prints 6 significant digits, well inside that). A
result of EXPECTED_JSON may carry its own "atol" / "rtol" (16-bit results).
Prints one line per result and exits 1 on any mismatch, on a missing or
extra result, or on a shape difference.
"""

import json
import math
import re
import sys

HEADER = re.compile(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
                    r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =")
NUMBER = re.compile(r"-?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)")


def parse(text):
    """Returns [(sizes, values)] for every memref dump in `text`."""
    dumps = []
    heads = list(HEADER.finditer(text))
    for i, h in enumerate(heads):
        sizes = [int(v) for v in h.group(2).split(",") if v.strip()]
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[h.end():end]
        values = [float(v) for v in NUMBER.findall(body)]
        dumps.append((sizes, values))
    return dumps


def close(got, want, atol, rtol):
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.stderr.write(__doc__)
        return 2
    atol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
    rtol = float(sys.argv[4]) if len(sys.argv) > 4 else atol
    with open(sys.argv[1]) as f:
        expected = json.load(f)
    with open(sys.argv[2]) as f:
        dumps = parse(f.read())

    failures = 0
    matched = 0
    if len(dumps) != len(expected):
        print("FAIL: %d results printed, %d expected"
              % (len(dumps), len(expected)))
        failures += 1
    for want, (sizes, values) in zip(expected, dumps):
        name = want["name"]
        if sizes != want["shape"] or len(values) != len(want["data"]):
            print("FAIL %s: shape %s with %d values, expected %s"
                  % (name, sizes, len(values), want["shape"]))
            failures += 1
            continue
        a = want.get("atol", atol)
        r = want.get("rtol", rtol)
        bad = [i for i, (g, w) in enumerate(zip(values, want["data"]))
               if not close(g, w, a, r)]
        worst = max((abs(g - w) for g, w in zip(values, want["data"])
                     if not (math.isnan(g) or math.isnan(w)
                             or math.isinf(g) or math.isinf(w))),
                    default=0.0)
        if bad:
            i = bad[0]
            print("FAIL %s: %d of %d elements differ; first at flat index %d:"
                  " got %r, expected %r (max abs diff %.3g)"
                  % (name, len(bad), len(values), i, values[i],
                     want["data"][i], worst))
            failures += 1
        else:
            matched += 1
            print("ok %s (%d elements, max abs diff %.3g)"
                  % (name, len(values), worst))
    print("%d of %d results match" % (matched, len(expected)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
