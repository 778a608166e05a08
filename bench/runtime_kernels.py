"""Per-kernel times of the CPU runtime's convolution entries on the shapes of
the imported ResNet-18 (torchvision, 64x64 images, batch 2, as in
python/remat/zoo.py), at several thread counts, through the runtime's shared
library.

usage: /usr/bin/python3 bench/runtime_kernels.py build/lib/libRematCpuRuntimeShared.so
           [OTHER.so ...] [--threads 1,2] [--reps 30] [--only REGEX] [--cold]

Several libraries (copies of the runtime built from different commits) are
timed in the same process, interleaved, for A/B comparisons on a loaded
machine; one table each.

Per kernel (forward, input gradient, filter gradient with `_set` as the
compiled step calls them) and thread count, each call after a warm-up call
(or, with --cold, on the next of 8 copies of its large operands, so that
they come from memory), the best of --reps calls of the
wall time and of the calling thread's CPU time. OpenMP's idle threads spin
(libomp's KMP_BLOCKTIME, as in a compiled step), so the calling thread's CPU
time runs from its fork to its last join, waits included, but leaves out
the time it is descheduled: on a loaded machine, where the wall time of a
2-thread call mostly measures the other processes, its minimum is the wall
time of a call whose threads both ran. Libraries and thread counts alternate within each
repetition, so that load changes hit both alike. Prints a markdown table
per kernel and the sums (times the kernel's count in a step), and checks
that every thread count gives the same bits.
"""

import argparse
import ctypes
import os
import re
import time

import numpy as np

# (name, c, padded h = w, f, kernel, stride, oh = ow, count in the step).
SHAPES = [("conv1 7x7/2", 3, 70, 64, 7, 2, 32, 1),
          ("l1 3x3", 64, 18, 64, 3, 1, 16, 4),
          ("l2 3x3/2", 64, 18, 128, 3, 2, 8, 1),
          ("l2 proj 1x1/2", 64, 16, 128, 1, 2, 8, 1),
          ("l2 3x3", 128, 10, 128, 3, 1, 8, 3),
          ("l3 3x3/2", 128, 10, 256, 3, 2, 4, 1),
          ("l3 proj 1x1/2", 128, 8, 256, 1, 2, 4, 1),
          ("l3 3x3", 256, 6, 256, 3, 1, 4, 3),
          ("l4 3x3/2", 256, 6, 512, 3, 2, 2, 1),
          ("l4 proj 1x1/2", 256, 4, 512, 1, 2, 2, 1),
          ("l4 3x3", 512, 4, 512, 3, 1, 2, 3)]


