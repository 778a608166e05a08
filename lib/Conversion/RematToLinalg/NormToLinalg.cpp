//===- NormToLinalg.cpp - remat layer/batch norm and gradients to linalg -===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// layer_norm, batch_norm (training mode) and their gradients to linalg on
// tensors. Statistics are computed in one pass over the input (the sums of
// x and of x * x; the biased variance is sum(x^2) / K - mean^2, at least 0);
// rstd = 1 / sqrt(var + epsilon). The reductions over the normalized
// elements (the statistics, dbias and dscale) accumulate in f64 (where x * x
// of an f32 x is exact) and are rounded to f32 once: a batch norm sums
// N * H * W elements per channel (32768 for a batch of 8 at 64x64), and a
// sequential f32 sum of that length is off by ~1e-4 relative, 10-100x
// PyTorch's blocked sums - enough to move ReLU6 kinks in MobileNetV2 and
// change its gradients by percents. Elementwise work stays in f32. A
// batch_norm that returns its batch statistics gets them from the same pass:
// the mean and the unbiased variance var * K / (K - 1), [C] each.
// A batch norm whose spatial size S is a multiple of 8 sums in 8 lanes:
// lane l of channel c adds the elements with s % 8 == l, (n, s) ascending,
// and the 8 lane sums are then added in increasing l. Its loops are
// (c | n, s / 8 | l), the lanes innermost and contiguous in x, so LLVM
// adds 8 elements per vector instruction instead of one dependent f64
// addition per element (the reductions were most of MobileNetV2's
// compiled loops).
//
// Both ops are brought to a canonical shape first, so one statistics helper
// serves both:
//   layer_norm: [..., D] -> [M, D], loops (m | d), statistics per m;
//   batch_norm: [N, C] or [N, C, H, W] -> [N, C, S], loops (c | n, s),
//               statistics per c.
//
// Gradients (xhat = (x - mean) * rstd, g = dy * scale, K elements per
// statistic):
//   dbias  = sum dy,  dscale = sum dy * xhat   (over what scale broadcasts)
//   layer_norm: dx = rstd * (g - mean_d(g) - xhat * mean_d(g * xhat))
//   batch_norm: dx = scale * rstd * (dy - dbias / K - xhat * dscale / K)
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace remat;

namespace {

/// A normalization problem in canonical form: `x` is the reshaped input,
/// the loops of every generic are [stat dim | reduced dims] (`numLoops` in
/// all), `xMap` maps loops to `x`, `statMap` to the [K]-shaped statistics.
struct NormLayout {
  Value x;
  unsigned numLoops;
  AffineMap xMap;
  AffineMap statMap;
  int64_t statSize; ///< number of statistics (M rows or C channels)
  int64_t count;    ///< elements per statistic
  /// Partial sums per statistic (batch norm with 8 | S: 8, else 1); lane l
  /// sums the elements whose index in the innermost loop is l mod lanes.
  int64_t lanes = 1;
};

/// Lanes of a batch norm's reductions over a spatial size divisible by it.
constexpr int64_t kReductionLanes = 8;

/// The accumulator type of the reductions over normalized elements.
FloatType wideType(MLIRContext *ctx) { return Float64Type::get(ctx); }

/// A float scalar extended to the accumulator type.
Value toWide(OpBuilder &b, Location loc, Value scalar) {
  Type wide = wideType(b.getContext());
  if (scalar.getType() == wide)
    return scalar;
  return arith::ExtFOp::create(b, loc, wide, scalar);
}

/// A zero-filled [size] tensor of the accumulator type.
Value wideZeros(OpBuilder &b, Location loc, int64_t size) {
  return createFilledTensor(b, loc, {size}, wideType(b.getContext()), 0.0);
}

/// The loops (c | n, s / lanes | l) of a batch norm reduction in lanes:
/// the map to x viewed as [N, C, S / lanes, lanes] (laneView), to the [C]
/// statistics and to the [C, lanes] partial sums, and the iterator types.
struct LaneLoops {
  AffineMap xMap, statMap, laneMap;
  SmallVector<utils::IteratorType> iterators;
};

LaneLoops laneLoops(MLIRContext *ctx) {
  AffineExpr c = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             block = getAffineDimExpr(2, ctx), lane = getAffineDimExpr(3, ctx);
  using utils::IteratorType;
  return {AffineMap::get(4, 0, {n, c, block, lane}, ctx),
          AffineMap::get(4, 0, {c}, ctx), AffineMap::get(4, 0, {c, lane}, ctx),
          {IteratorType::parallel, IteratorType::reduction,
           IteratorType::reduction, IteratorType::parallel}};
}

/// A batch norm's [N, C, S] operand viewed as [N, C, S / lanes, lanes].
Value laneView(OpBuilder &b, Location loc, Value x, int64_t lanes) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(x.getType()).getShape();
  return createExpandShape(b, loc, x, {s[0], s[1], s[2] / lanes, lanes},
                           {{0}, {1}, {2, 3}});
}

