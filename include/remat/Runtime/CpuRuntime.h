/*===- CpuRuntime.h - the remat CPU runtime ------------------------*- C -*-===*
 *
 * Part of the remat project.
 *
 * The remat CPU runtime (lib/Runtime, libRematCpuRuntime.a) holds what
 * compiled CPU entry points call besides libm: the GEMM that
 * remat-linalg-to-blas emits (cblas_sgemm of OpenBLAS underneath), the
 * convolutions it emits (im2col + cblas_sgemm), and the
 * thread count of that library for programs that call entry points. Link a
 * program with `libRematCpuRuntime.a -lopenblas -lm`. Plain C; no MLIR.
 *===----------------------------------------------------------------------===*/

#ifndef REMAT_RUNTIME_CPURUNTIME_H
#define REMAT_RUNTIME_CPURUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For every i in [0, batch): C_i += op(A_i) * op(B_i), row major, f32,
 * with C_i an m x n matrix and k the inner dimension. X_i starts at
 * x + offsetX + i * batchStrideX (elements; a batch stride of 0 broadcasts
 * one matrix); ldX is its row stride; op transposes when transX is 1.
 * Each product is cut into pieces, bands of rows of C (m >= n) or of
 * columns, as many as its shape gives, never the thread count (1 below
 * 2^21 multiply-adds or 128 rows, else min(m n k / 2^24, rows / 64) rounded
 * down and clamped to [2, 8]); each piece is one single-threaded
 * cblas_sgemm (alpha 1, beta 1), and the pieces of all batch indices are
 * shared among the OpenMP threads (a broadcast C takes the batch indices
 * in increasing order on one thread). */
void remat_cpu_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                     int64_t transA, const float *a, int64_t offsetA,
                     int64_t lda, int64_t batchStrideA, int64_t transB,
                     const float *b, int64_t offsetB, int64_t ldb,
                     int64_t batchStrideB, float *c, int64_t offsetC,
                     int64_t ldc, int64_t batchStrideC);

/* Convolution of an NCHW input with G groups of F filters each, through
 * im2col and one GEMM (cut into pieces as remat_cpu_sgemm's) per group and
 * chunk of images:
 *
 *   y[n][g][f][oh][ow] += sum over (c, kh, kw) of
 *       x[n][g][c][oh * sh + kh * dh][ow * sw + kw * dw] * w[g][f][c][kh][kw]
 *
 * x is [n, g, c, h, w], w (filter) is [g, f, c, kh, kw], y is
 * [n, g, f, oh, ow], each dense row major from element offsetX (offsetFilter,
 * offsetY) of the float buffer at address x (filter, y); the addresses are
 * integers so that the call does not depend on how compiled code passes
 * memrefs. The input is already
 * padded: every window lies inside it. The sum over (c, kh, kw) is one GEMM
 * dot product (its order is the BLAS kernel's, fixed by the shape). A chunk
 * is as many images as give the GEMM 256 columns (oh ow each; at most n).
 * Chunks and groups write disjoint parts of y: with at least 2^21
 * multiply-adds in all they are shared among the OpenMP threads (each then
 * computes its GEMM's pieces itself), else the GEMM's pieces are. With more
 * than one image per chunk the product goes to per-thread scratch memory
 * first and is then added to y. On a CPU with AVX-512F a GEMM with at most
 * 32 columns runs as the runtime's own loops instead of cblas_sgemm (each
 * element one fused multiply-add per term in increasing (c, kh, kw) order
 * from +0.0, then added to y; docs/Conventions.md). A depthwise convolution
 * (c = f = 1) is a direct loop nest instead, per image and group, 16 lanes
 * wide on AVX-512 CPUs with the same bits (docs/Conventions.md). */
void remat_cpu_sconv2d(int64_t n, int64_t g, int64_t c, int64_t h, int64_t w,
                       int64_t f, int64_t kh, int64_t kw, int64_t oh,
                       int64_t ow, int64_t sh, int64_t sw, int64_t dh,
                       int64_t dw, uintptr_t x, int64_t offsetX,
                       uintptr_t filter, int64_t offsetFilter, uintptr_t y,
                       int64_t offsetY);

/* The filter gradient of the same convolution (same shapes and layouts):
 *
 *   gw[g][f][c][kh][kw] += sum over (n, oh, ow) of
 *       x[n][g][c][oh * sh + kh * dh][ow * sw + kw * dw] * dy[n][g][f][oh][ow]
 *
 * One GEMM per group and chunk of images (dy of the chunk's images side by
 * side times their transposed im2col matrix, beta 1); a chunk here is as
 * many images as give 2048 columns, unless their im2col matrix would pass
 * 2^22 elements, and at least remat_cpu_sconv2d's chunk (at most n). Chunks
 * are added onto gw[g] one after the other in increasing order by one
 * thread; within one chunk the sum over (n, oh, ow) is one GEMM dot
 * product. Groups, and each GEMM's pieces (bands of f or of c kh kw), are
 * shared among the OpenMP threads. On a CPU with AVX-512F a GEMM at most 32
 * columns deep runs as the runtime's own loops (the same pieces; each
 * element one fused multiply-add per term in increasing (n, oh, ow) order
 * from +0.0, then added to gw). A depthwise convolution (c = f = 1) is a
 * direct loop nest per group instead (docs/Conventions.md). */
