"""Calls remat_cpu_sconv2d, its input gradient and its filter gradient (with
_set) once each on one unit of ResNet-18's stride-2 layer-2 convolution (2
images of 64 x 17 x 17, 128 filters of 3 x 3, 8 x 8 outputs) through the
CPU runtime's shared library, on the number of threads given.

usage: conv_regions.py LIBRARY THREADS
"""

import ctypes
import sys

import numpy as np

lib = ctypes.CDLL(sys.argv[1])
lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
assert lib.remat_cpu_set_num_threads(int(sys.argv[2])) == 0
sizes = (2, 1, 64, 17, 17, 128, 3, 3, 8, 8, 2, 2, 1, 1)
x = np.ones((2, 64, 17, 17), np.float32)
w = np.ones((128, 64, 3, 3), np.float32)
dy = np.ones((2, 128, 8, 8), np.float32)
for name, first, second, out in (("remat_cpu_sconv2d", x, w, dy.copy()),
                                 ("remat_cpu_sconv2d_input_grad", w, dy,
                                  x.copy()),
                                 ("remat_cpu_sconv2d_filter_grad_set", x, dy,
                                  w.copy())):
    function = getattr(lib, name)
    function.argtypes = [ctypes.c_int64] * 14 + [ctypes.c_size_t,
                                                 ctypes.c_int64] * 3
    function(*sizes, first.ctypes.data, 0, second.ctypes.data, 0,
             out.ctypes.data, 0)
