"""Calls the CPU runtime's GEMM and convolutions (libRematCpuRuntimeShared.so,
through ctypes) on shapes large enough to be cut into pieces and shared among
threads, and checks every result against a float64 numpy reference (relative
error below 1e-5 of the largest |term|) and that 1, 2 and 3 threads give the
same bits.

usage: cpu_runtime_threads.py LIBRARY [--save FILE]
                              [--same-bits FILE REGEX]...
Prints "isa <remat_cpu_isa()>", then one line per case: "<case> ok" or
"<case> FAIL <why>"; exit 1 on any failure. --save writes every case's
1-thread result to FILE (numpy .npz); --same-bits checks that the cases whose
names match REGEX (re.search) give the bits FILE holds (saved by a run with
another $REMAT_CPU_ISA): "<case> same bits as <FILE's name>" or
"<case> FAIL ...", in the order of the cases.
"""

import argparse
import ctypes
import os
import re
import sys

import numpy as np

I64, PTR = ctypes.c_int64, ctypes.c_void_p
parser = argparse.ArgumentParser()
parser.add_argument("library")
parser.add_argument("--save")
parser.add_argument("--same-bits", nargs=2, action="append", default=[],
                    metavar=("FILE", "REGEX"))
args = parser.parse_args()
lib = ctypes.CDLL(args.library)
lib.remat_cpu_isa.restype = ctypes.c_char_p
print("isa " + lib.remat_cpu_isa().decode())
lib.remat_cpu_set_num_threads.argtypes = [ctypes.c_int]
lib.remat_cpu_sgemm.argtypes = [I64] * 5 + [PTR, I64, I64, I64, I64, PTR,
                                            I64, I64, I64, PTR, I64, I64, I64]
CONV = [I64] * 14 + [ctypes.c_size_t, I64] * 3
for name in ("remat_cpu_sconv2d", "remat_cpu_sconv2d_input_grad",
             "remat_cpu_sconv2d_filter_grad",
             "remat_cpu_sconv2d_filter_grad_set"):
    getattr(lib, name).argtypes = CONV
rng = np.random.default_rng(7)
failures = 0
# Case name -> bytes of its 1-thread result, for --save / --same-bits.
bits = {}


def ptr(array):
    return array.ctypes.data


def garbage(shape, offset):
    """Random float32s of `shape`, starting `offset` floats past a 64-byte
    boundary."""
    size = int(np.prod(shape))
    store = np.empty(size + 32, np.float32)
    start = (-store.ctypes.data % 64) // 4 + offset
    result = store[start:start + size].reshape(shape)
    result[...] = rng.standard_normal(shape)
    return result


def check(name, run, reference, scale):
    """run(threads) -> float32 result; reference float64; scale: the largest
    sum of |terms| per element (the tolerance's unit)."""
    global failures
    results = []
    for threads in (1, 2, 3):
        assert lib.remat_cpu_set_num_threads(threads) == 0
        results.append(run())
    why = None
    error = np.max(np.abs(results[0].astype(np.float64) - reference))
    if not error <= 1e-5 * scale:  # NaN too (a run's way to say it failed)
        why = f"error {error:.3g} > 1e-5 * {scale:.3g}"
    for threads, result in zip((2, 3), results[1:]):
        if result.tobytes() != results[0].tobytes():
            why = f"{threads} threads differ from 1"
    print(f"{name} " + ("ok" if why is None else "FAIL " + why))
    failures += why is not None
    bits[name] = np.frombuffer(results[0].tobytes(), np.uint8)


def gemm(name, batch, m, n, k, trans_a, trans_b, pad=0, broadcast_c=False):
    """C_i += op(A_i) op(B_i); A and B rows `pad` wider than needed."""
    a = rng.standard_normal((batch, k if trans_a else m,
                             (m if trans_a else k) + pad), np.float32)
    b = rng.standard_normal((batch, n if trans_b else k,
                             (k if trans_b else n) + pad), np.float32)
    c0 = rng.standard_normal((1 if broadcast_c else batch, m, n + pad),
                             np.float32)
    opa = a[:, :, :m if trans_a else k].astype(np.float64)
    opb = b[:, :, :k if trans_b else n].astype(np.float64)
    opa = opa.transpose(0, 2, 1) if trans_a else opa
    opb = opb.transpose(0, 2, 1) if trans_b else opb
    products = opa @ opb
    reference = c0[:, :, :n].astype(np.float64).copy()
    if broadcast_c:
        reference[0] += products.sum(0)
    else:
        reference += products
    scale = float(np.max(np.abs(opa) @ np.abs(opb) * batch))

    def run():
        c = c0.copy()
        lib.remat_cpu_sgemm(batch, m, n, k, trans_a, ptr(a), 0, a.shape[2],
                            a[0].size, trans_b, ptr(b), 0, b.shape[2],
                            b[0].size, ptr(c), 0, c.shape[2],
                            0 if broadcast_c else c[0].size)
        return c[:, :, :n]

    check(name, run, reference, scale)


