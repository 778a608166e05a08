//===- PoolToLinalg.cpp - remat pooling and gradients to linalg -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// max_pool2d, avg_pool2d, global_avg_pool and their gradients (NCHW) to
// linalg on tensors. Input [N, C, H, W], window [KH, KW], stride s, padding
// p (at most half the window, checked by the verifier), output
// [N, C, OH, OW].
//
// The average-pool gradient is a gather over the *dilated* gradient:
// Z = dilateAndPad(dy) holds dy[oh] at row (KH - 1 - p) + oh * s and zeros
// elsewhere (H + KH - 1 rows), so that input row h is covered by window oh
// at window row kh exactly when Z row h + (KH - 1 - kh) holds dy[oh]. The
// gather over kh then accumulates overlapping windows and never visits a
// padded position. The max-pool gradient gathers from dy and the argmax
// indices in place instead, visiting only the windows that cover each
// input position (no dilated copies).
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace remat;

namespace {

/// Divides every element of the f32 tensor `t` by `divisor` and converts it
/// to `elemType`.
Value scaleAndConvert(OpBuilder &b, Location loc, Value t, double divisor,
                      Type elemType) {
  auto type = cast<RankedTensorType>(t.getType());
  unsigned rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), elemType);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{t}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, getIteratorTypes(rank, 0),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value q = arith::DivFOp::create(
                   nb, l, args[0],
                   createFloatConstant(nb, l, args[0].getType(), divisor));
               linalg::YieldOp::create(nb, l,
                                       castFromCompute(nb, l, q, elemType));
             })
      .getResult(0);
}

/// The KH x KW window sums of the NCHW tensor `input` at `strides`
/// (linalg.pooling_nchw_sum into a fresh f32 tensor of `outShape`) divided by
/// KH * KW and converted to `elemType`.
Value averageWindows(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                     ArrayRef<int64_t> outShape, Type elemType) {
  Value init = createZeroAccumulator(b, loc, outShape);
  Value window = tensor::EmptyOp::create(b, loc, kernel, b.getF32Type());
  Value sum = linalg::PoolingNchwSumOp::create(
                  b, loc, TypeRange{init.getType()}, ValueRange{input, window},
                  ValueRange{init}, b.getI64TensorAttr(strides),
                  b.getI64TensorAttr({1, 1}))
                  .getResult(0);
  return scaleAndConvert(b, loc, sum, double(kernel[0] * kernel[1]), elemType);
}

/// The gradient dy of a window op dilated by the stride into the zero
/// tensor Z described in the file header.
Value dilatedGrad(OpBuilder &b, Location loc, Value dy, Value fill,
                  ArrayRef<int64_t> inputShape, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> padding) {
  return dilateAndPad(
      b, loc, dy, strides,
      {kernel[0] - 1 - padding[0], kernel[1] - 1 - padding[1]},
      {inputShape[2] + kernel[0] - 1, inputShape[3] + kernel[1] - 1}, fill);
}

/// max_pool2d: pad with -inf, then linalg.pooling_nchw_max in the element
/// type (the maximum is exact in any float type).
struct MaxPool2DLowering : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel();
    Value negInf = createNegInfConstant(rewriter, loc, elemType);
    Value padded =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), negInf);
    Value init = createFilledTensor(rewriter, loc, resultType.getShape(),
                                    elemType, negInf);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elemType);
    Value pooled =
        linalg::PoolingNchwMaxOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{padded, window},
            ValueRange{init}, rewriter.getI64TensorAttr(op.getStrides()),
            rewriter.getI64TensorAttr({1, 1}))
            .getResult(0);
    rewriter.replaceOp(op, pooled);
    return success();
  }
};

