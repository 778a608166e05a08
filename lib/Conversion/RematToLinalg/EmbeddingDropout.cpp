//===- EmbeddingDropout.cpp - embedding and dropout to linalg ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// embedding      -> linalg.generic over the result whose body reads the table
//                   with tensor.extract at (index_cast(indices[s]), d)
// embedding_grad -> scatter-add: an scf.for over the index positions that adds
//                   each gradient row into its table row (extract_slice, add,
//                   insert_slice on the loop-carried f32 table)
// dropout        -> linalg.generic hashing the seed and the row-major linear
//                   index (docs/Conventions.md); rate 0 is the identity
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"
#include "remat/Conversion/RematToLinalg/RematToLinalg.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace remat;

namespace {

struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    Value table = adaptor.getTable();
    // Loop nest (s..., d); the indices are read at (s...).
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < rank - 1; ++i)
      idxExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap idxMap = AffineMap::get(rank, 0, idxExprs, ctx);
    Value init = createEmptyTensor(rewriter, loc, type.getShape(),
                                   type.getElementType());
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value result = buildGeneric(
        rewriter, loc, {adaptor.getIndices()}, {idxMap}, init,
        AffineMap::getMultiDimIdentityMap(rank, ctx), parallel,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          return tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        },
        /*computeInF32=*/false, /*readsOutput=*/false);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EmbeddingGradLowering : OpConversionPattern<EmbeddingGradOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getResult().getType();
    RankedTensorType gradType = op.getGrad().getType();
    RankedTensorType idxType = op.getIndices().getType();
    int64_t vocab = type.getDimSize(0), dim = type.getDimSize(1);
    int64_t count = idxType.getNumElements();
    // Flatten the index positions: grad [count, D], indices [count].
    Value grad = reshapeTensor(
        rewriter, loc, adaptor.getGrad(),
        RankedTensorType::get({count, dim}, gradType.getElementType()));
    Value indices =
        reshapeTensor(rewriter, loc, adaptor.getIndices(),
                      RankedTensorType::get({count}, idxType.getElementType()));
    Value acc = createFilledTensor(rewriter, loc, {vocab, dim},
                                   rewriter.getF32Type(), 0.0);
    Value zero = createIndexConstant(rewriter, loc, 0);
    Value one = createIndexConstant(rewriter, loc, 1);
    Value upper = createIndexConstant(rewriter, loc, count);
    auto rowType = RankedTensorType::get({1, dim}, gradType.getElementType());
    auto accRowType = RankedTensorType::get({1, dim}, rewriter.getF32Type());
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(dim)};
    SmallVector<OpFoldResult> strides = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(1)};
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, upper, one, ValueRange{acc},
        [&](OpBuilder &b, Location l, Value pos, ValueRange iterArgs) {
          Value table = iterArgs[0];
          Value idx = tensor::ExtractOp::create(b, l, indices, ValueRange{pos});
          Value row = arith::IndexCastOp::create(b, l, b.getIndexType(), idx);
          Value gradRow = tensor::ExtractSliceOp::create(
              b, l, rowType, grad,
              SmallVector<OpFoldResult>{pos, b.getIndexAttr(0)}, sizes,
              strides);
          SmallVector<OpFoldResult> dst = {row, b.getIndexAttr(0)};
          Value cur = tensor::ExtractSliceOp::create(b, l, accRowType, table,
                                                     dst, sizes, strides);
          AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
          Value sum = buildGeneric(
              b, l, {gradRow}, {id}, cur, id,
              {utils::IteratorType::parallel, utils::IteratorType::parallel},
              [](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                return arith::AddFOp::create(nb, nl, a[1], a[0]);
              });
          Value updated = tensor::InsertSliceOp::create(b, l, sum, table, dst,
                                                        sizes, strides);
          scf::YieldOp::create(b, l, updated);
        });
    Value result = castTensorFromCompute(rewriter, loc, loop.getResult(0),
                                         type.getElementType());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Multiplier and mixing constants of the dropout hash.
constexpr uint64_t kSeedMul = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMix1 = 0xFF51AFD7ED558CCDULL;
constexpr uint64_t kMix2 = 0xC4CEB9FE1A85EC53ULL;

Value i64Const(OpBuilder &b, Location loc, uint64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                      static_cast<int64_t>(v));
}

/// h ^= h >> 33 (logical shift).
Value xorShift33(OpBuilder &b, Location loc, Value h) {
  Value s = arith::ShRUIOp::create(b, loc, h, i64Const(b, loc, 33));
  return arith::XOrIOp::create(b, loc, h, s);
}

struct DropoutLowering : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double rate = op.getRate().convertToDouble();
    if (rate == 0.0) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType type = op.getResult().getType();
    SmallVector<int64_t> shape(type.getShape());
    int64_t rank = type.getRank();
    // keep iff (h >> 40) >= floor(rate * 2^24); kept values scale by
    // 1 / (1 - rate).
    uint64_t threshold = static_cast<uint64_t>(std::floor(rate * 16777216.0));
    double scale = 1.0 / (1.0 - rate);
    Value init = createEmptyTensor(rewriter, loc, shape, type.getElementType());
    // The rank-0 seed is an input read at () by every iteration.
    AffineMap seedMap = AffineMap::get(rank, 0, {}, ctx);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value result = buildGeneric(
        rewriter, loc, {adaptor.getInput(), adaptor.getSeed()}, {id, seedMap},
        init, id, parallel,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x = a[0], seed = a[1];
          Value linear = buildLinearIndex(b, l, shape);
          Value h = arith::MulIOp::create(b, l, seed, i64Const(b, l, kSeedMul));
          h = arith::AddIOp::create(b, l, h, linear);
          h = xorShift33(b, l, h);
          h = arith::MulIOp::create(b, l, h, i64Const(b, l, kMix1));
          h = xorShift33(b, l, h);
          h = arith::MulIOp::create(b, l, h, i64Const(b, l, kMix2));
          h = xorShift33(b, l, h);
          Value top = arith::ShRUIOp::create(b, l, h, i64Const(b, l, 40));
          Value keep = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge,
                                             top, i64Const(b, l, threshold));
          Value scaled =
              arith::MulFOp::create(b, l, x, createF32Constant(b, l, scale));
          return arith::SelectOp::create(b, l, keep, scaled,
                                         createF32Constant(b, l, 0.0));
        },
        /*computeInF32=*/true, /*readsOutput=*/false);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void remat::populateRematEmbeddingDropoutToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, EmbeddingGradLowering, DropoutLowering>(
      patterns.getContext());
}
