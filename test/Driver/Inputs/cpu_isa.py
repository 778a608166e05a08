"""Prints which instruction set the CPU runtime's own loops use
(remat_cpu_isa(), which reads $REMAT_CPU_ISA once) and the one the CPU
offers (/proc/cpuinfo's avx512f flag), so that a test can compare them.

usage: cpu_isa.py LIBRARY
Prints "cpu <avx512|generic>" then "isa <remat_cpu_isa()>" twice (the second
call must not read the variable again: the same answer, no second message).
"""

import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.remat_cpu_isa.restype = ctypes.c_char_p
with open("/proc/cpuinfo") as cpuinfo:
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                  if line.startswith("flags")), [])
print("cpu " + ("avx512" if "avx512f" in flags else "generic"), flush=True)
for _ in range(2):
    print("isa " + lib.remat_cpu_isa().decode(), flush=True)
