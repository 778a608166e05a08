//===- Depthwise.cpp - depthwise convolution planes in AVX-512 ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Sums stay in registers across the taps (forward) or the output rows
// (filter gradient). A stride-2 row is read as two 16-lane loads whose even
// lanes one permute gathers, and written by two permutes and masked
// additions; loads and stores are masked to the row. Products and sums use
// the masked intrinsics, which the compiler never contracts into fused
// multiply-adds.
//
//===----------------------------------------------------------------------===//

#include "Depthwise.h"

#include "CpuIsa.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define REMAT_DEPTHWISE_PLANES 1
#endif

namespace remat::runtime {

#ifdef REMAT_DEPTHWISE_PLANES

bool depthwiseForwardApplies(const DepthwisePlane &p) {
  return (p.sw == 1 || p.sw == 2) && haveAvx512();
}

bool depthwiseInputGradApplies(const DepthwisePlane &p) {
  return p.sw == 2 && p.ow >= 8 && haveAvx512();
}

bool depthwiseFilterGradApplies(const DepthwisePlane &p) {
  return (p.sw == 1 || p.sw == 2) && p.ow >= 8 && haveAvx512();
}

namespace {

#define REMAT_AVX512 __attribute__((target("avx512f")))

constexpr int64_t kLanes = 16;
constexpr __mmask16 kAll = 0xFFFF;

/// The first `count` lanes (none for count <= 0, all from 16 on).
__mmask16 firstLanes(int64_t count) {
  if (count <= 0)
    return 0;
  if (count >= kLanes)
    return kAll;
  return static_cast<__mmask16>((1u << count) - 1u);
}

REMAT_AVX512 inline __m512 mul(__m512 a, __m512 b) {
  return _mm512_maskz_mul_ps(kAll, a, b);
}

REMAT_AVX512 inline __m512 add(__m512 a, __m512 b) {
  return _mm512_maskz_add_ps(kAll, a, b);
}

/// p[0], p[step], ..., p[(count - 1) step] (count <= 16, step 1 or 2) in
/// the first lanes, zeros above.
REMAT_AVX512 inline __m512 loadRow(const float *p, int64_t step,
                                   int64_t count) {
  if (step == 1)
    return _mm512_maskz_loadu_ps(firstLanes(count), p);
  int64_t span = 2 * count - 1; // p[0 .. span)
  __m512 low = _mm512_maskz_loadu_ps(firstLanes(span), p);
  __m512 high = _mm512_maskz_loadu_ps(firstLanes(span - kLanes), p + kLanes);
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                        10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_ps(low, even, high);
}

/// p[x step] += v[x] for x < count (count <= 16, step 1 or 2).
REMAT_AVX512 inline void addToRow(float *p, int64_t step, int64_t count,
                                  __m512 v) {
  if (step == 1) {
    __mmask16 mask = firstLanes(count);
    __m512 old = _mm512_maskz_loadu_ps(mask, p);
    _mm512_mask_storeu_ps(p, mask, add(old, v));
    return;
  }
  const __m512i lowHalf =
      _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
  const __m512i highHalf = _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11,
                                            11, 10, 10, 9, 9, 8, 8);
  const __mmask16 even = 0x5555;
  int64_t span = 2 * count - 1;
  __mmask16 lowMask = firstLanes(span);
  __m512 low = _mm512_maskz_loadu_ps(lowMask, p);
  low = _mm512_mask_add_ps(low, even & lowMask, low,
                           _mm512_maskz_permutexvar_ps(kAll, lowHalf, v));
  _mm512_mask_storeu_ps(p, lowMask, low);
  __mmask16 highMask = firstLanes(span - kLanes);
  if (!highMask)
    return;
  __m512 high = _mm512_maskz_loadu_ps(highMask, p + kLanes);
  high = _mm512_mask_add_ps(high, even & highMask, high,
                            _mm512_maskz_permutexvar_ps(kAll, highHalf, v));
  _mm512_mask_storeu_ps(p + kLanes, highMask, high);
}

REMAT_AVX512 void forward(const DepthwisePlane &p, const float *image,
                          const float *taps, float *out) {
  for (int64_t y = 0; y < p.oh; ++y)
    for (int64_t x = 0; x < p.ow; x += kLanes) {
      int64_t lanes = std::min(kLanes, p.ow - x);
      __m512 sum = _mm512_setzero_ps();
      for (int64_t i = 0; i < p.kh; ++i) {
        const float *row = image + (y * p.sh + i * p.dh) * p.w + x * p.sw;
        for (int64_t j = 0; j < p.kw; ++j)
          sum = add(sum, mul(_mm512_set1_ps(taps[i * p.kw + j]),
                             loadRow(row + j * p.dw, p.sw, lanes)));
      }
      addToRow(out + y * p.ow + x, 1, lanes, sum);
    }
}

REMAT_AVX512 void inputGrad(const DepthwisePlane &p, const float *taps,
                            const float *grads, float *image) {
  for (int64_t i = 0; i < p.kh; ++i)
    for (int64_t j = 0; j < p.kw; ++j) {
      __m512 tap = _mm512_set1_ps(taps[i * p.kw + j]);
      for (int64_t y = 0; y < p.oh; ++y) {
        float *row = image + (y * p.sh + i * p.dh) * p.w + j * p.dw;
        for (int64_t x = 0; x < p.ow; x += kLanes) {
          int64_t lanes = std::min(kLanes, p.ow - x);
          addToRow(row + x * p.sw, p.sw, lanes,
                   mul(tap, loadRow(grads + y * p.ow + x, 1, lanes)));
        }
      }
    }
}

REMAT_AVX512 void filterGrad(const DepthwisePlane &p, const float *input,
                             const float *grads, float *sums) {
  for (int64_t i = 0; i < p.kh; ++i)
    for (int64_t j = 0; j < p.kw; ++j) {
      float *tapSums = sums + (i * p.kw + j) * p.ow;
      for (int64_t x = 0; x < p.ow; x += kLanes) {
        int64_t lanes = std::min(kLanes, p.ow - x);
        __m512 sum = loadRow(tapSums + x, 1, lanes);
        for (int64_t y = 0; y < p.oh; ++y) {
          const float *row =
              input + (y * p.sh + i * p.dh) * p.w + j * p.dw + x * p.sw;
          sum = add(sum, mul(loadRow(grads + y * p.ow + x, 1, lanes),
                             loadRow(row, p.sw, lanes)));
        }
        _mm512_mask_storeu_ps(tapSums + x, firstLanes(lanes), sum);
      }
    }
}

} // namespace

void depthwisePlaneForward(const DepthwisePlane &p, const float *image,
                           const float *taps, float *out) {
  forward(p, image, taps, out);
}

void depthwisePlaneInputGrad(const DepthwisePlane &p, const float *taps,
                             const float *grads, float *image) {
  inputGrad(p, taps, grads, image);
}

void depthwisePlaneFilterGrad(const DepthwisePlane &p, const float *input,
                              const float *grads, float *sums) {
  filterGrad(p, input, grads, sums);
}

#else // !REMAT_DEPTHWISE_PLANES

bool depthwiseForwardApplies(const DepthwisePlane &) { return false; }
bool depthwiseInputGradApplies(const DepthwisePlane &) { return false; }
bool depthwiseFilterGradApplies(const DepthwisePlane &) { return false; }

// Never called: nothing applies.
void depthwisePlaneForward(const DepthwisePlane &, const float *, const float *,
                           float *) {}
void depthwisePlaneInputGrad(const DepthwisePlane &, const float *,
                             const float *, float *) {}
void depthwisePlaneFilterGrad(const DepthwisePlane &, const float *,
                              const float *, float *) {}

#endif // REMAT_DEPTHWISE_PLANES

} // namespace remat::runtime
