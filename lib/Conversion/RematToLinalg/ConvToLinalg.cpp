//===- ConvToLinalg.cpp - remat conv2d and gradients to linalg -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// conv2d, conv2d_input_grad and conv2d_filter_grad (NCHW activations, OIHW
// filters) to linalg on tensors. Accumulation is in f32 (see
// LoweringUtils.h); f16/bf16 results are truncated at the end.
//
// Notation: input [N, C, H, W], filter [O, Cg, KH, KW] with Cg = C / G,
// Og = O / G for G groups, output [N, O, OH, OW]; stride s, padding p,
// dilation d per spatial dimension.
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

using namespace mlir;
using namespace remat;

namespace {

/// Reassociation splitting dimension 1 of a rank-4 tensor into two
/// ([N, C, H, W] <-> [N, G, C/G, H, W]).
SmallVector<ReassociationIndices> splitDim1() {
  return {{0}, {1, 2}, {3}, {4}};
}

/// Reassociation splitting dimension 0 of a rank-4 tensor into two
/// ([O, Cg, KH, KW] <-> [G, Og, Cg, KH, KW]).
SmallVector<ReassociationIndices> splitDim0() {
  return {{0, 1}, {2}, {3}, {4}};
}

/// Correlates the (already padded) NCHW `input` with the filter `filter`
/// ([F, Cg, KH, KW], input channels per group Cg) into a fresh f32 tensor of
/// spatial size `outHW`: linalg.conv_2d_nchw_fchw for one group, otherwise
/// linalg.conv_2d_ngchw_gfchw on views with an explicit group dimension. The
/// named ops widen f16/bf16 operands to the f32 accumulator.
Value correlate(OpBuilder &b, Location loc, Value input, Value filter,
                int64_t groups, ArrayRef<int64_t> outHW,
                ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  ArrayRef<int64_t> x = cast<RankedTensorType>(input.getType()).getShape();
  ArrayRef<int64_t> w = cast<RankedTensorType>(filter.getType()).getShape();
  Attribute stridesAttr = b.getI64TensorAttr(strides);
  Attribute dilationsAttr = b.getI64TensorAttr(dilations);
  if (groups == 1) {
    Value init =
        createZeroAccumulator(b, loc, {x[0], w[0], outHW[0], outHW[1]});
    return linalg::Conv2DNchwFchwOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{input, filter},
               ValueRange{init}, stridesAttr, dilationsAttr)
        .getResult(0);
  }
  int64_t g = groups, cg = x[1] / g, fg = w[0] / g;
  Value xg =
      createExpandShape(b, loc, input, {x[0], g, cg, x[2], x[3]}, splitDim1());
  Value wg =
      createExpandShape(b, loc, filter, {g, fg, w[1], w[2], w[3]}, splitDim0());
  Value init = createZeroAccumulator(b, loc, {x[0], g, fg, outHW[0], outHW[1]});
  Value out = linalg::Conv2DNgchwGfchwOp::create(
                  b, loc, TypeRange{init.getType()}, ValueRange{xg, wg},
                  ValueRange{init}, stridesAttr, dilationsAttr)
                  .getResult(0);
  return createCollapseShape(b, loc, out, splitDim1());
}

/// conv2d: zero-pad the input with tensor.pad, then one named convolution.
struct Conv2DLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> out = resultType.getShape();
    Value padded =
        padSpatialWithZeros(rewriter, loc, adaptor.getInput(), op.getPadding());
    Value conv =
        correlate(rewriter, loc, padded, adaptor.getFilter(), op.getGroups(),
                  {out[2], out[3]}, op.getStrides(), op.getDilations());
    rewriter.replaceOp(op,
                       castTensorFromCompute(rewriter, loc, conv, elemType));
    return success();
  }
};

