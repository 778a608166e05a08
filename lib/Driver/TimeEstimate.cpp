//===- TimeEstimate.cpp - step and recompute time from flops and bytes ----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/TimeEstimate.h"

#include "remat/Dialect/Remat/IR/RematInterfaces.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

static double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

double StepTimeEstimate::recomputePercentOfStep() const {
  return percent(recompute.seconds, step.seconds);
}

double StepTimeEstimate::recomputeFlopsPercentOfStep() const {
  return percent(recompute.flops, step.flops);
}

/// Bytes of the statically shaped tensors among `types`.
static double tensorBytes(TypeRange types) {
  double bytes = 0;
  for (Type type : types)
    if (std::optional<int64_t> size = getTensorBytes(type))
      bytes += static_cast<double>(*size);
  return bytes;
}

/// Flops and bytes moved of `op`, no seconds.
static OpTotals countOp(Operation *op) {
  OpTotals totals;
  auto costed = dyn_cast<RematCostOpInterface>(op);
  // Markers and views: no loop runs for them.
  if (!costed || isa<KeepOp, YieldOp, ReshapeOp, RecomputeOp>(op) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return totals;
  totals.flops = std::max(0.0, costed.getComputeCost());
  totals.bytes =
      tensorBytes(op->getOperandTypes()) + tensorBytes(op->getResultTypes());
  return totals;
}

OpTotals driver::estimateOp(Operation *op, const TimeModel &model) {
  OpTotals totals = countOp(op);
  totals.seconds =
      totals.flops / model.flopsPerSecond + totals.bytes / model.bytesPerSecond;
  return totals;
}

OpTotals driver::estimateOp(Operation *op, const CalibratedTimeModel &model) {
  OpTotals totals = countOp(op);
  if (totals.flops == 0 && totals.bytes == 0)
    return totals;
  if (std::optional<OpClass> opClass = classifyOp(op))
    totals.seconds = model.seconds(
        *opClass, isSizedByFlops(*opClass) ? totals.flops : totals.bytes);
  return totals;
}

static void add(OpTotals &sum, const OpTotals &op) {
  sum.flops += op.flops;
  sum.bytes += op.bytes;
  sum.seconds += op.seconds;
}

/// Sums `estimateOne` over the step's ops, the recomputed ones apart
/// (its second argument: whether the op is recomputed).
static StepTimeEstimate
sumStep(func::FuncOp func,
        llvm::function_ref<OpTotals(Operation *, bool)> estimateOne) {
  StepTimeEstimate estimate;
  if (func.isExternal())
    return estimate;
  for (Operation &op : func.getBody().getOps()) {
    auto recompute = dyn_cast<RecomputeOp>(op);
    if (!recompute) {
      add(estimate.step, estimateOne(&op, false));
      continue;
    }
    for (Operation &inner : recompute.getBody().getOps()) {
      OpTotals totals = estimateOne(&inner, true);
      add(estimate.recompute, totals);
      estimate.recomputedOps += totals.seconds > 0;
    }
  }
  return estimate;
}

StepTimeEstimate driver::estimateStepTime(func::FuncOp func,
                                          const TimeModel &model) {
  return sumStep(func,
                 [&](Operation *op, bool) { return estimateOp(op, model); });
}

StepTimeEstimate driver::estimateStepTime(func::FuncOp func,
                                          const CalibratedTimeModel &model) {
  std::array<double, kNumOpClasses> step{}, recompute{};
  StepTimeEstimate estimate =
      sumStep(func, [&](Operation *op, bool recomputed) {
        OpTotals totals = estimateOp(op, model);
        if (std::optional<OpClass> opClass = classifyOp(op))
          (recomputed ? recompute : step)[static_cast<size_t>(*opClass)] +=
              totals.seconds;
        return totals;
      });
  estimate.stepByClass = step;
  estimate.recomputeByClass = recompute;
  return estimate;
}

std::string driver::describeStepTime(const StepTimeEstimate &estimate,
                                     const TimeModel &model) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto totals = [&](const OpTotals &t) {
    os << llvm::format("%.3f", t.seconds * 1e3) << " ms ("
       << llvm::format("%.6g", t.flops) << " flops, "
       << llvm::format("%.6g", t.bytes) << " bytes)";
  };
  os << "time estimate: step without recompute ";
  totals(estimate.step);
  os << ", recompute ";
  totals(estimate.recompute);
  os << " in " << estimate.recomputedOps
     << " ops: " << llvm::format("%.1f", estimate.recomputePercentOfStep())
     << "% of the step by time, "
     << llvm::format("%.1f", estimate.recomputeFlopsPercentOfStep())
     << "% by flops (one thread at "
     << llvm::format("%.4g", model.flopsPerSecond / 1e9) << " GFLOP/s and "
     << llvm::format("%.4g", model.bytesPerSecond / 1e9) << " GB/s)";
  return s;
}

std::string driver::describeStepTime(const StepTimeEstimate &estimate,
                                     const CalibratedTimeModel &model) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "calibrated time estimate: step without recompute "
     << llvm::format("%.4f", estimate.step.seconds * 1e3) << " ms, recompute "
     << llvm::format("%.4f", estimate.recompute.seconds * 1e3) << " ms in "
     << estimate.recomputedOps
     << " ops: " << llvm::format("%.1f", estimate.recomputePercentOfStep())
     << "% of the step (table " << model.source
     << "); ms by class, step / recompute:";
  for (size_t i = 0; i < kNumOpClasses; ++i)
    os << (i ? ", " : " ") << getOpClassName(static_cast<OpClass>(i)) << " "
       << llvm::format("%.4f", estimate.stepByClass[i] * 1e3) << " / "
       << llvm::format("%.4f", estimate.recomputeByClass[i] * 1e3);
  return s;
}
