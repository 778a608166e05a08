//===- GradientExternalModels.cpp - gradients of upstream ops ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Attaches RematGradientOpInterface to upstream ops with well-known
// derivatives, so that --remat-autodiff differentiates forward models written
// in arith, math and linalg on tensors: elementwise arith and math ops on
// ranked tensors, linalg.matmul / batch_matmul (default indexing maps, A
// and/or B transposed),
// linalg.transpose, linalg.broadcast, linalg.fill of a constant, and the
// linalg.generic forms below (elementwise bodies built from the scalar ops
// with a rule, differentiated per element; sum and max reductions). The
// backward is built from remat ops (remat.mul, remat.matmul,
// remat.tanh_grad, ...), like the rules of the remat ops themselves
// (RematGradients.cpp), and, for the elementwise functions without a remat
// counterpart and for generic bodies, from linalg.generic ops whose body
// recomputes the forward scalars and applies the scalar rules.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// True for the scalar ops the per-element rules (`scalarAdjoints`)
/// differentiate, and for the ops that carry no gradient (constants,
/// comparisons).
bool hasScalarRule(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp,
             arith::MinimumFOp, arith::MinNumFOp, arith::SelectOp,
             arith::ConstantOp, arith::CmpFOp, math::ExpOp, math::LogOp,
             math::TanhOp, math::SqrtOp, math::RsqrtOp, math::ErfOp,
             math::PowFOp, math::AbsFOp>(op);
}

/// The list of scalar ops with a rule, for diagnostics.
constexpr const char *kScalarRuleOps =
    "addf, subf, mulf, divf, negf, maximumf, maxnumf, minimumf, minnumf, "
    "select of cmpf, constants, exp, log, tanh, sqrt, rsqrt, erf, absf, powf "
    "with a constant exponent";

/// Fails with an error at `at` naming `op` unless it has a scalar rule; a
/// powf needs a constant exponent (`exponentIsConstant`).
LogicalResult checkScalarRule(Operation *at, Operation *op,
                              bool exponentIsConstant) {
  if (!hasScalarRule(op))
    return at->emitError("autodiff cannot differentiate '")
           << op->getName() << "'"
           << (at == op ? "" : " in the body of this op")
           << ": no derivative rule (it has rules for " << kScalarRuleOps
           << ")";
  if (isa<math::PowFOp>(op) && !exponentIsConstant)
    return at->emitError("autodiff differentiates 'math.powf' with a "
                         "constant exponent only");
  return success();
}

