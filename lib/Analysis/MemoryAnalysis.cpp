//===- MemoryAnalysis.cpp - liveness and memory peak ------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace remat;

OpResult remat::getInPlaceResult(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result || !value.hasOneUse() ||
      result.getOwner()->getNumResults() != 1 ||
      result.getOwner()->hasTrait<OpTrait::ConstantLike>())
    return nullptr;
  OpOperand &use = *value.use_begin();
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  if (!dps || !dps.hasPureTensorSemantics() || !dps.isDpsInit(&use))
    return nullptr;
  OpResult tied = dps.getTiedOpResult(&use);
  if (!tied || tied.getType() != value.getType())
    return nullptr;
  return tied;
}

std::optional<int64_t> remat::getActivationBytes(Value value) {
  if (!isa<ShapedType>(value.getType()))
    return 0;
  // A tensor.empty takes no memory of its own, but a type whose size does
  // not fit is refused all the same: its users would materialise it.
  std::optional<int64_t> bytes = getValueBytes(value.getType());
  if (bytes && isa_and_nonnull<tensor::EmptyOp>(value.getDefiningOp()))
    return 0;
  return bytes;
}

bool remat::hasScalarPayloadRegions(Operation *op) {
  if (op->getNumRegions() == 0)
    return false;
  auto isScalar = [](Type t) { return !isa<ShapedType>(t); };
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested != op && !llvm::all_of(nested->getResultTypes(), isScalar))
      return WalkResult::interrupt();
    // A terminator yielding a tensor (scf.execute_region) makes the op's
    // result alias it.
    if (nested != op && nested->hasTrait<OpTrait::IsTerminator>() &&
        !llvm::all_of(nested->getOperandTypes(), isScalar))
      return WalkResult::interrupt();
    for (Region &region : nested->getRegions())
      for (Block &block : region)
        if (!llvm::all_of(block.getArgumentTypes(), isScalar))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

void remat::forEachUsedValue(Operation *op, function_ref<void(Value)> fn) {
  for (Value v : op->getOperands())
    fn(v);
  if (op->getNumRegions() == 0)
    return;
  llvm::SmallPtrSet<Value, 8> seen;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value v : nested->getOperands()) {
      Region *defRegion = v.getParentRegion();
      if (defRegion && op->isAncestor(defRegion->getParentOp()))
        continue; // Defined inside `op`'s regions.
      if (seen.insert(v).second)
        fn(v);
    }
  });
}

void MemoryAnalysis::fail(Operation *where, const Twine &message) {
  if (!error) {
    error = message.str();
    errorOp = where;
  }
}

namespace {
/// A buffer: the storage of one value and of the values that alias it.
struct Buffer {
  int64_t bytes = 0;
  /// Step that defines it; -1 for function arguments.
  int64_t def = -1;
  /// Last step that uses it.
  int64_t lastUse = -1;
  /// Returned by the function: counted apart from activations.
  bool output = false;
};
} // namespace

namespace {
/// The buffers of a function body and the steps that define and use them:
/// the first two phases of the analysis (arguments, then the ops in
/// execution order). A method returning false has set `error` and
/// `errorOp`.
class LiveRanges {
public:
  /// Phase 1: the function's arguments, resident and counted apart.
  bool addArguments(FunctionOpInterface func);
  /// Phase 2: the ops of `block` in execution order (the ops of a
  /// remat.recompute in place of it); marks the returned buffers.
  bool addOps(Block &block);

  std::vector<Buffer> buffers;
  /// The executed ops: step i runs leafOps[i].
  std::vector<Operation *> leafOps;
  /// workspace[i]: the scratch bytes of leafOps[i] (`getWorkspaceBytes`).
  std::vector<int64_t> workspace;
  int64_t argumentBytes = 0;
  int64_t parameterBytes = 0;
  int64_t totalActivationBytes = 0;
  std::string error;
  Operation *errorOp = nullptr;

private:
  bool fail(Operation *where, const Twine &message) {
    error = message.str();
    errorOp = where;
    return false;
  }
  /// Records the uses and results of `op` as the next step.
  bool addStep(Operation *op);
  bool addRecompute(RecomputeOp recompute);
  bool defineResults(Operation *def, int64_t step);
  void use(Value v, int64_t step);
  int64_t numSteps() const { return leafOps.size(); }

  DenseMap<Value, unsigned> bufferOf;
};
} // namespace