/// The [C] totals of [C, lanes] partial sums, lanes added in increasing
/// order onto 0.
SmallVector<Value> addLanes(OpBuilder &b, Location loc, ValueRange partial) {
  auto type = cast<RankedTensorType>(partial.front().getType());
  int64_t size = type.getDimSize(0);
  SmallVector<Value> inits;
  for (size_t i = 0; i < partial.size(); ++i)
    inits.push_back(wideZeros(b, loc, size));
  AffineMap id2 = b.getMultiDimIdentityMap(2);
  AffineMap row = getDimsMap(b.getContext(), 2, {0});
  SmallVector<AffineMap> maps(partial.size(), id2);
  maps.append(partial.size(), row);
  auto sums = linalg::GenericOp::create(
      b, loc, ValueRange(inits).getTypes(), partial, inits, maps,
      getIteratorTypes(1, 1),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        size_t count = args.size() / 2;
        SmallVector<Value> yields;
        for (size_t i = 0; i < count; ++i)
          yields.push_back(
              arith::AddFOp::create(nb, l, args[count + i], args[i]));
        linalg::YieldOp::create(nb, l, yields);
      });
  return SmallVector<Value>(sums.getResults());
}

/// A rank-1 accumulator tensor rounded to f32.
Value narrow(OpBuilder &b, Location loc, Value wide) {
  auto type = cast<RankedTensorType>(wide.getType());
  Type f32 = Float32Type::get(b.getContext());
  Value init = createEmptyTensor(b, loc, type.getShape(), f32);
  AffineMap id1 = b.getMultiDimIdentityMap(1);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{wide},
             ValueRange{init}, ArrayRef<AffineMap>{id1, id1},
             getIteratorTypes(1, 0),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       castFromCompute(nb, l, args[0], f32));
             })
      .getResult(0);
}

/// The per-statistic values of one statistics pass, f32 [statSize].
struct NormStats {
  Value mean;
  Value rstd;
  /// The unbiased variance (sum of squared deviations / (K - 1)); null
  /// unless asked for.
  Value unbiasedVar;
};

