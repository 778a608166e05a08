//===- SmallGemm.cpp - GEMMs with one short dimension ---------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// AVX-512F loops, and AVX2 + FMA loops for narrow products of at most 16
// columns (function target
// attributes, chosen at run time, CpuIsa.h: the rest of the runtime is
// compiled for baseline x86-64). A narrow product keeps
// the short rows of C in registers, R rows at a time (one or two 16-lane
// vectors each), and streams A once: per inner index p, B's row p is loaded
// once and multiplied by R broadcast elements of A. A shallow product first
// copies B^T (k x n) to scratch memory, then per R rows of A and 16 columns
// of C sums its k terms in registers. A transposed product (C = A^T B, C's
// rows are A's columns) sums 48 columns of A for all of C's (<= 8) columns
// in 24 registers, 16 rows of A at a time across all blocks, so that A is
// read row by row once.
//
//===----------------------------------------------------------------------===//

#include "SmallGemm.h"

#include "CpuIsa.h"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define REMAT_SMALL_GEMM 1
#endif

namespace remat::runtime {

bool smallGemmRuns(bool transA, bool transB, int64_t n) {
  switch (cpuIsa()) { // Generic where REMAT_SMALL_GEMM is not defined
  case CpuIsa::Avx512:
    return true;
  case CpuIsa::Avx2:
    return !transA && !transB && n <= kAvx2Columns;
  case CpuIsa::Generic:
    break;
  }
  return false;
}

bool smallGemmApplies(bool transA, bool transB, int64_t n, int64_t k) {
  if (transA)
    return !transB && n >= 1 && n <= kTransposedColumns; // transposed
  if (!transB)
    return n >= 1 && n <= kSmallGemmDim; // narrow
  return k >= 1 && k <= kSmallGemmDim;   // shallow
}

#ifdef REMAT_SMALL_GEMM

namespace {

#define REMAT_AVX512 __attribute__((target("avx512f")))

constexpr int64_t kLanes = 16;

/// The first `count` (1 to 16) lanes.
__mmask16 firstLanes(int64_t count) {
  return static_cast<__mmask16>((1u << count) - 1u);
}

/// Stores acc to the `mask` lanes at c, added to +0.0 (`overwrite`) or to
/// what they hold.
REMAT_AVX512 inline void addTo(float *c, __mmask16 mask, __m512 acc,
                               bool overwrite) {
  __m512 old = overwrite ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask, c);
  _mm512_mask_storeu_ps(c, mask, _mm512_add_ps(old, acc));
}

/// R rows of a narrow product (A's rows lda apart), each V vectors of C
/// (the last one `last` lanes wide).
template <int R, int V>
REMAT_AVX512 void narrowRows(int64_t k, const float *a, int64_t lda,
                             const float *b, int64_t ldb, __mmask16 last,
                             float *c, int64_t ldc, bool overwrite) {
  __m512 acc[R][V];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float *row = b + p * ldb;
    __m512 bv[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      bv[v] = _mm512_maskz_loadu_ps(v == V - 1 ? last : __mmask16(0xFFFF),
                                    row + v * kLanes);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      __m512 av = _mm512_set1_ps(a[r * lda + p]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      addTo(c + r * ldc + v * kLanes, v == V - 1 ? last : __mmask16(0xFFFF),
            acc[r][v], overwrite);
}

/// A narrow product of V vectors per row of C: blocks of R rows, then the
/// remaining rows one at a time.
template <int V>
void narrow(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
            const float *b, int64_t ldb, float *c, int64_t ldc,
            bool overwrite) {
  constexpr int R = V == 1 ? 16 : 8;
  __mmask16 last = firstLanes(n - (V - 1) * kLanes);
  int64_t i = 0;
  for (; i + R <= m; i += R)
    narrowRows<R, V>(k, a + i * lda, lda, b, ldb, last, c + i * ldc, ldc,
                     overwrite);
  for (; i < m; ++i)
    narrowRows<1, V>(k, a + i * lda, lda, b, ldb, last, c + i * ldc, ldc,
                     overwrite);
}

#define REMAT_AVX2 __attribute__((target("avx2,fma")))

constexpr int64_t kLanes8 = 8;

/// A maskload / maskstore mask of the first `count` (1 to 8) lanes.
REMAT_AVX2 inline __m256i firstLanes8(int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// narrowRows in 8-lane AVX2 vectors (V of them, the last one `last` lanes
/// wide): per element of C the same FMA chain from +0.0 in increasing p,
/// then the same addition to C or to +0.0, so the same bits.
template <int R, int V>
REMAT_AVX2 void narrowRowsAvx2(int64_t k, const float *a, int64_t lda,
                               const float *b, int64_t ldb, __m256i last,
                               float *c, int64_t ldc, bool overwrite) {
  __m256 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      acc[r][v] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const float *row = b + p * ldb;
    __m256 bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      bv[v] = v == V - 1 ? _mm256_maskload_ps(row + v * kLanes8, last)
                         : _mm256_loadu_ps(row + v * kLanes8);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      __m256 av = _mm256_broadcast_ss(a + r * lda + p);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  const __m256i all = _mm256_set1_epi32(-1);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float *out = c + r * ldc + v * kLanes8;
      __m256i mask = v == V - 1 ? last : all;
      __m256 old =
          overwrite ? _mm256_setzero_ps() : _mm256_maskload_ps(out, mask);
      _mm256_maskstore_ps(out, mask, _mm256_add_ps(old, acc[r][v]));
    }
}

/// A narrow product of V (1 or 2) 8-lane vectors per row of C (AVX2 +
/// FMA): blocks of R rows (R V accumulators, V rows of B and a broadcast
/// within the 16 registers), then the remaining rows one at a time.
template <int V>
REMAT_AVX2 void narrowAvx2(int64_t m, int64_t n, int64_t k, const float *a,
                           int64_t lda, const float *b, int64_t ldb, float *c,
                           int64_t ldc, bool overwrite) {
  constexpr int R = V == 1 ? 8 : 6;
  __m256i last = firstLanes8(n - (V - 1) * kLanes8);
  int64_t i = 0;
  for (; i + R <= m; i += R)
    narrowRowsAvx2<R, V>(k, a + i * lda, lda, b, ldb, last, c + i * ldc, ldc,
                         overwrite);
  for (; i < m; ++i)
    narrowRowsAvx2<1, V>(k, a + i * lda, lda, b, ldb, last, c + i * ldc, ldc,
                         overwrite);
}

/// Least bytes of C that a shallow product written over (`overwrite`)
/// stores past the caches (non-temporal stores): ResNet-18's layer-4 filter
/// gradients at batch 2 (512 x 4608 and 512 x 2304 floats, 4.7 and 2.4 MB
/// per piece). A C that large leaves the core's caches anyway, and an
/// ordinary store first reads each line it writes (a read for ownership):
/// twice the memory traffic, and the 2-thread step's two pieces compete for
/// it. Smaller outputs (layer 3's, 1.2 MB per piece) stay cached for the
/// update that reads them next. The stored values are the same either way.
constexpr int64_t kStreamBytes = int64_t(2) << 20;

/// R rows of a shallow product: a is R x k (row stride lda), bt k x n (row
/// stride n). With `stream` (C 64-byte aligned, ldc a multiple of kLanes,
/// `overwrite`), full vectors of C are non-temporal stores of +0.0 + the
/// sum, the bits addTo would store.
template <int R>
REMAT_AVX512 void shallowRows(int64_t n, int64_t k, const float *a, int64_t lda,
                              const float *bt, float *c, int64_t ldc,
                              bool overwrite, bool stream) {
  for (int64_t j = 0; j < n; j += kLanes) {
    __mmask16 mask = firstLanes(std::min(kLanes, n - j));
    __m512 acc[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      acc[r] = _mm512_setzero_ps();
    for (int64_t p = 0; p < k; ++p) {
      __m512 bv = _mm512_maskz_loadu_ps(mask, bt + p * n + j);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + p]), bv, acc[r]);
    }
    if (stream && n - j >= kLanes) {
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
        _mm512_stream_ps(c + r * ldc + j,
                         _mm512_add_ps(_mm512_setzero_ps(), acc[r]));
      continue;
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      addTo(c + r * ldc + j, mask, acc[r], overwrite);
  }
}

/// C = (overwrite ? +0.0 : C) + A B^T, k <= kSmallGemmDim: B transposed
/// into scratch memory, then blocks of 8 rows of C (the rest one at a
/// time), 16 columns at a time; a large C written over bypasses the caches
/// (kStreamBytes).
void shallow(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
             const float *b, int64_t ldb, float *c, int64_t ldc,
             bool overwrite) {
  thread_local std::vector<float> transposed;
  if (static_cast<int64_t>(transposed.size()) < n * k)
    transposed.resize(static_cast<size_t>(n * k));
  float *bt = transposed.data();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p)
      bt[p * n + j] = b[j * ldb + p];
  bool stream = overwrite &&
                m * n * static_cast<int64_t>(sizeof(float)) >= kStreamBytes &&
                reinterpret_cast<uintptr_t>(c) % 64 == 0 && ldc % kLanes == 0;
  constexpr int R = 8;
  int64_t i = 0;
  for (; i + R <= m; i += R)
    shallowRows<R>(n, k, a + i * lda, lda, bt, c + i * ldc, ldc, overwrite,
                   stream);
  for (; i < m; ++i)
    shallowRows<1>(n, k, a + i * lda, lda, bt, c + i * ldc, ldc, overwrite,
                   stream);
  if (stream)
    _mm_sfence(); // the streamed lines before anything this thread does next
}

/// Columns of A (rows of C) per block of a transposed product: three
/// vectors, with kTransposedColumns accumulators each (24 registers).
constexpr int64_t kBlockColumns = 3 * kLanes;
/// Rows of A (terms) a block sums before the next block: A is read row by
/// row, 16 rows at a time across all blocks, so that each row is streamed
/// once (a block that summed all of A's rows would read 192 bytes per row,
/// a page apart: 1.5x OpenBLAS's time on ResNet-18's layer 4).
constexpr int64_t kTermsPerPass = 16;

/// Adds terms [p0, p1) of block `block` (columns [block kBlockColumns, + 3
/// vectors) of A) to its sums: sums[j][column], kTransposedColumns x
/// kBlockColumns. bPadded is k x kTransposedColumns.
REMAT_AVX512 void transposedPass(const float *a, int64_t lda,
                                 const float *bPadded, int64_t p0, int64_t p1,
                                 float *sums) {
  constexpr int J = kTransposedColumns, V = 3;
  __m512 acc[J][V];
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j)
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v)
      acc[j][v] = _mm512_loadu_ps(sums + j * kBlockColumns + v * kLanes);
  for (int64_t p = p0; p < p1; ++p) {
    const float *row = a + p * lda;
    __m512 av[V];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v)
      av[v] = _mm512_loadu_ps(row + v * kLanes);
    const float *bp = bPadded + p * J;
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) {
      __m512 bj = _mm512_set1_ps(bp[j]);
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v)
        acc[j][v] = _mm512_fmadd_ps(av[v], bj, acc[j][v]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < J; ++j)
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v)
      _mm512_storeu_ps(sums + j * kBlockColumns + v * kLanes, acc[j][v]);
}

