//===- BudgetDriver.cpp - Choosing a plan under a memory budget -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/BudgetDriver.h"
#include "remat/Scheduling/Strategies.h"

#include <algorithm>

using namespace remat::sched;

std::vector<PlanResult> remat::sched::defaultCandidates(const Graph &graph) {
  std::vector<PlanResult> plans;
  auto add = [&](std::string strategy, std::string detail,
                 const ScheduleBuilder &builder) {
    PlanResult plan;
    if (!evaluatePlan(graph, std::move(strategy), std::move(detail), builder,
                      plan))
      plans.push_back(std::move(plan));
  };
  add("store-all", "", storeAll);
  add("sqrt", "segments=" + std::to_string(sqrtNSegments(graph)), sqrtN);
  std::vector<int64_t> grid = greedyThresholdGrid(graph);
  for (int64_t threshold : grid)
    add("greedy", "threshold=" + std::to_string(threshold),
        [threshold](const Graph &g) { return greedy(g, threshold); });
  // The refined optimum of greedySearch, if it lies off the grid.
  GreedySearchResult search = greedySearch(graph);
  if (!std::binary_search(grid.begin(), grid.end(), search.threshold))
    add("greedy", "threshold=" + std::to_string(search.threshold),
        [&search](const Graph &) { return search.schedule; });
  return plans;
}

std::optional<int64_t>
remat::sched::minFeasiblePeak(const std::vector<PlanResult> &candidates) {
  std::optional<int64_t> best;
  for (const PlanResult &plan : candidates)
    if (!best || plan.sim.peakBytes < *best)
      best = plan.sim.peakBytes;
  return best;
}

static std::string label(const PlanResult &plan) {
  return plan.strategy + (plan.detail.empty() ? "" : " (" + plan.detail + ")");
}

BudgetDecision
remat::sched::selectForBudget(const std::vector<PlanResult> &candidates,
                              int64_t budgetBytes) {
  BudgetDecision decision;
  const PlanResult *chosen = nullptr, *smallest = nullptr;
  for (const PlanResult &plan : candidates) {
    if (!smallest || plan.sim.peakBytes < smallest->sim.peakBytes)
      smallest = &plan;
    if (plan.sim.peakBytes > budgetBytes)
      continue;
    if (!chosen || plan.sim.recomputeCost < chosen->sim.recomputeCost ||
        (plan.sim.recomputeCost == chosen->sim.recomputeCost &&
         plan.sim.peakBytes < chosen->sim.peakBytes))
      chosen = &plan;
  }
  if (!smallest) {
    decision.message = "no candidate plan";
    return decision;
  }
  decision.minPeakBytes = smallest->sim.peakBytes;
  if (chosen) {
    decision.feasible = true;
    decision.plan = *chosen;
    decision.message = label(*chosen) + " fits the budget of " +
                       std::to_string(budgetBytes) + " bytes with peak " +
                       std::to_string(chosen->sim.peakBytes) + " bytes";
    return decision;
  }
  decision.plan = *smallest;
  decision.message = "no plan fits the budget of " +
                     std::to_string(budgetBytes) +
                     " bytes; the smallest activation peak remat can meet is " +
                     std::to_string(smallest->sim.peakBytes) + " bytes (" +
                     label(*smallest) + ")";
  return decision;
}

BudgetDecision
remat::sched::budgetDriver(const Graph &graph, int64_t budgetBytes,
                           const std::vector<PlanResult> &extra) {
  std::vector<PlanResult> candidates = defaultCandidates(graph);
  candidates.insert(candidates.end(), extra.begin(), extra.end());
  return selectForBudget(candidates, budgetBytes);
}
