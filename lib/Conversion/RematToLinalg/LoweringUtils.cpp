//===- LoweringUtils.cpp - helpers of the remat to linalg lowering -*- C++
//-*-===//
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