/// max_pool2d_grad in two linalg.generic ops.
///
/// 1. Window argmax over (n, c, oh, ow | kh, kw), kh-major scan. Tie rule:
///    among the real (unpadded) positions of a window, the FIRST one in scan
///    order (kh ascending, then kw ascending) holding the maximum gets the
///    gradient: a later element replaces the running candidate only if it
///    compares strictly greater. Like PyTorch's CPU kernel, a NaN also
///    replaces the candidate (so the last NaN of a window wins), and the
///    first real element is taken when every element is -inf. Padded
///    positions are never selected. The index is kh * KW + kw (i32).
/// 2. Gather over (n, c, h, w | jh, jw), jh < ceil(KH / s): input (h, w)
///    receives dy[oh, ow] for every window (oh, ow) that covers it at
///    (kh, kw) and whose argmax is kh * KW + kw, which accumulates
///    overlapping windows in kh-major order. dy and the indices are read with
///    tensor.extract, so no dilated copy of either is made.
struct MaxPool2DGradLowering : OpConversionPattern<MaxPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaxPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> x = resultType.getShape();
    ArrayRef<int64_t> dy = op.getGrad().getType().getShape();
    ArrayRef<int64_t> kernel = op.getKernel();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> padding = op.getPadding();
    Type i32 = rewriter.getI32Type();

    // Step 1: argmax indices [N, C, OH, OW].
    Value negInf = createNegInfConstant(rewriter, loc, elemType);
    Value padded =
        padSpatial(rewriter, loc, adaptor.getInput(), padding, negInf);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elemType);
    Value minusOne = arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI32IntegerAttr(-1));
    Value maxInit = createFilledTensor(rewriter, loc, dy, elemType, negInf);
    Value idxInit = createFilledTensor(rewriter, loc, dy, i32, minusOne);
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx),
               d4 = getAffineDimExpr(4, ctx), d5 = getAffineDimExpr(5, ctx);
    AffineMap inMap = AffineMap::get(
        6, 0, {d0, d1, d2 * strides[0] + d4, d3 * strides[1] + d5}, ctx);
    AffineMap winMap = getDimsMap(ctx, 6, {4, 5});
    AffineMap outMap = getDimsMap(ctx, 6, {0, 1, 2, 3});
    auto argmax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{maxInit.getType(), idxInit.getType()},
        ValueRange{padded, window}, ValueRange{maxInit, idxInit},
        ArrayRef<AffineMap>{inMap, winMap, outMap, outMap},
        getIteratorTypes(4, 2), [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], cur = args[2], curIdx = args[3];
          auto indexConst = [&](int64_t c) -> Value {
            return arith::ConstantIndexOp::create(b, l, c);
          };
          // Whether padded position (oh*s + kh, ow*s + kw) is a real one.
          auto inRange = [&](unsigned outDim, unsigned winDim, int64_t stride,
                             int64_t pad, int64_t size) -> Value {
            Value o = linalg::IndexOp::create(b, l, outDim);
            Value k = linalg::IndexOp::create(b, l, winDim);
            Value pos = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, o, indexConst(stride)), k);
            Value lo = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                             pos, indexConst(pad));
            Value hi = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             pos, indexConst(pad + size));
            return arith::AndIOp::create(b, l, lo, hi);
          };
          Value real = arith::AndIOp::create(
              b, l, inRange(2, 4, strides[0], padding[0], x[2]),
              inRange(3, 5, strides[1], padding[1], x[3]));
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, curIdx,
              arith::ConstantOp::create(b, l, b.getI32IntegerAttr(-1)));
          Value greater =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, cur);
          Value isNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
          Value better = arith::OrIOp::create(
              b, l, first, arith::OrIOp::create(b, l, greater, isNaN));
          Value take = arith::AndIOp::create(b, l, real, better);
          Value kh = linalg::IndexOp::create(b, l, 4);
          Value kw = linalg::IndexOp::create(b, l, 5);
          Value k = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, kh, indexConst(kernel[1])), kw);
          Value k32 = arith::IndexCastOp::create(b, l, b.getI32Type(), k);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, v, cur),
                         arith::SelectOp::create(b, l, take, k32, curIdx)});
        });
    Value indices = argmax.getResult(1);

    // Step 2: gather the gradient. Along one spatial dimension, input
    // position h (padded position h + p = q * s + r) lies in window
    // oh = q - j at window row kh = r + j * s for j = 0, 1, ... while
    // kh < KH and 0 <= oh < OH: at most ceil(KH / s) windows, and j
    // ascending is kh ascending, the order the dilated gather of earlier
    // versions used, so the sums are the same bits. The loops over j run
    // over the "cover" window [ceil(KH / s), ceil(KW / s)]; the output
    // gradient and the indices are read in place (tensor.extract).
    SmallVector<int64_t> cover = {
        llvm::divideCeilSigned(kernel[0], strides[0]),
        llvm::divideCeilSigned(kernel[1], strides[1])};
    Value coverWindow = tensor::EmptyOp::create(rewriter, loc, cover, elemType);
    Value grad = adaptor.getGrad();
    Value init = createZeroAccumulator(rewriter, loc, x);
    Value dx =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{coverWindow},
            ValueRange{init}, ArrayRef<AffineMap>{winMap, outMap},
            getIteratorTypes(4, 2),
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto indexConst = [&](int64_t c) -> Value {
                return arith::ConstantIndexOp::create(b, l, c);
              };
              // The window `o` (0 where invalid) and window row `k` that
              // cover input dimension `inDim` at cover step `jDim`.
              auto along = [&](unsigned inDim, unsigned jDim, unsigned axis,
                               Value &o, Value &k) -> Value {
                Value pos = arith::AddIOp::create(
                    b, l, linalg::IndexOp::create(b, l, inDim),
                    indexConst(padding[axis]));
                Value s = indexConst(strides[axis]);
                Value q = arith::DivUIOp::create(b, l, pos, s);
                Value r = arith::RemUIOp::create(b, l, pos, s);
                Value j = linalg::IndexOp::create(b, l, jDim);
                k = arith::AddIOp::create(b, l, r,
                                          arith::MulIOp::create(b, l, j, s));
                Value raw = arith::SubIOp::create(b, l, q, j);
                Value inKernel =
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, k,
                                          indexConst(kernel[axis]));
                Value zero = indexConst(0);
                Value nonNeg = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::sge, raw, zero);
                Value below =
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, raw,
                                          indexConst(dy[2 + axis]));
                Value valid = arith::AndIOp::create(
                    b, l, inKernel, arith::AndIOp::create(b, l, nonNeg, below));
                o = arith::SelectOp::create(b, l, valid, raw, zero);
                return valid;
              };
              Value oh, kh, ow, kw;
              Value validH = along(2, 4, 0, oh, kh);
              Value validW = along(3, 5, 1, ow, kw);
              SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0),
                                       linalg::IndexOp::create(b, l, 1), oh,
                                       ow};
              Value idx = tensor::ExtractOp::create(b, l, indices, at);
              Value k = arith::AddIOp::create(
                  b, l, arith::MulIOp::create(b, l, kh, indexConst(kernel[1])),
                  kw);
              Value k32 = arith::IndexCastOp::create(b, l, i32, k);
              Value match = arith::AndIOp::create(
                  b, l, arith::AndIOp::create(b, l, validH, validW),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx,
                                        k32));
              Value g = extendToCompute(
                  b, l, tensor::ExtractOp::create(b, l, grad, at));
              Value zero = createFloatConstant(b, l, g.getType(), 0.0);
              Value add = arith::SelectOp::create(b, l, match, g, zero);
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[1], add).getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, castTensorFromCompute(rewriter, loc, dx, elemType));
    return success();
  }
};

