/*===- CpuRuntime.h - the remat CPU runtime ------------------------*- C -*-===*
 *
 * Part of the remat project.
 *
 * The remat CPU runtime (lib/Runtime, libRematCpuRuntime.a) holds what
 * compiled CPU entry points call besides libm: the GEMM that
 * remat-linalg-to-blas emits (cblas_sgemm of OpenBLAS underneath), and the
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
 * one matrix); ldX is its row stride; op transposes when transX is 1. One
 * cblas_sgemm (alpha 1, beta 1) per batch index, in increasing order. */
void remat_cpu_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                     int64_t transA, const float *a, int64_t offsetA,
                     int64_t lda, int64_t batchStrideA, int64_t transB,
                     const float *b, int64_t offsetB, int64_t ldb,
                     int64_t batchStrideB, float *c, int64_t offsetC,
                     int64_t ldc, int64_t batchStrideC);

/* Sets the number of threads the BLAS uses (at least 1). */
void remat_cpu_set_num_threads(int threads);
/* The number of threads the BLAS uses now. */
int remat_cpu_num_threads(void);
/* The BLAS library and its build configuration, e.g. "OpenBLAS 0.3.21 ...". */
const char *remat_cpu_blas_name(void);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_CPURUNTIME_H */
