//===- RematGradients.cpp - reverse-mode rules ------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// RematGradientOpInterface for every differentiable remat op. Each rule builds
// the backward of one forward op from the gradients of its results. The
// gradient of an operand always has the operand's type; broadcasting is undone
// with remat.sum_to.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

using namespace mlir;
using namespace remat;

/// Returns `grad` summed down to `type` (a no-op when the types agree).
static Value sumTo(OpBuilder &b, Location loc, Value grad, Type type) {
  if (grad.getType() == type)
    return grad;
  return SumToOp::create(b, loc, type, grad);
}

/// Fails with a diagnostic if the single result of `op` has no gradient; a
/// null gradient means the result does not influence the loss.
static Value singleGrad(ValueRange resultGrads) { return resultGrads[0]; }

static UnitAttr unit(OpBuilder &b, bool set) {
  return set ? b.getUnitAttr() : UnitAttr();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// Gradients of C = op(A) op(B) for operands of equal rank.
static void matmulGrads(OpBuilder &b, Location loc, Value a, Value bm, Value dc,
                        bool ta, bool tb, Type aType, Type bType, Value *da,
                        Value *db) {
  if (da) {
    if (!ta)
      *da = MatmulOp::create(b, loc, aType, dc, bm, UnitAttr(), unit(b, !tb));
    else
      *da =
          MatmulOp::create(b, loc, aType, bm, dc, unit(b, tb), b.getUnitAttr());
  }
  if (db) {
    if (!tb)
      *db = MatmulOp::create(b, loc, bType, a, dc, unit(b, !ta), UnitAttr());
    else
      *db =
          MatmulOp::create(b, loc, bType, dc, a, b.getUnitAttr(), unit(b, ta));
  }
}

LogicalResult MatmulOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                      SmallVectorImpl<Value> &operandGrads) {
  Value dc = singleGrad(resultGrads);
  Location loc = getLoc();
  bool ta = getTransposeA(), tb = getTransposeB();
  RankedTensorType aType = getLhs().getType(), bType = getRhs().getType();
  Value da, db;
  if (aType.getRank() == bType.getRank()) {
    matmulGrads(b, loc, getLhs(), getRhs(), dc, ta, tb, aType, bType, &da, &db);
  } else {
    // rhs is 2-D and shared by every batch of lhs: dA is a batched product,
    // dB sums over the batch, computed by folding the batch into rows.
    int64_t rank = aType.getRank();
    // Swaps the last two dimensions (its own inverse).
    SmallVector<int64_t> perm, shape;
    for (int64_t i = 0; i < rank; ++i)
      perm.push_back(i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2));
    for (int64_t p : perm)
      shape.push_back(aType.getDimSize(p));
    auto swappedType = RankedTensorType::get(shape, aType.getElementType());
    if (!ta) {
      matmulGrads(b, loc, getLhs(), getRhs(), dc, ta, tb, aType, bType, &da,
                  nullptr);
    } else {
      // dA = (dC op(B)^T)^T. The 2-D rhs must stay on the right of a batched
      // product, so the product is formed untransposed and then transposed.
      Value daT = MatmulOp::create(b, loc, swappedType, dc, getRhs(),
                                   UnitAttr(), unit(b, !tb));
      da =
          TransposeOp::create(b, loc, aType, daT, b.getDenseI64ArrayAttr(perm));
    }
    Value a = getLhs();
    if (ta)
      a = TransposeOp::create(b, loc, swappedType, a,
                              b.getDenseI64ArrayAttr(perm));
    auto aT = cast<RankedTensorType>(a.getType());
    auto dcT = cast<RankedTensorType>(dc.getType());
    int64_t rows = aT.getNumElements() / aT.getShape().back();
    Value a2 =
        ReshapeOp::create(b, loc,
                          RankedTensorType::get({rows, aT.getShape().back()},
                                                aT.getElementType()),
                          a);
    Value dc2 =
        ReshapeOp::create(b, loc,
                          RankedTensorType::get({rows, dcT.getShape().back()},
                                                dcT.getElementType()),
                          dc);
    matmulGrads(b, loc, a2, getRhs(), dc2, /*ta=*/false, tb, a2.getType(),
                bType, nullptr, &db);
  }
  operandGrads.assign({da, db});
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult AddOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Value dc = singleGrad(resultGrads);
  operandGrads.assign({sumTo(b, getLoc(), dc, getLhs().getType()),
                       sumTo(b, getLoc(), dc, getRhs().getType())});
  return success();
}

LogicalResult SubOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Value dc = singleGrad(resultGrads);
  Value neg = NegOp::create(b, getLoc(), dc.getType(), dc);
  operandGrads.assign({sumTo(b, getLoc(), dc, getLhs().getType()),
                       sumTo(b, getLoc(), neg, getRhs().getType())});
  return success();
}

