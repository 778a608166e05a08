//===- ConvPoolNorm.cpp - conv/pool/norm lowering entry, helpers ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Entry point of the convolution, pooling and normalization lowering
// (populateRematConvPoolNormToLinalgPatterns) and the helpers declared in
// ConvPoolNormCommon.h. The patterns themselves are in ConvToLinalg.cpp,
// PoolToLinalg.cpp and NormToLinalg.cpp.
//
//===----------------------------------------------------------------------===//

#include "ConvPoolNormCommon.h"

#include "remat/Conversion/RematToLinalg/RematToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace remat::cpn {

FloatType computeType(MLIRContext *ctx) { return Float32Type::get(ctx); }

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value negInfConst(OpBuilder &b, Location loc, Type type) {
  auto ft = cast<FloatType>(type);
  APFloat inf = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true);
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, inf));
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elemType, Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elemType);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value zeroAccumulator(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Type f32 = computeType(b.getContext());
  return filledTensor(b, loc, shape, f32, floatConst(b, loc, f32, 0.0));
}

Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pad,
                 Value padValue) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += 2 * pad[0];
  shape[3] += 2 * pad[1];
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0),
                                   b.getIndexAttr(pad[0]),
                                   b.getIndexAttr(pad[1])};
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, resultType, x, low, low, padValue)
      .getResult();
}

Value padSpatialWithZeros(OpBuilder &b, Location loc, Value x,
                          ArrayRef<int64_t> pad) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  Type elemType = cast<RankedTensorType>(x.getType()).getElementType();
  return padSpatial(b, loc, x, pad, floatConst(b, loc, elemType, 0.0));
}

Value dilateAndPad(OpBuilder &b, Location loc, Value t,
                   ArrayRef<int64_t> stride, ArrayRef<int64_t> low,
                   ArrayRef<int64_t> outSize, Value fill) {
  auto type = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> outShape = {shape[0], shape[1], outSize[0], outSize[1]};
  Value base = filledTensor(b, loc, outShape, type.getElementType(), fill);

  // Per spatial dim: the first and the number of source elements whose
  // target position low + i * stride lies in [0, outSize).
  int64_t first[2], count[2], offset[2];
  for (int d = 0; d < 2; ++d) {
    int64_t s = stride[d], lo = low[d], in = shape[2 + d];
    int64_t i0 = lo >= 0 ? 0 : (-lo + s - 1) / s;
    int64_t lastTarget = outSize[d] - 1 - lo;
    int64_t i1 = lastTarget < 0 ? -1 : std::min(in - 1, lastTarget / s);
    first[d] = i0;
    count[d] = i1 - i0 + 1;
    offset[d] = lo + i0 * s;
    if (count[d] <= 0)
      return base;
  }

  Value src = t;
  if (first[0] != 0 || first[1] != 0 || count[0] != shape[2] ||
      count[1] != shape[3]) {
    SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(0),
                                      b.getIndexAttr(first[0]),
                                      b.getIndexAttr(first[1])};
    SmallVector<OpFoldResult> sizes = {
        b.getIndexAttr(shape[0]), b.getIndexAttr(shape[1]),
        b.getIndexAttr(count[0]), b.getIndexAttr(count[1])};
    SmallVector<OpFoldResult> ones(4, b.getIndexAttr(1));
    src = tensor::ExtractSliceOp::create(b, loc, t, offs, sizes, ones);
  }
  SmallVector<OpFoldResult> offs = {b.getIndexAttr(0), b.getIndexAttr(0),
                                    b.getIndexAttr(offset[0]),
                                    b.getIndexAttr(offset[1])};
  SmallVector<OpFoldResult> sizes = {
      b.getIndexAttr(shape[0]), b.getIndexAttr(shape[1]),
      b.getIndexAttr(count[0]), b.getIndexAttr(count[1])};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1),
                                       b.getIndexAttr(stride[0]),
                                       b.getIndexAttr(stride[1])};
  return tensor::InsertSliceOp::create(b, loc, src, base, offs, sizes, strides)
      .getResult();
}

Value expand(OpBuilder &b, Location loc, Value t, ArrayRef<int64_t> shape,
             ArrayRef<ReassociationIndices> reassociation) {
  auto type = cast<RankedTensorType>(t.getType());
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, t, reassociation)
      .getResult();
}

Value collapse(OpBuilder &b, Location loc, Value t,
               ArrayRef<ReassociationIndices> reassociation) {
  return tensor::CollapseShapeOp::create(b, loc, t, reassociation).getResult();
}

SmallVector<utils::IteratorType> iterators(unsigned numParallel,
                                           unsigned numReduction) {
  SmallVector<utils::IteratorType> its(numParallel,
                                       utils::IteratorType::parallel);
  its.append(numReduction, utils::IteratorType::reduction);
  return its;
}

AffineMap dimsMap(MLIRContext *ctx, unsigned numDims, ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

Attribute pairAttr(OpBuilder &b, ArrayRef<int64_t> values) {
  return b.getI64TensorAttr(values);
}

} // namespace remat::cpn

void remat::populateRematConvPoolNormToLinalgPatterns(
    RewritePatternSet &patterns) {
  cpn::populateConvPatterns(patterns);
  cpn::populatePoolPatterns(patterns);
  cpn::populateNormPatterns(patterns);
}
