//===- Autodiff.cpp - reverse-mode training step construction ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/IR/Diagnostics.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Dialect/Remat/Transforms/TrainingGraph.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace remat {
#define GEN_PASS_DEF_REMATAUTODIFF
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// Returns a constant tensor of `type` filled with `value`.
static Value splat(OpBuilder &b, Location loc, RankedTensorType type,
                   double value) {
  auto attr = DenseElementsAttr::get(
      type, FloatAttr::get(type.getElementType(), value));
  return arith::ConstantOp::create(b, loc, attr);
}

/// The results of a forward function: the loss, the only returned value not
/// marked `remat.state` (a rank-0 float tensor), and the state results.
struct ForwardResults {
  TypedValue<RankedTensorType> loss;
  /// The indices of the results marked `remat.state`, in order.
  SmallVector<unsigned> state;
};

/// Splits the results of `func` into the loss and the state results. Emits a
/// diagnostic and fails unless exactly one result is not marked `remat.state`
/// and it is a rank-0 float tensor.
static FailureOr<ForwardResults> getForwardResults(func::FuncOp func) {
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return emitCompactError(func, "autodiff needs a func.return terminator");
  ForwardResults results;
  std::optional<unsigned> lossIndex;
  for (unsigned i = 0, e = ret.getNumOperands(); i < e; ++i) {
    if (func.getResultAttr(i, RematDialect::getStateAttrName())) {
      results.state.push_back(i);
      continue;
    }
    if (lossIndex)
      return emitCompactError(func, "autodiff needs exactly one returned "
                                    "value besides the 'remat.state' "
                                    "results, the scalar loss; results #")
             << *lossIndex << " and #" << i
             << " are both unmarked (mark state results with "
                "'remat.state = <argument index>')";
    lossIndex = i;
  }
  if (!lossIndex) {
    if (ret.getNumOperands() == 0)
      return emitCompactError(func,
                              "autodiff needs a function returning exactly "
                              "one value, the scalar loss");
    return emitCompactError(func, "autodiff needs the scalar loss among the "
                                  "returned values, but every result is "
                                  "marked 'remat.state'");
  }
  Value loss = ret.getOperand(*lossIndex);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType()))
    return ret.emitError(
               "the returned loss must be a rank-0 float tensor, got ")
           << loss.getType();
  results.loss = cast<TypedValue<RankedTensorType>>(loss);
  return results;
}

/// The arguments of `func` marked `remat.param`, in order.
static SmallVector<BlockArgument> getParams(func::FuncOp func) {
  SmallVector<BlockArgument> params;
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), RematDialect::getParamAttrName()))
      params.push_back(arg);
  return params;
}

/// The values of `block` that depend on a parameter (forward reachability).
/// Fails, after a diagnostic, on an op whose regions carry tensors or read an
/// active value from outside.
static FailureOr<llvm::DenseSet<Value>>
findActiveValues(Block &block, ArrayRef<BlockArgument> params) {
  llvm::DenseSet<Value> active(params.begin(), params.end());
  for (Operation &op : block.without_terminator()) {
    // Structured ops (linalg) are differentiated whole; their payload region
    // may read only its own block arguments and inactive values.
    if (op.getNumRegions() != 0 && !hasScalarPayloadRegions(&op))
      return op.emitError("autodiff does not support ops with regions that "
                          "carry tensors");
    bool readsActive = false;
    forEachUsedValue(&op, [&](Value v) {
      if (!active.contains(v))
        return;
      if (!llvm::is_contained(op.getOperands(), v)) {
        if (!readsActive)
          op.emitError("autodiff does not differentiate values that a region "
                       "reads from outside; pass them as operands");
        readsActive = true;
      }
      active.insert(op.getResults().begin(), op.getResults().end());
    });
    if (readsActive)
      return failure();
  }
  return active;
}

/// The reverse sweep: builds, at `b`'s insertion point, the gradients of the
/// active values of `block` from the gradient 1 of `loss` (a constant at
/// `seedLoc`; the ops of the block, last first, apply their
/// RematGradientOpInterface rules). Returns the gradient of every active
/// value that receives one.
static FailureOr<DenseMap<Value, Value>>
buildGradients(OpBuilder &b, Block &block, TypedValue<RankedTensorType> loss,
               Location seedLoc, const llvm::DenseSet<Value> &active) {
  DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    auto [it, inserted] = grads.try_emplace(v, g);
    if (!inserted)
      it->second = AddOp::create(b, g.getLoc(), v.getType(), it->second, g);
  };
  if (active.contains(loss))
    grads[loss] = splat(b, seedLoc, loss.getType(), 1.0);

  // The forward ops, collected before the sweep adds backward ops.
  SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      Value g = grads.lookup(r);
      any |= static_cast<bool>(g);
      resultGrads.push_back(g);
    }
    if (!any)
      continue;
    auto gradOp = dyn_cast<RematGradientOpInterface>(op);
    if (!gradOp)
      return op->emitError("'")
             << op->getName()
             << "' is on the path from a parameter to the loss but has no "
                "gradient (RematGradientOpInterface)";
    // Results that receive no gradient get a zero gradient; one that the
    // rule does not read (batch_norm's batch statistics) is erased again.
    SmallVector<Value> zeros;
    for (auto [r, g] : llvm::zip(op->getResults(), resultGrads))
      if (!g) {
        g = splat(b, op->getLoc(), cast<RankedTensorType>(r.getType()), 0.0);
        zeros.push_back(g);
      }
    SmallVector<Value> operandGrads;
    if (failed(gradOp.buildGradient(b, resultGrads, operandGrads)))
      return failure();
    for (Value zero : zeros)
      if (zero.use_empty() && !llvm::is_contained(operandGrads, zero))
        zero.getDefiningOp()->erase();
    if (operandGrads.size() != op->getNumOperands())
      return op->emitError("gradient rule returned ")
             << operandGrads.size() << " gradients for " << op->getNumOperands()
             << " operands";
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }
  return grads;
}

