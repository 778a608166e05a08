//===- Matmul.cpp - remat.matmul to linalg ----------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat.matmul becomes
//  - linalg.matmul for 2-D operands, and for a batched lhs times a shared 2-D
//    rhs (the batch folded into the rows of lhs by tensor.collapse_shape);
//  - linalg.batch_matmul for batched operands (leading batch dimensions
//    collapsed into one);
//  - a linalg.generic for a transposed batched lhs times a shared rhs (which
//    linalg.batch_matmul cannot broadcast).
// Transposes are indexing maps, so no transposed copy is materialized. The
// product accumulates in an f32 tensor (f16/bf16 operands are extended by the
// op) and is truncated afterwards for 16-bit results.
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

/// Collapses the leading `rank - 2` dimensions of `value` into one.
Value collapseBatch(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  if (rank <= 3)
    return value;
  ReassociationIndices batch;
  int64_t batchSize = 1;
  for (int64_t i = 0; i < rank - 2; ++i) {
    batch.push_back(i);
    batchSize *= type.getDimSize(i);
  }
  SmallVector<ReassociationIndices> groups = {batch, {rank - 2}, {rank - 1}};
  auto collapsed = RankedTensorType::get(
      {batchSize, type.getDimSize(rank - 2), type.getDimSize(rank - 1)},
      type.getElementType());
  return tensor::CollapseShapeOp::create(b, loc, collapsed, value, groups);
}

/// Loop dimensions (b, m, n, k) or (m, n, k) and the operand maps of a
/// product with optional transposes; `lhsBatch` / `rhsBatch` say whether an
/// operand carries the batch dimension.
struct MatmulMaps {
  AffineMap lhs, rhs, out;

  MatmulMaps(MLIRContext *ctx, bool batched, bool lhsBatch, bool rhsBatch,
             bool ta, bool tb) {
    unsigned numLoops = batched ? 4 : 3;
    unsigned first = batched ? 1 : 0;
    AffineExpr bd = getAffineDimExpr(0, ctx);
    AffineExpr m = getAffineDimExpr(first, ctx);
    AffineExpr n = getAffineDimExpr(first + 1, ctx);
    AffineExpr k = getAffineDimExpr(first + 2, ctx);
    auto get = [&](bool hasBatch, AffineExpr e0, AffineExpr e1) {
      SmallVector<AffineExpr> exprs;
      if (hasBatch)
        exprs.push_back(bd);
      exprs.push_back(e0);
      exprs.push_back(e1);
      return AffineMap::get(numLoops, 0, exprs, ctx);
    };
    lhs = ta ? get(lhsBatch, k, m) : get(lhsBatch, m, k);
    rhs = tb ? get(rhsBatch, n, k) : get(rhsBatch, k, n);
    out = get(batched, m, n);
  }

  ArrayAttr attr(Builder &b) const {
    return b.getAffineMapArrayAttr({lhs, rhs, out});
  }
};

/// Reshapes `value` (same element count) to `shape` with the element type
/// kept.
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  return reshapeTensor(b, loc, value,
                       RankedTensorType::get(shape, type.getElementType()));
}

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getResult().getType();
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = resultType.getRank();
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    bool sharedRhs = op.getRhs().getType().getRank() == 2 && rank > 2;
    int64_t m = shape[rank - 2], n = shape[rank - 1];
    // The product of the leading dimensions (no division: m or n may be 0).
    // The op verifier bounds every product of dimensions (SizedTensors).
    int64_t batch = 1;
    for (int64_t d : shape.drop_back(2))
      batch *= d;
    Type f32 = rewriter.getF32Type();
    Value product;

    if (rank == 2 || (sharedRhs && !ta)) {
      // One 2-D product; a shared rhs folds the batch into the rows of lhs
      // (a view: the rows of a row-major [B..., M, K] tensor are contiguous).
      if (rank > 2)
        lhs = reshapeTo(rewriter, loc, lhs,
                        {batch * m, op.getLhs().getType().getShape().back()});
      Value acc = createFilledTensor(rewriter, loc, {batch * m, n}, f32, 0.0);
      auto mm =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{acc.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{acc});
      mm.setIndexingMapsAttr(
          MatmulMaps(ctx, false, false, false, ta, tb).attr(rewriter));
      product = mm.getResult(0);
    } else if (!sharedRhs) {
      // linalg.batch_matmul over the collapsed batch dimensions.
      lhs = collapseBatch(rewriter, loc, lhs);
      rhs = collapseBatch(rewriter, loc, rhs);
      Value acc = createFilledTensor(rewriter, loc, {batch, m, n}, f32, 0.0);
      auto mm =
          linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{acc.getType()},
                                        ValueRange{lhs, rhs}, ValueRange{acc});
      mm.setIndexingMapsAttr(
          MatmulMaps(ctx, true, true, true, ta, tb).attr(rewriter));
      product = mm.getResult(0);
    } else {
      // Transposed batched lhs with a shared rhs: linalg.batch_matmul only
      // broadcasts untransposed operands, so this is a linalg.generic.
      lhs = collapseBatch(rewriter, loc, lhs);
      Value acc = createFilledTensor(rewriter, loc, {batch, m, n}, f32, 0.0);
      MatmulMaps maps(ctx, true, true, false, ta, tb);
      using utils::IteratorType;
      product = buildGeneric(
          rewriter, loc, {lhs, rhs}, {maps.lhs, maps.rhs}, acc, maps.out,
          {IteratorType::parallel, IteratorType::parallel,
           IteratorType::parallel, IteratorType::reduction},
          [](OpBuilder &b, Location l, ValueRange a) -> Value {
            Value p = arith::MulFOp::create(b, l, a[0], a[1]);
            return arith::AddFOp::create(b, l, a[2], p);
          });
    }
    product = reshapeTo(rewriter, loc, product, shape);
    product = castTensorFromCompute(rewriter, loc, product,
                                    resultType.getElementType());
    rewriter.replaceOp(op, product);
    return success();
  }
};

} // namespace

void remat::populateRematMatmulToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering>(patterns.getContext());
}
