//===- Plan.h - A strategy's schedule with its simulation -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_PLAN_H
#define REMAT_SCHEDULING_PLAN_H

#include "remat/Scheduling/Graph.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// What a mathematical-programming solver reported for a plan (the `milp`
/// strategy): objective and best bound in the objective's units (bytes when
/// minimising the peak, recompute cost otherwise), the relative gap between
/// them, the wall time spent and the limit it ran under.
struct SolverStats {
  bool optimal = false;
  double objective = 0;
  double bound = 0;
  double gapPercent = 0;
  double seconds = 0;
  double timeLimitSeconds = 0;
  /// The solver was given the plan of a heuristic (as its cutoff, and as
  /// the fallback result).
  bool warmStarted = false;
  /// The plan is that heuristic plan: the solver found nothing better in
  /// time, or proved nothing is.
  bool fromWarmStart = false;
};

/// A candidate plan: which strategy built it, with which parameter, the
/// schedule, its exact simulation and the time spent planning it.
struct PlanResult {
  /// Strategy name, e.g. "store-all", "sqrt", "greedy", "revolve".
  std::string strategy;
  /// Parameter of the strategy, e.g. "threshold=1048576" or "c=4".
  std::string detail;
  Schedule schedule;
  SimResult sim;
  /// Wall-clock seconds spent building the schedule (not simulating it).
  double planSeconds = 0;
  /// The op order `schedule` and `sim` refer to: empty for the graph's own
  /// order; otherwise `order[i]` is the graph index of the node at position
  /// `i` (e.g. `forwardFirstOrder`, Phases.h), which a rewriter must apply
  /// before the schedule.
  std::vector<unsigned> order;
  /// Set by solver-based strategies.
  std::optional<SolverStats> solver;
};

/// Builds a schedule of `graph`.
using ScheduleBuilder = std::function<Schedule(const Graph &)>;

/// Runs `builder` on `graph`, timing it, and simulates the schedule into
/// `plan`. Returns simulate's message if the schedule is malformed (then
/// `plan` is left unspecified).
std::optional<std::string>
evaluatePlan(const Graph &graph, std::string strategy, std::string detail,
             const ScheduleBuilder &builder, PlanResult &plan);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_PLAN_H
