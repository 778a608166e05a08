//===- RematCost.cpp - compute cost and result bytes ------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Costs are floating-point operation counts derived from shapes. They only
// need to be consistent between ops: schedulers compare them, never convert
// them to time.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace remat;

std::optional<int64_t> remat::getTensorElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  int64_t n = 1;
  for (int64_t d : tensor.getShape())
    if (llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

std::optional<int64_t> remat::getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (static_cast<int64_t>(type.getIntOrFloatBitWidth()) + 7) / 8;
  return std::nullopt;
}

std::optional<int64_t> remat::getValueBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return getElementBytes(type);
  if (!isa<RankedTensorType, MemRefType>(type) || !shaped.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bytes = getElementBytes(shaped.getElementType());
  if (!bytes)
    return std::nullopt;
  int64_t total = *bytes;
  for (int64_t d : shaped.getShape())
    if (llvm::MulOverflow(total, d, total))
      return std::nullopt;
  return total;
}

std::optional<int64_t> remat::getTensorBytes(Type type) {
  if (!isa<RankedTensorType>(type))
    return std::nullopt;
  return getValueBytes(type);
}

FailureOr<int64_t> remat::getResultBytesOf(Operation *op) {
  int64_t total = 0;
  for (Type t : op->getResultTypes()) {
    std::optional<int64_t> bytes = getTensorBytes(t);
    if (!bytes || llvm::AddOverflow(total, *bytes, total))
      return failure();
  }
  return total;
}

double remat::getDefaultComputeCost(Operation *op) {
  double cost = 0;
  for (Type t : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      if (tensor.hasStaticShape())
        cost += static_cast<double>(tensor.getNumElements());
  return cost;
}

static double numElements(Value v) {
  return static_cast<double>(
      cast<RankedTensorType>(v.getType()).getNumElements());
}

double MatmulOp::getComputeCost() {
  ArrayRef<int64_t> a = getLhs().getType().getShape();
  double k = getTransposeA() ? a[a.size() - 2] : a[a.size() - 1];
  return 2.0 * numElements(getResult()) * k;
}

/// Softmax: max, subtract, exp, sum, divide per element.
double SoftmaxOp::getComputeCost() { return 5.0 * numElements(getInput()); }
double LogSoftmaxOp::getComputeCost() { return 5.0 * numElements(getInput()); }

/// Normalization: statistics (two passes) and the affine transform.
double LayerNormOp::getComputeCost() { return 8.0 * numElements(getInput()); }
double BatchNormOp::getComputeCost() { return 8.0 * numElements(getInput()); }
double LayerNormGradOp::getComputeCost() {
  return 14.0 * numElements(getInput());
}
double BatchNormGradOp::getComputeCost() {
  return 14.0 * numElements(getInput());
}

/// 2 * output elements * (C / groups) * KH * KW.
static double convCost(Value output, ArrayRef<int64_t> filter) {
  return 2.0 * numElements(output) * filter[1] * filter[2] * filter[3];
}

double Conv2DOp::getComputeCost() {
  return convCost(getResult(), getFilter().getType().getShape());
}
double Conv2DInputGradOp::getComputeCost() {
  return convCost(getGrad(), getFilter().getType().getShape());
}
double Conv2DFilterGradOp::getComputeCost() {
  return convCost(getGrad(), getResult().getType().getShape());
}

template <typename OpTy> static double poolCost(OpTy op, Value output) {
  return numElements(output) * op.getKernel()[0] * op.getKernel()[1];
}

double MaxPool2DOp::getComputeCost() { return poolCost(*this, getResult()); }
double AvgPool2DOp::getComputeCost() { return poolCost(*this, getResult()); }
double MaxPool2DGradOp::getComputeCost() { return poolCost(*this, getGrad()); }
double AvgPool2DGradOp::getComputeCost() { return poolCost(*this, getGrad()); }

double SoftmaxCrossEntropyOp::getComputeCost() {
  return 5.0 * numElements(getLogits());
}

double OpaqueOp::getComputeCost() { return getCost().convertToDouble(); }

double RecomputeOp::getComputeCost() {
  double cost = 0;
  getBody().walk([&](RematCostOpInterface op) { cost += op.getComputeCost(); });
  return cost;
}

FailureOr<int64_t> RecomputeOp::getResultBytes() {
  return getResultBytesOf(getOperation());
}
