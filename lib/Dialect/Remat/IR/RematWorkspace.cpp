//===- RematWorkspace.cpp - scratch bytes of the lowered ops ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// `getWorkspaceBytes` of the convolution and pooling ops: the buffers that
// remat-lower-to-linalg (lib/Conversion/RematToLinalg/ConvToLinalg.cpp and
// PoolToLinalg.cpp) creates for one op besides its result, which live only
// while the op runs:
//
// * a padded copy of the input (`tensor.pad`) when the padding is not zero;
// * an f32 accumulator when the result is not f32 (the result is a
//   truncated copy), or when the accumulator is larger than the result (the
//   input gradient of a padded convolution, sliced afterwards);
// * the pooling window (`tensor.empty` of the kernel's shape, which
//   bufferization allocates), the argmax values and indices of the max-pool
//   gradient, and the dilated, padded output gradient of the average-pool
//   gradient.
//
// These formulas mirror the lowering; test/Driver/arena-within-plan.test and
// test/Transforms/remat-memory-report-workspace.mlir hold them to the compiled
// arena. The runtime's im2col columns (lib/Runtime/CpuRuntime.cpp) are heap
// memory outside the arena and are not counted here.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace remat;

namespace {
/// Sums products of sizes; remembers an overflow instead of wrapping.
class Bytes {
public:
  /// Adds `elementBytes` times the product of `shape`.
  Bytes &add(ArrayRef<int64_t> shape, int64_t elementBytes) {
    int64_t n = elementBytes;
    for (int64_t d : shape)
      overflow |= llvm::MulOverflow(n, d, n);
    overflow |= llvm::AddOverflow(total, n, total);
    return *this;
  }
  /// Adds the bytes of another sum.
  Bytes &add(const Bytes &other) {
    overflow |= other.overflow || llvm::AddOverflow(total, other.total, total);
    return *this;
  }
  FailureOr<int64_t> get() const {
    if (overflow)
      return failure();
    return total;
  }
  int64_t value() const { return total; }
  bool overflowed() const { return overflow; }

private:
  int64_t total = 0;
  bool overflow = false;
};

/// Bytes per element of a float tensor value (the verifier guarantees the
/// type).
int64_t elementBytes(Value v) {
  return getElementBytes(cast<RankedTensorType>(v.getType()).getElementType())
      .value_or(4);
}

bool isF32(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isF32();
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// [N, C, H, W] grown by `pad` on both sides of each spatial dimension.
SmallVector<int64_t> padded(ArrayRef<int64_t> nchw, ArrayRef<int64_t> pad) {
  return {nchw[0], nchw[1], nchw[2] + 2 * pad[0], nchw[3] + 2 * pad[1]};
}

bool isPadded(ArrayRef<int64_t> pad) { return pad[0] != 0 || pad[1] != 0; }

/// The padded copy of `input` (in its element type) if there is padding.
Bytes paddedCopy(Value input, ArrayRef<int64_t> pad) {
  Bytes b;
  if (isPadded(pad))
    b.add(padded(shapeOf(input), pad), elementBytes(input));
  return b;
}

/// The f32 accumulator of a result that is not f32 (truncated afterwards).
Bytes wideAccumulator(Value result) {
  Bytes b;
  if (!isF32(result))
    b.add(shapeOf(result), 4);
  return b;
}

/// The dilated, padded output gradient the average-pool gradient correlates:
/// [N, C, H + KH - 1, W + KW - 1] of `elementBytes`.
Bytes dilatedGrad(ArrayRef<int64_t> x, ArrayRef<int64_t> kernel,
                  int64_t elementBytes) {
  return Bytes().add(
      {x[0], x[1], x[2] + kernel[0] - 1, x[3] + kernel[1] - 1}, elementBytes);
}
} // namespace

FailureOr<int64_t> Conv2DOp::getWorkspaceBytes() {
  return paddedCopy(getInput(), getPadding())
      .add(wideAccumulator(getResult()))
      .get();
}

FailureOr<int64_t> Conv2DInputGradOp::getWorkspaceBytes() {
  // The gradient of the padded input accumulates in f32 and is sliced (and
  // truncated) into the result: a buffer apart unless neither happens.
  if (!isPadded(getPadding()) && isF32(getResult()))
    return int64_t(0);
  return Bytes().add(padded(shapeOf(getResult()), getPadding()), 4).get();
}

FailureOr<int64_t> Conv2DFilterGradOp::getWorkspaceBytes() {
  return paddedCopy(getInput(), getPadding())
      .add(wideAccumulator(getResult()))
      .get();
}

FailureOr<int64_t> MaxPool2DOp::getWorkspaceBytes() {
  return paddedCopy(getInput(), getPadding())
      .add(getKernel(), elementBytes(getResult()))
      .get();
}

FailureOr<int64_t> AvgPool2DOp::getWorkspaceBytes() {
  // Padded copy, the f32 window, the f32 window sums (scaled into the
  // result).
  return paddedCopy(getInput(), getPadding())
      .add(getKernel(), 4)
      .add(shapeOf(getResult()), 4)
      .get();
}

FailureOr<int64_t> MaxPool2DGradOp::getWorkspaceBytes() {
  // Three phases, and the result's buffer R exists only in the last two:
  // 1. the argmax over the padded input writes the window maxima and their
  //    i32 indices;
  // 2. the gather reads the output gradient and the indices in place and
  //    accumulates into R, or into an f32 accumulator A when the result is
  //    not f32, looping over the cover window [ceil(KH/s), ceil(KW/s)];
  // 3. (not f32) A is truncated into R.
  // The memory analysis counts R at the op's step anyway, so the workspace
  // is the peak of the three phases less R: for the op alone, R plus the
  // workspace is the liveness lower bound of its arena.
  ArrayRef<int64_t> x = shapeOf(getResult());
  ArrayRef<int64_t> dy = shapeOf(getGrad());
  ArrayRef<int64_t> kernel = getKernel(), strides = getStrides();
  Bytes indices = Bytes().add(dy, 4);
  Bytes argmax = paddedCopy(getInput(), getPadding())
                     .add(kernel, elementBytes(getInput()))
                     .add(dy, elementBytes(getInput()))
                     .add(indices);
  SmallVector<int64_t> cover = {llvm::divideCeilSigned(kernel[0], strides[0]),
                                llvm::divideCeilSigned(kernel[1], strides[1])};
  Bytes result = Bytes().add(x, elementBytes(getResult()));
  Bytes accumulator = Bytes().add(x, 4);
  Bytes gather = Bytes()
                     .add(indices)
                     .add(cover, elementBytes(getResult()))
                     .add(accumulator);
  Bytes truncate;
  if (!isF32(getResult()))
    truncate.add(accumulator).add(result);
  if (argmax.overflowed() || gather.overflowed() || truncate.overflowed() ||
      result.overflowed())
    return failure();
  int64_t peak = std::max({argmax.value(), gather.value(), truncate.value()});
  return std::max<int64_t>(peak - result.value(), 0);
}

FailureOr<int64_t> AvgPool2DGradOp::getWorkspaceBytes() {
  // The dilated, padded output gradient, the f32 window, the f32 window
  // sums (scaled into the result).
  ArrayRef<int64_t> x = shapeOf(getResult());
  return dilatedGrad(x, getKernel(), elementBytes(getGrad()))
      .add(getKernel(), 4)
      .add(x, 4)
      .get();
}

FailureOr<int64_t> GlobalAvgPoolOp::getWorkspaceBytes() {
  // The f32 sums per [n, c], scaled into the result.
  return Bytes().add(shapeOf(getResult()), 4).get();
}
