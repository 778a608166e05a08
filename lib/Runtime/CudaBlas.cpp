//===- CudaBlas.cpp - the GEMM of compiled CUDA steps over cuBLAS ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat_cuda_sgemm, which `--remat-linalg-to-blas=target=cuda` calls for
// every f32 matmul and batch matmul of a CUDA step (remat_cuda_gemm_f16 /
// _bf16 for f16 / bf16 operands with an f32 result): one
// cublasGemmStridedBatchedEx_64 on the caller's stream. Plain C++ over
// cublas_v2.h; no MLIR.
//
// Reduction order (docs/Conventions.md): one handle per thread, created
// once with pedantic math (no TF32 or other reduced-precision paths), no
// atomics and a fixed workspace of its own (so the algorithm cuBLAS picks
// for a shape does not depend on memory available elsewhere), used on one
// stream at a time. cuBLAS then gives the same bits for the same shapes,
// transposes, strides and data on the same GPU and cuBLAS version.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CudaRuntime.h"

#include "CudaCheck.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

/// The workspace of each handle: cuBLAS's recommendation for Hopper; fixed,
/// so the algorithm chosen for a shape does not vary between calls.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

using remat::cuda::check;

void check(cublasStatus_t status, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    remat::cuda::fail(call, cublasGetStatusString(status));
}

/// The cuBLAS handle of the calling thread (created on first use, in the
/// runtime's primary context) and its workspace.
class Handle {
public:
  Handle() {
    remat_cuda_init();
    REMAT_CHECK(cublasCreate(&handle));
    REMAT_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
    REMAT_CHECK(cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_NOT_ALLOWED));
    REMAT_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    REMAT_CHECK(cuMemAlloc(&workspace, kWorkspaceBytes));
    REMAT_CHECK(cublasSetWorkspace(handle, reinterpret_cast<void *>(workspace),
                                   kWorkspaceBytes));
  }
  ~Handle() {
    cublasDestroy(handle);
    cuMemFree(workspace);
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;

  cublasHandle_t get() const { return handle; }

private:
  cublasHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
};

cublasHandle_t threadHandle() {
  thread_local Handle handle;
  return handle.get();
}

/// A leading dimension cuBLAS accepts: a matrix with one row may carry any
/// row stride in its memref, but cuBLAS requires ld >= max(1, columns).
int64_t leadingDimension(int64_t ld, int64_t rows, int64_t columns) {
  if (rows <= 1)
    return std::max<int64_t>(std::max<int64_t>(ld, columns), 1);
  return ld;
}

/// C[i] += op(A[i]) op(B[i]) (row-major, remat_cuda_sgemm's operands) with
/// A and B of `inputType` and C of f32, in pedantic f32 compute.
void gemm(void *stream, int64_t batch, int64_t m, int64_t n, int64_t k,
          int64_t transA, const void *a, int64_t lda, int64_t batchStrideA,
          int64_t transB, const void *b, int64_t ldb, int64_t batchStrideB,
          float *c, int64_t ldc, int64_t batchStrideC,
          cudaDataType inputType) {
  if (batch <= 0 || m <= 0 || n <= 0 || k <= 0)
    return; // C += nothing
  // Rows and columns of the stored (row-major) matrices.
  lda = transA ? leadingDimension(lda, k, m) : leadingDimension(lda, m, k);
  ldb = transB ? leadingDimension(ldb, n, k) : leadingDimension(ldb, k, n);
  ldc = leadingDimension(ldc, m, n);
  cublasHandle_t handle = threadHandle();
  REMAT_CHECK(cublasSetStream(handle, static_cast<cudaStream_t>(stream)));
  // cuBLAS is column-major: a row-major C (m x n) is the column-major C^T
  // (n x m) with the same leading dimension, and C^T = op(B)^T op(A)^T, so
  // B comes first and the sizes swap; a row-major operand read as
  // column-major is already the transpose the product needs.
  const float one = 1.0f;
  REMAT_CHECK(cublasGemmStridedBatchedEx_64(
      handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
      transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, b, inputType, ldb,
      batchStrideB, a, inputType, lda, batchStrideA, &one, c, CUDA_R_32F,
      ldc, batchStrideC, batch, CUBLAS_COMPUTE_32F_PEDANTIC,
      CUBLAS_GEMM_DEFAULT));
}

} // namespace

extern "C" void remat_cuda_sgemm(void *stream, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, int64_t transA,
                                 const float *a, int64_t offsetA, int64_t lda,
                                 int64_t batchStrideA, int64_t transB,
                                 const float *b, int64_t offsetB, int64_t ldb,
                                 int64_t batchStrideB, float *c,
                                 int64_t offsetC, int64_t ldc,
                                 int64_t batchStrideC) {
  gemm(stream, batch, m, n, k, transA, a + offsetA, lda, batchStrideA, transB,
       b + offsetB, ldb, batchStrideB, c + offsetC, ldc, batchStrideC,
       CUDA_R_32F);
}

extern "C" void remat_cuda_gemm_f16(
    void *stream, int64_t batch, int64_t m, int64_t n, int64_t k,
    int64_t transA, const uint16_t *a, int64_t offsetA, int64_t lda,
    int64_t batchStrideA, int64_t transB, const uint16_t *b, int64_t offsetB,
    int64_t ldb, int64_t batchStrideB, float *c, int64_t offsetC, int64_t ldc,
    int64_t batchStrideC) {
  gemm(stream, batch, m, n, k, transA, a + offsetA, lda, batchStrideA, transB,
       b + offsetB, ldb, batchStrideB, c + offsetC, ldc, batchStrideC,
       CUDA_R_16F);
}

extern "C" void remat_cuda_gemm_bf16(
    void *stream, int64_t batch, int64_t m, int64_t n, int64_t k,
    int64_t transA, const uint16_t *a, int64_t offsetA, int64_t lda,
    int64_t batchStrideA, int64_t transB, const uint16_t *b, int64_t offsetB,
    int64_t ldb, int64_t batchStrideB, float *c, int64_t offsetC, int64_t ldc,
    int64_t batchStrideC) {
  gemm(stream, batch, m, n, k, transA, a + offsetA, lda, batchStrideA, transB,
       b + offsetB, ldb, batchStrideB, c + offsetC, ldc, batchStrideC,
       CUDA_R_16BF);
}