/// Mean and rstd (f32, [statSize]) of `layout`, accumulated and computed in
/// the wide type and rounded once. One pass over x sums x and x * x (two
/// independent f64 chains per statistic); var = sum(x^2) / K - mean^2,
/// clamped at 0 against rounding. With `withUnbiasedVar` (K >= 2, checked by
/// the op verifier), the same pass also yields var * K / (K - 1).
NormStats computeStats(OpBuilder &b, Location loc, const NormLayout &layout,
                       double epsilon, bool withUnbiasedVar = false) {
  unsigned nRed = layout.numLoops - 1;
  Type wide = wideType(b.getContext());
  auto body = [&](OpBuilder &nb, Location l, ValueRange args) {
    Value x = toWide(nb, l, args[0]);
    Value sum = arith::AddFOp::create(nb, l, args[1], x);
    Value sq = arith::AddFOp::create(
        nb, l, args[2], arith::MulFOp::create(nb, l, x, x).getResult());
    linalg::YieldOp::create(nb, l, ValueRange{sum, sq});
  };
  SmallVector<Value> sums;
  if (layout.lanes > 1) {
    LaneLoops loops = laneLoops(b.getContext());
    Value sumInit = createFilledTensor(
        b, loc, {layout.statSize, layout.lanes}, wide, 0.0);
    Value sqInit = createFilledTensor(b, loc, {layout.statSize, layout.lanes},
                                      wide, 0.0);
    auto partial = linalg::GenericOp::create(
        b, loc, TypeRange{sumInit.getType(), sqInit.getType()},
        ValueRange{laneView(b, loc, layout.x, layout.lanes)},
        ValueRange{sumInit, sqInit},
        ArrayRef<AffineMap>{loops.xMap, loops.laneMap, loops.laneMap},
        loops.iterators, body);
    sums = addLanes(b, loc, partial.getResults());
  } else {
    Value sumInit = wideZeros(b, loc, layout.statSize);
    Value sqInit = wideZeros(b, loc, layout.statSize);
    sums = linalg::GenericOp::create(
               b, loc, TypeRange{sumInit.getType(), sqInit.getType()},
               ValueRange{layout.x}, ValueRange{sumInit, sqInit},
               ArrayRef<AffineMap>{layout.xMap, layout.statMap,
                                   layout.statMap},
               getIteratorTypes(1, nRed), body)
               .getResults();
  }
  double count = double(layout.count);
  Value meanInit = createEmptyTensor(b, loc, {layout.statSize}, wide);
  Value rstdInit = createEmptyTensor(b, loc, {layout.statSize}, wide);
  SmallVector<Value> inits{meanInit, rstdInit};
  if (withUnbiasedVar)
    inits.push_back(createEmptyTensor(b, loc, {layout.statSize}, wide));
  AffineMap id1 = b.getMultiDimIdentityMap(1);
  SmallVector<AffineMap> maps(2 + inits.size(), id1);
  auto stats = linalg::GenericOp::create(
      b, loc, ValueRange(inits).getTypes(), sums, inits, maps,
      getIteratorTypes(1, 0),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Type f = args[0].getType();
        Value n = createFloatConstant(nb, l, f, count);
        Value mean = arith::DivFOp::create(nb, l, args[0], n);
        Value meanSq = arith::DivFOp::create(nb, l, args[1], n);
        Value var = arith::SubFOp::create(
            nb, l, meanSq, arith::MulFOp::create(nb, l, mean, mean));
        var = arith::MaximumFOp::create(nb, l, var,
                                        createFloatConstant(nb, l, f, 0.0));
        Value shifted = arith::AddFOp::create(
            nb, l, var, createFloatConstant(nb, l, f, epsilon));
        Value root = math::SqrtOp::create(nb, l, shifted);
        Value rstd = arith::DivFOp::create(
            nb, l, createFloatConstant(nb, l, f, 1.0), root);
        SmallVector<Value> yields{mean, rstd};
        if (withUnbiasedVar) {
          Value bessel = createFloatConstant(nb, l, f, count / (count - 1.0));
          yields.push_back(arith::MulFOp::create(nb, l, var, bessel));
        }
        linalg::YieldOp::create(nb, l, yields);
      });
  NormStats result{narrow(b, loc, stats.getResult(0)),
                   narrow(b, loc, stats.getResult(1)), Value()};
  if (withUnbiasedVar)
    result.unbiasedVar = narrow(b, loc, stats.getResult(2));
  return result;
}

/// (x - mean) * rstd for compute-type scalars.
Value normalize(OpBuilder &b, Location l, Value x, Value mean, Value rstd) {
  return arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, x, mean),
                               rstd);
}

/// Layer norm layout: [..., D] viewed as [M, D].
NormLayout layerNormLayout(OpBuilder &b, Location loc, Value input) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t d = shape.back();
  int64_t m = 1;
  for (int64_t i = 0, e = type.getRank() - 1; i < e; ++i)
    m *= shape[i];
  Value x = input;
  if (type.getRank() == 1) {
    x = createExpandShape(b, loc, input, {1, d}, {{0, 1}});
  } else if (type.getRank() > 2) {
    ReassociationIndices lead;
    for (int64_t i = 0, e = type.getRank() - 1; i < e; ++i)
      lead.push_back(i);
    x = createCollapseShape(b, loc, input, {lead, {type.getRank() - 1}});
  }
  return {x, 2, b.getMultiDimIdentityMap(2), getDimsMap(ctx, 2, {0}), m, d};
}

/// Restores the layer norm result [M, D] to `type`.
Value layerNormRestore(OpBuilder &b, Location loc, Value t,
                       RankedTensorType type) {
  if (type.getRank() == 1)
    return createCollapseShape(b, loc, t, {{0, 1}});
  if (type.getRank() == 2)
    return t;
  ReassociationIndices lead;
  for (int64_t i = 0, e = type.getRank() - 1; i < e; ++i)
    lead.push_back(i);
  return createExpandShape(b, loc, t, type.getShape(),
                           {lead, {type.getRank() - 1}});
}

