//===- RematOps.cpp - remat op verifiers ------------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

/// Product of the non-zero dimensions of `type` times its element width in
/// bytes, or nullopt if it does not fit in int64_t.
static std::optional<int64_t> boundedBytes(RankedTensorType type) {
  // An element of unknown size (or of i0) counts one byte.
  std::optional<int64_t> bytes =
      std::max<int64_t>(1, getElementBytes(type.getElementType()).value_or(1));
  for (int64_t d : type.getShape())
    if (d > 0 && bytes)
      bytes = llvm::checkedMul(*bytes, d);
  return bytes;
}

LogicalResult remat::verifySizedTensors(Operation *op) {
  auto check = [&](Type t, StringRef kind, unsigned i) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || boundedBytes(type))
      return success();
    return op->emitOpError()
           << kind << " #" << i << " of type " << t
           << " is too large: its size in bytes does not fit in 64 bits";
  };
  for (auto [i, t] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(t, "operand", i)))
      return failure();
  for (auto [i, t] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(t, "result", i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> remat::broadcastShapes(ArrayRef<int64_t> lhs,
                                                       ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return failure();
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return result;
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// Checks that all float operands and results of `op` have the element type
/// of `ref`.
static LogicalResult verifySameElementType(Operation *op, Type ref,
                                           ValueRange values) {
  for (Value v : values) {
    auto t = cast<RankedTensorType>(v.getType());
    if (isa<FloatType>(t.getElementType()) && t.getElementType() != ref)
      return op->emitOpError() << "element types differ: expected " << ref
                               << ", got " << t.getElementType();
  }
  return success();
}

static LogicalResult verifySameElementType(Operation *op) {
  Type ref = tensorType(op->getResult(0)).getElementType();
  if (failed(verifySameElementType(op, ref, op->getOperands())))
    return failure();
  return verifySameElementType(op, ref, op->getResults());
}

static LogicalResult verifyResultShape(Operation *op,
                                       ArrayRef<int64_t> expected,
                                       unsigned resultIdx = 0) {
  ArrayRef<int64_t> actual = tensorType(op->getResult(resultIdx)).getShape();
  if (actual != expected)
    return op->emitOpError()
           << "result shape " << shapeStr(actual)
           << " does not match the expected shape " << shapeStr(expected);
  return success();
}

/// Normalizes a possibly negative axis; failure if out of range.
static FailureOr<int64_t> normalizeAxis(Operation *op, int64_t axis,
                                        int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  ArrayRef<int64_t> a = getLhs().getType().getShape();
  ArrayRef<int64_t> b = getRhs().getType().getShape();
  if (a.size() < 2 || b.size() < 2)
    return emitOpError("operands must have rank >= 2");
  if (b.size() > 2 && a.size() != b.size())
    return emitOpError("batched operands must have the same rank, got ")
           << a.size() << " and " << b.size();
  if (b.size() > 2 && a.drop_back(2) != b.drop_back(2))
    return emitOpError("batch dimensions differ: ")
           << shapeStr(a.drop_back(2)) << " vs " << shapeStr(b.drop_back(2));
  int64_t m = getTransposeA() ? a[a.size() - 1] : a[a.size() - 2];
  int64_t ka = getTransposeA() ? a[a.size() - 2] : a[a.size() - 1];
  int64_t kb = getTransposeB() ? b[b.size() - 1] : b[b.size() - 2];
  int64_t n = getTransposeB() ? b[b.size() - 2] : b[b.size() - 1];
  if (ka != kb)
    return emitOpError("contraction dimensions differ: ") << ka << " vs " << kb;
  SmallVector<int64_t> expected(a.drop_back(2));
  expected.push_back(m);
  expected.push_back(n);
  if (failed(verifyResultShape(*this, expected)))
    return failure();
  return verifySameElementType(*this);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static LogicalResult verifyBinary(Operation *op) {
  auto lhs = tensorType(op->getOperand(0)).getShape();
  auto rhs = tensorType(op->getOperand(1)).getShape();
  auto shape = broadcastShapes(lhs, rhs);
  if (failed(shape))
    return op->emitOpError() << "operand shapes " << shapeStr(lhs) << " and "
                             << shapeStr(rhs) << " are not broadcastable";
  if (failed(verifyResultShape(op, *shape)))
    return failure();
  return verifySameElementType(op);
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult SubOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
LogicalResult DivOp::verify() { return verifyBinary(*this); }

template <typename OpTy> static LogicalResult verifySoftmaxLike(OpTy op) {
  return normalizeAxis(op, op.getAxis(), op.getResult().getType().getRank());
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult SoftmaxGradOp::verify() { return verifySoftmaxLike(*this); }
LogicalResult LogSoftmaxGradOp::verify() { return verifySoftmaxLike(*this); }

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Checks the scale/bias operands of a norm op over input shape `x`, and
/// returns the normalized dimension size.
static LogicalResult verifyNormParams(Operation *op, ArrayRef<int64_t> x,
                                      bool batchNorm, ValueRange params) {
  int64_t dim;
  if (batchNorm) {
    if (x.size() != 2 && x.size() != 4)
      return op->emitOpError("input must be [N, C] or [N, C, H, W], got rank ")
             << x.size();
    dim = x[1];
  } else {
    if (x.empty())
      return op->emitOpError("input must have rank >= 1");
    dim = x.back();
  }
  for (Value p : params) {
    ArrayRef<int64_t> s = tensorType(p).getShape();
    if (s.size() != 1 || s[0] != dim)
      return op->emitOpError() << "scale and bias must have shape [" << dim
                               << "], got " << shapeStr(s);
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyNormParams(*this, getInput().getType().getShape(), false,
                              {getScale(), getBias()})))
    return failure();
  if (failed(verifyResultShape(*this, getInput().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult BatchNormOp::verify() {
  ArrayRef<int64_t> x = getInput().getType().getShape();
  if (failed(verifyNormParams(*this, x, true, {getScale(), getBias()})))
    return failure();
  if (failed(verifyResultShape(*this, x)))
    return failure();
  size_t numStats = getBatchStats().size();
  if (numStats != 0 && numStats != 2)
    return emitOpError("expects no batch statistics or two (mean and "
                       "unbiased variance), got ")
           << numStats;
  if (numStats != 0) {
    for (unsigned i = 1; i <= numStats; ++i)
      if (failed(verifyResultShape(*this, {x[1]}, i)))
        return failure();
    // The unbiased variance divides by K - 1.
    int64_t perChannel = x[0] * (x.size() == 4 ? x[2] * x[3] : 1);
    if (perChannel < 2)
      return emitOpError("batch statistics need at least two elements per "
                         "channel for the unbiased variance, got ")
             << perChannel;
  }
  return verifySameElementType(*this);
}

void BatchNormOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // The normalized result keeps a number, as a one-result op's would.
  if (Value mean = getBatchMean())
    setNameFn(mean, "batch_mean");
  if (Value var = getBatchVar())
    setNameFn(var, "batch_var");
}

template <typename OpTy>
static LogicalResult verifyNormGrad(OpTy op, bool batchNorm) {
  ArrayRef<int64_t> x = op.getInput().getType().getShape();
  if (op.getGrad().getType().getShape() != x)
    return op.emitOpError("gradient and input shapes differ");
  if (failed(verifyNormParams(op, x, batchNorm, {op.getScale()})))
    return failure();
  if (failed(verifyResultShape(op, x, 0)) ||
      failed(verifyResultShape(op, op.getScale().getType().getShape(), 1)) ||
      failed(verifyResultShape(op, op.getScale().getType().getShape(), 2)))
    return failure();
  return verifySameElementType(op);
}

LogicalResult LayerNormGradOp::verify() { return verifyNormGrad(*this, false); }
LogicalResult BatchNormGradOp::verify() { return verifyNormGrad(*this, true); }

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Output size of a sliding window; failure (with a diagnostic) if the window
/// does not fit.
static FailureOr<int64_t> windowOutput(Operation *op, int64_t in, int64_t k,
                                       int64_t stride, int64_t pad,
                                       int64_t dilation) {
  if (stride < 1 || dilation < 1 || pad < 0 || k < 1)
    return op->emitOpError("strides, dilations and kernel sizes must be "
                           ">= 1 and padding >= 0");
  // Extents in checked arithmetic: attributes are arbitrary 64-bit values.
  std::optional<int64_t> span = llvm::checkedMul(dilation, k - 1);
  if (span)
    span = llvm::checkedAdd(*span, int64_t(1));
  std::optional<int64_t> padded = llvm::checkedMul(pad, int64_t(2));
  if (padded)
    padded = llvm::checkedAdd(in, *padded);
  if (!span || !padded)
    return op->emitOpError()
           << "window extent or padded input size overflows 64 bits (kernel "
           << k << ", dilation " << dilation << ", padding " << pad << ")";
  if (*padded < *span)
    return op->emitOpError()
           << "window of extent " << *span << " does not fit input size " << in
           << " with padding " << pad;
  return (*padded - *span) / stride + 1;
}

/// Returns the conv2d output shape for input `x` and filter `w`.
static FailureOr<SmallVector<int64_t>>
convOutputShape(Operation *op, ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                ArrayRef<int64_t> dilations, int64_t groups) {
  if (x.size() != 4 || w.size() != 4)
    return op->emitOpError("input and filter must have rank 4 (NCHW, OIHW)");
  if (x[1] % groups != 0 || w[0] % groups != 0)
    return op->emitOpError()
           << "input channels " << x[1] << " and output channels " << w[0]
           << " must be divisible by groups " << groups;
  std::optional<int64_t> channels = llvm::checkedMul(w[1], groups);
  if (!channels || *channels != x[1])
    return op->emitOpError()
           << "filter input channels " << w[1] << " times groups " << groups
           << " must equal input channels " << x[1];
  auto oh = windowOutput(op, x[2], w[2], strides[0], padding[0], dilations[0]);
  if (failed(oh))
    return failure();
  auto ow = windowOutput(op, x[3], w[3], strides[1], padding[1], dilations[1]);
  if (failed(ow))
    return failure();
  return SmallVector<int64_t>{x[0], w[0], *oh, *ow};
}

LogicalResult Conv2DOp::verify() {
  auto shape = convOutputShape(*this, getInput().getType().getShape(),
                               getFilter().getType().getShape(), getStrides(),
                               getPadding(), getDilations(), getGroups());
  if (failed(shape) || failed(verifyResultShape(*this, *shape)))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult Conv2DInputGradOp::verify() {
  auto shape = convOutputShape(*this, getResult().getType().getShape(),
                               getFilter().getType().getShape(), getStrides(),
                               getPadding(), getDilations(), getGroups());
  if (failed(shape))
    return failure();
  if (*shape != getGrad().getType().getShape())
    return emitOpError("convolving the result shape with the filter gives ")
           << shapeStr(*shape) << ", not the gradient shape "
           << shapeStr(getGrad().getType().getShape());
  return verifySameElementType(*this);
}

LogicalResult Conv2DFilterGradOp::verify() {
  auto shape = convOutputShape(*this, getInput().getType().getShape(),
                               getResult().getType().getShape(), getStrides(),
                               getPadding(), getDilations(), getGroups());
  if (failed(shape))
    return failure();
  if (*shape != getGrad().getType().getShape())
    return emitOpError("convolving the input with the result shape gives ")
           << shapeStr(*shape) << ", not the gradient shape "
           << shapeStr(getGrad().getType().getShape());
  return verifySameElementType(*this);
}

static FailureOr<SmallVector<int64_t>>
poolOutputShape(Operation *op, ArrayRef<int64_t> x, ArrayRef<int64_t> kernel,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> padding) {
  if (x.size() != 4)
    return op->emitOpError("input must have rank 4 (NCHW)");
  for (int i = 0; i < 2; ++i)
    if (padding[i] > kernel[i] / 2)
      return op->emitOpError("padding must be at most half the kernel size");
  auto oh = windowOutput(op, x[2], kernel[0], strides[0], padding[0], 1);
  if (failed(oh))
    return failure();
  auto ow = windowOutput(op, x[3], kernel[1], strides[1], padding[1], 1);
  if (failed(ow))
    return failure();
  return SmallVector<int64_t>{x[0], x[1], *oh, *ow};
}

template <typename OpTy> static LogicalResult verifyPool(OpTy op) {
  auto shape =
      poolOutputShape(op, op.getInput().getType().getShape(), op.getKernel(),
                      op.getStrides(), op.getPadding());
  if (failed(shape) || failed(verifyResultShape(op, *shape)))
    return failure();
  return verifySameElementType(op);
}

LogicalResult MaxPool2DOp::verify() { return verifyPool(*this); }
LogicalResult AvgPool2DOp::verify() { return verifyPool(*this); }

LogicalResult MaxPool2DGradOp::verify() {
  auto shape = poolOutputShape(*this, getInput().getType().getShape(),
                               getKernel(), getStrides(), getPadding());
  if (failed(shape))
    return failure();
  if (*shape != getGrad().getType().getShape())
    return emitOpError("pooling the input gives ")
           << shapeStr(*shape) << ", not the gradient shape "
           << shapeStr(getGrad().getType().getShape());
  if (failed(verifyResultShape(*this, getInput().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult AvgPool2DGradOp::verify() {
  auto shape = poolOutputShape(*this, getResult().getType().getShape(),
                               getKernel(), getStrides(), getPadding());
  if (failed(shape))
    return failure();
  if (*shape != getGrad().getType().getShape())
    return emitOpError("pooling the result shape gives ")
           << shapeStr(*shape) << ", not the gradient shape "
           << shapeStr(getGrad().getType().getShape());
  return verifySameElementType(*this);
}

LogicalResult GlobalAvgPoolOp::verify() {
  ArrayRef<int64_t> x = getInput().getType().getShape();
  if (x.size() != 4)
    return emitOpError("input must have rank 4 (NCHW)");
  if (failed(verifyResultShape(*this, {x[0], x[1]})))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult GlobalAvgPoolGradOp::verify() {
  ArrayRef<int64_t> x = getResult().getType().getShape();
  if (x.size() != 4)
    return emitOpError("result must have rank 4 (NCHW)");
  ArrayRef<int64_t> g = getGrad().getType().getShape();
  if (g.size() != 2 || g[0] != x[0] || g[1] != x[1])
    return emitOpError("gradient shape ")
           << shapeStr(g) << " must be [N, C] of the result " << shapeStr(x);
  return verifySameElementType(*this);
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

static LogicalResult verifySameElementTypeAny(Operation *op) {
  Type ref = tensorType(op->getResult(0)).getElementType();
  for (Value v : op->getOperands())
    if (tensorType(v).getElementType() != ref)
      return op->emitOpError() << "element types differ: expected " << ref
                               << ", got " << tensorType(v).getElementType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getInput().getType().getNumElements() !=
      getResult().getType().getNumElements())
    return emitOpError("element count changes from ")
           << getInput().getType().getNumElements() << " to "
           << getResult().getType().getNumElements();
  return verifySameElementTypeAny(*this);
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> x = getInput().getType().getShape();
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != x.size())
    return emitOpError("permutation has ")
           << perm.size() << " entries for rank " << x.size();
  SmallVector<bool> seen(x.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)x.size() || seen[p])
      return emitOpError("permutation ")
             << shapeStr(perm) << " is not a permutation of 0.."
             << x.size() - 1;
    seen[p] = true;
    expected.push_back(x[p]);
  }
  if (failed(verifyResultShape(*this, expected)))
    return failure();
  return verifySameElementTypeAny(*this);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  int64_t rank = getResult().getType().getRank();
  auto axis = normalizeAxis(*this, getAxis(), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> expected(getResult().getType().getShape());
  expected[*axis] = 0;
  for (Value v : getInputs()) {
    ArrayRef<int64_t> s = tensorType(v).getShape();
    if ((int64_t)s.size() != rank)
      return emitOpError("all inputs must have the rank of the result");
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && s[d] != expected[d])
        return emitOpError("inputs differ in dimension ")
               << d << " which is not the concatenation axis";
    std::optional<int64_t> sum = llvm::checkedAdd(expected[*axis], s[*axis]);
    if (!sum)
      return emitOpError("the concatenated size overflows 64 bits");
    expected[*axis] = *sum;
  }
  if (failed(verifyResultShape(*this, expected)))
    return failure();
  return verifySameElementTypeAny(*this);
}

/// Checks a strided slice of `x` with the result sizes `sizes`.
static LogicalResult verifySliceBounds(Operation *op, ArrayRef<int64_t> x,
                                       ArrayRef<int64_t> sizes,
                                       ArrayRef<int64_t> offsets,
                                       ArrayRef<int64_t> strides) {
  if (offsets.size() != x.size() || strides.size() != x.size() ||
      sizes.size() != x.size())
    return op->emitOpError("offsets, strides and result must have rank ")
           << x.size();
  for (size_t d = 0; d < x.size(); ++d) {
    if (offsets[d] < 0 || strides[d] < 1)
      return op->emitOpError("offsets must be >= 0 and strides >= 1");
    if (sizes[d] == 0)
      continue;
    // The last index read, offset + (size - 1) * stride, in checked
    // arithmetic: a wrapped value would pass the bound check.
    std::optional<int64_t> last = llvm::checkedMul(sizes[d] - 1, strides[d]);
    if (last)
      last = llvm::checkedAdd(*last, offsets[d]);
    if (!last || *last >= x[d])
      return op->emitOpError("slice exceeds dimension ")
             << d << " of size " << x[d];
  }
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(verifySliceBounds(*this, getInput().getType().getShape(),
                               getResult().getType().getShape(), getOffsets(),
                               getStrides())))
    return failure();
  return verifySameElementTypeAny(*this);
}

LogicalResult SliceGradOp::verify() {
  if (failed(verifySliceBounds(*this, getResult().getType().getShape(),
                               getGrad().getType().getShape(), getOffsets(),
                               getStrides())))
    return failure();
  return verifySameElementType(*this);
}

/// Checks that `small` broadcasts to `large`.
static LogicalResult verifyBroadcastsTo(Operation *op, ArrayRef<int64_t> small,
                                        ArrayRef<int64_t> large) {
  auto shape = broadcastShapes(small, large);
  if (failed(shape) || ArrayRef<int64_t>(*shape) != large)
    return op->emitOpError() << "shape " << shapeStr(small)
                             << " does not broadcast to " << shapeStr(large);
  return success();
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifyBroadcastsTo(*this, getInput().getType().getShape(),
                                getResult().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult SumToOp::verify() {
  if (failed(verifyBroadcastsTo(*this, getResult().getType().getShape(),
                                getInput().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

//===----------------------------------------------------------------------===//
// Embedding and dropout
//===----------------------------------------------------------------------===//

static LogicalResult verifyEmbeddingShapes(Operation *op,
                                           ArrayRef<int64_t> table,
                                           ArrayRef<int64_t> indices,
                                           ArrayRef<int64_t> rows) {
  if (table.size() != 2)
    return op->emitOpError("table must have rank 2 ([V, D])");
  SmallVector<int64_t> expected(indices);
  expected.push_back(table[1]);
  if (rows != ArrayRef<int64_t>(expected))
    return op->emitOpError("rows have shape ")
           << shapeStr(rows) << ", expected " << shapeStr(expected);
  return success();
}

LogicalResult EmbeddingOp::verify() {
  if (failed(verifyEmbeddingShapes(*this, getTable().getType().getShape(),
                                   getIndices().getType().getShape(),
                                   getResult().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult EmbeddingGradOp::verify() {
  if (failed(verifyEmbeddingShapes(*this, getResult().getType().getShape(),
                                   getIndices().getType().getShape(),
                                   getGrad().getType().getShape())))
    return failure();
  return verifySameElementType(*this);
}

LogicalResult DropoutOp::verify() {
  if (cast<RankedTensorType>(getSeed().getType()).getRank() != 0)
    return emitOpError("seed must be a rank-0 tensor<i64>");
  if (getInput().getType() != getResult().getType())
    return emitOpError("result type must equal the input type");
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

static LogicalResult verifyLabels(Operation *op, ArrayRef<int64_t> logits,
                                  ArrayRef<int64_t> labels) {
  if (logits.empty() || logits.drop_back() != labels)
    return op->emitOpError("labels shape ")
           << shapeStr(labels) << " must be the logits shape "
           << shapeStr(logits) << " without its last (class) dimension";
  return success();
}

/// Losses may be accumulated in a wider type than their inputs (f32 loss of
/// f16 logits), so only the float operands must agree with each other.
static LogicalResult verifyLossOperands(Operation *op, Value ref) {
  return verifySameElementType(
      op, tensorType(ref).getElementType(),
      op->getOperands().drop_back(op->getNumOperands() == 3 ? 1 : 0));
}

LogicalResult SoftmaxCrossEntropyOp::verify() {
  if (failed(verifyLabels(*this, getLogits().getType().getShape(),
                          getLabels().getType().getShape())))
    return failure();
  return verifyLossOperands(*this, getLogits());
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  if (failed(verifyLabels(*this, getLogits().getType().getShape(),
                          getLabels().getType().getShape())))
    return failure();
  if (failed(verifyResultShape(*this, getLogits().getType().getShape())))
    return failure();
  return verifyLossOperands(*this, getResult());
}

LogicalResult MseOp::verify() {
  if (getPrediction().getType().getShape() != getTarget().getType().getShape())
    return emitOpError("prediction and target shapes differ");
  return verifyLossOperands(*this, getPrediction());
}

LogicalResult MseGradOp::verify() {
  if (getPrediction().getType().getShape() != getTarget().getType().getShape())
    return emitOpError("prediction and target shapes differ");
  if (failed(verifyResultShape(*this, getPrediction().getType().getShape())))
    return failure();
  return verifyLossOperands(*this, getResult());
}

//===----------------------------------------------------------------------===//
// Opaque and rematerialization ops
//===----------------------------------------------------------------------===//

LogicalResult OpaqueOp::verify() {
  if (getName().empty())
    return emitOpError("name must not be empty");
  return success();
}

LogicalResult RecomputeOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("body argument type ")
             << arg.getType() << " differs from input type " << input.getType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with remat.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types do not match the result types");
  for (Operation &op : body.without_terminator()) {
    if (!isMemoryEffectFree(&op))
      return op.emitOpError("cannot be recomputed: it has side effects");
    if (getPhase(&op) == Phase::backward)
      return op.emitOpError("is a backward op and cannot be recomputed");
    if (op.hasAttr(RematDialect::getNoRecomputeAttrName()))
      return op.emitOpError("is marked remat.no_recompute");
  }
  return success();
}

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
