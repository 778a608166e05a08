//===- SmallGemm.h - GEMMs with one short dimension -------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Row-major f32 products with at most kSmallGemmDim output columns (C = op(A)
// B, any m and k) or at most kSmallGemmDim inner terms (C = A B^T, any m and
// n): the convolutions of a CNN's last stages, whose im2col matrices have few
// columns (ResNet-18 at 64x64, batch 2: 8 in layer 4; its filters
// 512 x 4608). OpenBLAS packs both operands for every call, so for these
// shapes it reads and writes the large one twice before it multiplies
// (packing cost as much as its kernel); these loops read it once, in place.
// Internal to lib/Runtime (CpuRuntime.cpp); plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_RUNTIME_SMALLGEMM_H
#define REMAT_LIB_RUNTIME_SMALLGEMM_H

#include <cstdint>

namespace remat::runtime {

/// The largest short dimension smallGemm handles.
constexpr int64_t kSmallGemmDim = 32;

/// Whether the CPU has AVX-512F (this process then runs smallGemm and the
/// AVX-512 loops of Depthwise.h); decided once per process, so every call of
/// a shape takes the same path.
bool haveAvx512();

/// Whether smallGemm computes a product with these transposes and sizes:
/// C (m x n) = A (m x k) B (k x n) with n <= kSmallGemmDim (`narrow`), or
/// C = A (m x k) B^T with k <= kSmallGemmDim (`shallow`); never A^T.
bool smallGemmApplies(bool transA, bool transB, int64_t n, int64_t k);

/// C (m x n, row stride ldc) = (overwrite ? +0.0 : C) + A op(B) for a
/// product smallGemmApplies to (op(B) = B^T when `transB`). Each element's
/// sum is the same for any m and for any band of rows or columns the
/// caller cuts the product into: one float accumulator from +0.0, one fused
/// multiply-add per term in increasing order of the inner index, then added
/// to C (or to +0.0). A shallow product copies B^T to per-thread scratch
/// memory first.
void smallGemm(bool transB, int64_t m, int64_t n, int64_t k, const float *a,
               int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
               bool overwrite);

} // namespace remat::runtime

#endif // REMAT_LIB_RUNTIME_SMALLGEMM_H