/// avg_pool2d: zero-pad, linalg.pooling_nchw_sum into f32, divide by
/// KH * KW (padding counts in the average).
struct AvgPool2DLowering : OpConversionPattern<AvgPool2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel();
    Value padded =
        padSpatialWithZeros(rewriter, loc, adaptor.getInput(), op.getPadding());
    rewriter.replaceOp(op, averageWindows(rewriter, loc, padded, kernel,
                                          op.getStrides(),
                                          resultType.getShape(), elemType));
    return success();
  }
};

/// avg_pool2d_grad: a stride-1 window sum over the dilated gradient Z (every
/// window that covers an input element contributes dy / (KH * KW); padded
/// positions are simply not part of the result), then the division.
struct AvgPool2DGradLowering : OpConversionPattern<AvgPool2DGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AvgPool2DGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> x = resultType.getShape();
    ArrayRef<int64_t> kernel = op.getKernel();
    Value z = dilatedGrad(rewriter, loc, adaptor.getGrad(),
                          createFloatConstant(rewriter, loc, elemType, 0.0), x,
                          kernel, op.getStrides(), op.getPadding());
    rewriter.replaceOp(
        op, averageWindows(rewriter, loc, z, kernel, {1, 1}, x, elemType));
    return success();
  }
};

/// global_avg_pool: sum over (h, w) in f32, then divide by H * W.
struct GlobalAvgPoolLowering : OpConversionPattern<GlobalAvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GlobalAvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    ArrayRef<int64_t> x = op.getInput().getType().getShape();
    Type elemType = op.getType().getElementType();
    Value init = createZeroAccumulator(rewriter, loc, {x[0], x[1]});
    Value sum = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{init.getType()},
                    ValueRange{adaptor.getInput()}, ValueRange{init},
                    ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(4),
                                        getDimsMap(ctx, 4, {0, 1})},
                    getIteratorTypes(2, 2),
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      linalg::YieldOp::create(
                          b, l,
                          arith::AddFOp::create(b, l, args[1],
                                                extendToCompute(b, l, args[0]))
                              .getResult());
                    })
                    .getResult(0);
    rewriter.replaceOp(
        op, scaleAndConvert(rewriter, loc, sum, double(x[2] * x[3]), elemType));
    return success();
  }
};

/// global_avg_pool_grad: broadcast dy[n, c] / (H * W) over (h, w).
struct GlobalAvgPoolGradLowering : OpConversionPattern<GlobalAvgPoolGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GlobalAvgPoolGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> x = resultType.getShape();
    double count = double(x[2] * x[3]);
    Value init = tensor::EmptyOp::create(rewriter, loc, x, elemType);
    Value dx =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getGrad()},
            ValueRange{init},
            ArrayRef<AffineMap>{getDimsMap(ctx, 4, {0, 1}),
                                rewriter.getMultiDimIdentityMap(4)},
            getIteratorTypes(4, 0),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value g = extendToCompute(b, l, args[0]);
              Value q = arith::DivFOp::create(
                  b, l, g, createFloatConstant(b, l, g.getType(), count));
              linalg::YieldOp::create(b, l, castFromCompute(b, l, q, elemType));
            })
            .getResult(0);
    rewriter.replaceOp(op, dx);
    return success();
  }
};

} // namespace

void remat::populateRematPoolToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, MaxPool2DGradLowering, AvgPool2DLowering,
               AvgPool2DGradLowering, GlobalAvgPoolLowering,
               GlobalAvgPoolGradLowering>(patterns.getContext());
}
