//===- LoweringUtils.cpp - helpers of the remat to linalg lowering -------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/RematToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;

Type remat::getComputeType(Type elementType) {
  if (isa<FloatType>(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value remat::extendToCompute(OpBuilder &b, Location loc, Value scalar) {
  auto ft = dyn_cast<FloatType>(scalar.getType());
  if (!ft || ft.isF32())
    return scalar;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
}

Value remat::castFromCompute(OpBuilder &b, Location loc, Value scalar,
                             Type elementType) {
  if (scalar.getType() == elementType)
    return scalar;
  auto from = cast<FloatType>(scalar.getType());
  auto to = cast<FloatType>(elementType);
  if (to.getWidth() < from.getWidth())
    return arith::TruncFOp::create(b, loc, to, scalar);
  if (to.getWidth() > from.getWidth())
    return arith::ExtFOp::create(b, loc, to, scalar);
  // Same width, different format (f16 <-> bf16): through f32.
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
  return arith::TruncFOp::create(b, loc, to, wide);
}

Value remat::createF32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value remat::createFloatConstant(OpBuilder &b, Location loc, Type type,
                                 double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value remat::createNegInfConstant(OpBuilder &b, Location loc, Type type) {
  auto ft = cast<FloatType>(type);
  APFloat inf = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/true);
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, inf));
}

Value remat::createIndexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value remat::createEmptyTensor(OpBuilder &b, Location loc,
                               ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value remat::createFilledTensor(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> shape, Type elementType,
                                double value) {
  Value empty = createEmptyTensor(b, loc, shape, elementType);
  Value scalar =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

Value remat::createFilledTensor(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> shape, Type elementType,
                                Value fill) {
  Value empty = createEmptyTensor(b, loc, shape, elementType);
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{empty})
      .getResult(0);
}

Value remat::createZeroAccumulator(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape) {
  Type f32 = b.getF32Type();
  return createFilledTensor(b, loc, shape, f32,
                            createFloatConstant(b, loc, f32, 0.0));
}

AffineMap remat::getDimsMap(MLIRContext *ctx, unsigned numDims,
                            ArrayRef<unsigned> dims) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

SmallVector<utils::IteratorType>
remat::getIteratorTypes(unsigned numParallel, unsigned numReduction) {
  SmallVector<utils::IteratorType> types(numParallel,
                                         utils::IteratorType::parallel);
  types.append(numReduction, utils::IteratorType::reduction);
  return types;
}

AffineMap remat::getBroadcastMap(ArrayRef<int64_t> operandShape,
                                 ArrayRef<int64_t> loopShape,
                                 MLIRContext *ctx) {
  int64_t loopRank = loopShape.size();
  int64_t rank = operandShape.size();
  assert(rank <= loopRank && "operand has a higher rank than the loop nest");
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < rank; ++j) {
    int64_t i = loopRank - rank + j;
    if (operandShape[j] == 1 && loopShape[i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i, ctx));
  }
  return AffineMap::get(loopRank, 0, exprs, ctx);
}

AffineMap remat::getKeptDimsMap(ArrayRef<bool> reduced, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

SmallVector<int64_t> remat::getKeptShape(ArrayRef<int64_t> shape,
                                         ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [d, r] : llvm::zip(shape, reduced))
    if (!r)
      kept.push_back(d);
  return kept;
}

Value remat::buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                          ArrayRef<AffineMap> inputMaps, Value init,
                          AffineMap outputMap,
                          ArrayRef<utils::IteratorType> iterators,
                          ScalarBodyFn body, bool computeInF32,
                          bool readsOutput) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(outputMap);
  Type outElt = cast<RankedTensorType>(init.getType()).getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, /*doc=*/"", /*libraryCall=*/"",
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        // The output scalar is the last block argument.
        ValueRange used = readsOutput ? args : args.drop_back();
        SmallVector<Value> scalars;
        for (Value arg : used)
          scalars.push_back(computeInF32 ? extendToCompute(nb, nloc, arg)
                                         : arg);
        Value result = body(nb, nloc, scalars);
        if (computeInF32)
          result = castFromCompute(nb, nloc, result, outElt);
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value remat::buildElementwise(OpBuilder &b, Location loc,
                              RankedTensorType resultType, ValueRange inputs,
                              ScalarBodyFn body, bool computeInF32) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(getBroadcastMap(
        cast<RankedTensorType>(input.getType()).getShape(), shape, ctx));
  Value init = createEmptyTensor(b, loc, shape, resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, maps, init,
                      AffineMap::getMultiDimIdentityMap(shape.size(), ctx),
                      iterators, body, computeInF32, /*readsOutput=*/false);
}