/// Batch norm layout: [N, C] or [N, C, H, W] viewed as [N, C, S]; loops
/// (c | n, s).
NormLayout batchNormLayout(OpBuilder &b, Location loc, Value input) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> s = type.getShape();
  Value x =
      type.getRank() == 2
          ? createExpandShape(b, loc, input, {s[0], s[1], 1}, {{0}, {1, 2}})
          : createCollapseShape(b, loc, input, {{0}, {1}, {2, 3}});
  int64_t spatial = type.getRank() == 2 ? 1 : s[2] * s[3];
  return {x,
          3,
          getDimsMap(ctx, 3, {1, 0, 2}),
          getDimsMap(ctx, 3, {0}),
          s[1],
          s[0] * spatial,
          spatial % kReductionLanes == 0 ? kReductionLanes : 1};
}

/// Restores the batch norm result [N, C, S] to `type`.
Value batchNormRestore(OpBuilder &b, Location loc, Value t,
                       RankedTensorType type) {
  if (type.getRank() == 2)
    return createCollapseShape(b, loc, t, {{0}, {1, 2}});
  return createExpandShape(b, loc, t, type.getShape(), {{0}, {1}, {2, 3}});
}

/// Shared forward: y = (x - mean) * rstd * scale + bias with the statistics
/// `stats` of `layout`. `paramMap` maps the loops to the [D] or [C]
/// parameters.
Value normForward(OpBuilder &b, Location loc, const NormLayout &layout,
                  const NormStats &stats, AffineMap paramMap, Value scale,
                  Value bias, Type elemType) {
  Value mean = stats.mean, rstd = stats.rstd;
  auto xType = cast<RankedTensorType>(layout.x.getType());
  // The result is produced in the loop order of xMap's inverse, i.e. with
  // x's own layout, so write it through the same map.
  Value init = tensor::EmptyOp::create(b, loc, xType.getShape(), elemType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()},
             ValueRange{layout.x, mean, rstd, scale, bias}, ValueRange{init},
             ArrayRef<AffineMap>{layout.xMap, layout.statMap, layout.statMap,
                                 paramMap, paramMap, layout.xMap},
             getIteratorTypes(layout.numLoops, 0),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value xh = normalize(nb, l, extendToCompute(nb, l, args[0]),
                                    args[1], args[2]);
               Value y = arith::AddFOp::create(
                   nb, l,
                   arith::MulFOp::create(nb, l, xh,
                                         extendToCompute(nb, l, args[3])),
                   extendToCompute(nb, l, args[4]));
               linalg::YieldOp::create(nb, l,
                                       castFromCompute(nb, l, y, elemType));
             })
      .getResult(0);
}

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    NormLayout layout = layerNormLayout(rewriter, loc, adaptor.getInput());
    NormStats stats =
        computeStats(rewriter, loc, layout, op.getEpsilon().convertToDouble());
    Value y = normForward(rewriter, loc, layout, stats,
                          getDimsMap(rewriter.getContext(), 2, {1}),
                          adaptor.getScale(), adaptor.getBias(),
                          type.getElementType());
    rewriter.replaceOp(op, layerNormRestore(rewriter, loc, y, type));
    return success();
  }
};

struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type elemType = type.getElementType();
    NormLayout layout = batchNormLayout(rewriter, loc, adaptor.getInput());
    bool withStats = !op.getBatchStats().empty();
    NormStats stats = computeStats(rewriter, loc, layout,
                                   op.getEpsilon().convertToDouble(), withStats);
    Value y = normForward(rewriter, loc, layout, stats, layout.statMap,
                          adaptor.getScale(), adaptor.getBias(), elemType);
    SmallVector<Value> results{batchNormRestore(rewriter, loc, y, type)};
    if (withStats) {
      results.push_back(
          castTensorFromCompute(rewriter, loc, stats.mean, elemType));
      results.push_back(
          castTensorFromCompute(rewriter, loc, stats.unbiasedVar, elemType));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The parameter gradients of both norms: the sums of dy (dbias) and of
/// dy * xhat (dscale) over every loop but the first, which runs over the
/// parameter dimension, accumulated in the wide type and returned in f32.
/// `xMap`, `statMap` and `outMap` map the `numLoops` loops to x and dy, to
/// mean and rstd, and to the [size] outputs. With `lanes` > 1 (a batch
/// norm's layout) the sums go through lanes (laneLoops) instead.
std::pair<Value, Value> paramGrads(OpBuilder &b, Location loc, Value x,
                                   Value dy, Value mean, Value rstd,
                                   unsigned numLoops, AffineMap xMap,
                                   AffineMap statMap, AffineMap outMap,
                                   int64_t size, int64_t lanes = 1) {
  auto body = [&](OpBuilder &nb, Location l, ValueRange args) {
    Value g = extendToCompute(nb, l, args[1]);
    Value xh =
        normalize(nb, l, extendToCompute(nb, l, args[0]), args[2], args[3]);
    Value sumG = arith::AddFOp::create(nb, l, args[4], toWide(nb, l, g));
    Value sumGX = arith::AddFOp::create(
        nb, l, args[5],
        toWide(nb, l, arith::MulFOp::create(nb, l, g, xh).getResult()));
    linalg::YieldOp::create(nb, l, ValueRange{sumG, sumGX});
  };
  SmallVector<Value> sums;
  if (lanes > 1) {
    LaneLoops loops = laneLoops(b.getContext());
    Type wide = wideType(b.getContext());
    Value initA = createFilledTensor(b, loc, {size, lanes}, wide, 0.0);
    Value initB = createFilledTensor(b, loc, {size, lanes}, wide, 0.0);
    auto partial = linalg::GenericOp::create(
        b, loc, TypeRange{initA.getType(), initB.getType()},
        ValueRange{laneView(b, loc, x, lanes), laneView(b, loc, dy, lanes),
                   mean, rstd},
        ValueRange{initA, initB},
        ArrayRef<AffineMap>{loops.xMap, loops.xMap, loops.statMap,
                            loops.statMap, loops.laneMap, loops.laneMap},
        loops.iterators, body);
    sums = addLanes(b, loc, partial.getResults());
  } else {
    Value initA = wideZeros(b, loc, size);
    Value initB = wideZeros(b, loc, size);
    sums = linalg::GenericOp::create(
               b, loc, TypeRange{initA.getType(), initB.getType()},
               ValueRange{x, dy, mean, rstd}, ValueRange{initA, initB},
               ArrayRef<AffineMap>{xMap, xMap, statMap, statMap, outMap,
                                   outMap},
               getIteratorTypes(1, numLoops - 1), body)
               .getResults();
  }
  return {narrow(b, loc, sums[0]), narrow(b, loc, sums[1])};
}

struct LayerNormGradLowering : OpConversionPattern<LayerNormGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getInput().getType();
    Type elemType = type.getElementType();
    NormLayout layout = layerNormLayout(rewriter, loc, adaptor.getInput());
    Value dy = layerNormLayout(rewriter, loc, adaptor.getGrad()).x;
    NormStats stats =
        computeStats(rewriter, loc, layout, op.getEpsilon().convertToDouble());
    Value mean = stats.mean, rstd = stats.rstd;
    int64_t m = layout.statSize, d = layout.count;
    double count = double(d);

    // Row sums of g = dy * scale and g * xhat over d.
    AffineMap id2 = rewriter.getMultiDimIdentityMap(2);
    AffineMap rowMap = getDimsMap(ctx, 2, {0}),
              colMap = getDimsMap(ctx, 2, {1});
    Value initA = createZeroAccumulator(rewriter, loc, {m});
    Value initB = createZeroAccumulator(rewriter, loc, {m});
    auto rowSums = linalg::GenericOp::create(
        rewriter, loc, TypeRange{initA.getType(), initB.getType()},
        ValueRange{layout.x, dy, adaptor.getScale(), mean, rstd},
        ValueRange{initA, initB},
        ArrayRef<AffineMap>{id2, id2, colMap, rowMap, rowMap, rowMap, rowMap},
        getIteratorTypes(1, 1), [&](OpBuilder &b, Location l, ValueRange args) {
          Value g = arith::MulFOp::create(b, l, extendToCompute(b, l, args[1]),
                                          extendToCompute(b, l, args[2]));
          Value xh =
              normalize(b, l, extendToCompute(b, l, args[0]), args[3], args[4]);
          Value sumG = arith::AddFOp::create(b, l, args[5], g);
          Value sumGX = arith::AddFOp::create(
              b, l, args[6], arith::MulFOp::create(b, l, g, xh));
          linalg::YieldOp::create(b, l, ValueRange{sumG, sumGX});
        });

    Value dxInit = tensor::EmptyOp::create(rewriter, loc,
                                           ArrayRef<int64_t>{m, d}, elemType);
    Value dx =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{dxInit.getType()},
            ValueRange{layout.x, dy, adaptor.getScale(), mean, rstd,
                       rowSums.getResult(0), rowSums.getResult(1)},
            ValueRange{dxInit},
            ArrayRef<AffineMap>{id2, id2, colMap, rowMap, rowMap, rowMap,
                                rowMap, id2},
            getIteratorTypes(2, 0),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Type f = Float32Type::get(b.getContext());
              Value n = createFloatConstant(b, l, f, count);
              Value g =
                  arith::MulFOp::create(b, l, extendToCompute(b, l, args[1]),
                                        extendToCompute(b, l, args[2]));
              Value xh = normalize(b, l, extendToCompute(b, l, args[0]),
                                   args[3], args[4]);
              Value meanG = arith::DivFOp::create(b, l, args[5], n);
              Value meanGX = arith::DivFOp::create(b, l, args[6], n);
              Value inner = arith::SubFOp::create(
                  b, l, arith::SubFOp::create(b, l, g, meanG),
                  arith::MulFOp::create(b, l, xh, meanGX));
              Value r = arith::MulFOp::create(b, l, args[4], inner);
              linalg::YieldOp::create(b, l, castFromCompute(b, l, r, elemType));
            })
            .getResult(0);

    // Parameter gradients: loops (d | m).
    auto [dBias, dScale] = paramGrads(
        rewriter, loc, layout.x, dy, mean, rstd, 2, getDimsMap(ctx, 2, {1, 0}),
        getDimsMap(ctx, 2, {1}), getDimsMap(ctx, 2, {0}), d);
    rewriter.replaceOp(op,
                       {layerNormRestore(rewriter, loc, dx, type),
                        castTensorFromCompute(rewriter, loc, dScale, elemType),
                        castTensorFromCompute(rewriter, loc, dBias, elemType)});
    return success();
  }
};

