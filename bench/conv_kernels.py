"""Times the CPU runtime's convolution calls on the convolutions of an
imported model, one library or two side by side (A/B, interleaved).

usage: /usr/bin/python3 bench/conv_kernels.py MODEL.mlir LIB.so [LIB_B.so]
           [--threads 1,2] [--reps 20] [--per-call]

MODEL.mlir is a model exported by `bench/torch_zoo_step.py NAME --export
BASE` (its `remat.conv2d` ops give the shapes); LIB is a
libRematCpuRuntimeShared.so (build/lib). For every convolution the forward
(remat_cpu_sconv2d), the input gradient (remat_cpu_sconv2d_input_grad, not
for the model's first convolution, whose input has no gradient) and the
filter gradient written over its output (remat_cpu_sconv2d_filter_grad_set)
run on random data, each library in turn, --reps times; per thread count
the best time of each call is kept, as wall time and as the calling
thread's CPU time (less sensitive to other processes on a loaded machine; at
2 threads it leaves out the second thread's share). Prints a markdown table
of the totals per kind of call (and with --per-call, per call), whether
each library gives the same bits on every thread count (it must), and
whether the two libraries give the same bits (they need not: a kernel with
another summation order gives other bits).
"""

import argparse
import ctypes
import os
import re
import time

import numpy as np

CONV = re.compile(
    r"remat\.conv2d .*strides = array<i64: (\d+), (\d+)>, "
    r"padding = array<i64: (\d+), (\d+)>, dilations = array<i64: (\d+), "
    r"(\d+)>, groups = (\d+) : i64\} : \(tensor<(\d+)x(\d+)x(\d+)x(\d+)xf32>, "
    r"tensor<(\d+)x(\d+)x(\d+)x(\d+)xf32>\)")
KINDS = ("forward", "input grad", "filter grad set")


def shapes(path):
    """The runtime's (n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw) of
    every convolution in MODEL.mlir, h and w padded."""
    result = []
    with open(path) as model:
        for match in CONV.finditer(model.read()):
            sh, sw, ph, pw, dh, dw, g, n, cin, h, w, fout, c, kh, kw = map(
                int, match.groups())
            h, w = h + 2 * ph, w + 2 * pw
            oh = (h - (kh - 1) * dh - 1) // sh + 1
            ow = (w - (kw - 1) * dw - 1) // sw + 1
            result.append((n, g, c, h, w, fout // g, kh, kw, oh, ow, sh, sw,
                           dh, dw))
    return result


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    signature = [ctypes.c_int64] * 14 + [ctypes.c_size_t, ctypes.c_int64] * 3
    for name in ("remat_cpu_sconv2d", "remat_cpu_sconv2d_input_grad",
                 "remat_cpu_sconv2d_filter_grad_set"):
        getattr(lib, name).argtypes = signature
    lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
    return lib


def calls(lib, index, s, rng):
    """[(kind, run, output)] for convolution `index` of shape s."""
    n, g, c, h, w, f, kh, kw, oh, ow = s[:10]
    x = rng.standard_normal((n, g, c, h, w), np.float32)
    wt = rng.standard_normal((g, f, c, kh, kw), np.float32)
    dy = rng.standard_normal((n, g, f, oh, ow), np.float32)
    y, dx, gw = (np.zeros(v.shape, np.float32) for v in (dy, x, wt))
    p = lambda a: a.ctypes.data  # noqa: E731

    def forward():
        y.fill(0.0)
        lib.remat_cpu_sconv2d(*s, p(x), 0, p(wt), 0, p(y), 0)

    def input_grad():
        dx.fill(0.0)
        lib.remat_cpu_sconv2d_input_grad(*s, p(wt), 0, p(dy), 0, p(dx), 0)

    def filter_grad():
        lib.remat_cpu_sconv2d_filter_grad_set(*s, p(x), 0, p(dy), 0, p(gw), 0)

    result = [("forward", forward, y)]
    if index > 0:
        result.append(("input grad", input_grad, dx))
    result.append(("filter grad set", filter_grad, gw))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("libraries", nargs="+")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--per-call", action="store_true")
    args = parser.parse_args()
    libs = [load(path) for path in args.libraries]
    convs = shapes(args.model)
    # The same random data for every library: one generator per library,
    # same seed.
    cases = [[call for i, s in enumerate(convs)
              for call in calls(lib, i, s, np.random.default_rng(i))]
             for lib in libs]
    labels = [os.path.basename(path) for path in args.libraries]
    print(f"{len(convs)} convolutions of {os.path.basename(args.model)}, "
          f"best of {args.reps}; load average {os.getloadavg()[0]:.1f}\n")
    header = "| threads | call | " + " | ".join(
        f"{label} ms (wall / CPU)" for label in labels)
    header += " | B / A (CPU) |" if len(libs) == 2 else " |"
    print(header)
    print("|---:|---|" + "---:|" * (len(libs) + (len(libs) == 2)))
    references = None
    for threads in [int(t) for t in args.threads.split(",")]:
        for lib in libs:
            assert lib.remat_cpu_set_num_threads(threads) == 0
        best = [[(1e9, 1e9)] * len(cases[0]) for _ in libs]
        for _ in range(args.reps):
            for li, case in enumerate(cases):
                for ci, (_, run, _) in enumerate(case):
                    wall, cpu = time.perf_counter(), time.thread_time()
                    run()
                    wall = time.perf_counter() - wall
                    cpu = time.thread_time() - cpu
                    old = best[li][ci]
                    best[li][ci] = (min(old[0], wall), min(old[1], cpu))
        bits = [[out.tobytes() for _, _, out in case] for case in cases]
        references = references or bits
        same_libraries = all(b == bits[0] for b in bits)
        rows = [(kind, [i for i, c in enumerate(cases[0]) if c[0] == kind])
                for kind in KINDS]
        rows.append(("all", list(range(len(cases[0])))))
        if args.per_call:
            rows = [(f"{c[0]} {convs_index}", [i])
                    for i, (c, convs_index) in enumerate(
                        zip(cases[0], [j for j, s in enumerate(convs)
                                       for _ in range(3 if j else 2)]))
                    ] + rows
        for name, indices in rows:
            cells = []
            for li in range(len(libs)):
                wall = sum(best[li][i][0] for i in indices) * 1e3
                cpu = sum(best[li][i][1] for i in indices) * 1e3
                cells.append((wall, cpu))
            line = f"| {threads} | {name} | " + " | ".join(
                f"{w:.2f} / {c:.2f}" for w, c in cells) + " |"
            if len(libs) == 2:
                line += f" {cells[1][1] / cells[0][1]:.2f} |"
            print(line)
        print(f"| {threads} | same bits as the first thread count | " +
              " | ".join("yes" if b == r else "NO"
                         for b, r in zip(bits, references)) +
              " |" + (" |" if len(libs) == 2 else ""))
        if len(libs) == 2:
            print(f"| {threads} | libraries give the same bits | "
                  f"{'yes' if same_libraries else 'no'} | | |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