/// The per-element adjoints of the scalar op `op` (one with a scalar rule)
/// for the adjoint `g` of its result: one value per operand, null where no
/// gradient flows (conditions, constant exponents). Ops are created one
/// statement at a time (never two create calls as arguments of one call,
/// whose order the compiler chooses), so the IR is the same with any
/// compiler.
SmallVector<Value, 3> scalarAdjoints(OpBuilder &b, Location loc,
                                     Operation *op, Value g) {
  Type t = g.getType();
  auto cst = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto neg = [&](Value x) -> Value {
    return arith::NegFOp::create(b, loc, x);
  };
  auto x = [&](unsigned i) { return op->getOperand(i); };
  Value y = op->getNumResults() == 1 ? op->getResult(0) : Value();
  // The gradient goes to the selected operand: a for max when a > b (b on
  // ties), a for min when a < b.
  auto pick = [&](arith::CmpFPredicate pred) -> SmallVector<Value, 3> {
    Value c = arith::CmpFOp::create(b, loc, pred, x(0), x(1));
    Value da = arith::SelectOp::create(b, loc, c, g, cst(0.0));
    return {da, arith::SubFOp::create(b, loc, g, da)};
  };
  return llvm::TypeSwitch<Operation *, SmallVector<Value, 3>>(op)
      .Case([&](arith::AddFOp) { return SmallVector<Value, 3>{g, g}; })
      .Case([&](arith::SubFOp) { return SmallVector<Value, 3>{g, neg(g)}; })
      .Case([&](arith::MulFOp) {
        return SmallVector<Value, 3>{mul(g, x(1)), mul(g, x(0))};
      })
      .Case([&](arith::DivFOp) {
        // d(a/b)/db = -(a/b)/b.
        Value q = arith::DivFOp::create(b, loc, y, x(1));
        return SmallVector<Value, 3>{arith::DivFOp::create(b, loc, g, x(1)),
                                     neg(mul(g, q))};
      })
      .Case([&](arith::NegFOp) { return SmallVector<Value, 3>{neg(g)}; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [&](Operation *) { return pick(arith::CmpFPredicate::OGT); })
      .Case<arith::MinimumFOp, arith::MinNumFOp>(
          [&](Operation *) { return pick(arith::CmpFPredicate::OLT); })
      .Case([&](arith::SelectOp) {
        Value zero = cst(0.0);
        return SmallVector<Value, 3>{
            Value(), arith::SelectOp::create(b, loc, x(0), g, zero),
            arith::SelectOp::create(b, loc, x(0), zero, g)};
      })
      .Case([&](math::ExpOp) { return SmallVector<Value, 3>{mul(g, y)}; })
      .Case([&](math::LogOp) {
        return SmallVector<Value, 3>{arith::DivFOp::create(b, loc, g, x(0))};
      })
      .Case([&](math::TanhOp) {
        Value one = cst(1.0);
        Value yy = mul(y, y);
        Value d = arith::SubFOp::create(b, loc, one, yy);
        return SmallVector<Value, 3>{mul(g, d)};
      })
      .Case([&](math::SqrtOp) {
        Value twice = arith::AddFOp::create(b, loc, y, y);
        return SmallVector<Value, 3>{arith::DivFOp::create(b, loc, g, twice)};
      })
      .Case([&](math::RsqrtOp) {
        // d(x^-1/2)/dx = -x^-3/2 / 2 = -y^3 / 2.
        Value y3 = mul(y, mul(y, y));
        Value d = mul(cst(-0.5), y3);
        return SmallVector<Value, 3>{mul(g, d)};
      })
      .Case([&](math::ErfOp) {
        // d erf(x)/dx = 2/sqrt(pi) exp(-x^2).
        Value e = math::ExpOp::create(b, loc, neg(mul(x(0), x(0))));
        return SmallVector<Value, 3>{
            mul(g, mul(cst(1.1283791670955126), e))};
      })
      .Case([&](math::AbsFOp) {
        // sign(x) g, with g at 0.
        Value neg0 = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                           x(0), cst(0.0));
        return SmallVector<Value, 3>{
            arith::SelectOp::create(b, loc, neg0, neg(g), g)};
      })
      .Case([&](math::PowFOp) {
        // d x^c/dx = c x^(c-1), c constant.
        Value cm1 = arith::SubFOp::create(b, loc, x(1), cst(1.0));
        Value p = math::PowFOp::create(b, loc, x(0), cm1);
        return SmallVector<Value, 3>{mul(g, mul(x(1), p)), Value()};
      })
      .Default([&](Operation *o) {
        return SmallVector<Value, 3>(o->getNumOperands(), Value());
      });
}

/// An elementwise computation to differentiate per element: `inputs` read
/// through `maps` (identity or trailing projections of the loops, whose
/// ranges and element type are `resultType`), the result gradient read
/// through `gMap` (null: the identity; a reduction's result map for the
/// summand of a sum reduction), and `cloneForward`, which rebuilds the
/// forward scalars at a builder from the inputs' scalars and returns the ops
/// it created and the value the forward yields (the summand).
struct PerElement {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  AffineMap gMap;
  RankedTensorType resultType;
  std::function<std::pair<SmallVector<Operation *>, Value>(OpBuilder &,
                                                           ValueRange)>
      cloneForward;
};

bool isTrailingProjection(AffineMap map);
Value sumOverDroppedDims(OpBuilder &b, Location loc, Value g, AffineMap map,
                         RankedTensorType type);