Value remat::buildReduction(OpBuilder &b, Location loc,
                            ArrayRef<int64_t> loopShape, ArrayRef<bool> reduced,
                            ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                            double init, ScalarBodyFn combine) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> keptShape = getKeptShape(loopShape, reduced);
  Value acc = createFilledTensor(b, loc, keptShape, b.getF32Type(), init);
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  return buildGeneric(b, loc, inputs, inputMaps, acc,
                      getKeptDimsMap(reduced, ctx), iterators, combine);
}

Value remat::castTensorFromCompute(OpBuilder &b, Location loc, Value tensor,
                                   Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  return buildElementwise(
      b, loc, RankedTensorType::get(type.getShape(), elementType), {tensor},
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value remat::buildLinearIndex(OpBuilder &b, Location loc,
                              ArrayRef<int64_t> shape) {
  if (shape.empty())
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value linear;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value idx = linalg::IndexOp::create(b, loc, dim);
    Value idx64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
    if (dim == 0) {
      linear = idx64;
      continue;
    }
    Value sizeC = arith::ConstantIntOp::create(b, loc, b.getI64Type(), size);
    linear = arith::MulIOp::create(b, loc, linear, sizeC);
    linear = arith::AddIOp::create(b, loc, linear, idx64);
  }
  return linear;
}

Value remat::reshapeTensor(OpBuilder &b, Location loc, Value value,
                           RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from == type)
    return value;
  // To or from rank 0 (all dimensions 1): one op with no groups.
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value,
                                           ArrayRef<ReassociationIndices>{});
  if (from.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         ArrayRef<ReassociationIndices>{});
  // One collapse or expand when the dimensions group.
  if (from.getRank() > type.getRank()) {
    if (auto groups = getReassociationIndicesForCollapse(from.getShape(),
                                                         type.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, type, value, *groups);
  } else if (from.getRank() < type.getRank()) {
    if (auto groups = getReassociationIndicesForCollapse(type.getShape(),
                                                         from.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, type, value, *groups);
  }
  int64_t numel = from.getNumElements();
  auto flatType = RankedTensorType::get({numel}, from.getElementType());
  // Flatten into one group, then expand into the target shape.
  Value flat = value;
  if (from.getRank() > 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < from.getRank(); ++i)
      all.push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

Value remat::createExpandShape(OpBuilder &b, Location loc, Value t,
                               ArrayRef<int64_t> shape,
                               ArrayRef<ReassociationIndices> reassociation) {
  auto type = cast<RankedTensorType>(t.getType());
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, t, reassociation)
      .getResult();
}

Value remat::createCollapseShape(OpBuilder &b, Location loc, Value t,
                                 ArrayRef<ReassociationIndices> reassociation) {
  return tensor::CollapseShapeOp::create(b, loc, t, reassociation).getResult();
}

Value remat::padSpatial(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> pad, Value padValue) {
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

Value remat::padSpatialWithZeros(OpBuilder &b, Location loc, Value x,
                                 ArrayRef<int64_t> pad) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  Type elemType = cast<RankedTensorType>(x.getType()).getElementType();
  return padSpatial(b, loc, x, pad, createFloatConstant(b, loc, elemType, 0.0));
}

Value remat::dilateAndPad(OpBuilder &b, Location loc, Value t,
                          ArrayRef<int64_t> stride, ArrayRef<int64_t> low,
                          ArrayRef<int64_t> outSize, Value fill) {
  auto type = cast<RankedTensorType>(t.getType());
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> outShape = {shape[0], shape[1], outSize[0], outSize[1]};
  Value base =
      createFilledTensor(b, loc, outShape, type.getElementType(), fill);

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

  // (0, 0, h, w) as the index attributes of a slice.
  auto nchw = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return SmallVector<OpFoldResult>{b.getIndexAttr(n), b.getIndexAttr(c),
                                     b.getIndexAttr(h), b.getIndexAttr(w)};
  };
  Value src = t;
  if (first[0] != 0 || first[1] != 0 || count[0] != shape[2] ||
      count[1] != shape[3])
    src = tensor::ExtractSliceOp::create(
        b, loc, t, nchw(0, 0, first[0], first[1]),
        nchw(shape[0], shape[1], count[0], count[1]), nchw(1, 1, 1, 1));
  SmallVector<OpFoldResult> offs = nchw(0, 0, offset[0], offset[1]);
  SmallVector<OpFoldResult> sizes =
      nchw(shape[0], shape[1], count[0], count[1]);
  SmallVector<OpFoldResult> strides = nchw(1, 1, stride[0], stride[1]);
  return tensor::InsertSliceOp::create(b, loc, src, base, offs, sizes, strides)
      .getResult();
}
