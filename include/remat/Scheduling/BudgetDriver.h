//===- BudgetDriver.h - Choosing a plan under a memory budget ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Given a memory budget for activations (SimResult::peakBytes, that is,
/// excluding inputs and parameters), the driver returns the cheapest candidate
/// plan that fits, or reports the smallest budget any candidate could meet.
/// The default candidates are store-all, sqrt(n) and greedy at every threshold
/// of `greedyThresholdGrid`; callers add other strategies (e.g. the chain
/// strategies of Chain.h) as extra `PlanResult`s, see `evaluatePlan`.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_BUDGETDRIVER_H
#define REMAT_SCHEDULING_BUDGETDRIVER_H

#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// Store-all, sqrt(n), greedy for every threshold of greedyThresholdGrid and
/// the (refined) greedySearch optimum if it is off the grid, all simulated.
/// The graph must be valid.
std::vector<PlanResult> defaultCandidates(const Graph &graph);

/// The smallest simulated activation peak among `candidates`: the smallest
/// budget any of them can meet. None if `candidates` is empty.
std::optional<int64_t>
minFeasiblePeak(const std::vector<PlanResult> &candidates);

/// The driver's decision.
struct BudgetDecision {
  /// A candidate fits the budget; `plan` is it.
  bool feasible = false;
  /// The chosen plan if feasible; otherwise the plan reaching the minimal
  /// peak (unset if there were no candidates).
  std::optional<PlanResult> plan;
  /// `minFeasiblePeak` over all candidates (0 if there were none).
  int64_t minPeakBytes = 0;
  /// Human-readable verdict, e.g. for a diagnostic when infeasible.
  std::string message;
};

/// Among `candidates` whose `sim.peakBytes <= budgetBytes` (inclusive),
/// returns the one with the least recompute cost (ties: smaller peak, then
/// the earlier candidate). If none fits, returns `feasible = false` with the
/// minimal peak and the plan reaching it.
BudgetDecision selectForBudget(const std::vector<PlanResult> &candidates,
                               int64_t budgetBytes);

/// `selectForBudget` over `defaultCandidates(graph)` followed by `extra`.
BudgetDecision budgetDriver(const Graph &graph, int64_t budgetBytes,
                            const std::vector<PlanResult> &extra = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_BUDGETDRIVER_H