/// The gradient of input `i` of `pe` for the result gradient `g`: a
/// linalg.generic that reads the inputs and `g`, recomputes the forward
/// scalars, sweeps them backward with `scalarAdjoints` and yields the adjoint
/// of input `i`'s scalar; summed down to the input's type when its map
/// broadcasts it. Null for a non-float input.
Value buildPerElementGradient(OpBuilder &b, Location loc, const PerElement &pe,
                              unsigned i, Value g) {
  auto inType = cast<RankedTensorType>(pe.inputs[i].getType());
  Type elt = inType.getElementType();
  if (!isa<FloatType>(elt))
    return Value();
  MLIRContext *ctx = b.getContext();
  unsigned rank = pe.resultType.getRank();
  SmallVector<Value> ins(pe.inputs);
  ins.push_back(g);
  SmallVector<AffineMap> maps(pe.maps);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  maps.append({pe.gMap ? pe.gMap : id, id});
  auto fullType = RankedTensorType::get(pe.resultType.getShape(), elt);
  Value init = tensor::EmptyOp::create(b, loc, fullType.getShape(), elt);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  unsigned numInputs = pe.inputs.size();
  auto body = [&](OpBuilder &nb, Location bl, ValueRange args) {
    auto [ops, yielded] = pe.cloneForward(nb, args.take_front(numInputs));
    DenseMap<Value, Value> adj;
    auto accumulate = [&](Value v, Value a) {
      auto [it, inserted] = adj.try_emplace(v, a);
      if (!inserted)
        it->second = arith::AddFOp::create(nb, bl, it->second, a);
    };
    accumulate(yielded, args[numInputs]);
    for (Operation *op : llvm::reverse(ops)) {
      if (op->getNumResults() != 1)
        continue;
      Value a = adj.lookup(op->getResult(0));
      if (!a)
        continue;
      for (auto [operand, d] :
           llvm::zip(op->getOperands(), scalarAdjoints(nb, bl, op, a)))
        if (d)
          accumulate(operand, d);
    }
    Value result = adj.lookup(args[i]);
    if (!result)
      result = arith::ConstantOp::create(nb, bl, nb.getFloatAttr(elt, 0.0));
    linalg::YieldOp::create(nb, bl, result);
    // Drop the recomputed scalars and adjoints this input does not need.
    SmallVector<Operation *> created;
    for (Operation &inner : nb.getInsertionBlock()->without_terminator())
      created.push_back(&inner);
    for (Operation *dead : llvm::reverse(created))
      if (dead->use_empty() && isMemoryEffectFree(dead))
        dead->erase();
  };
  Value full = linalg::GenericOp::create(b, loc, TypeRange{fullType}, ins,
                                         ValueRange{init}, maps, iters, body)
                   .getResult(0);
  // An input read through trailing loops is numpy-broadcast: summed down;
  // any other projected permutation (a transposed or permuted input) is
  // summed over the loops it drops, written through its own map.
  if (pe.maps[i].isIdentity() || isTrailingProjection(pe.maps[i]))
    return sumTo(b, loc, full, inType);
  return sumOverDroppedDims(b, loc, full, pe.maps[i], inType);
}

/// Fails with an error at `op` unless the ops of `body` (but `skip`) all have
/// scalar rules (a powf's exponent a constant).
LogicalResult checkPerElement(Operation *op, Block &body,
                              Operation *skip = nullptr) {
  for (Operation &inner : body.without_terminator()) {
    if (&inner == skip)
      continue;
    bool constantExponent = false;
    if (auto pow = dyn_cast<math::PowFOp>(inner))
      constantExponent = matchPattern(pow.getRhs(), m_Constant());
    if (failed(checkScalarRule(op, &inner, constantExponent)))
      return failure();
  }
  return success();
}