def aligned(array):
    """A copy of `array` at a 64-byte boundary, as the compiled step's
    arena places its buffers (SmallGemm.cpp streams only aligned outputs)."""
    store = np.empty(array.size + 16, array.dtype)
    start = (-store.ctypes.data % 64) // array.itemsize
    result = store[start:start + array.size].reshape(array.shape)
    result[...] = array
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("libraries", nargs="+")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--only", default="")
    parser.add_argument("--cold", action="store_true",
                        help="every operand of at least 1 MiB (filters, "
                             "filter gradients) in 8 copies, one call per "
                             "copy in turn and no warm-up call: layer 4's "
                             "(9.4 MB each, 75 MB in all) come from memory, "
                             "as in a step, and each call's timing includes "
                             "the write-backs its stores cause")
    args = parser.parse_args()
    signature = [ctypes.c_int64] * 14 + [ctypes.c_size_t, ctypes.c_int64] * 3
    libs = []
    for path in args.libraries:
        lib = ctypes.CDLL(os.path.abspath(path))
        entries = {"fwd": lib.remat_cpu_sconv2d,
                   "dx": lib.remat_cpu_sconv2d_input_grad,
                   "dw": lib.remat_cpu_sconv2d_filter_grad_set}
        for entry in entries.values():
            entry.argtypes = signature
        lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
        libs.append((lib, entries))
    threads = [int(t) for t in args.threads.split(",")]
    rng = np.random.default_rng(0)
    cases = []
    for name, c, h, f, k, s, o, count in SHAPES:
        x = rng.standard_normal((2, c, h, h), np.float32)
        w = rng.standard_normal((f, c, k, k), np.float32)
        dy = rng.standard_normal((2, f, o, o), np.float32)
        sizes = (2, 1, c, h, h, f, k, k, o, o, s, s, 1, 1)
        for kind in ("fwd", "dx", "dw"):
            if kind == "dx" and c == 3:
                continue  # no gradient of the image
            label = f"{name} {kind}"
            if args.only and not re.search(args.only, label):
                continue
            if kind == "fwd":
                ins, out = (x, w), np.zeros(dy.shape, np.float32)
            elif kind == "dx":
                ins, out = (w, dy), np.zeros(x.shape, np.float32)
            else:
                ins, out = (x, dy), np.zeros(w.shape, np.float32)
            copies = [tuple(aligned(a) for a in ins + (out,))]
            if args.cold:
                copies = [tuple(aligned(a) if a.nbytes >= 1 << 20 else a
                                for a in copies[0]) for _ in range(8)]
            cases.append((label, count, kind, sizes, copies))

    def call(entries, case, copy=0):
        _, _, kind, sizes, copies = case
        first, second, out = copies[copy % len(copies)]
        if kind != "dw":
            out.fill(0.0)
        entries[kind](*sizes, first.ctypes.data, 0, second.ctypes.data, 0,
                      out.ctypes.data, 0)

    best = {}
    bits = {}
    calls = 0
    for _ in range(args.reps):
        for index, (lib, entries) in enumerate(libs):
            for t in threads:
                assert lib.remat_cpu_set_num_threads(t) == 0
                for case in cases:
                    calls += 1
                    if not args.cold:
                        call(entries, case)  # warm
                    wall, cpu = time.perf_counter(), time.thread_time()
                    call(entries, case, calls)
                    wall = time.perf_counter() - wall
                    cpu = time.thread_time() - cpu
                    key = (index, case[0], t)
                    old = best.get(key, (1e9, 1e9))
                    best[key] = (min(old[0], wall), min(old[1], cpu))
                    bits.setdefault(key, case[4][calls % len(case[4])][2]
                                    .tobytes())
    print(f"{len(cases)} kernels, best of {args.reps}, load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    for index, path in enumerate(args.libraries):
        same = all(bits[(index, case[0], t)] == bits[(index, case[0],
                                                        threads[0])]
                   for case in cases for t in threads)
        print()
        print(f"{path}: same bits across threads: {'yes' if same else 'NO'}")
        print()
        table(best, index, cases, threads)


def table(best, index, cases, threads):
    """Prints the markdown table of library `index`."""
    head = " | ".join(f"{t}T us (wall / CPU)" for t in threads)
    print(f"| kernel | x step | {head} | {threads[0]}T/{threads[-1]}T "
          "(wall / CPU) |")
    print("|---|---:|" + "---:|" * len(threads) + "---:|")
    sums = {t: [0.0, 0.0] for t in threads}
    for label, count, *_ in cases:
        cells = []
        for t in threads:
            wall, cpu = best[(index, label, t)]
            sums[t][0] += count * wall
            sums[t][1] += count * cpu
            cells.append(f"{wall * 1e6:.0f} / {cpu * 1e6:.0f}")
        first, last = best[(index, label, threads[0])], best[(index, label,
                                                              threads[-1])]
        print(f"| {label} | {count} | {' | '.join(cells)} | "
              f"{first[0] / last[0]:.2f} / {first[1] / last[1]:.2f} |")
    cells = " | ".join(f"{sums[t][0] * 1e3:.2f} / {sums[t][1] * 1e3:.2f} ms"
                       for t in threads)
    first, last = sums[threads[0]], sums[threads[-1]]
    print(f"| sum x count | | {cells} | {first[0] / last[0]:.2f} / "
          f"{first[1] / last[1]:.2f} |")

if __name__ == "__main__":
    main()
