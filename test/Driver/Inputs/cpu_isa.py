"""Prints which instruction set the CPU runtime's own loops use
(remat_cpu_isa(), which reads $REMAT_CPU_ISA once) and the best the CPU
offers (/proc/cpuinfo's flags avx512f, else avx2 and fma), so that a test can
compare them.

usage: cpu_isa.py LIBRARY
Prints "cpu <avx512|avx2|generic>" then "isa <remat_cpu_isa()>" twice (the second
call must not read the variable again: the same answer, no second message).
"""

import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.remat_cpu_isa.restype = ctypes.c_char_p
with open("/proc/cpuinfo") as cpuinfo:
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                  if line.startswith("flags")), [])
if "avx512f" in flags:
    best = "avx512"
elif "avx2" in flags and "fma" in flags:
    best = "avx2"
else:
    best = "generic"
print("cpu " + best, flush=True)
for _ in range(2):
    print("isa " + lib.remat_cpu_isa().decode(), flush=True)
