"""Drives the CPU runtime's ContentionPolicy (libRematCpuRuntimeShared.so,
through ctypes): the process and one busy process share one CPU while the
runtime multiplies 256 x 256 matrices (two pieces, so it forks) on 2 OpenMP
threads, then the busy process ends.

usage: cpu_contention.py LIBRARY
Prints "contended threads <n>" (the count after at most 2 s beside the busy
process, or as soon as it is 1) and "alone threads <n>" (after at most 3 s
without it, or as soon as it is 2 again).
"""

import ctypes
import os
import subprocess
import sys
import time

import numpy as np

I64, PTR = ctypes.c_int64, ctypes.c_void_p
lib = ctypes.CDLL(sys.argv[1])
lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
lib.remat_cpu_sgemm.argtypes = [I64] * 5 + [PTR, I64, I64, I64, I64, PTR,
                                            I64, I64, I64, PTR, I64, I64, I64]
n = 256
a = np.ones((n, n), np.float32)
b = np.ones((n, n), np.float32)
c = np.zeros((n, n), np.float32)


def gemm():
    lib.remat_cpu_sgemm(1, n, n, n, 0, a.ctypes.data, 0, n, 0, 0,
                        b.ctypes.data, 0, n, 0, c.ctypes.data, 0, n, 0)


def threads_until(want, seconds):
    """Multiplies until the count is `want` or `seconds` have passed."""
    end = time.monotonic() + seconds
    while lib.remat_cpu_num_threads() != want and time.monotonic() < end:
        gemm()
    return lib.remat_cpu_num_threads()


cpus = os.sched_getaffinity(0)
cpu = min(cpus)
# Before the first fork: libomp's threads get this mask too.
os.sched_setaffinity(0, {cpu})
assert lib.remat_cpu_set_num_threads(2) == 0
busy = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
try:
    print("contended threads", threads_until(1, 2.0), flush=True)
finally:
    busy.kill()
    busy.wait()
print("alone threads", threads_until(2, 3.0), flush=True)