/// Elementwise arith and math ops on tensors without a remat counterpart
/// (maxnumf, minnumf, select, rsqrt, erf, powf with a constant exponent):
/// differentiated per element by a linalg.generic.
LogicalResult buildScalarRuleGradient(Operation *op, OpBuilder &b,
                                      ValueRange resultGrads,
                                      SmallVectorImpl<Value> &operandGrads) {
  if (failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  bool constantExponent = false;
  if (auto pow = dyn_cast<math::PowFOp>(op)) {
    // A splat constant exponent tensor.
    Attribute attr;
    constantExponent = matchPattern(pow.getRhs(), m_Constant(&attr)) &&
                       isa<SplatElementsAttr>(attr);
  }
  if (failed(checkScalarRule(op, op, constantExponent)))
    return failure();
  for (Value v : op->getOperands())
    if (!isa<RankedTensorType>(v.getType()) ||
        cast<RankedTensorType>(v.getType()).getShape() !=
            cast<RankedTensorType>(op->getResult(0).getType()).getShape())
      return op->emitError("autodiff differentiates '")
             << op->getName() << "' on operands of the result's shape only";
  PerElement pe;
  pe.inputs.assign(op->operand_begin(), op->operand_end());
  pe.resultType = cast<RankedTensorType>(op->getResult(0).getType());
  pe.maps.assign(op->getNumOperands(), AffineMap::getMultiDimIdentityMap(
                                           pe.resultType.getRank(),
                                           op->getContext()));
  pe.cloneForward = [op](OpBuilder &nb, ValueRange args) {
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(args);
    state.addTypes(getElementTypeOrSelf(op->getResult(0).getType()));
    state.addAttributes(op->getAttrs());
    Operation *scalar = nb.create(state);
    return std::make_pair(SmallVector<Operation *>{scalar},
                          scalar->getResult(0));
  };
  operandGrads.clear();
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    operandGrads.push_back(
        buildPerElementGradient(b, op->getLoc(), pe, i, resultGrads[0]));
  return success();
}

/// Whether `map`, an input map of a matmul-like op, reads its operand as
/// `defaultMap` does (false) or with the last two results swapped (true);
/// std::nullopt for any other map (a broadcast, a permuted batch dimension).
std::optional<bool> isTransposedMap(AffineMap map, AffineMap defaultMap) {
  if (map == defaultMap)
    return false;
  SmallVector<AffineExpr> swapped(defaultMap.getResults());
  if (swapped.size() < 2)
    return std::nullopt;
  std::swap(swapped[swapped.size() - 2], swapped.back());
  if (map == AffineMap::get(defaultMap.getNumDims(), 0, swapped,
                            map.getContext()))
    return true;
  return std::nullopt;
}

/// linalg.matmul and linalg.batch_matmul (per batch): C = C0 + op(A) op(B),
/// where op transposes the operand when its indexing map reads it transposed
/// (the default map with the last two results swapped). With X = op(A),
/// Y = op(B): dX = G Y^T, dY = X^T G, and dA = dX (or dX^T = op(B) G^T when
/// A is read transposed), dB = dY (or dY^T = G^T op(A)); dC0 = G. Each is
/// one remat.matmul with transpose flags. Other maps (broadcasts, permuted
/// batch or result dimensions) are an error; `name` is the op's name for it.
template <typename MatmulLikeOp>
LogicalResult buildMatmulLikeGradient(Operation *op, OpBuilder &b,
                                      ValueRange resultGrads,
                                      SmallVectorImpl<Value> &operandGrads,
                                      StringRef name) {
  auto matmul = cast<MatmulLikeOp>(op);
  SmallVector<AffineMap> defaults =
      MatmulLikeOp::getDefaultIndexingMaps(op->getContext());
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  std::optional<bool> transA = isTransposedMap(maps[0], defaults[0]);
  std::optional<bool> transB = isTransposedMap(maps[1], defaults[1]);
  if (!transA || !transB || maps[2] != defaults[2]) {
    InFlightDiagnostic diag = op->emitError()
                              << "autodiff differentiates " << name
                              << " with the default indexing maps or with A "
                                 "and/or B transposed only; ";
    if (maps[2] != defaults[2])
      diag << "result map " << AffineMapAttr::get(maps[2]) << " (expected "
           << AffineMapAttr::get(defaults[2]) << ")";
    else
      diag << (transA ? "B" : "A") << " map "
           << AffineMapAttr::get(transA ? maps[1] : maps[0]) << " is neither";
    return diag;
  }
  if (!matmul.hasPureTensorSemantics() ||
      failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  Value a = matmul.getInputs()[0], bm = matmul.getInputs()[1];
  Value g = resultGrads[0];
  Location loc = op->getLoc();
  auto flag = [&](bool set) { return set ? b.getUnitAttr() : UnitAttr(); };
  Value da = *transA ? MatmulOp::create(b, loc, a.getType(), bm, g,
                                        flag(*transB), flag(true))
                     : MatmulOp::create(b, loc, a.getType(), g, bm,
                                        flag(false), flag(!*transB));
  Value db = *transB ? MatmulOp::create(b, loc, bm.getType(), g, a, flag(true),
                                        flag(*transA))
                     : MatmulOp::create(b, loc, bm.getType(), a, g,
                                        flag(!*transA), flag(false));
  operandGrads.assign({da, db, g});
  return success();
}

LogicalResult buildMatmulGradient(Operation *op, OpBuilder &b,
                                  ValueRange resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  return buildMatmulLikeGradient<linalg::MatmulOp>(op, b, resultGrads,
                                                   operandGrads,
                                                   "linalg.matmul");
}

LogicalResult buildBatchMatmulGradient(Operation *op, OpBuilder &b,
                                       ValueRange resultGrads,
                                       SmallVectorImpl<Value> &operandGrads) {
  return buildMatmulLikeGradient<linalg::BatchMatmulOp>(
      op, b, resultGrads, operandGrads, "linalg.batch_matmul");
}

/// linalg.transpose: the gradient is transposed back.
LogicalResult buildTransposeGradient(Operation *op, OpBuilder &b,
                                     ValueRange resultGrads,
                                     SmallVectorImpl<Value> &operandGrads) {
  auto transpose = cast<linalg::TransposeOp>(op);
  if (!transpose.hasPureTensorSemantics() ||
      failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  ArrayRef<int64_t> perm = transpose.getPermutation();
  // Result dim i is input dim perm[i]: input dim perm[i] is gradient dim i.
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  Value in = transpose.getInput();
  Value d = TransposeOp::create(b, op->getLoc(), in.getType(), resultGrads[0],
                                b.getDenseI64ArrayAttr(inverse));
  operandGrads.assign({d, Value()});
  return success();
}

/// A zero tensor of `type` (tensor.empty + linalg.fill of 0).
Value zeros(OpBuilder &b, Location loc, RankedTensorType type) {
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), 0.0));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// Sums `g` (of rank n) over the loop dimensions that `map` (a projected
/// permutation of the n loops) drops, into `type`, writing through `map`.
Value sumOverDroppedDims(OpBuilder &b, Location loc, Value g, AffineMap map,
                         RankedTensorType type) {
  unsigned n = map.getNumDims();
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::reduction);
  for (AffineExpr e : map.getResults())
    iters[cast<AffineDimExpr>(e).getPosition()] =
        utils::IteratorType::parallel;
  SmallVector<AffineMap> maps{
      AffineMap::getMultiDimIdentityMap(n, b.getContext()), map};
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{g},
             ValueRange{zeros(b, loc, type)}, maps, iters,
             [](OpBuilder &nb, Location bl, ValueRange args) {
               Value s = arith::AddFOp::create(nb, bl, args[0], args[1]);
               linalg::YieldOp::create(nb, bl, s);
             })
      .getResult(0);
}

