//===- GradientExternalModels.cpp - gradients of upstream ops ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Attaches RematGradientOpInterface to upstream ops with well-known
// derivatives, so that --remat-autodiff differentiates forward models written
// in arith, math and linalg on tensors: elementwise arith and math ops on
// ranked tensors, linalg.matmul (default indexing maps), linalg.fill of a
// constant, and the linalg.generic forms below. The backward is built from
// remat ops (remat.mul, remat.matmul, remat.tanh_grad, ...), like the rules
// of the remat ops themselves (RematGradients.cpp).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace remat;

namespace {

/// The elementwise functions with a rule.
enum class Fn { Add, Sub, Mul, Div, Neg, Max, Min, Exp, Log, Tanh, Sqrt };

/// The function `op` computes, if it is one with a rule.
std::optional<Fn> classify(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Fn>>(op)
      .Case([](arith::AddFOp) { return Fn::Add; })
      .Case([](arith::SubFOp) { return Fn::Sub; })
      .Case([](arith::MulFOp) { return Fn::Mul; })
      .Case([](arith::DivFOp) { return Fn::Div; })
      .Case([](arith::NegFOp) { return Fn::Neg; })
      .Case([](arith::MaximumFOp) { return Fn::Max; })
      .Case([](arith::MinimumFOp) { return Fn::Min; })
      .Case([](math::ExpOp) { return Fn::Exp; })
      .Case([](math::LogOp) { return Fn::Log; })
      .Case([](math::TanhOp) { return Fn::Tanh; })
      .Case([](math::SqrtOp) { return Fn::Sqrt; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Returns `grad` summed down to `type` (numpy broadcasting undone).
Value sumTo(OpBuilder &b, Location loc, Value grad, Type type) {
  if (grad.getType() == type)
    return grad;
  return SumToOp::create(b, loc, type, grad);
}

/// The gradients of `y = fn(xs)` for the result gradient `g` (of `y`'s type);
/// binary operands may broadcast numpy-style to `y`'s shape, and each
/// gradient is summed down to its operand's type.
SmallVector<Value, 2> elementwiseGrads(OpBuilder &b, Location loc, Fn fn,
                                       ArrayRef<Value> xs, Value y, Value g) {
  Type t = g.getType();
  SmallVector<Value, 2> full;
  switch (fn) {
  case Fn::Add:
    full = {g, g};
    break;
  case Fn::Sub:
    full = {g, NegOp::create(b, loc, t, g)};
    break;
  case Fn::Mul:
    full = {MulOp::create(b, loc, t, g, xs[1]),
            MulOp::create(b, loc, t, g, xs[0])};
    break;
  case Fn::Div: {
    // d(a/b)/db = -(a/b)/b = -y/b.
    Value q = DivOp::create(b, loc, t, y, xs[1]);
    full = {DivOp::create(b, loc, t, g, xs[1]),
            NegOp::create(b, loc, t, MulOp::create(b, loc, t, g, q))};
    break;
  }
  case Fn::Neg:
    full = {NegOp::create(b, loc, t, g)};
    break;
  case Fn::Max:
  case Fn::Min: {
    // The gradient goes to the operand that is selected: a for max when
    // a > b (relu_grad passes g where its input is positive), b otherwise.
    Value diff = Fn::Max == fn ? SubOp::create(b, loc, t, xs[0], xs[1])
                               : SubOp::create(b, loc, t, xs[1], xs[0]);
    Value da = ReluGradOp::create(b, loc, t, g, diff);
    full = {da, SubOp::create(b, loc, t, g, da)};
    break;
  }
  case Fn::Exp:
    full = {MulOp::create(b, loc, t, g, y)};
    break;
  case Fn::Log:
    full = {DivOp::create(b, loc, t, g, xs[0])};
    break;
  case Fn::Tanh:
    full = {TanhGradOp::create(b, loc, t, g, y)};
    break;
  case Fn::Sqrt:
    full = {DivOp::create(b, loc, t, g, AddOp::create(b, loc, t, y, y))};
    break;
  }
  SmallVector<Value, 2> grads;
  for (auto [grad, x] : llvm::zip(full, xs))
    grads.push_back(sumTo(b, loc, grad, x.getType()));
  return grads;
}

/// Fails with an error at `op` unless `type` is a ranked tensor of an element
/// type the remat ops of the backward take.
LogicalResult checkGradType(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitError("autodiff differentiates '")
           << op->getName()
           << "' on ranked tensors only; on scalars it is differentiated as "
              "part of the linalg.generic body that holds it";
  if (!tensor.getElementType().isF32() && !tensor.getElementType().isF16() &&
      !tensor.getElementType().isBF16())
    return op->emitError("autodiff builds the gradient of '")
           << op->getName() << "' from remat ops, which take f16, bf16 or f32 "
           << "tensors, not " << type;
  return success();
}

/// A gradient rule: RematGradientOpInterface::buildGradient for one kind of
/// op.
using GradientRule = LogicalResult (*)(Operation *op, OpBuilder &b,
                                       ValueRange resultGrads,
                                       SmallVectorImpl<Value> &operandGrads);

/// The external model of `OpTy` whose gradient is built by `Rule`.
template <typename OpTy, GradientRule Rule>
struct GradientModel
    : public RematGradientOpInterface::ExternalModel<GradientModel<OpTy, Rule>,
                                                     OpTy> {
  LogicalResult buildGradient(Operation *op, OpBuilder &b,
                              ValueRange resultGrads,
                              SmallVectorImpl<Value> &operandGrads) const {
    return Rule(op, b, resultGrads, operandGrads);
  }
};

/// Attaches the model with `Rule` to each of `Ops`.
template <GradientRule Rule, typename... Ops> void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<GradientModel<Ops, Rule>>(*ctx), ...);
}

/// Elementwise arith and math ops on tensors.
LogicalResult buildElementwiseGradient(Operation *op, OpBuilder &b,
                                       ValueRange resultGrads,
                                       SmallVectorImpl<Value> &operandGrads) {
  if (failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  SmallVector<Value> xs(op->getOperands());
  operandGrads.assign(elementwiseGrads(b, op->getLoc(), *classify(op), xs,
                                       op->getResult(0), resultGrads[0]));
  return success();
}

/// linalg.matmul with the default maps: C = C0 + A B, so dA = G B^T,
/// dB = A^T G, dC0 = G.
LogicalResult buildMatmulGradient(Operation *op, OpBuilder &b,
                                  ValueRange resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  auto matmul = cast<linalg::MatmulOp>(op);
  if (matmul.hasUserDefinedMaps())
    return op->emitError("autodiff differentiates linalg.matmul with the "
                         "default indexing maps only");
  if (!matmul.hasPureTensorSemantics() ||
      failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  Value a = matmul.getInputs()[0], bm = matmul.getInputs()[1];
  Value g = resultGrads[0];
  Location loc = op->getLoc();
  Value da =
      MatmulOp::create(b, loc, a.getType(), g, bm, UnitAttr(), b.getUnitAttr());
  Value db =
      MatmulOp::create(b, loc, bm.getType(), a, g, b.getUnitAttr(), UnitAttr());
  operandGrads.assign({da, db, g});
  return success();
}

/// linalg.fill overwrites its init; its value must be a constant.
LogicalResult buildFillGradient(Operation *op, OpBuilder &, ValueRange,
                                SmallVectorImpl<Value> &operandGrads) {
  Operation *def = op->getOperand(0).getDefiningOp();
  if (!def || !def->hasTrait<OpTrait::ConstantLike>())
    return op->emitError("autodiff differentiates linalg.fill of a "
                         "constant only (the init is overwritten)");
  operandGrads.assign({Value(), Value()});
  return success();
}

/// True if `map` selects trailing loop dimensions in order (numpy
/// broadcasting of a lower-rank operand) or is the identity.
bool isTrailingProjection(AffineMap map) {
  unsigned n = map.getNumDims(), r = map.getNumResults();
  if (r > n)
    return false;
  for (unsigned i = 0; i < r; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || dim.getPosition() != n - r + i)
      return false;
  }
  return true;
}

/// linalg.generic in two forms:
///  * elementwise: parallel iterators, an identity map for the result, inputs
///    with identity or trailing-dimension maps, the init unread, and a body
///    that yields one arith/math op with a rule applied to input block
///    arguments;
///  * sum reduction: one input with the identity map, the result map a
///    trailing projection of the reduced leading loops, and a body yielding
///    `addf` of the input and the accumulator.
LogicalResult buildGenericGradient(Operation *op, OpBuilder &b,
                                   ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  auto generic = cast<linalg::GenericOp>(op);
  auto unsupported = [&]() {
    return op->emitError(
        "autodiff cannot differentiate this linalg.generic: it handles "
        "elementwise generics whose body is one arith/math op with a known "
        "derivative (addf, subf, mulf, divf, negf, maximumf, minimumf, exp, "
        "log, tanh, sqrt) on input arguments, and sum reductions");
  };
  if (generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics())
    return unsupported();
  if (failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *fnOp = yield.getValues()[0].getDefiningOp();
  if (body.getOperations().size() != 2 || !fnOp)
    return unsupported();
  unsigned numInputs = generic.getNumDpsInputs();
  BlockArgument acc = body.getArgument(numInputs);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  Location loc = op->getLoc();
  Value g = resultGrads[0];
  bool allParallel = generic.getNumParallelLoops() == generic.getNumLoops();

  // Sum reduction.
  if (isa<arith::AddFOp>(fnOp) && numInputs == 1 &&
      llvm::is_contained(fnOp->getOperands(), acc) &&
      llvm::is_contained(fnOp->getOperands(), body.getArgument(0)) &&
      maps[0].isIdentity() && isTrailingProjection(maps[1])) {
    Value in = generic.getInputs()[0];
    Value d = BroadcastToOp::create(b, loc, in.getType(), g);
    operandGrads.assign({d, g});
    return success();
  }

  // Elementwise.
  std::optional<Fn> fn = classify(fnOp);
  if (!fn || !allParallel || !maps.back().isIdentity() || !acc.use_empty())
    return unsupported();
  SmallVector<Value, 2> xs;
  SmallVector<unsigned, 2> inputOf;
  for (Value v : fnOp->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &body || arg.getArgNumber() >= numInputs)
      return unsupported();
    unsigned i = arg.getArgNumber();
    // Unary rules need the operand in the result's shape.
    if (!maps[i].isIdentity() &&
        (fnOp->getNumOperands() == 1 || !isTrailingProjection(maps[i])))
      return unsupported();
    xs.push_back(generic.getInputs()[i]);
    inputOf.push_back(i);
  }
  SmallVector<Value, 2> grads =
      elementwiseGrads(b, loc, *fn, xs, op->getResult(0), g);
  operandGrads.assign(op->getNumOperands(), Value());
  for (auto [grad, i] : llvm::zip(grads, inputOf))
    operandGrads[i] = operandGrads[i] ? AddOp::create(b, loc, grad.getType(),
                                                      operandGrads[i], grad)
                                            .getResult()
                                      : grad;
  return success();
}

} // namespace

void remat::registerGradientExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<buildElementwiseGradient, arith::AddFOp, arith::SubFOp,
           arith::MulFOp, arith::DivFOp, arith::NegFOp, arith::MaximumFOp,
           arith::MinimumFOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<buildElementwiseGradient, math::ExpOp, math::LogOp, math::TanhOp,
           math::SqrtOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<buildMatmulGradient, linalg::MatmulOp>(ctx);
    attach<buildFillGradient, linalg::FillOp>(ctx);
    attach<buildGenericGradient, linalg::GenericOp>(ctx);
  });
}