LogicalResult MulOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  Value dc = singleGrad(resultGrads);
  Location loc = getLoc();
  Value da = MulOp::create(b, loc, dc.getType(), dc, getRhs());
  Value db = MulOp::create(b, loc, dc.getType(), dc, getLhs());
  operandGrads.assign({sumTo(b, loc, da, getLhs().getType()),
                       sumTo(b, loc, db, getRhs().getType())});
  return success();
}

LogicalResult DivOp::buildGradient(OpBuilder &b, ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  // c = a / b: da = dc / b, db = -dc * c / b.
  Value dc = singleGrad(resultGrads);
  Location loc = getLoc();
  Type t = dc.getType();
  Value da = DivOp::create(b, loc, t, dc, getRhs());
  Value q = DivOp::create(b, loc, t, getResult(), getRhs());
  Value p = MulOp::create(b, loc, t, dc, q);
  Value db = NegOp::create(b, loc, t, p);
  operandGrads.assign({sumTo(b, loc, da, getLhs().getType()),
                       sumTo(b, loc, db, getRhs().getType())});
  return success();
}

template <typename GradOp, typename OpTy>
static LogicalResult activationGrad(OpTy op, OpBuilder &b, Value saved,
                                    ValueRange resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  Value dy = singleGrad(resultGrads);
  operandGrads.assign(
      {GradOp::create(b, op.getLoc(), dy.getType(), dy, saved)});
  return success();
}

LogicalResult ReluOp::buildGradient(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return activationGrad<ReluGradOp>(*this, b, getInput(), g, out);
}
LogicalResult Relu6Op::buildGradient(OpBuilder &b, ValueRange g,
                                     SmallVectorImpl<Value> &out) {
  return activationGrad<Relu6GradOp>(*this, b, getInput(), g, out);
}
LogicalResult GeluOp::buildGradient(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return activationGrad<GeluGradOp>(*this, b, getInput(), g, out);
}
LogicalResult GeluErfOp::buildGradient(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  return activationGrad<GeluErfGradOp>(*this, b, getInput(), g, out);
}
LogicalResult TanhOp::buildGradient(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return activationGrad<TanhGradOp>(*this, b, getResult(), g, out);
}
LogicalResult SigmoidOp::buildGradient(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  return activationGrad<SigmoidGradOp>(*this, b, getResult(), g, out);
}
LogicalResult ExpOp::buildGradient(OpBuilder &b, ValueRange g,
                                   SmallVectorImpl<Value> &out) {
  return activationGrad<MulOp>(*this, b, getResult(), g, out);
}
LogicalResult LogOp::buildGradient(OpBuilder &b, ValueRange g,
                                   SmallVectorImpl<Value> &out) {
  return activationGrad<DivOp>(*this, b, getInput(), g, out);
}
LogicalResult NegOp::buildGradient(OpBuilder &b, ValueRange g,
                                   SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({NegOp::create(b, getLoc(), dy.getType(), dy)});
  return success();
}

LogicalResult SoftmaxOp::buildGradient(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({SoftmaxGradOp::create(b, getLoc(), dy.getType(), dy, getResult(),
                                    getAxisAttr())});
  return success();
}

LogicalResult LogSoftmaxOp::buildGradient(OpBuilder &b, ValueRange g,
                                          SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({LogSoftmaxGradOp::create(b, getLoc(), dy.getType(), dy,
                                       getResult(), getAxisAttr())});
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization, convolution, pooling
//===----------------------------------------------------------------------===//

template <typename GradOp, typename OpTy>
static LogicalResult normGrad(OpTy op, OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  Type s = op.getScale().getType();
  auto grad = GradOp::create(b, op.getLoc(), TypeRange{dy.getType(), s, s}, dy,
                             op.getInput(), op.getScale(), op.getEpsilonAttr());
  out.assign({grad.getInputGrad(), grad.getScaleGrad(), grad.getBiasGrad()});
  return success();
}

LogicalResult LayerNormOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  return normGrad<LayerNormGradOp>(*this, b, g, out);
}
LogicalResult BatchNormOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  return normGrad<BatchNormGradOp>(*this, b, g, out);
}

LogicalResult Conv2DOp::buildGradient(OpBuilder &b, ValueRange g,
                                      SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  Value dx = Conv2DInputGradOp::create(
      b, getLoc(), getInput().getType(), dy, getFilter(), getStridesAttr(),
      getPaddingAttr(), getDilationsAttr(), getGroupsAttr());
  Value dw = Conv2DFilterGradOp::create(
      b, getLoc(), getFilter().getType(), dy, getInput(), getStridesAttr(),
      getPaddingAttr(), getDilationsAttr(), getGroupsAttr());
  out.assign({dx, dw});
  return success();
}