/// Broadcasts `g` (read through `map`, a projected permutation of the loops
/// of `type`) to `type`.
Value broadcastThroughMap(OpBuilder &b, Location loc, Value g, AffineMap map,
                          RankedTensorType type) {
  unsigned n = type.getRank();
  SmallVector<AffineMap> maps{
      map, AffineMap::getMultiDimIdentityMap(n, b.getContext())};
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{g}, ValueRange{init}, maps,
             iters,
             [](OpBuilder &nb, Location bl, ValueRange args) {
               linalg::YieldOp::create(nb, bl, args[0]);
             })
      .getResult(0);
}

/// True if `map` is a projected permutation keeping its dimensions in
/// increasing order (a reduction's or broadcast's result map).
bool isSortedProjection(AffineMap map) {
  if (!map.isProjectedPermutation())
    return false;
  int64_t last = -1;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || static_cast<int64_t>(dim.getPosition()) <= last)
      return false;
    last = dim.getPosition();
  }
  return true;
}

/// linalg.broadcast: the gradient is summed over the added dimensions.
LogicalResult buildBroadcastGradient(Operation *op, OpBuilder &b,
                                     ValueRange resultGrads,
                                     SmallVectorImpl<Value> &operandGrads) {
  auto broadcast = cast<linalg::BroadcastOp>(op);
  if (!broadcast.hasPureTensorSemantics() ||
      failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  AffineMap map = broadcast.getMatchingIndexingMap(
      broadcast.getDpsInputOperand(0));
  auto inType = cast<RankedTensorType>(broadcast.getInput().getType());
  operandGrads.assign({sumOverDroppedDims(b, op->getLoc(), resultGrads[0],
                                          map, inType),
                       Value()});
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

/// The gradients of a product reduction `y = init * prod x` (over the loops
/// `resultMap` drops) for the result gradient `g`: {dx, dinit}. With P the
/// product of the nonzero x and Z the number of zeros per result element,
/// dx = g * init * (Z == 0 ? P / x : (Z == 1 and x == 0 ? P : 0)) and
/// dinit = g * (Z == 0 ? P : 0), so inputs with zeros get the exact product
/// of the others (no 0 / 0).
SmallVector<Value, 2> buildProductReductionGradient(OpBuilder &b, Location loc,
                                                    linalg::GenericOp generic,
                                                    AffineMap resultMap,
                                                    Value g) {
  Value in = generic.getInputs()[0];
  Value init = generic.getDpsInits()[0];
  auto inType = cast<RankedTensorType>(in.getType());
  auto resultType = cast<RankedTensorType>(generic.getResult(0).getType());
  Type elt = inType.getElementType();
  MLIRContext *ctx = b.getContext();
  auto constant = [&](OpBuilder &nb, Location bl, double v) -> Value {
    return arith::ConstantOp::create(nb, bl, nb.getFloatAttr(elt, v));
  };
  auto filled = [&](double v) -> Value {
    Value e = tensor::EmptyOp::create(b, loc, resultType.getShape(), elt);
    return linalg::FillOp::create(b, loc, constant(b, loc, v), e).getResult(0);
  };
  auto isEqual = [&](OpBuilder &nb, Location bl, Value x, double v) -> Value {
    return arith::CmpFOp::create(nb, bl, arith::CmpFPredicate::OEQ, x,
                                 constant(nb, bl, v));
  };
  // P and Z in one pass over x, with the forward's loops.
  AffineMap id = AffineMap::getMultiDimIdentityMap(inType.getRank(), ctx);
  auto stats = linalg::GenericOp::create(
      b, loc, TypeRange{resultType, resultType}, ValueRange{in},
      ValueRange{filled(1.0), filled(0.0)},
      ArrayRef<AffineMap>{id, resultMap, resultMap},
      generic.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location bl, ValueRange args) {
        Value zero = isEqual(nb, bl, args[0], 0.0);
        Value p = arith::SelectOp::create(
            nb, bl, zero, args[1],
            arith::MulFOp::create(nb, bl, args[1], args[0]));
        Value z = arith::SelectOp::create(
            nb, bl, zero,
            arith::AddFOp::create(nb, bl, args[2], constant(nb, bl, 1.0)),
            args[2]);
        linalg::YieldOp::create(nb, bl, SmallVector<Value>{p, z});
      });
  Value prod = stats.getResult(0), zeros = stats.getResult(1);
  SmallVector<utils::IteratorType> parallel(inType.getRank(),
                                            utils::IteratorType::parallel);
  Value dxInit = tensor::EmptyOp::create(b, loc, inType.getShape(), elt);
  Value dx =
      linalg::GenericOp::create(
          b, loc, TypeRange{inType}, ValueRange{in, prod, zeros, g, init},
          ValueRange{dxInit},
          ArrayRef<AffineMap>{id, resultMap, resultMap, resultMap, resultMap,
                              id},
          parallel,
          [&](OpBuilder &nb, Location bl, ValueRange args) {
            Value x = args[0], p = args[1], z = args[2];
            Value others = arith::SelectOp::create(
                nb, bl,
                arith::AndIOp::create(nb, bl, isEqual(nb, bl, z, 1.0),
                                      isEqual(nb, bl, x, 0.0)),
                p, constant(nb, bl, 0.0));
            others = arith::SelectOp::create(
                nb, bl, isEqual(nb, bl, z, 0.0),
                arith::DivFOp::create(nb, bl, p, x), others);
            Value d = arith::MulFOp::create(
                nb, bl, arith::MulFOp::create(nb, bl, args[3], args[4]),
                others);
            linalg::YieldOp::create(nb, bl, d);
          })
          .getResult(0);
  AffineMap same = AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx);
  SmallVector<utils::IteratorType> resultParallel(
      resultType.getRank(), utils::IteratorType::parallel);
  Value dinitInit =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), elt);
  Value dinit =
      linalg::GenericOp::create(
          b, loc, TypeRange{resultType}, ValueRange{prod, zeros, g},
          ValueRange{dinitInit},
          ArrayRef<AffineMap>{same, same, same, same}, resultParallel,
          [&](OpBuilder &nb, Location bl, ValueRange args) {
            Value p = arith::SelectOp::create(
                nb, bl, isEqual(nb, bl, args[1], 0.0), args[0],
                constant(nb, bl, 0.0));
            linalg::YieldOp::create(nb, bl,
                                    arith::MulFOp::create(nb, bl, args[2], p)
                                        .getResult());
          })
          .getResult(0);
  return {dx, dinit};
}