/// C (m x n) = A^T (A: k x m) B (k x n), n <= kTransposedColumns: per
/// block of kBlockColumns rows of C, the sums of every column of C in
/// scratch memory, kTermsPerPass terms at a time; C's last block (fewer
/// rows) and B's missing columns (zeros) computed and dropped.
void transposed(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, float *c, int64_t ldc,
                bool overwrite) {
  constexpr int64_t J = kTransposedColumns;
  int64_t blocks = (m + kBlockColumns - 1) / kBlockColumns;
  int64_t full = m / kBlockColumns;
  thread_local std::vector<float> memory;
  size_t need = static_cast<size_t>(k * J + blocks * J * kBlockColumns +
                                    k * kBlockColumns);
  if (memory.size() < need)
    memory.resize(need);
  float *bPadded = memory.data();
  float *sums = bPadded + k * J;
  // The last, partial block reads a copy of its columns of A (zeros past m).
  float *tail = sums + blocks * J * kBlockColumns;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < J; ++j)
      bPadded[p * J + j] = j < n ? b[p * ldb + j] : 0.0f;
  std::fill(sums, sums + blocks * J * kBlockColumns, 0.0f);
  if (full < blocks) {
    int64_t rest = m - full * kBlockColumns;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t column = 0; column < kBlockColumns; ++column)
        tail[p * kBlockColumns + column] =
            column < rest ? a[p * lda + full * kBlockColumns + column] : 0.0f;
  }
  for (int64_t p0 = 0; p0 < k; p0 += kTermsPerPass) {
    int64_t p1 = std::min(k, p0 + kTermsPerPass);
    for (int64_t block = 0; block < blocks; ++block) {
      float *blockSums = sums + block * J * kBlockColumns;
      if (block < full)
        transposedPass(a + block * kBlockColumns, lda, bPadded, p0, p1,
                       blockSums);
      else
        transposedPass(tail, kBlockColumns, bPadded, p0, p1, blockSums);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    const float *blockSums = sums + i / kBlockColumns * J * kBlockColumns;
    for (int64_t j = 0; j < n; ++j) {
      float sum = blockSums[j * kBlockColumns + i % kBlockColumns];
      c[i * ldc + j] = (overwrite ? 0.0f : c[i * ldc + j]) + sum;
    }
  }
}

} // namespace

void smallGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
               const float *a, int64_t lda, const float *b, int64_t ldb,
               float *c, int64_t ldc, bool overwrite) {
  if (m <= 0 || n <= 0)
    return;
  if (transA) {
    transposed(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
    return;
  }
  if (transB) {
    shallow(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
    return;
  }
  if (!haveAvx512()) {
    if (n <= kLanes8)
      narrowAvx2<1>(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
    else
      narrowAvx2<2>(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
    return;
  }
  if (n <= kLanes)
    narrow<1>(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
  else
    narrow<2>(m, n, k, a, lda, b, ldb, c, ldc, overwrite);
}

#else // !REMAT_SMALL_GEMM

void smallGemm(bool, bool, int64_t, int64_t, int64_t, const float *, int64_t,
               const float *, int64_t, float *, int64_t, bool) {}

#endif // REMAT_SMALL_GEMM

} // namespace remat::runtime
