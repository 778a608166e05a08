//===- RecomputeHoist.h - Recomputations moved to earlier lists -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A kept set's lowering (KeptSet.h) recomputes a dropped value in the list
/// of its first reader. When the value's operand is otherwise dead by then,
/// that holds the operand across the steps in between, and a large result
/// made there can push the peak over the budget, where rebuilding the value
/// a step or two earlier (freeing the operand first) would fit.
/// `hoistToBudget` moves recomputations listed shortly after the peak step
/// into the peak step's list or the two before it, one at a time, keeping
/// the move that lowers the peak most, until the schedule fits, no move
/// lowers the peak, or its evaluations run out. The recompute cost never
/// changes (the same executions, in other lists).
///
/// On encoder-12 at 0.7 of store-all the lower bound's cut at its best step
/// drops the last layer's ReLU mask and rebuilds it from the ReLU output
/// before its reader: 0.716 of store-all. Rebuilt one list earlier it fits
/// at the bound's 4.763% of the forward, where `auto` spent 5.08% (an
/// attention output more) making the lowering fit by dropping values.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_RECOMPUTEHOIST_H
#define REMAT_SCHEDULING_RECOMPUTEHOIST_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <optional>

namespace remat {
namespace sched {

/// Moves recomputations of `schedule` from the lists of the 4 steps after
/// the peak step to the peak step's list or one of the two before it
/// (after the first backward node) while that lowers the peak, until the
/// peak is within `budgetBytes`. Returns the schedule within the budget, or
/// none (no move lowers the peak, `maxEvaluations` simulations spent, or
/// `schedule` does not simulate). A schedule within the budget already is
/// returned as it is. `evaluations`, if given, receives the simulations
/// spent.
std::optional<Schedule> hoistToBudget(const Graph &graph, Schedule schedule,
                                      int64_t budgetBytes,
                                      unsigned maxEvaluations,
                                      unsigned *evaluations = nullptr);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_RECOMPUTEHOIST_H
