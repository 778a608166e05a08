//===- Shape.cpp - shape manipulation ops to tensor/linalg ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// reshape      -> tensor.collapse_shape + tensor.expand_shape (views)
// transpose    -> linalg.transpose
// concat       -> tensor.empty + one tensor.insert_slice per input
// slice        -> tensor.extract_slice with strides
// slice_grad   -> zeros + strided tensor.insert_slice
// broadcast_to -> linalg.generic with constant-0 indexing for broadcast dims
// sum_to       -> linalg.generic reduction into the kept dimensions, then
//                 tensor.expand_shape to reinsert the summed size-1 dimensions
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace remat;

namespace {

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> result;
  for (int64_t v : values)
    result.push_back(b.getIndexAttr(v));
  return result;
}

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(),
                                     op.getResult().getType()));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    Value init = createEmptyTensor(rewriter, op.getLoc(), type.getShape(),
                                   type.getElementType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getInput(), init, op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    // I64Attr accessors return uint64_t: convert before the sign test.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    Value result = createEmptyTensor(rewriter, loc, type.getShape(),
                                     type.getElementType());
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    for (Value input : adaptor.getInputs()) {
      auto inType = cast<RankedTensorType>(input.getType());
      result = tensor::InsertSliceOp::create(
          rewriter, loc, input, result, indexAttrs(rewriter, offsets),
          indexAttrs(rewriter, inType.getShape()),
          indexAttrs(rewriter, strides));
      offsets[axis] += inType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        indexAttrs(rewriter, op.getOffsets()),
        indexAttrs(rewriter, type.getShape()),
        indexAttrs(rewriter, op.getStrides()));
    rewriter.replaceOp(op, slice);
    return success();
  }
};

struct SliceGradLowering : OpConversionPattern<SliceGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Value zeros = createFilledTensor(rewriter, loc, type.getShape(),
                                     type.getElementType(), 0.0);
    Value result = tensor::InsertSliceOp::create(
        rewriter, loc, adaptor.getGrad(), zeros,
        indexAttrs(rewriter, op.getOffsets()),
        indexAttrs(rewriter, op.getGrad().getType().getShape()),
        indexAttrs(rewriter, op.getStrides()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToLowering : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getInput().getType() == op.getResult().getType()) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value result = buildElementwise(
        rewriter, op.getLoc(), op.getResult().getType(), {adaptor.getInput()},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; },
        /*computeInF32=*/false);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SumToLowering : OpConversionPattern<SumToOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SumToOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType outType = op.getResult().getType();
    if (inType == outType) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
    int64_t lead = in.size() - out.size();
    // Summed: the leading dimensions the result lacks, and the result's
    // size-1 dimensions that broadcasting expands.
    SmallVector<bool> reduced(in.size(), false);
    for (int64_t i = 0; i < (int64_t)in.size(); ++i)
      reduced[i] = i < lead || (out[i - lead] == 1 && in[i] != 1);
    Value sum = buildReduction(
        rewriter, loc, in, reduced, {adaptor.getInput()},
        {AffineMap::getMultiDimIdentityMap(in.size(), rewriter.getContext())},
        0.0, [](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          return arith::AddFOp::create(nb, nloc, a[1], a[0]);
        });
    sum = castTensorFromCompute(rewriter, loc, sum, outType.getElementType());
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, sum, outType));
    return success();
  }
};

} // namespace

void remat::populateRematShapeToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ReshapeLowering, TransposeLowering, ConcatLowering, SliceLowering,
           SliceGradLowering, BroadcastToLowering, SumToLowering>(
          patterns.getContext());
}
