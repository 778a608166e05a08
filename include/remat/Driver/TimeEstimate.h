//===- TimeEstimate.h - Step and recompute time from flops and bytes ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The planners weigh recomputation by flops (RematCostOpInterface). On the
// CPU, memory-bound ops (batch norm, ReLU, pooling, the weight gradients a
// step writes) cost time but few flops, so "recompute cost in % of the
// forward's flops" says little about the time a plan adds to a step. This
// estimate charges every op of a training step (remat dialect, after
// --remat-rematerialize) flops / F + bytes moved / B, bytes moved being its
// tensor operands and results, and reports the time of the ops inside
// `remat.recompute` regions beside that of the rest of the step. With a
// calibrated table (TimeModel.h, remat-compile --time-model) the seconds of
// an op come from its class and size instead. It is a report only: no
// planner reads it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_TIMEESTIMATE_H
#define REMAT_DRIVER_TIMEESTIMATE_H

#include "remat/Driver/TimeModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace remat::driver {

/// The machine: sustained flops per second (one thread, f32, GEMM-sized
/// work) and bytes per second an op streams through memory.
struct TimeModel {
  double flopsPerSecond = 100e9;
  double bytesPerSecond = 7.5e9;
};

/// Flops, bytes moved and estimated seconds of a set of ops.
struct OpTotals {
  double flops = 0, bytes = 0, seconds = 0;
};

/// A training step split into the ops recomputed (the bodies of its
/// `remat.recompute` regions) and the others.
struct StepTimeEstimate {
  OpTotals step;      ///< every op but the recomputed ones
  OpTotals recompute; ///< the ops inside remat.recompute regions
  int64_t recomputedOps = 0;
  /// With the calibrated model: seconds per op class (OpClass order), of
  /// the rest of the step and of the recompute.
  std::array<double, kNumOpClasses> stepByClass{}, recomputeByClass{};
  /// Recompute over the rest of the step, in %: what a plan adds to the
  /// step time of store-all (0 when the step is empty).
  double recomputePercentOfStep() const;
  /// The same with flops only.
  double recomputeFlopsPercentOfStep() const;
};

/// Flops and bytes moved of one op (tensor operands and results; views and
/// markers such as remat.reshape, remat.keep move none).
OpTotals estimateOp(mlir::Operation *op, const TimeModel &model);

/// The same with the calibrated model (TimeModel.h): seconds from the op's
/// class and size (flops or bytes); flops and bytes as estimateOp's. Ops of
/// no class take no time.
OpTotals estimateOp(mlir::Operation *op, const CalibratedTimeModel &model);

/// Sums estimateOp over the ops of `func`'s body and of the bodies of its
/// remat.recompute regions (ops nested in other regions, e.g. the payload of
/// a linalg.generic, belong to their parent).
StepTimeEstimate estimateStepTime(mlir::func::FuncOp func,
                                  const TimeModel &model);
StepTimeEstimate estimateStepTime(mlir::func::FuncOp func,
                                  const CalibratedTimeModel &model);

/// One line for a remark: both totals, the recompute in % of the rest of
/// the step by time and by flops, and the model's constants.
std::string describeStepTime(const StepTimeEstimate &estimate,
                             const TimeModel &model);

/// The remark of the calibrated estimate: the step without recompute and
/// the recompute in ms, the recompute in % of the rest of the step, and
/// the table's source.
std::string describeStepTime(const StepTimeEstimate &estimate,
                             const CalibratedTimeModel &model);

} // namespace remat::driver

#endif // REMAT_DRIVER_TIMEESTIMATE_H