/// linalg.generic in four forms:
///  * elementwise: parallel iterators, an identity map for the result, inputs
///    read through projected permutations of the loops (identity, trailing
///    broadcast, transposed, broadcast along any loops), the init unread,
///    and a body
///    built from scalar ops with a rule (`hasScalarRule`) on the input
///    arguments and values defined outside; a body of one op with a remat
///    counterpart is differentiated with remat ops, any other body per
///    element (`buildPerElementGradient`);
///  * sum reduction: one input with the identity map, the result map a
///    projection of the loops in order, and a body yielding `addf` of the
///    input and the accumulator; or, more generally, `addf` of the
///    accumulator and an elementwise function of the inputs (as above),
///    differentiated per element;
///  * max reduction: the same with `maximumf` / `maxnumf`; the gradient goes
///    to every element equal to the maximum (all of them on ties, where the
///    derivative is not defined) and to the init where it is the maximum;
///  * product reduction: the same with `mulf`
///    (`buildProductReductionGradient`).
LogicalResult buildGenericGradient(Operation *op, OpBuilder &b,
                                   ValueRange resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  auto generic = cast<linalg::GenericOp>(op);
  auto unsupported = [&]() {
    return op->emitError(
        "autodiff cannot differentiate this linalg.generic: it handles "
        "elementwise generics (parallel loops, identity result map, inputs "
        "read through projected permutations of the loops, the init unread) "
        "whose body is built from ")
           << kScalarRuleOps
           << ", and sum, max and product reductions of one input";
  };
  if (generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics())
    return unsupported();
  if (failed(checkGradType(op, op->getResult(0).getType())))
    return failure();
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *fnOp = yield.getValues()[0].getDefiningOp();
  unsigned numInputs = generic.getNumDpsInputs();
  BlockArgument acc = body.getArgument(numInputs);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  Location loc = op->getLoc();
  Value g = resultGrads[0];
  bool allParallel = generic.getNumParallelLoops() == generic.getNumLoops();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());

  // Reductions: `acc = f(x, acc)` with f addf (sum) or a maximum.
  bool reduction = fnOp && body.getOperations().size() == 2 &&
                   numInputs == 1 && fnOp->getNumOperands() == 2 &&
                   llvm::is_contained(fnOp->getOperands(), acc) &&
                   llvm::is_contained(fnOp->getOperands(),
                                      body.getArgument(0)) &&
                   maps[0].isIdentity() && isSortedProjection(maps[1]);
  if (reduction && isa<arith::AddFOp>(fnOp)) {
    Value in = generic.getInputs()[0];
    auto inType = cast<RankedTensorType>(in.getType());
    Value d = isTrailingProjection(maps[1])
                  ? Value(BroadcastToOp::create(b, loc, inType, g))
                  : broadcastThroughMap(b, loc, g, maps[1], inType);
    operandGrads.assign({d, g});
    return success();
  }
  if (reduction && isa<arith::MaximumFOp, arith::MaxNumFOp>(fnOp)) {
    Value in = generic.getInputs()[0];
    Value init = generic.getDpsInits()[0];
    Value y = op->getResult(0);
    auto inType = cast<RankedTensorType>(in.getType());
    // dx = g where x equals the maximum, through the result map.
    unsigned n = inType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(n, b.getContext());
    auto where = [&](Value x, AffineMap xMap, AffineMap yMap,
                     RankedTensorType type) {
      unsigned rank = type.getRank();
      SmallVector<utils::IteratorType> iters(rank,
                                             utils::IteratorType::parallel);
      Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType());
      AffineMap out = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
      return linalg::GenericOp::create(
                 b, loc, TypeRange{type}, ValueRange{x, y, g},
                 ValueRange{empty},
                 ArrayRef<AffineMap>{xMap, yMap, yMap, out}, iters,
                 [](OpBuilder &nb, Location bl, ValueRange args) {
                   Value eq = arith::CmpFOp::create(
                       nb, bl, arith::CmpFPredicate::OEQ, args[0], args[1]);
                   Value zero = arith::ConstantOp::create(
                       nb, bl, nb.getFloatAttr(args[2].getType(), 0.0));
                   Value d =
                       arith::SelectOp::create(nb, bl, eq, args[2], zero);
                   linalg::YieldOp::create(nb, bl, d);
                 })
          .getResult(0);
    };
    AffineMap same =
        AffineMap::getMultiDimIdentityMap(resultType.getRank(), b.getContext());
    operandGrads.assign({where(in, id, maps[1], inType),
                         where(init, same, same, resultType)});
    return success();
  }

  if (reduction && isa<arith::MulFOp>(fnOp)) {
    operandGrads.assign(
        buildProductReductionGradient(b, loc, generic, maps[1], g));
    return success();
  }

  for (unsigned i = 0; i < numInputs; ++i)
    if (!maps[i].isProjectedPermutation())
      return unsupported();
  if (!fnOp || fnOp->getBlock() != &body)
    return unsupported();

  // The sum over the reduced loops of an elementwise body: `acc = addf(v,
  // acc)`, the accumulator read there only; v is differentiated per element
  // with the result gradient broadcast through the result map.
  if (!allParallel) {
    Value summand;
    if (isa<arith::AddFOp>(fnOp) && acc.hasOneUse() &&
        llvm::is_contained(fnOp->getOperands(), acc) &&
        isSortedProjection(maps.back()))
      summand = fnOp->getOperand(0) == acc ? fnOp->getOperand(1)
                                           : fnOp->getOperand(0);
    if (!summand || !fnOp->getResult(0).hasOneUse())
      return unsupported();
    if (failed(checkPerElement(op, body, fnOp)))
      return failure();
    SmallVector<int64_t> loops = generic.getStaticLoopRanges();
    PerElement pe;
    pe.inputs.assign(generic.getInputs().begin(), generic.getInputs().end());
    pe.maps.assign(maps.begin(), maps.begin() + numInputs);
    pe.gMap = maps.back();
    pe.resultType =
        RankedTensorType::get(loops, resultType.getElementType());
    pe.cloneForward = [&body, numInputs, fnOp, summand](OpBuilder &nb,
                                                        ValueRange args) {
      IRMapping mapping;
      for (unsigned i = 0; i < numInputs; ++i)
        mapping.map(body.getArgument(i), args[i]);
      SmallVector<Operation *> ops;
      for (Operation &inner : body.without_terminator())
        if (&inner != fnOp)
          ops.push_back(nb.clone(inner, mapping));
      return std::make_pair(ops, mapping.lookupOrDefault(summand));
    };
    operandGrads.assign(op->getNumOperands(), Value());
    for (unsigned i = 0; i < numInputs; ++i)
      operandGrads[i] = buildPerElementGradient(b, loc, pe, i, g);
    // The init is added once.
    operandGrads[numInputs] = g;
    return success();
  }

  // Elementwise.
  if (!maps.back().isIdentity() || !acc.use_empty())
    return unsupported();

  // One op with a remat counterpart on input arguments: remat ops.
  std::optional<Fn> fn = classify(fnOp);
  bool single = fn && body.getOperations().size() == 2 &&
                llvm::all_of(fnOp->getOperands(), [&](Value v) {
                  auto arg = dyn_cast<BlockArgument>(v);
                  return arg && arg.getOwner() == &body &&
                         arg.getArgNumber() < numInputs &&
                         (fnOp->getNumOperands() != 1 ||
                          maps[arg.getArgNumber()].isIdentity()) &&
                         (maps[arg.getArgNumber()].isIdentity() ||
                          isTrailingProjection(maps[arg.getArgNumber()]));
                });
  if (single) {
    SmallVector<Value, 2> xs;
    SmallVector<unsigned, 2> inputOf;
    for (Value v : fnOp->getOperands()) {
      unsigned i = cast<BlockArgument>(v).getArgNumber();
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

  // Any other body: per element.
  if (failed(checkPerElement(op, body)))
    return failure();
  PerElement pe;
  pe.inputs.assign(generic.getInputs().begin(), generic.getInputs().end());
  pe.maps.assign(maps.begin(), maps.begin() + numInputs);
  pe.resultType = resultType;
  pe.cloneForward = [&body, numInputs](OpBuilder &nb, ValueRange args) {
    IRMapping mapping;
    for (unsigned i = 0; i < numInputs; ++i)
      mapping.map(body.getArgument(i), args[i]);
    SmallVector<Operation *> ops;
    for (Operation &inner : body.without_terminator())
      ops.push_back(nb.clone(inner, mapping));
    Value yielded = mapping.lookupOrDefault(
        cast<linalg::YieldOp>(body.getTerminator()).getValues()[0]);
    return std::make_pair(ops, yielded);
  };
  operandGrads.assign(op->getNumOperands(), Value());
  for (unsigned i = 0; i < numInputs; ++i)
    operandGrads[i] = buildPerElementGradient(b, loc, pe, i, g);
  return success();
}

} // namespace

void remat::registerGradientExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attach<buildElementwiseGradient, arith::AddFOp, arith::SubFOp,
           arith::MulFOp, arith::DivFOp, arith::NegFOp, arith::MaximumFOp,
           arith::MinimumFOp>(ctx);
    attach<buildScalarRuleGradient, arith::MaxNumFOp, arith::MinNumFOp,
           arith::SelectOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<buildElementwiseGradient, math::ExpOp, math::LogOp, math::TanhOp,
           math::SqrtOp>(ctx);
    attach<buildScalarRuleGradient, math::RsqrtOp, math::ErfOp, math::PowFOp>(
        ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attach<buildMatmulGradient, linalg::MatmulOp>(ctx);
    attach<buildBatchMatmulGradient, linalg::BatchMatmulOp>(ctx);
    attach<buildTransposeGradient, linalg::TransposeOp>(ctx);
    attach<buildBroadcastGradient, linalg::BroadcastOp>(ctx);
    attach<buildFillGradient, linalg::FillOp>(ctx);
    attach<buildGenericGradient, linalg::GenericOp>(ctx);
  });
}
