//===- Plan.h - A strategy's schedule with its simulation -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_PLAN_H
#define REMAT_SCHEDULING_PLAN_H

#include "remat/Scheduling/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// The strategy names, as spelled in pass options and `PlanResult::strategy`.
/// The planner's registry (Planner.h, `getStrategies`) maps each to its
/// algorithm; code that names a strategy uses these constants.
namespace strategy {
inline constexpr llvm::StringLiteral kAuto = "auto";
inline constexpr llvm::StringLiteral kStoreAll = "store-all";
inline constexpr llvm::StringLiteral kSqrt = "sqrt";
inline constexpr llvm::StringLiteral kGreedy = "greedy";
inline constexpr llvm::StringLiteral kLogN = "logn";
inline constexpr llvm::StringLiteral kRevolve = "revolve";
inline constexpr llvm::StringLiteral kChainOpt = "chain-opt";
inline constexpr llvm::StringLiteral kForwardMinPeak = "forward-min-peak";
inline constexpr llvm::StringLiteral kMilp = "milp";
inline constexpr llvm::StringLiteral kMinCut = "mincut";
} // namespace strategy

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
  /// Branch-and-bound nodes the solver explored (all its solves together).
  int64_t nodes = 0;
};

/// A lower bound on the recompute of every schedule within the budget
/// (LowerBound.h), attached to the chosen plan on request
/// (`PlannerOptions::boundSeconds`).
struct BoundStats {
  /// The bound, in the units of the plan's recompute cost.
  double recomputeCost = 0;
  /// 100 (plan recompute - bound) / plan recompute (0 when the plan
  /// recomputes nothing): the plan is proven within this much of optimal.
  double gapPercent = 0;
  double seconds = 0;
  /// Every step that could raise the bound was evaluated in time.
  bool complete = true;
};

/// A candidate plan: which strategy built it, with which parameter, the
/// schedule, its exact simulation and the time spent planning it.
struct PlanResult {
  /// Strategy name, one of the `strategy::k...` constants.
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
  /// Set on the chosen plan when a lower bound was asked for.
  std::optional<BoundStats> bound;
};

/// The plan of `plans` with the least peak (ties: least recompute); null
/// when `plans` is empty.
const PlanResult *leastPeak(const std::vector<PlanResult> &plans);

/// Builds a schedule of `graph`.
using ScheduleBuilder = std::function<Schedule(const Graph &)>;

/// Runs `builder` on `graph`, timing it, and simulates the schedule: the
/// plan, or an error with simulate's message (prefixed by the strategy and
/// detail) if the schedule is malformed.
llvm::Expected<PlanResult> evaluatePlan(const Graph &graph,
                                        std::string strategy,
                                        std::string detail,
                                        const ScheduleBuilder &builder);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_PLAN_H
