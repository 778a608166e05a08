"""Times remat_cpu_sconv2d (the forward convolution, 1 thread) on shapes
whose GEMM has few columns, once per $REMAT_CPU_ISA (generic, avx2,
avx512: OpenBLAS, the AVX2 + FMA loops, the AVX-512F loops; docs/Compile.md),
each in its own process since the runtime reads the variable once, the
processes interleaved over --rounds rounds.

usage: /usr/bin/python3 bench/narrow_gemm_isa.py LIB.so [--rounds 3]
           [--reps 30]

LIB is a libRematCpuRuntimeShared.so (build/lib). Prints per shape and ISA
the least calling-thread CPU time of a call over all rounds and repetitions
(less sensitive to other processes than wall time), and the ISA the runtime
reports it ran (an ISA the CPU lacks runs `auto`'s).
"""

import argparse
import ctypes
import os
import subprocess
import sys
import time

import numpy as np

# (images, channels, input height = width, filters): 3x3 convolutions, no
# padding; the GEMM has images * (height - 2)^2 columns.
SHAPES = ((2, 512, 4, 512), (1, 256, 5, 512), (1, 256, 6, 512),
          (2, 256, 6, 512), (1, 128, 7, 256))
ISAS = ("generic", "avx2", "avx512")


def child(library, reps):
    """Prints the ISA, then per shape the least CPU seconds of a call."""
    i64 = ctypes.c_int64
    lib = ctypes.CDLL(library)
    lib.remat_cpu_isa.restype = ctypes.c_char_p
    lib.remat_cpu_sconv2d.argtypes = [i64] * 14 + [ctypes.c_size_t, i64] * 3
    assert lib.remat_cpu_set_num_threads(1) == 0
    rng = np.random.default_rng(1)
    times = []
    for n, c, h, f in SHAPES:
        o = h - 2
        x = rng.standard_normal((n, c, h, h), np.float32)
        w = rng.standard_normal((f, c, 3, 3), np.float32)
        y = np.zeros((n, f, o, o), np.float32)
        best = float("inf")
        for _ in range(reps):
            start = time.thread_time()
            lib.remat_cpu_sconv2d(n, 1, c, h, h, f, 3, 3, o, o, 1, 1, 1, 1,
                                  x.ctypes.data, 0, w.ctypes.data, 0,
                                  y.ctypes.data, 0)
            best = min(best, time.thread_time() - start)
        times.append(best)
    print(lib.remat_cpu_isa().decode(), *times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.library, args.reps)
        return
    best = {isa: [float("inf")] * len(SHAPES) for isa in ISAS}
    ran = {}
    for _ in range(args.rounds):
        for isa in ISAS:
            env = dict(os.environ, REMAT_CPU_ISA=isa)
            env.pop("REMAT_ADAPTIVE_THREADS", None)
            out = subprocess.run(
                [sys.executable, __file__, args.library, "--child", "--reps",
                 str(args.reps)], env=env, check=True, capture_output=True,
                text=True).stdout.split()
            ran[isa] = out[0]
            best[isa] = [min(a, float(b)) for a, b in zip(best[isa], out[1:])]
    print("| conv (n, c, h, f) | GEMM columns | " +
          " | ".join(f"{isa} (ran {ran[isa]}) us" for isa in ISAS) + " |")
    print("|---|---|" + "---|" * len(ISAS))
    for s, (n, c, h, f) in enumerate(SHAPES):
        print(f"| {n}, {c}, {h}, {f} | {n * (h - 2) ** 2} | " +
              " | ".join(f"{best[isa][s] * 1e6:.0f}" for isa in ISAS) + " |")


if __name__ == "__main__":
    main()