def windows(x, i, j, s):
    """The [.., oh, ow] slice of x that kernel tap (i, j) reads."""
    n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw = s
    return x[..., i * dh:i * dh + (oh - 1) * sh + 1:sh,
             j * dw:j * dw + (ow - 1) * sw + 1:sw]


def conv(name, n, g, c, h, w, f, kh, kw, sh, sw, dh, dw, set_only=False):
    oh, ow = (h - (kh - 1) * dh - 1) // sh + 1, (w - (kw - 1) * dw - 1) // sw + 1
    s = (n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw)
    x = rng.standard_normal((n, g, c, h, w), np.float32)
    wt = rng.standard_normal((g, f, c, kh, kw), np.float32)
    dy = rng.standard_normal((n, g, f, oh, ow), np.float32)
    x64, w64, dy64 = (v.astype(np.float64) for v in (x, wt, dy))
    y, dx, gw = (np.zeros(v.shape) for v in (dy, x, wt))
    ya, dxa, gwa = (np.zeros(v.shape) for v in (dy, x, wt))
    for i in range(kh):
        for j in range(kw):
            tap = windows(x64, i, j, s)
            y += np.einsum("ngcyx,gfc->ngfyx", tap, w64[..., i, j])
            ya += np.einsum("ngcyx,gfc->ngfyx", abs(tap), abs(w64[..., i, j]))
            windows(dx, i, j, s)[...] += np.einsum("ngfyx,gfc->ngcyx", dy64,
                                                   w64[..., i, j])
            windows(dxa, i, j, s)[...] += np.einsum(
                "ngfyx,gfc->ngcyx", abs(dy64), abs(w64[..., i, j]))
            gw[..., i, j] = np.einsum("ngcyx,ngfyx->gfc", tap, dy64)
            gwa[..., i, j] = np.einsum("ngcyx,ngfyx->gfc", abs(tap), abs(dy64))

    def call(function, first, second, out):
        result = np.zeros(out.shape, np.float32)
        function(*s, ptr(first), 0, ptr(second), 0, ptr(result), 0)
        return result

    def overwrite():
        """remat_cpu_sconv2d_filter_grad_set over garbage, in a 64-byte
        aligned gw (where SmallGemm.cpp's large shallow products store past
        the caches) and in one 4 bytes off: the bits of
        remat_cpu_sconv2d_filter_grad on zeros in both (checked for every
        thread count), else NaN."""
        added = call(lib.remat_cpu_sconv2d_filter_grad, x, dy, gw)
        results = []
        for offset in (0, 1):
            result = garbage(gw.shape, offset)
            lib.remat_cpu_sconv2d_filter_grad_set(*s, ptr(x), 0, ptr(dy), 0,
                                                  ptr(result), 0)
            results.append(result)
        same = all(r.tobytes() == added.tobytes() for r in results)
        return results[0] if same else np.full(gw.shape, np.nan, np.float32)

    check(name + " filter grad set", overwrite, gw, float(gwa.max()))
    if set_only:
        return
    check(name + " forward", lambda: call(lib.remat_cpu_sconv2d, x, wt, y), y,
          float(ya.max()))
    check(name + " input grad",
          lambda: call(lib.remat_cpu_sconv2d_input_grad, wt, dy, dx), dx,
          float(dxa.max()))
    check(name + " filter grad",
          lambda: call(lib.remat_cpu_sconv2d_filter_grad, x, dy, gw), gw,
          float(gwa.max()))


