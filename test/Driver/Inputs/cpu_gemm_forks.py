"""Whether a GEMM of the CPU runtime (libRematCpuRuntimeShared.so, through
ctypes) forks OpenMP threads: libomp starts its worker threads at the first
parallel region, so the threads this process gains during a call (entries of
/proc/self/task) show whether the call forked.

usage: cpu_gemm_forks.py LIBRARY
Prints "<m>x<n>x<k> threads <T> started <N>" per call, in order: on a fresh
process, so a later call's count only says something while the earlier ones
started nothing.
"""

import ctypes
import os
import sys

import numpy as np

I64, PTR = ctypes.c_int64, ctypes.c_void_p
lib = ctypes.CDLL(sys.argv[1])
lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
lib.remat_cpu_sgemm.argtypes = [I64] * 5 + [PTR, I64, I64, I64, I64, PTR,
                                            I64, I64, I64, PTR, I64, I64, I64]


def tasks():
    return len(os.listdir("/proc/self/task"))


def gemm(m, n, k, threads):
    assert lib.remat_cpu_set_num_threads(threads) == 0
    a = np.ones((m, k), np.float32)
    b = np.ones((k, n), np.float32)
    c = np.zeros((m, n), np.float32)
    before = tasks()
    lib.remat_cpu_sgemm(1, m, n, k, 0, a.ctypes.data, 0, k, 0, 0,
                        b.ctypes.data, 0, n, 0, c.ctypes.data, 0, n, 0)
    started = tasks() - before
    assert (c == k).all(), f"{m}x{n}x{k}: wrong product"
    print(f"{m}x{n}x{k} threads {threads} started {started}")


gemm(64, 64, 64, 2)    # 2^18 multiply-adds: one piece
gemm(64, 256, 64, 2)   # 2^20 (the GPT example's MLP GEMM): one piece
gemm(256, 64, 64, 2)   # 2^20, by rows: one piece
gemm(32, 256, 256, 1)  # 2^21 on one thread: two pieces, one thread
gemm(32, 256, 256, 2)  # 2^21 (the MLP example's): two pieces, forked