bool LiveRanges::addArguments(FunctionOpInterface func) {
  for (BlockArgument arg : func.getFunctionBody().getArguments()) {
    std::optional<int64_t> bytes = getValueBytes(arg.getType());
    if (!bytes)
      return fail(func, "argument #" + Twine(arg.getArgNumber()) +
                            " is not statically shaped or its size overflows "
                            "64 bits");
    if (llvm::AddOverflow(argumentBytes, *bytes, argumentBytes))
      return fail(func, "argument bytes overflow 64 bits");
    if (func.getArgAttr(arg.getArgNumber(), RematDialect::getParamAttrName()))
      parameterBytes += *bytes;
    bufferOf[arg] = buffers.size();
    buffers.push_back({*bytes, -1, -1});
  }
  return true;
}

bool LiveRanges::defineResults(Operation *def, int64_t step) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(def);
  for (OpResult result : def->getResults()) {
    std::optional<int64_t> bytes = getActivationBytes(result);
    if (!bytes)
      return fail(def, "result type " +
                           llvm::formatv("{0}", result.getType()).str() +
                           " is not statically shaped or its size overflows "
                           "64 bits");
    // Destination passing: a result written into the buffer of an init
    // that has no other use shares that buffer (docs/Conventions.md).
    std::optional<unsigned> shared;
    if (dps && dps.hasPureTensorSemantics()) {
      OpOperand *init = dps.getTiedOpOperand(result);
      if (init && getInPlaceResult(init->get()) == result) {
        auto it = bufferOf.find(init->get());
        if (it != bufferOf.end() && buffers[it->second].def >= 0)
          shared = it->second;
      }
    }
    int64_t added = *bytes;
    if (shared)
      added = std::max<int64_t>(0, *bytes - buffers[*shared].bytes);
    if (llvm::AddOverflow(totalActivationBytes, added, totalActivationBytes))
      return fail(def, "total activation bytes overflow 64 bits");
    if (shared) {
      Buffer &b = buffers[*shared];
      b.bytes += added;
      b.lastUse = std::max(b.lastUse, step);
      bufferOf[result] = *shared;
      continue;
    }
    bufferOf[result] = buffers.size();
    buffers.push_back({*bytes, step, step});
  }
  return true;
}

void LiveRanges::use(Value v, int64_t step) {
  auto it = bufferOf.find(v);
  if (it == bufferOf.end())
    return; // Defined outside the function (cannot happen in valid IR).
  Buffer &b = buffers[it->second];
  b.lastUse = std::max(b.lastUse, step);
}

bool LiveRanges::addStep(Operation *op) {
  int64_t step = numSteps();
  forEachUsedValue(op, [&](Value v) { use(v, step); });
  if (!defineResults(op, step))
    return false;
  FailureOr<int64_t> scratch = int64_t(0);
  if (auto cost = dyn_cast<RematCostOpInterface>(op))
    scratch = cost.getWorkspaceBytes();
  if (failed(scratch))
    return fail(op, "workspace bytes overflow 64 bits");
  leafOps.push_back(op);
  workspace.push_back(*scratch);
  return true;
}

bool LiveRanges::addRecompute(RecomputeOp recompute) {
  // The region's block arguments alias its inputs, its results the yielded
  // values.
  Block &inner = recompute.getBody().front();
  for (auto [arg, input] :
       llvm::zip(inner.getArguments(), recompute.getInputs()))
    bufferOf[arg] = bufferOf.lookup(input);
  for (Operation &innerOp : inner) {
    if (auto yield = dyn_cast<YieldOp>(innerOp)) {
      for (auto [res, v] : llvm::zip(recompute.getResults(), yield.getValues()))
        bufferOf[res] = bufferOf.lookup(v);
      continue;
    }
    if (innerOp.getNumRegions() != 0 && !hasScalarPayloadRegions(&innerOp))
      return fail(&innerOp, "ops whose regions hold tensors are not supported "
                            "inside remat.recompute by the memory analysis");
    if (!addStep(&innerOp))
      return false;
  }
  return true;
}

bool LiveRanges::addOps(Block &block) {
  for (Operation &top : block) {
    if (top.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : top.getOperands()) {
        auto it = bufferOf.find(v);
        if (it != bufferOf.end())
          buffers[it->second].output = true;
      }
      continue;
    }
    if (isa<KeepOp>(top))
      continue;
    if (auto recompute = dyn_cast<RecomputeOp>(top)) {
      if (!addRecompute(recompute))
        return false;
      continue;
    }
    if (top.getNumRegions() != 0 && !hasScalarPayloadRegions(&top))
      return fail(&top, "ops whose regions hold tensors (other than "
                        "remat.recompute) are not supported by the memory "
                        "analysis; structured ops with scalar payloads "
                        "(linalg.generic, ...) are");
    if (!addStep(&top))
      return false;
  }
  return true;
}