/// Drops the backward ops of `block` whose results nobody uses (gradient
/// rules build the gradients of every operand, also of inputs that are not
/// parameters), last first so that chains of dead ops disappear.
static void eraseDeadBackwardOps(Block &block) {
  SmallVector<Operation *> backward;
  for (Operation &op : block.without_terminator())
    if (getPhase(&op) == Phase::backward)
      backward.push_back(&op);
  for (Operation *op : llvm::reverse(backward))
    if (op->use_empty())
      op->erase();
}

/// Builds the backward of `func` in place: the function then returns the
/// loss, the gradients of its parameters in order, and its state results in
/// order (with their `remat.state` attributes). Returns failure after
/// emitting a diagnostic.
static LogicalResult differentiate(func::FuncOp func) {
  Block &block = func.getBody().front();
  FailureOr<ForwardResults> forwardResults = getForwardResults(func);
  if (failed(forwardResults))
    return failure();
  TypedValue<RankedTensorType> loss = forwardResults->loss;
  SmallVector<BlockArgument> params = getParams(func);
  FailureOr<llvm::DenseSet<Value>> active = findActiveValues(block, params);
  if (failed(active))
    return failure();
  if (Operation *lossOp = loss.getDefiningOp())
    setPhase(lossOp, Phase::loss);

  Operation *ret = block.getTerminator();
  OpBuilder b(ret);
  Operation *lastForward = ret->getPrevNode();
  FailureOr<DenseMap<Value, Value>> grads =
      buildGradients(b, block, loss, ret->getLoc(), *active);
  if (failed(grads))
    return failure();
  SmallVector<Value> results{loss};
  for (BlockArgument p : params) {
    Value g = grads->lookup(p);
    if (!g)
      g = splat(b, func.getLoc(), cast<RankedTensorType>(p.getType()), 0.0);
    results.push_back(g);
  }
  // The state results follow the gradients, unchanged, with their attributes.
  SmallVector<DictionaryAttr> resultAttrs(results.size(),
                                          DictionaryAttr::get(func.getContext()));
  for (unsigned i : forwardResults->state) {
    results.push_back(ret->getOperand(i));
    resultAttrs.push_back(func.getResultAttrDict(i));
  }

  // Everything created after the last forward op belongs to the backward.
  for (Operation *op = lastForward ? lastForward->getNextNode()
                                   : &block.front();
       op != ret; op = op->getNextNode())
    setPhase(op, Phase::backward);
  func::ReturnOp::create(b, ret->getLoc(), results);
  ret->erase();
  eraseDeadBackwardOps(block);

  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  func->setAttr(RematDialect::getTrainingStepAttrName(),
                UnitAttr::get(func.getContext()));
  return success();
}

/// True if an op of `func` carries `remat.grad_seed`: the function holds its
/// backward already.
static bool hasGradSeed(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return op->hasAttr(RematDialect::getGradSeedAttrName())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
struct AutodiffPass : public remat::impl::RematAutodiffBase<AutodiffPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Already a training step: built by autodiff, or written with its
    // backward ops (marked, or reading a gradient seed).
    if (func.isExternal() ||
        func->hasAttr(RematDialect::getTrainingStepAttrName()) ||
        isTrainingStep(func) || hasGradSeed(func))
      return markAllAnalysesPreserved();
    bool hasParam = llvm::any_of(func.getArguments(), [&](BlockArgument a) {
      return func.getArgAttr(a.getArgNumber(),
                             RematDialect::getParamAttrName());
    });
    if (!hasParam)
      return markAllAnalysesPreserved();
    if (!func.getBody().hasOneBlock()) {
      emitCompactError(func, "autodiff needs a single-block function body");
      return signalPassFailure();
    }
    if (failed(differentiate(func)))
      return signalPassFailure();
    ++numDifferentiated;
    for (Operation &op : func.getBody().front())
      if (getPhase(&op) == Phase::backward)
        ++numBackwardOps;
  }
};
} // namespace
