//===- VerifySchedule.h - independent check of a rewrite --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The independent schedule verifier behind `--remat-verify-schedule`, for
/// passes that check their own output (`--remat-rematerialize=verify=true`).
/// It shares no code with the schedulers or with the rewriter.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_VERIFYSCHEDULE_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_VERIFYSCHEDULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace remat {

/// What a successful check counted (pass statistics).
struct ScheduleStats {
  /// The activation peak of the rewritten function in bytes.
  int64_t peakBytes = 0;
  /// Ops inside recompute regions, each matched with an original op.
  int64_t recomputedOps = 0;
  /// Ops outside recompute regions (the return included) whose operands
  /// were compared with the original's; 0 without an original.
  int64_t consumersChecked = 0;
};

/// Checks `rewritten`, the output of a rematerialization rewrite:
/// availability, that every recomputed op is a clone of an original forward
/// op, the `remat.keep` hints, and that the activation peak is at most
/// `budget` (when > 0). When `original` (the function before the rewrite,
/// which may live in another module of the same context) is given, also
/// proves by value numbering that every operand of every op outside the
/// recompute regions and every returned value equals, as a term over the
/// function arguments, what the original reads there. Emits the remark
/// "schedule verified: ..." at the function on success and one located error
/// at the first problem otherwise. With `stats`, fills it on success.
mlir::LogicalResult verifySchedule(mlir::func::FuncOp rewritten,
                                   mlir::func::FuncOp original, int64_t budget,
                                   ScheduleStats *stats = nullptr);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_VERIFYSCHEDULE_H
