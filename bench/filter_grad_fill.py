"""Zero fill + accumulating filter gradient against the filter gradient that
writes its output (remat_cpu_sconv2d_filter_grad_set), on the 20 non-depthwise
filter-gradient shapes of the imported ResNet-18 (torchvision, 64x64 images,
batch 2), through the CPU runtime's shared library.

usage: /usr/bin/python3 bench/filter_grad_fill.py build/lib/libRematCpuRuntimeShared.so
           [--threads 1,2] [--reps 40]

Per thread count, the best of --reps passes over the 20 shapes, as wall time
and as the calling thread's CPU time (less sensitive to other processes on
a loaded machine; at 2 threads it leaves out the second thread's share).
The fill is numpy's (a memset on the calling thread; the compiled step's
linalg.fill is shared among its threads, so at 2 threads this overstates
what `_set` saves). Prints
a markdown table; the two outputs are also checked to be the same bits.
"""

import argparse
import ctypes
import os
import time

import numpy as np

# (c, padded h = w, f, kernel, stride, oh = ow) of each filter gradient.
SHAPES = ([(3, 70, 64, 7, 2, 32)] + [(64, 18, 64, 3, 1, 16)] * 4 +
          [(64, 18, 128, 3, 2, 8), (64, 16, 128, 1, 2, 8)] +
          [(128, 10, 128, 3, 1, 8)] * 3 +
          [(128, 10, 256, 3, 2, 4), (128, 8, 256, 1, 2, 4)] +
          [(256, 6, 256, 3, 1, 4)] * 3 +
          [(256, 6, 512, 3, 2, 2), (256, 4, 512, 1, 2, 2)] +
          [(512, 4, 512, 3, 1, 2)] * 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=40)
    args = parser.parse_args()
    lib = ctypes.CDLL(args.library)
    signature = [ctypes.c_int64] * 14 + [ctypes.c_size_t, ctypes.c_int64] * 3
    accumulate = lib.remat_cpu_sconv2d_filter_grad
    overwrite = lib.remat_cpu_sconv2d_filter_grad_set
    accumulate.argtypes = overwrite.argtypes = signature
    lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
    rng = np.random.default_rng(0)
    cases = []
    for c, h, f, k, s, o in SHAPES:
        x = rng.standard_normal((2, 1, c, h, h), np.float32)
        dy = rng.standard_normal((2, 1, f, o, o), np.float32)
        sizes = (2, 1, c, h, h, f, k, k, o, o, s, s, 1, 1)
        cases.append((sizes, x, dy, np.zeros((f, c, k, k), np.float32),
                      np.zeros((f, c, k, k), np.float32)))
    megabytes = sum(a.nbytes for *_, a, _ in cases) / 1e6

    def fill_and_add():
        for sizes, x, dy, gw, _ in cases:
            gw.fill(0.0)
            accumulate(*sizes, x.ctypes.data, 0, dy.ctypes.data, 0,
                       gw.ctypes.data, 0)

    def write():
        for sizes, x, dy, _, gw in cases:
            overwrite(*sizes, x.ctypes.data, 0, dy.ctypes.data, 0,
                      gw.ctypes.data, 0)

    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        assert lib.remat_cpu_set_num_threads(threads) == 0
        best = {}
        for _ in range(args.reps):
            for name, run in (("fill", fill_and_add), ("set", write)):
                wall, cpu = time.perf_counter(), time.thread_time()
                run()
                wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
                old = best.get(name, (1e9, 1e9))
                best[name] = (min(old[0], wall), min(old[1], cpu))
        same = all(a.tobytes() == b.tobytes() for *_, a, b in cases)
        rows.append((threads, best["fill"], best["set"], same))
    print(f"{len(cases)} filter gradients, {megabytes:.1f} MB of gradients, "
          f"best of {args.reps}; load average {os.getloadavg()[0]:.1f}")
    print()
    print("| threads | fill + accumulate ms (wall / CPU) | set ms (wall / CPU) "
          "| set / fill (wall / CPU) | same bits |")
    print("|---:|---:|---:|---:|---|")
    for threads, fill, write_, same in rows:
        print(f"| {threads} | {fill[0] * 1e3:.2f} / {fill[1] * 1e3:.2f} | "
              f"{write_[0] * 1e3:.2f} / {write_[1] * 1e3:.2f} | "
              f"{write_[0] / fill[0]:.2f} / {write_[1] / fill[1]:.2f} | "
              f"{'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
