//===- Losses.cpp - losses and their gradients to linalg --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// softmax_cross_entropy(x, l) = mean_s (max_s + log(sum_c exp(x[s,c] - max_s))
//                                       - x[s, l[s]])
// softmax_cross_entropy_grad  = (softmax(x) - onehot(l)) * dloss / |S|
// mse(p, t)                   = sum((p - t)^2) / numel
// mse_grad(p, t, dloss)       = 2 (p - t) dloss / numel
// All sums accumulate in f32; the scalar loss is truncated at the end.
// Scalar gradients (rank-0 tensors) are generic inputs read at ().
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace remat;

namespace {

/// Row statistics of logits of shape S x [C]: the row maximum and the sum of
/// exp(x - max), both f32 tensors of shape S.
struct RowStats {
  Value max, sumExp;
};

RowStats buildRowStats(OpBuilder &b, Location loc, Value logits) {
  auto type = cast<RankedTensorType>(logits.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  reduced[rank - 1] = true;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap kept = getKeptDimsMap(reduced, ctx);
  RowStats stats;
  stats.max =
      buildReduction(b, loc, type.getShape(), reduced, {logits}, {id},
                     -std::numeric_limits<double>::infinity(),
                     [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                       return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
                     });
  stats.sumExp = buildReduction(
      b, loc, type.getShape(), reduced, {logits, stats.max}, {id, kept}, 0.0,
      [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value e = math::ExpOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, a[0], a[1]));
        return arith::AddFOp::create(nb, nl, a[2], e);
      });
  return stats;
}

/// A rank-0 tensor of `elementType` holding `total * factor` (total: rank-0
/// f32 tensor).
Value scaleScalar(OpBuilder &b, Location loc, Value total, double factor,
                  Type elementType) {
  return buildElementwise(
      b, loc, RankedTensorType::get({}, elementType), {total},
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::MulFOp::create(nb, nl, a[0],
                                     createF32Constant(nb, nl, factor));
      });
}

struct SoftmaxCrossEntropyLowering
    : OpConversionPattern<SoftmaxCrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = adaptor.getLogits();
    RankedTensorType labelsType = op.getLabels().getType();
    int64_t rows = labelsType.getRank();
    RowStats stats = buildRowStats(rewriter, loc, logits);
    // Sum over the label positions of logsumexp - logit[label].
    AffineMap id = AffineMap::getMultiDimIdentityMap(rows, ctx);
    SmallVector<bool> all(rows, true);
    Value total = buildReduction(
        rewriter, loc, labelsType.getShape(), all,
        {stats.max, stats.sumExp, adaptor.getLabels()}, {id, id, id}, 0.0,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> at;
          for (int64_t i = 0; i < rows; ++i)
            at.push_back(linalg::IndexOp::create(b, l, i));
          at.push_back(
              arith::IndexCastOp::create(b, l, b.getIndexType(), a[2]));
          Value logit = extendToCompute(
              b, l, tensor::ExtractOp::create(b, l, logits, at));
          Value lse = arith::AddFOp::create(b, l, a[0],
                                            math::LogOp::create(b, l, a[1]));
          Value nll = arith::SubFOp::create(b, l, lse, logit);
          return arith::AddFOp::create(b, l, a[3], nll);
        });
    double inv = 1.0 / static_cast<double>(labelsType.getNumElements());
    rewriter.replaceOp(op,
                       scaleScalar(rewriter, loc, total, inv,
                                   op.getResult().getType().getElementType()));
    return success();
  }
};

struct SoftmaxCrossEntropyGradLowering
    : OpConversionPattern<SoftmaxCrossEntropyGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = adaptor.getLogits();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    RowStats stats = buildRowStats(rewriter, loc, logits);
    SmallVector<bool> reduced(rank, false);
    reduced[rank - 1] = true;
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap kept = getKeptDimsMap(reduced, ctx);
    AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
    double inv =
        1.0 / static_cast<double>(op.getLabels().getType().getNumElements());
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                   type.getElementType());
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value result = buildGeneric(
        rewriter, loc,
        {logits, stats.max, stats.sumExp, adaptor.getLabels(),
         adaptor.getGrad()},
        {id, kept, kept, kept, scalar}, init, id, parallel,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value e = math::ExpOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], a[1]));
          Value p = arith::DivFOp::create(b, l, e, a[2]);
          Value cls = linalg::IndexOp::create(b, l, rank - 1);
          Value label =
              arith::IndexCastOp::create(b, l, b.getIndexType(), a[3]);
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, cls, label);
          Value onehot =
              arith::SelectOp::create(b, l, hit, createF32Constant(b, l, 1.0),
                                      createF32Constant(b, l, 0.0));
          Value diff = arith::SubFOp::create(b, l, p, onehot);
          Value g =
              arith::MulFOp::create(b, l, a[4], createF32Constant(b, l, inv));
          return arith::MulFOp::create(b, l, diff, g);
        },
        /*computeInF32=*/true, /*readsOutput=*/false);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MseLowering : OpConversionPattern<MseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getPrediction().getType();
    int64_t rank = type.getRank();
    AffineMap id =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    SmallVector<bool> all(rank, true);
    Value total = buildReduction(
        rewriter, loc, type.getShape(), all,
        {adaptor.getPrediction(), adaptor.getTarget()}, {id, id}, 0.0,
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, a[0], a[1]);
          return arith::AddFOp::create(b, l, a[2],
                                       arith::MulFOp::create(b, l, d, d));
        });
    double inv = 1.0 / static_cast<double>(type.getNumElements());
    rewriter.replaceOp(op,
                       scaleScalar(rewriter, loc, total, inv,
                                   op.getResult().getType().getElementType()));
    return success();
  }
};

struct MseGradLowering : OpConversionPattern<MseGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MseGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    double factor = 2.0 / static_cast<double>(type.getNumElements());
    // The rank-0 gradient broadcasts to every element (getBroadcastMap).
    Value result = buildElementwise(
        rewriter, op.getLoc(), type,
        {adaptor.getPrediction(), adaptor.getTarget(), adaptor.getGrad()},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value d = arith::SubFOp::create(b, l, a[0], a[1]);
          Value g = arith::MulFOp::create(b, l, a[2],
                                          createF32Constant(b, l, factor));
          return arith::MulFOp::create(b, l, d, g);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void remat::populateRematLossToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxCrossEntropyLowering, SoftmaxCrossEntropyGradLowering,
               MseLowering, MseGradLowering>(patterns.getContext());
}
