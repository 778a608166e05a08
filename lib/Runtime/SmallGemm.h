//===- SmallGemm.h - GEMMs with one short dimension -------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Row-major f32 products with at most kSmallGemmDim output columns (C = A B,
// any m and k), at most kSmallGemmDim inner terms (C = A B^T, any m and n) or
// at most kTransposedColumns output columns (C = A^T B): the convolutions of
// a CNN's last stages, whose im2col matrices have few
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
/// The most columns of a transposed product (C = A^T B) smallGemm handles.
constexpr int64_t kTransposedColumns = 8;

/// The most columns of a narrow product that smallGemm computes on CPUs
/// with AVX2 + FMA but not AVX-512F. With more (three or four 8-lane
/// vectors per row of C) its loops measured slower than OpenBLAS (25 and
/// 32 columns: 1.2-1.45x OpenBLAS's time), with 8 to 16 faster (0.7-0.9x).
constexpr int64_t kAvx2Columns = 16;

/// Whether this process runs smallGemm for products with these transposes
/// and n columns of C (CpuIsa.h): all that smallGemmApplies to on AVX-512F,
/// narrow ones (neither transposed) of at most kAvx2Columns columns on AVX2 +
/// FMA, none on generic.
bool smallGemmRuns(bool transA, bool transB, int64_t n);

/// Whether smallGemm computes a product with these transposes and sizes:
/// C (m x n) = A (m x k) B (k x n) with n <= kSmallGemmDim (`narrow`),
/// C = A (m x k) B^T with k <= kSmallGemmDim (`shallow`), or C = A^T (A:
/// k x m) B with n <= kTransposedColumns (`transposed`).
bool smallGemmApplies(bool transA, bool transB, int64_t n, int64_t k);

/// C (m x n, row stride ldc) = (overwrite ? +0.0 : C) + op(A) op(B) for a
/// product smallGemmApplies to. Each element's sum is the same for any m
/// and for any band of rows or columns the caller cuts the product into:
/// one float accumulator from +0.0, one fused multiply-add per term in
/// increasing order of the inner index (a transposed product stores and
/// reloads it between passes over 16 terms: the same value), then added to
/// C (or to +0.0). Shallow and transposed products use per-thread scratch
/// memory (B^T; B padded, the sums and A's last columns).
void smallGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
               const float *a, int64_t lda, const float *b, int64_t ldb,
               float *c, int64_t ldc, bool overwrite);

} // namespace remat::runtime

#endif // REMAT_LIB_RUNTIME_SMALLGEMM_H
