//===- Depthwise.h - depthwise convolution planes in AVX-512 ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The depthwise convolutions of CpuRuntime.cpp (one input and one output
// channel per group: MobileNetV2's) for one plane, 16 output columns at a
// time, on CPUs with AVX-512F and column strides 1 or 2 (the caller's
// scalar loops take the rest). The runtime is compiled for baseline x86-64,
// whose loops over rows of 2 to 32 pixels spend more time on loop overhead
// than on arithmetic. Every element gets the same terms in the same order,
// each one rounded product and one rounded addition (no fused
// multiply-add), as in the scalar loops: the same bits. Internal to
// lib/Runtime; plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_RUNTIME_DEPTHWISE_H
#define REMAT_LIB_RUNTIME_DEPTHWISE_H

#include <cstdint>

namespace remat::runtime {

/// The sizes of one depthwise plane: input h x w (padded), kh x kw taps,
/// output oh x ow, strides and dilations.
struct DepthwisePlane {
  int64_t h, w, kh, kw, oh, ow, sh, sw, dh, dw;
};

/// Whether the function below of that name takes planes with these sizes
/// (AVX-512F; column stride 1 or 2). Narrow planes stay with the scalar
/// loops where these measured slower (MobileNetV2's 4x4 and 2x2 stages):
/// the input gradient, whose masked stores to overlapping input rows stall
/// the loads of the next tap, only from stride 2 and 8 output columns on;
/// the filter gradient from 8 output columns on.
bool depthwiseForwardApplies(const DepthwisePlane &p);
bool depthwiseInputGradApplies(const DepthwisePlane &p);
bool depthwiseFilterGradApplies(const DepthwisePlane &p);

/// out += the convolution of `image` with `taps`: per output element a sum
/// from +0.0 of the taps' products in increasing (kh, kw) order, then added
/// to out.
void depthwisePlaneForward(const DepthwisePlane &p, const float *image,
                           const float *taps, float *out);

/// image += the input gradient of `grads`: tap after tap in increasing
/// (kh, kw) order, (oh, ow) ascending, each product added to the input
/// element it came from.
void depthwisePlaneInputGrad(const DepthwisePlane &p, const float *taps,
                             const float *grads, float *image);

/// sums[tap * ow + col] += grads * input over the output rows (oh
/// ascending) for every tap and output column: one plane's share of the
/// filter gradient (the caller adds the images in increasing order and
/// then the columns).
void depthwisePlaneFilterGrad(const DepthwisePlane &p, const float *input,
                              const float *grads, float *sums);

} // namespace remat::runtime

#endif // REMAT_LIB_RUNTIME_DEPTHWISE_H
