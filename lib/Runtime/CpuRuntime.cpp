//===- CpuRuntime.cpp - GEMM and threads of compiled CPU steps ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ over OpenBLAS's CBLAS; no MLIR. See CpuRuntime.h.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CpuRuntime.h"

#include <algorithm>
#include <cblas.h>
#include <openblas_config.h> // OpenBLAS's cblas.h, with its extensions

/// A leading dimension BLAS accepts: a matrix with one row may carry any
/// row stride in its memref, but BLAS requires ld >= max(1, columns).
static int64_t leadingDimension(int64_t ld, int64_t rows, int64_t columns) {
  if (rows <= 1)
    return std::max<int64_t>(std::max<int64_t>(ld, columns), 1);
  return ld;
}

extern "C" void remat_cpu_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                                int64_t transA, const float *a, int64_t offsetA,
                                int64_t lda, int64_t batchStrideA,
                                int64_t transB, const float *b, int64_t offsetB,
                                int64_t ldb, int64_t batchStrideB, float *c,
                                int64_t offsetC, int64_t ldc,
                                int64_t batchStrideC) {
  if (m <= 0 || n <= 0 || k <= 0)
    return; // C += nothing
  // Rows and columns of the stored matrices.
  lda = transA ? leadingDimension(lda, k, m) : leadingDimension(lda, m, k);
  ldb = transB ? leadingDimension(ldb, n, k) : leadingDimension(ldb, k, n);
  ldc = leadingDimension(ldc, m, n);
  for (int64_t i = 0; i < batch; ++i)
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f,
                a + offsetA + i * batchStrideA, static_cast<int>(lda),
                b + offsetB + i * batchStrideB, static_cast<int>(ldb), 1.0f,
                c + offsetC + i * batchStrideC, static_cast<int>(ldc));
}

extern "C" void remat_cpu_set_num_threads(int threads) {
  openblas_set_num_threads(std::max(threads, 1));
}

extern "C" int remat_cpu_num_threads(void) {
  return openblas_get_num_threads();
}

extern "C" const char *remat_cpu_blas_name(void) {
  return openblas_get_config();
}