void remat_cpu_sconv2d_filter_grad(int64_t n, int64_t g, int64_t c, int64_t h,
                                   int64_t w, int64_t f, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow,
                                   int64_t sh, int64_t sw, int64_t dh,
                                   int64_t dw, uintptr_t x, int64_t offsetX,
                                   uintptr_t dy, int64_t offsetDy,
                                   uintptr_t gw, int64_t offsetGw);

/* The same filter gradient written over gw (its old contents ignored):
 * gw = sum over (n, oh, ow) of the same products, in the same order and with
 * the same bits as remat_cpu_sconv2d_filter_grad on a zero-filled gw. Each
 * group's first GEMM zeroes gw band by band (at most 2^17 elements, whole
 * blocks of 16 rows or columns of its piece) just before it adds the band's
 * product, while the band is still in cache: no separate pass over gw (the
 * AVX-512 loops of a shallow GEMM write +0.0 + the sum without zeroing).
 * remat-linalg-to-blas calls it for a filter gradient whose output a
 * linalg.fill of +0.0 has just zeroed (the fill is then dropped). */
void remat_cpu_sconv2d_filter_grad_set(
    int64_t n, int64_t g, int64_t c, int64_t h, int64_t w, int64_t f,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, uintptr_t x, int64_t offsetX, uintptr_t dy,
    int64_t offsetDy, uintptr_t gw, int64_t offsetGw);

/* The input gradient of the same convolution (same shapes; h and w are
 * those of the padded input, whose gradient dx is):
 *
 *   dx[n][g][c][oh * sh + kh * dh][ow * sw + kw * dw] +=
 *       w[g][f][c][kh][kw] * dy[n][g][f][oh][ow]   for all (f, kh, kw, oh, ow)
 *
 * Per group and chunk of images (as remat_cpu_sconv2d, and shared among
 * threads as there): one GEMM col = w[g]^T (c kh kw x f) times dy (f x the
 * chunk's oh ow), whose sum over f is one GEMM dot product, then per image
 * a col2im that adds col's rows (c, kh, kw) in increasing order, (oh, ow)
 * within each, to dx. A 1x1, stride-1 convolution over an input of the
 * output's size multiplies straight into dx, one image at a time. On a CPU
 * with AVX-512F a GEMM with at most 8 columns runs as the runtime's own
 * loops (each element of col one fused multiply-add per term in increasing
 * f order from +0.0). A depthwise convolution (c = f = 1) adds the same
 * products in the same order from a direct loop nest per image and group
 * (no GEMM, no col). */
void remat_cpu_sconv2d_input_grad(int64_t n, int64_t g, int64_t c, int64_t h,
                                  int64_t w, int64_t f, int64_t kh, int64_t kw,
                                  int64_t oh, int64_t ow, int64_t sh,
                                  int64_t sw, int64_t dh, int64_t dw,
                                  uintptr_t filter, int64_t offsetFilter,
                                  uintptr_t dy, int64_t offsetDy,
                                  uintptr_t dx, int64_t offsetDx);

/* Most threads remat_cpu_set_num_threads accepts. */
#define REMAT_CPU_MAX_THREADS 4096
/* Sets the number of OpenMP threads (omp_set_num_threads: for steps run by
 * the calling thread) to `threads`: they run the compiled loops and share
 * the pieces of the GEMMs and convolutions above, each piece one
 * cblas_sgemm on the thread that runs it, so OpenBLAS is set to one thread
 * (openblas_set_num_threads(1)): one pool of `threads` threads, not two.
 * Idle OpenMP threads spin for $KMP_BLOCKTIME (libomp's default, 200 ms)
 * before they sleep. While the calling thread waits for a CPU (another
 * process wants the cores), the runtime drops the count to 1 for about half
 * a second at a time, if $REMAT_ADAPTIVE_THREADS is set to a value other
 * than 0 (off by default; docs/Conventions.md, Threads). Returns 0, or -1 (and changes nothing) when `threads`
 * is not in [1, REMAT_CPU_MAX_THREADS]. Results do not depend on the count
 * (docs/Conventions.md). */
int remat_cpu_set_num_threads(int threads);
/* The number of threads the compiled loops use now (omp_get_max_threads;
 * 1 while the runtime has dropped it, see above). */
int remat_cpu_num_threads(void);
/* The count users expect by default: $REMAT_NUM_THREADS, else
 * $OMP_NUM_THREADS (its first entry), else the cores this process may run
 * on (its affinity mask). -1 when the variable that decides is not an
 * integer in [1, REMAT_CPU_MAX_THREADS]. */
int remat_cpu_default_num_threads(void);
/* The BLAS library and its build configuration, e.g. "OpenBLAS 0.3.21 ...". */
const char *remat_cpu_blas_name(void);
/* The instruction set of the runtime's own loops in this process: "avx512"
 * (the AVX-512F loops of the few-column GEMMs and the depthwise planes),
 * "avx2" (AVX2 + FMA loops for forward GEMMs of at most 16 columns) or
 * "generic" (OpenBLAS and the scalar loops). Decided at the first call of
 * the runtime that needs it: the CPU's best, unless $REMAT_CPU_ISA is
 * `generic` (forces generic), `avx2` or `avx512` (that set, or the CPU's
 * best with a message on stderr where it lacks it); unset, empty, `auto` or
 * any other value (a message on stderr) take the CPU's best. Results differ
 * between them only in the GEMMs with few columns (docs/Conventions.md,
 * Convolutions). */
const char *remat_cpu_isa(void);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_CPURUNTIME_H */
