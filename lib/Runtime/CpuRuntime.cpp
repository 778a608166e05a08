//===- CpuRuntime.cpp - GEMM and threads of compiled CPU steps ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ over OpenBLAS's CBLAS; no MLIR. See CpuRuntime.h.
//
// Convolutions unfold each image's windows into a matrix (im2col) in a
// per-thread scratch buffer and multiply it with the filters by one
// cblas_sgemm per image and group.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CpuRuntime.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>
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
  constexpr int64_t maxInt = std::numeric_limits<int>::max();
  if (m > maxInt || n > maxInt || k > maxInt || lda > maxInt ||
      ldb > maxInt || ldc > maxInt) {
    // Too large for cblas_sgemm's int arguments (only a dynamic shape gets
    // here: remat-linalg-to-blas leaves larger static ones as loops). Plain
    // loops, k ascending per element, instead of truncated sizes.
    for (int64_t i = 0; i < batch; ++i) {
      const float *ai = a + offsetA + i * batchStrideA;
      const float *bi = b + offsetB + i * batchStrideB;
      float *ci = c + offsetC + i * batchStrideC;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t col = 0; col < n; ++col) {
          float acc = ci[r * ldc + col];
          for (int64_t p = 0; p < k; ++p)
            acc += (transA ? ai[p * lda + r] : ai[r * lda + p]) *
                   (transB ? bi[col * ldb + p] : bi[p * ldb + col]);
          ci[r * ldc + col] = acc;
        }
    }
    return;
  }
  for (int64_t i = 0; i < batch; ++i)
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f,
                a + offsetA + i * batchStrideA, static_cast<int>(lda),
                b + offsetB + i * batchStrideB, static_cast<int>(ldb), 1.0f,
                c + offsetC + i * batchStrideC, static_cast<int>(ldc));
}

namespace {

/// The shapes of one convolution (see remat_cpu_sconv2d): per image and
/// group, the GEMM's inner dimension for the forward (`depth`: c kh kw) and
/// its output columns (`pixels`: oh ow).
struct ConvShape {
  int64_t n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw;
  int64_t depth() const { return c * kh * kw; }
  int64_t pixels() const { return oh * ow; }
  bool empty() const {
    return n <= 0 || g <= 0 || f <= 0 || pixels() <= 0 || depth() <= 0;
  }
  /// A 1x1 window with unit strides over an input of the output's size:
  /// the image itself is the im2col matrix.
  bool imageIsMatrix() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && h == oh && w == ow;
  }
};

/// The f32 element `offset` of the buffer at address `base`.
float *address(uintptr_t base, int64_t offset) {
  return reinterpret_cast<float *>(base) + offset;
}

/// Scratch memory for one im2col matrix, kept per thread between calls so
/// that a step does not allocate per convolution. Only ever grows.
float *scratch(int64_t elements) {
  thread_local std::vector<float> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements)
    buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

/// Writes the [depth, pixels] im2col matrix of one image's group `image`
/// ([c, h, w]) to `col`: row (ci, i, j), column (y, x) holds
/// image[ci][y * sh + i * dh][x * sw + j * dw].
void im2col(const ConvShape &s, const float *image, float *col) {
  for (int64_t ci = 0; ci < s.c; ++ci)
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        const float *plane = image + ci * s.h * s.w + i * s.dh * s.w + j * s.dw;
        for (int64_t y = 0; y < s.oh; ++y) {
          const float *row = plane + y * s.sh * s.w;
          if (s.sw == 1) {
            std::memcpy(col, row, static_cast<size_t>(s.ow) * sizeof(float));
          } else {
            for (int64_t x = 0; x < s.ow; ++x)
              col[x] = row[x * s.sw];
          }
          col += s.ow;
        }
      }
}

/// The im2col matrix of image `i`, group `gi` of `x`: the image itself when
/// it already is one, else unfolded into `buffer`.
const float *unfold(const ConvShape &s, const float *x, int64_t i, int64_t gi,
                    float *buffer) {
  const float *image = x + (i * s.g + gi) * s.c * s.h * s.w;
  if (s.imageIsMatrix())
    return image;
  im2col(s, image, buffer);
  return buffer;
}

} // namespace

extern "C" void remat_cpu_sconv2d(int64_t n, int64_t g, int64_t c, int64_t h,
                                  int64_t w, int64_t f, int64_t kh, int64_t kw,
                                  int64_t oh, int64_t ow, int64_t sh,
                                  int64_t sw, int64_t dh, int64_t dw,
                                  uintptr_t x, int64_t offsetX,
                                  uintptr_t filter, int64_t offsetFilter,
                                  uintptr_t y, int64_t offsetY) {
  ConvShape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // y += nothing
  const float *input = address(x, offsetX);
  const float *weights = address(filter, offsetFilter);
  float *output = address(y, offsetY);
  int64_t depth = s.depth(), pixels = s.pixels();
  float *buffer = s.imageIsMatrix() ? nullptr : scratch(depth * pixels);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t gi = 0; gi < g; ++gi) {
      const float *col = unfold(s, input, i, gi, buffer);
      // y[i, gi] (f x pixels) += w[gi] (f x depth) * col (depth x pixels).
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                  static_cast<int>(f), static_cast<int>(pixels),
                  static_cast<int>(depth), 1.0f, weights + gi * f * depth,
                  static_cast<int>(depth), col, static_cast<int>(pixels), 1.0f,
                  output + (i * g + gi) * f * pixels, static_cast<int>(pixels));
    }
}

extern "C" void remat_cpu_sconv2d_filter_grad(
    int64_t n, int64_t g, int64_t c, int64_t h, int64_t w, int64_t f,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, uintptr_t x, int64_t offsetX, uintptr_t dy,
    int64_t offsetDy, uintptr_t gw, int64_t offsetGw) {
  ConvShape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // gw += nothing
  const float *input = address(x, offsetX);
  const float *outputGrad = address(dy, offsetDy);
  float *filterGrad = address(gw, offsetGw);
  int64_t depth = s.depth(), pixels = s.pixels();
  float *buffer = s.imageIsMatrix() ? nullptr : scratch(depth * pixels);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t gi = 0; gi < g; ++gi) {
      const float *col = unfold(s, input, i, gi, buffer);
      // gw[gi] (f x depth) += dy[i, gi] (f x pixels) * col^T (pixels x
      // depth).
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(f),
                  static_cast<int>(depth), static_cast<int>(pixels), 1.0f,
                  outputGrad + (i * g + gi) * f * pixels,
                  static_cast<int>(pixels), col, static_cast<int>(pixels), 1.0f,
                  filterGrad + gi * f * depth, static_cast<int>(depth));
    }
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