LogicalResult MaxPool2DOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({MaxPool2DGradOp::create(b, getLoc(), getInput().getType(), dy,
                                      getInput(), getKernelAttr(),
                                      getStridesAttr(), getPaddingAttr())});
  return success();
}

LogicalResult AvgPool2DOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({AvgPool2DGradOp::create(b, getLoc(), getInput().getType(), dy,
                                      getKernelAttr(), getStridesAttr(),
                                      getPaddingAttr())});
  return success();
}

LogicalResult GlobalAvgPoolOp::buildGradient(OpBuilder &b, ValueRange g,
                                             SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign(
      {GlobalAvgPoolGradOp::create(b, getLoc(), getInput().getType(), dy)});
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// Only float tensors carry gradients.
static bool isDifferentiable(Value v) {
  return isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
}

LogicalResult ReshapeOp::buildGradient(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({isDifferentiable(getInput())
                  ? ReshapeOp::create(b, getLoc(), getInput().getType(), dy)
                  : Value()});
  return success();
}

LogicalResult TransposeOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  if (!isDifferentiable(getInput())) {
    out.assign({Value()});
    return success();
  }
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[perm[i]] = i;
  out.assign({TransposeOp::create(b, getLoc(), getInput().getType(), dy,
                                  b.getDenseI64ArrayAttr(inverse))});
  return success();
}

LogicalResult ConcatOp::buildGradient(OpBuilder &b, ValueRange g,
                                      SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  int64_t rank = getResult().getType().getRank();
  // The accessor of an I64Attr returns uint64_t: convert before the sign test
  // so that a negative axis counts from the last dimension.
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  out.clear();
  for (Value input : getInputs()) {
    auto t = cast<RankedTensorType>(input.getType());
    if (!isDifferentiable(input)) {
      out.push_back(Value());
    } else {
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[axis] = offset;
      out.push_back(SliceOp::create(b, getLoc(), t, dy,
                                    b.getDenseI64ArrayAttr(offsets),
                                    b.getDenseI64ArrayAttr(strides)));
    }
    offset += t.getDimSize(axis);
  }
  return success();
}

LogicalResult SliceOp::buildGradient(OpBuilder &b, ValueRange g,
                                     SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({isDifferentiable(getInput())
                  ? SliceGradOp::create(b, getLoc(), getInput().getType(), dy,
                                        getOffsetsAttr(), getStridesAttr())
                  : Value()});
  return success();
}

LogicalResult BroadcastToOp::buildGradient(OpBuilder &b, ValueRange g,
                                           SmallVectorImpl<Value> &out) {
  out.assign({sumTo(b, getLoc(), singleGrad(g), getInput().getType())});
  return success();
}

LogicalResult SumToOp::buildGradient(OpBuilder &b, ValueRange g,
                                     SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({BroadcastToOp::create(b, getLoc(), getInput().getType(), dy)});
  return success();
}

//===----------------------------------------------------------------------===//
// Embedding, dropout, losses
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::buildGradient(OpBuilder &b, ValueRange g,
                                         SmallVectorImpl<Value> &out) {
  Value dy = singleGrad(g);
  out.assign({EmbeddingGradOp::create(b, getLoc(), getTable().getType(), dy,
                                      getIndices()),
              Value()});
  return success();
}

LogicalResult DropoutOp::buildGradient(OpBuilder &b, ValueRange g,
                                       SmallVectorImpl<Value> &out) {
  // The mask is a function of the seed, so the gradient is the same dropout.
  Value dy = singleGrad(g);
  out.assign({DropoutOp::create(b, getLoc(), dy.getType(), dy, getSeed(),
                                getRateAttr()),
              Value()});
  return success();
}

LogicalResult
SoftmaxCrossEntropyOp::buildGradient(OpBuilder &b, ValueRange g,
                                     SmallVectorImpl<Value> &out) {
  Value dl = singleGrad(g);
  out.assign(
      {SoftmaxCrossEntropyGradOp::create(b, getLoc(), getLogits().getType(),
                                         getLogits(), getLabels(), dl),
       Value()});
  return success();
}

LogicalResult MseOp::buildGradient(OpBuilder &b, ValueRange g,
                                   SmallVectorImpl<Value> &out) {
  Value dl = singleGrad(g);
  Type t = getPrediction().getType();
  Value dp =
      MseGradOp::create(b, getLoc(), t, getPrediction(), getTarget(), dl);
  Value dt = NegOp::create(b, getLoc(), t, dp);
  out.assign({dp, dt});
  return success();
}