/// conv2d_input_grad as a scatter of window products (the transpose of the
/// forward's gather): one linalg.generic over
/// (n, g, cg, kh, kw | og, oh, ow), the first three parallel, the others
/// reductions (several (kh, oh) pairs reach the same row),
///
///   dxpad[n, g, cg, oh*s + kh*d, ow*s + kw*d] +=
///       w[g*Og + og, cg, kh, kw] * dy[n, g*Og + og, oh, ow]
///
/// into a zero-filled input gradient of the padded input's size; the padding
/// is sliced off afterwards. Every window lies inside the padded input, so
/// no index leaves it; rows and columns that no window reached stay zero.
/// Unlike a transposed convolution this reads the filter as it is (no
/// flipped copy) and does no work for the zeros a stride would put between
/// dy's rows; remat-linalg-to-blas turns it into one GEMM and a col2im per
/// image (remat_cpu_sconv2d_input_grad).
struct Conv2DInputGradLowering : OpConversionPattern<Conv2DInputGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DInputGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> x = resultType.getShape();
    ArrayRef<int64_t> w = op.getFilter().getType().getShape();
    ArrayRef<int64_t> dy = op.getGrad().getType().getShape();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> padding = op.getPadding();
    ArrayRef<int64_t> dil = op.getDilations();
    int64_t g = op.getGroups(), og = w[0] / g, cg = w[1];
    int64_t hp = x[2] + 2 * padding[0], wp = x[3] + 2 * padding[1];

    Value wg = createExpandShape(rewriter, loc, adaptor.getFilter(),
                                 {g, og, cg, w[2], w[3]}, splitDim0());
    Value dyg = createExpandShape(rewriter, loc, adaptor.getGrad(),
                                  {dy[0], g, og, dy[2], dy[3]}, splitDim1());
    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 8; ++i)
      d.push_back(getAffineDimExpr(i, ctx));
    // Loops: d0 n, d1 g, d2 cg, d3 kh, d4 kw, d5 og, d6 oh, d7 ow.
    AffineMap wMap = getDimsMap(ctx, 8, {1, 5, 2, 3, 4});
    AffineMap dyMap = getDimsMap(ctx, 8, {0, 1, 5, 6, 7});
    AffineMap dxMap =
        AffineMap::get(8, 0,
                       {d[0], d[1], d[2], d[6] * strides[0] + d[3] * dil[0],
                        d[7] * strides[1] + d[4] * dil[1]},
                       ctx);
    Value init = createZeroAccumulator(rewriter, loc, {x[0], g, cg, hp, wp});
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{wg, dyg},
            ValueRange{init}, ArrayRef<AffineMap>{wMap, dyMap, dxMap},
            getIteratorTypes(3, 5),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value prod =
                  arith::MulFOp::create(b, l, extendToCompute(b, l, args[0]),
                                        extendToCompute(b, l, args[1]));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[2], prod).getResult());
            })
            .getResult(0);
    Value dx = createCollapseShape(rewriter, loc, acc, splitDim1());
    if (padding[0] != 0 || padding[1] != 0) {
      auto index = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
        return SmallVector<OpFoldResult>{
            rewriter.getIndexAttr(n), rewriter.getIndexAttr(c),
            rewriter.getIndexAttr(h), rewriter.getIndexAttr(w)};
      };
      dx = tensor::ExtractSliceOp::create(
          rewriter, loc, dx, index(0, 0, padding[0], padding[1]),
          index(x[0], x[1], x[2], x[3]), index(1, 1, 1, 1));
      // An f32 result is copied out of the slice: as a view it would keep
      // the whole padded accumulator alive as long as the input gradient,
      // beyond the op's step where the memory analysis counts it.
      if (elemType.isF32())
        dx = linalg::CopyOp::create(
                 rewriter, loc, dx,
                 createEmptyTensor(rewriter, loc, x, rewriter.getF32Type()))
                 .getResult(0);
    }
    rewriter.replaceOp(op, castTensorFromCompute(rewriter, loc, dx, elemType));
    return success();
  }
};

/// conv2d_filter_grad: one linalg.generic over
/// (g, og, cg, kh, kw | n, oh, ow) with the last three reduced:
///
///   dw[g*Og + og, cg, kh, kw] += xpad[n, g*Cg + cg, oh*s + kh*d, ow*s + kw*d]
///                                * dy[n, g*Og + og, oh, ow]
///
/// into a [G, Og, Cg, KH, KW] accumulator, or for one group straight into
/// [O, Cg, KH, KW].
struct Conv2DFilterGradLowering : OpConversionPattern<Conv2DFilterGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Conv2DFilterGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getType();
    Type elemType = resultType.getElementType();
    ArrayRef<int64_t> w = resultType.getShape();
    ArrayRef<int64_t> dy = op.getGrad().getType().getShape();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> dil = op.getDilations();
    int64_t g = op.getGroups(), og = w[0] / g, cg = w[1];

    Value padded =
        padSpatialWithZeros(rewriter, loc, adaptor.getInput(), op.getPadding());
    ArrayRef<int64_t> xp = cast<RankedTensorType>(padded.getType()).getShape();
    Value xg = createExpandShape(rewriter, loc, padded,
                                 {xp[0], g, cg, xp[2], xp[3]}, splitDim1());
    Value dyg = createExpandShape(rewriter, loc, adaptor.getGrad(),
                                  {dy[0], g, og, dy[2], dy[3]}, splitDim1());

    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 8; ++i)
      d.push_back(getAffineDimExpr(i, ctx));
    // Loops: d0 g, d1 og, d2 cg, d3 kh, d4 kw, d5 n, d6 oh, d7 ow.
    AffineMap xMap =
        AffineMap::get(8, 0,
                       {d[5], d[0], d[2], d[6] * strides[0] + d[3] * dil[0],
                        d[7] * strides[1] + d[4] * dil[1]},
                       ctx);
    AffineMap dyMap = getDimsMap(ctx, 8, {5, 0, 1, 6, 7});
    // One group: the gradient is written in its own [O, Cg, KH, KW] shape
    // (no collapse afterwards), so that bufferization can hand the result's
    // buffer to the caller instead of copying it out.
    bool grouped = g != 1;
    AffineMap outMap = grouped ? getDimsMap(ctx, 8, {0, 1, 2, 3, 4})
                               : getDimsMap(ctx, 8, {1, 2, 3, 4});
    SmallVector<int64_t> outShape = {g, og, cg, w[2], w[3]};
    if (!grouped)
      outShape.erase(outShape.begin());
    Value init = createZeroAccumulator(rewriter, loc, outShape);
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{xg, dyg},
            ValueRange{init}, ArrayRef<AffineMap>{xMap, dyMap, outMap},
            getIteratorTypes(5, 3),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value prod =
                  arith::MulFOp::create(b, l, extendToCompute(b, l, args[0]),
                                        extendToCompute(b, l, args[1]));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[2], prod).getResult());
            })
            .getResult(0);
    Value dw = grouped ? createCollapseShape(rewriter, loc, acc, splitDim0())
                       : acc;
    rewriter.replaceOp(op, castTensorFromCompute(rewriter, loc, dw, elemType));
    return success();
  }
};

} // namespace

void remat::populateRematConvToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<Conv2DLowering, Conv2DInputGradLowering, Conv2DFilterGradLowering>(
          patterns.getContext());
}
