//===- Plan.cpp - A strategy's schedule with its simulation ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Plan.h"

#include <chrono>

using namespace remat::sched;

llvm::Expected<PlanResult>
remat::sched::evaluatePlan(const Graph &graph, std::string strategy,
                           std::string detail, const ScheduleBuilder &builder) {
  auto start = std::chrono::steady_clock::now();
  Schedule schedule = builder(graph);
  auto end = std::chrono::steady_clock::now();
  SimResult sim;
  if (std::optional<std::string> error = simulate(graph, schedule, sim))
    return llvm::createStringError(
        strategy + (detail.empty() ? "" : " (" + detail + ")") + ": " + *error);
  PlanResult plan;
  plan.strategy = std::move(strategy);
  plan.detail = std::move(detail);
  plan.schedule = std::move(schedule);
  plan.sim = sim;
  plan.planSeconds = std::chrono::duration<double>(end - start).count();
  return plan;
}

const PlanResult *remat::sched::leastPeak(const std::vector<PlanResult> &plans) {
  const PlanResult *best = nullptr;
  for (const PlanResult &p : plans)
    if (!best || p.sim.peakBytes < best->sim.peakBytes ||
        (p.sim.peakBytes == best->sim.peakBytes &&
         p.sim.recomputeCost < best->sim.recomputeCost))
      best = &p;
  return best;
}
