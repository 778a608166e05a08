/*===- CudaRuntime.h - host helpers of the remat CUDA runtime -----*- C -*-===*
 *
 * Part of the remat project.
 *
 * The remat CUDA runtime (lib/Runtime, libRematCudaRuntime) implements the
 * mgpu* functions that MLIR's gpu-to-llvm lowering calls (module loading,
 * kernel launch, streams, events, memory) against the CUDA driver API, the
 * GEMM of compiled steps over cuBLAS, their convolutions over cuDNN, and
 * these helpers for programs that
 * call compiled entry points. Plain C; no MLIR.
 *===----------------------------------------------------------------------===*/

#ifndef REMAT_RUNTIME_CUDARUNTIME_H
#define REMAT_RUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Initializes the driver and makes device 0's primary context current
 * (REMAT_CUDA_DEVICE selects another ordinal). Returns 0 on success. */
int remat_cuda_init(void);

/* Managed memory (cuMemAllocManaged, global attach): reachable from the
 * host and from kernels. Aborts on failure. */
void *remat_cuda_alloc_managed(size_t bytes);
void remat_cuda_free(void *pointer);

/* Device memory in use now (total - free, cuMemGetInfo). */
int64_t remat_cuda_device_used_bytes(void);

/* The largest device memory in use seen since the last reset; sampled by
 * the runtime after every allocation and stream synchronization. */
void remat_cuda_reset_peak(void);
int64_t remat_cuda_peak_used_bytes(void);

/* Called by compiled code (--remat-linalg-to-blas=target=cuda), not by
 * users: C[i] += op(A[i]) * op(B[i]) for i < batch, row-major matrices
 * (m x k, k x n, m x n; op transposes when the flag is 1) at base + offset
 * + i * batchStride elements, enqueued on `stream` (a CUstream) through
 * one cublasGemmStridedBatchedEx_64 with pedantic f32 compute. */
void remat_cuda_sgemm(void *stream, int64_t batch, int64_t m, int64_t n,
                      int64_t k, int64_t transA, const float *a,
                      int64_t offsetA, int64_t lda, int64_t batchStrideA,
                      int64_t transB, const float *b, int64_t offsetB,
                      int64_t ldb, int64_t batchStrideB, float *c,
                      int64_t offsetC, int64_t ldc, int64_t batchStrideC);

/* The same for f16 (IEEE binary16) or bf16 A and B, given as their bits,
 * and an f32 C: the operands are widened exactly and the products summed in
 * pedantic f32 compute, as remat_cuda_sgemm does. */
void remat_cuda_gemm_f16(void *stream, int64_t batch, int64_t m, int64_t n,
                         int64_t k, int64_t transA, const uint16_t *a,
                         int64_t offsetA, int64_t lda, int64_t batchStrideA,
                         int64_t transB, const uint16_t *b, int64_t offsetB,
                         int64_t ldb, int64_t batchStrideB, float *c,
                         int64_t offsetC, int64_t ldc, int64_t batchStrideC);
void remat_cuda_gemm_bf16(void *stream, int64_t batch, int64_t m, int64_t n,
                          int64_t k, int64_t transA, const uint16_t *a,
                          int64_t offsetA, int64_t lda, int64_t batchStrideA,
                          int64_t transB, const uint16_t *b, int64_t offsetB,
                          int64_t ldb, int64_t batchStrideB, float *c,
                          int64_t offsetC, int64_t ldc, int64_t batchStrideC);

/* Called by compiled code (--remat-linalg-to-blas=target=cuda cudnn=1;
 * lib/Runtime/CudaConv.cpp, built when the toolkit has cuDNN): the
 * convolutions of remat_cpu_sconv2d (CpuRuntime.h) with the same sizes
 * (n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw; dense row-major f32
 * x [n, g, c, h, w], w [g, f, c, kh, kw], y [n, g, f, oh, ow], the input
 * already padded) and operands (address, offset in elements), enqueued on
 * `stream` (a CUstream) as one cuDNN call that adds its result to the last
 * operand: y += conv(x, w), dx += conv_input_grad(w, dy),
 * gw += conv_filter_grad(x, dy). */
void remat_cuda_sconv2d(void *stream, int64_t n, int64_t g, int64_t c,
                        int64_t h, int64_t w, int64_t f, int64_t kh,
                        int64_t kw, int64_t oh, int64_t ow, int64_t sh,
                        int64_t sw, int64_t dh, int64_t dw, uintptr_t x,
                        int64_t offsetX, uintptr_t filter,
                        int64_t offsetFilter, uintptr_t y, int64_t offsetY);
void remat_cuda_sconv2d_input_grad(void *stream, int64_t n, int64_t g,
                                   int64_t c, int64_t h, int64_t w, int64_t f,
                                   int64_t kh, int64_t kw, int64_t oh,
                                   int64_t ow, int64_t sh, int64_t sw,
                                   int64_t dh, int64_t dw, uintptr_t filter,
                                   int64_t offsetFilter, uintptr_t dy,
                                   int64_t offsetDy, uintptr_t dx,
                                   int64_t offsetDx);
void remat_cuda_sconv2d_filter_grad(void *stream, int64_t n, int64_t g,
                                    int64_t c, int64_t h, int64_t w,
                                    int64_t f, int64_t kh, int64_t kw,
                                    int64_t oh, int64_t ow, int64_t sh,
                                    int64_t sw, int64_t dh, int64_t dw,
                                    uintptr_t x, int64_t offsetX, uintptr_t dy,
                                    int64_t offsetDy, uintptr_t gw,
                                    int64_t offsetGw);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_CUDARUNTIME_H */