struct BatchNormGradLowering : OpConversionPattern<BatchNormGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getInput().getType();
    Type elemType = type.getElementType();
    NormLayout layout = batchNormLayout(rewriter, loc, adaptor.getInput());
    Value dy = batchNormLayout(rewriter, loc, adaptor.getGrad()).x;
    NormStats stats =
        computeStats(rewriter, loc, layout, op.getEpsilon().convertToDouble());
    Value mean = stats.mean, rstd = stats.rstd;
    auto [dBias, dScale] =
        paramGrads(rewriter, loc, layout.x, dy, mean, rstd, 3, layout.xMap,
                   layout.statMap, layout.statMap, layout.statSize,
                   layout.lanes);
    double count = double(layout.count);

    auto xType = cast<RankedTensorType>(layout.x.getType());
    Value dxInit =
        tensor::EmptyOp::create(rewriter, loc, xType.getShape(), elemType);
    AffineMap s = layout.statMap;
    Value dx =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{dxInit.getType()},
            ValueRange{layout.x, dy, adaptor.getScale(), mean, rstd, dBias,
                       dScale},
            ValueRange{dxInit},
            ArrayRef<AffineMap>{layout.xMap, layout.xMap, s, s, s, s, s,
                                layout.xMap},
            getIteratorTypes(3, 0),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Type f = Float32Type::get(b.getContext());
              Value n = createFloatConstant(b, l, f, count);
              Value g = extendToCompute(b, l, args[1]);
              Value xh = normalize(b, l, extendToCompute(b, l, args[0]),
                                   args[3], args[4]);
              Value meanDb = arith::DivFOp::create(b, l, args[5], n);
              Value meanDs = arith::DivFOp::create(b, l, args[6], n);
              Value inner = arith::SubFOp::create(
                  b, l, arith::SubFOp::create(b, l, g, meanDb),
                  arith::MulFOp::create(b, l, xh, meanDs));
              Value coef = arith::MulFOp::create(
                  b, l, extendToCompute(b, l, args[2]), args[4]);
              Value r = arith::MulFOp::create(b, l, coef, inner);
              linalg::YieldOp::create(b, l, castFromCompute(b, l, r, elemType));
            })
            .getResult(0);
    rewriter.replaceOp(op,
                       {batchNormRestore(rewriter, loc, dx, type),
                        castTensorFromCompute(rewriter, loc, dScale, elemType),
                        castTensorFromCompute(rewriter, loc, dBias, elemType)});
    return success();
  }
};

} // namespace

void remat::populateRematNormToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, BatchNormLowering, LayerNormGradLowering,
               BatchNormGradLowering>(patterns.getContext());
}
