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

OpTotals driver::estimateOp(Operation *op, const TimeModel &model) {
  OpTotals totals;
  auto costed = dyn_cast<RematCostOpInterface>(op);
  // Markers and views: no loop runs for them.
  if (!costed || isa<KeepOp, YieldOp, ReshapeOp, RecomputeOp>(op) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return totals;
  totals.flops = std::max(0.0, costed.getComputeCost());
  totals.bytes =
      tensorBytes(op->getOperandTypes()) + tensorBytes(op->getResultTypes());
  totals.seconds =
      totals.flops / model.flopsPerSecond + totals.bytes / model.bytesPerSecond;
  return totals;
}

static void add(OpTotals &sum, const OpTotals &op) {
  sum.flops += op.flops;
  sum.bytes += op.bytes;
  sum.seconds += op.seconds;
}

StepTimeEstimate driver::estimateStepTime(func::FuncOp func,
                                          const TimeModel &model) {
  StepTimeEstimate estimate;
  if (func.isExternal())
    return estimate;
  for (Operation &op : func.getBody().getOps()) {
    auto recompute = dyn_cast<RecomputeOp>(op);
    if (!recompute) {
      add(estimate.step, estimateOp(&op, model));
      continue;
    }
    for (Operation &inner : recompute.getBody().getOps()) {
      OpTotals totals = estimateOp(&inner, model);
      add(estimate.recompute, totals);
      estimate.recomputedOps += totals.seconds > 0;
    }
  }
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