# Rows cut into pieces (m >= n), columns (n > m), five pieces over rows that
# are no multiple of 16, transposes, padded rows (ld > columns), a batch whose
# pieces are shared, and a broadcast C summed on one thread.
gemm("gemm rows", 1, 512, 8, 600, 0, 0)
gemm("gemm columns", 1, 40, 1000, 100, 0, 1)
gemm("gemm five pieces", 1, 700, 200, 600, 1, 0, pad=3)
gemm("gemm transposed", 1, 300, 260, 200, 1, 1, pad=5)
gemm("gemm batch", 3, 100, 130, 90, 0, 0)
gemm("gemm broadcast c", 4, 64, 200, 50, 0, 0, broadcast_c=True)
gemm("gemm small", 2, 5, 7, 3, 1, 0)
# Images per thread (one image a chunk), chunks of 16 images with a short
# last one, groups, strides and dilations.
conv("conv images", 4, 2, 8, 18, 18, 16, 3, 3, 1, 1, 1, 1)
conv("conv chunks", 20, 1, 32, 6, 6, 64, 3, 3, 1, 1, 1, 1)
conv("conv strided dilated", 3, 3, 6, 21, 17, 24, 3, 2, 2, 1, 2, 3)
# One unit whose phases share one parallel region (ResNet-18's stride-2
# layer-2 convolution: im2col rows, the GEMM's two pieces, the add into y;
# the gathered dy, the GEMM, col2im's channels over overlapping windows),
# and a filter gradient of three chunks of images (2, 2, 1), each its own
# region, the first zeroing gw.
conv("conv strided one unit", 2, 1, 64, 17, 17, 128, 3, 3, 2, 2, 1, 1)
conv("conv three chunks", 5, 1, 16, 34, 34, 32, 3, 3, 1, 1, 1, 1)
# Depthwise (one input and one output channel per group: the direct loop
# nests), enough work for threads, and strided and dilated.
conv("conv depthwise", 8, 32, 1, 34, 34, 1, 3, 3, 1, 1, 1, 1)
conv("conv depthwise strided dilated", 3, 10, 1, 23, 19, 1, 3, 2, 2, 3, 2, 1)
# Column stride 2 (AVX-512 CPUs: Depthwise.cpp's 16-lane planes, every
# second input column gathered or scattered by permutes): 18 output columns
# (a full vector and 2 lanes), and 13 with dilation 2.
conv("conv depthwise stride 2", 2, 8, 1, 37, 37, 1, 3, 3, 2, 2, 1, 1)
conv("conv depthwise stride 2 dilated", 2, 4, 1, 27, 29, 1, 3, 3, 2, 2, 2, 2)
# Few output columns (AVX-512 CPUs: the runtime's own loops, SmallGemm.cpp):
# ResNet-18's layer 4 at batch 2 (8 columns, filters 512 x 2304 in two
# pieces; the filter gradient's GEMM 8 terms deep, its `_set` pieces of
# 2.4 MB streamed past the caches when gw is aligned), one image of 16 columns
# (added straight to y), and 27 columns (two vectors, the second partly
# masked) with 37 filters and 45 terms (rows and columns left over).
conv("conv narrow", 2, 1, 256, 4, 4, 512, 3, 3, 1, 1, 1, 1)
conv("conv narrow one image", 1, 1, 64, 6, 6, 64, 3, 3, 1, 1, 1, 1)
conv("conv narrow tails", 3, 2, 5, 5, 5, 37, 3, 3, 1, 1, 1, 1)
# 12 columns (AVX2 CPUs: two 8-lane vectors, the second half masked) with 21
# filters (blocks of 6 rows and 3 left over).
conv("conv narrow 12 columns", 1, 1, 7, 5, 6, 21, 3, 3, 1, 1, 1, 1)
# Input gradients of at most 8 columns (w^T dy: blocks of 48 rows of col,
# 16 terms a pass; "conv narrow" has 2304 rows in two pieces): 45 rows (a
# partial block only) and 37 terms; a 1x1 convolution of one image added
# straight to dx, 100 rows (two blocks and 4 rows).
conv("conv transposed tails", 1, 1, 5, 4, 5, 37, 3, 3, 1, 1, 1, 1)
conv("conv transposed 1x1", 1, 1, 100, 2, 3, 24, 1, 1, 1, 1, 1, 1)
# The filter gradient written over garbage: bands of 256 columns (512
# filters, two pieces of 288 columns each), of 2048 rows (5000 filters of
# depth 64, two pieces of 2500 rows), and no images at all (gw = 0).
conv("conv set columns", 2, 1, 64, 4, 4, 512, 3, 3, 1, 1, 1, 1, set_only=True)
conv("conv set rows", 2, 1, 64, 2, 2, 5000, 1, 1, 1, 1, 1, 1, set_only=True)
empty = rng.standard_normal((1, 4, 3, 2, 2)).astype(np.float32)
lib.remat_cpu_sconv2d_filter_grad_set(0, 1, 3, 5, 5, 4, 2, 2, 4, 4, 1, 1, 1,
                                      1, 0, 0, 0, 0, ptr(empty), 0)
print("conv set no images " + ("ok" if not empty.any() else "FAIL not zero"))
failures += bool(empty.any())
if args.save:
    np.savez(args.save, **bits)
for path, pattern in args.same_bits:
    saved = np.load(path)
    matches = [name for name in bits if re.search(pattern, name)]
    if not matches:
        print(f"FAIL no case matches {pattern}")
        failures += 1
    for name in matches:
        same = name in saved and np.array_equal(saved[name], bits[name])
        print(f"{name} " + (f"same bits as {os.path.basename(path)}"
                            if same else f"FAIL bits differ from {path}"))
        failures += not same
sys.exit(1 if failures else 0)
