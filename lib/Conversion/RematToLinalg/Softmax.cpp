//===- Softmax.cpp - softmax family to linalg -------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// softmax(x)     = exp(x - max) / sum(exp(x - max))
// log_softmax(x) = x - max - log(sum(exp(x - max)))
// softmax_grad(dy, y)     = y * (dy - sum(dy * y))
// log_softmax_grad(dy, y) = dy - exp(y) * sum(dy)
// The row statistics are reductions into f32 tensors (the shape without the
// axis); a final parallel generic combines them with the operands.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace remat;

namespace {

/// The loop nest of a softmax-like op: the operand shape with the
/// normalized axis reduced.
struct AxisNest {
  SmallVector<int64_t> shape;
  SmallVector<bool> reduced;
  AffineMap identity, kept;
  SmallVector<utils::IteratorType> parallel;

  AxisNest(MLIRContext *ctx, RankedTensorType type, int64_t axis)
      : shape(type.getShape()), reduced(type.getRank(), false) {
    int64_t rank = type.getRank();
    if (axis < 0)
      axis += rank;
    reduced[axis] = true;
    identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    kept = getKeptDimsMap(reduced, ctx);
    parallel.assign(rank, utils::IteratorType::parallel);
  }
};

/// Row maximum of `x` along the nest's axis (f32).
Value rowMax(OpBuilder &b, Location loc, const AxisNest &nest, Value x) {
  return buildReduction(
      b, loc, nest.shape, nest.reduced, {x}, {nest.identity},
      -std::numeric_limits<double>::infinity(),
      [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
        return arith::MaximumFOp::create(nb, nloc, a[0], a[1]);
      });
}

/// Row sum of exp(x - max) (f32).
Value rowSumExp(OpBuilder &b, Location loc, const AxisNest &nest, Value x,
                Value max) {
  return buildReduction(
      b, loc, nest.shape, nest.reduced, {x, max}, {nest.identity, nest.kept},
      0.0, [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
        Value shifted = arith::SubFOp::create(nb, nloc, a[0], a[1]);
        Value e = math::ExpOp::create(nb, nloc, shifted);
        return arith::AddFOp::create(nb, nloc, a[2], e);
      });
}

/// A parallel generic over the nest producing a tensor like `like`.
Value combine(OpBuilder &b, Location loc, const AxisNest &nest,
              RankedTensorType type, ValueRange inputs,
              ArrayRef<AffineMap> maps, ScalarBodyFn body) {
  Value init =
      createEmptyTensor(b, loc, type.getShape(), type.getElementType());
  return buildGeneric(b, loc, inputs, maps, init, nest.identity, nest.parallel,
                      body, /*computeInF32=*/true, /*readsOutput=*/false);
}

template <typename OpTy, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    AxisNest nest(rewriter.getContext(), type,
                  static_cast<int64_t>(op.getAxis()));
    Value x = adaptor.getInput();
    Value max = rowMax(rewriter, loc, nest, x);
    Value sum = rowSumExp(rewriter, loc, nest, x, max);
    Value result =
        combine(rewriter, loc, nest, type, {x, max, sum},
                {nest.identity, nest.kept, nest.kept},
                [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
                  Value shifted = arith::SubFOp::create(nb, nloc, a[0], a[1]);
                  if (IsLog)
                    return arith::SubFOp::create(
                        nb, nloc, shifted, math::LogOp::create(nb, nloc, a[2]));
                  Value e = math::ExpOp::create(nb, nloc, shifted);
                  return arith::DivFOp::create(nb, nloc, e, a[2]);
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, bool IsLog>
struct SoftmaxGradLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    AxisNest nest(rewriter.getContext(), type,
                  static_cast<int64_t>(op.getAxis()));
    Value dy = adaptor.getGrad(), y = adaptor.getOutput();
    // softmax: sum(dy * y); log_softmax: sum(dy).
    SmallVector<Value> reduceInputs = {dy};
    if (!IsLog)
      reduceInputs.push_back(y);
    SmallVector<AffineMap> reduceMaps(reduceInputs.size(), nest.identity);
    Value sum = buildReduction(
        rewriter, loc, nest.shape, nest.reduced, reduceInputs, reduceMaps, 0.0,
        [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          if (IsLog)
            return arith::AddFOp::create(nb, nloc, a[1], a[0]);
          Value term = arith::MulFOp::create(nb, nloc, a[0], a[1]);
          return arith::AddFOp::create(nb, nloc, a[2], term);
        });
    Value result = combine(
        rewriter, loc, nest, type, {dy, y, sum},
        {nest.identity, nest.identity, nest.kept},
        [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          if (IsLog) {
            Value e = math::ExpOp::create(nb, nloc, a[1]);
            return arith::SubFOp::create(
                nb, nloc, a[0], arith::MulFOp::create(nb, nloc, e, a[2]));
          }
          Value diff = arith::SubFOp::create(nb, nloc, a[0], a[2]);
          return arith::MulFOp::create(nb, nloc, a[1], diff);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void remat::populateRematSoftmaxToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>,
               SoftmaxGradLowering<SoftmaxGradOp, false>,
               SoftmaxGradLowering<LogSoftmaxGradOp, true>>(
      patterns.getContext());
}