namespace {
/// Phase 3: the activation bytes live at every step.
struct LiveSweep {
  std::vector<MemoryAnalysis::Step> steps;
  int64_t peakBytes = 0;
  /// The first step at the peak.
  Operation *peakOp = nullptr;
  /// The bytes of the returned buffers, counted apart.
  int64_t outputBytes = 0;
};
} // namespace

/// A buffer counts from its defining step to its last use, both included;
/// returned buffers count apart; an op's workspace counts at its step only.
/// std::nullopt if their bytes overflow.
static std::optional<LiveSweep> sweepLiveRanges(const LiveRanges &ranges) {
  LiveSweep sweep;
  int64_t numSteps = ranges.leafOps.size();
  // +bytes at the defining step, -bytes after the last use.
  std::vector<int64_t> delta(numSteps + 1, 0);
  for (const Buffer &b : ranges.buffers) {
    if (b.def < 0)
      continue;
    if (b.output) {
      if (llvm::AddOverflow(sweep.outputBytes, b.bytes, sweep.outputBytes))
        return std::nullopt;
      continue;
    }
    delta[b.def] += b.bytes;
    int64_t end = std::min<int64_t>(b.lastUse, numSteps - 1) + 1;
    delta[end] -= b.bytes;
  }
  int64_t live = 0;
  sweep.steps.reserve(numSteps);
  for (int64_t i = 0; i < numSteps; ++i) {
    live += delta[i];
    int64_t during;
    if (llvm::AddOverflow(live, ranges.workspace[i], during))
      return std::nullopt;
    sweep.steps.push_back({ranges.leafOps[i], live, ranges.workspace[i]});
    if (during > sweep.peakBytes || !sweep.peakOp) {
      sweep.peakBytes = during;
      sweep.peakOp = ranges.leafOps[i];
    }
  }
  return sweep;
}

MemoryAnalysis::MemoryAnalysis(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || func.isExternal()) {
    fail(op, "memory analysis needs a function with a body");
    return;
  }
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock()) {
    fail(op, "memory analysis needs a single-block function body");
    return;
  }

  LiveRanges ranges;
  bool collected = ranges.addArguments(func) && ranges.addOps(body.front());
  argumentBytes = ranges.argumentBytes;
  parameterBytes = ranges.parameterBytes;
  totalActivationBytes = ranges.totalActivationBytes;
  if (!collected) {
    fail(ranges.errorOp, ranges.error);
    return;
  }
  std::optional<LiveSweep> sweep = sweepLiveRanges(ranges);
  if (!sweep) {
    fail(op, "returned or live bytes overflow 64 bits");
    return;
  }
  steps = std::move(sweep->steps);
  for (const Step &step : steps)
    if (step.op == sweep->peakOp)
      peakWorkspaceBytes = step.workspaceBytes;
  peakBytes = sweep->peakBytes;
  peakOp = sweep->peakOp;
  outputBytes = sweep->outputBytes;
  if (llvm::AddOverflow(peakBytes, argumentBytes, peakTotalBytes) ||
      llvm::AddOverflow(peakTotalBytes, outputBytes, peakTotalBytes))
    fail(op, "total bytes (activations, arguments and outputs) overflow 64 "
             "bits");
}

void MemoryAnalysis::writeJSON(raw_ostream &os, StringRef functionName) const {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("function", functionName);
    j.attribute("peak_activation_bytes", peakBytes);
    j.attribute("peak_total_bytes", getPeakTotalBytes());
    j.attribute("argument_bytes", argumentBytes);
    j.attribute("output_bytes", outputBytes);
    j.attribute("parameter_bytes", parameterBytes);
    j.attribute("total_activation_bytes", totalActivationBytes);
    if (peakOp)
      j.attribute("peak_op", peakOp->getName().getStringRef());
    j.attributeArray("ops", [&] {
      for (auto [i, step] : llvm::enumerate(steps)) {
        j.object([&] {
          j.attribute("index", static_cast<int64_t>(i));
          j.attribute("op", step.op->getName().getStringRef());
          j.attribute("live_bytes", step.liveBytes);
          if (step.workspaceBytes != 0)
            j.attribute("workspace_bytes", step.workspaceBytes);
        });
      }
    });
    j.attribute("peak_workspace_bytes", peakWorkspaceBytes);
  });
  os << "\n";
}
