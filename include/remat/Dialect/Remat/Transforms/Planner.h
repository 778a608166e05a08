//===- Planner.h - strategy selection for rematerialization -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs the rematerialization strategies on a scheduling graph. Shared by the
/// rematerialize and compare-strategies passes and the benchmark.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_PLANNER_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_PLANNER_H

#include "remat/Scheduling/Plan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

/// The strategies remat implements, as spelled in pass options.
/// "auto" is the budget driver over all of them. "forward-min-peak" plans
/// forward-only graphs (ForwardOnly.h); the chain and Chen strategies need a
/// training step.
llvm::ArrayRef<llvm::StringRef> getStrategyNames();

/// Prefix of the note saying that the input order interleaves the phases
/// (not a strategy declining the graph).
inline constexpr const char *kOrderNotePrefix = "order: ";

struct PlannerOptions {
  /// One of getStrategyNames().
  std::string strategy = "auto";
  /// Activation budget in bytes; 0 means none.
  int64_t budget = 0;
  /// Revolve checkpoint slots; 0 picks the fewest slots that meet the budget
  /// (or sqrt(#stages) without a budget).
  unsigned slots = 0;
  /// Greedy threshold in bytes; 0 runs Chen's search over the threshold.
  int64_t threshold = 0;
  /// Memory slots of the heterogeneous-chain dynamic program.
  unsigned dpSlots = 500;
  /// Wall-time limit in seconds of the exact MILP (`milp`, warm-started from
  /// the best heuristic plan); `auto` gives it at most 10 s.
  double timeLimitSeconds = 60;
  /// Recompute limit as a percentage of the forward cost (< 0: none). With
  /// it the plan is the least peak among the strategy's plans within the
  /// limit (for `auto`: every plan of `planFrontier`), and within `budget`
  /// if one is given.
  double maxRecomputePercent = -1;
};

/// Outcome of planning.
struct PlannerResult {
  /// The chosen plan; unset when planning failed.
  std::optional<sched::PlanResult> plan;
  /// Why planning failed (unsupported graph shape, budget infeasible).
  std::string error;
  /// When the budget cannot be met: the smallest activation budget any
  /// strategy meets, and the strategy that meets it.
  std::optional<int64_t> minFeasibleBudget;
  std::string minFeasibleStrategy;
  /// Peak of store-all, for the report.
  int64_t storeAllPeak = 0;
  /// Every candidate tried (auto) or the one plan.
  std::vector<sched::PlanResult> candidates;
  /// Notes on strategies that declined the graph (e.g. not a chain).
  std::vector<std::string> notes;
};

/// Plans `graph` with `options`. With a budget, the result is either a plan
/// whose simulated peak is within the budget or an error with the smallest
/// feasible budget. A forward-only graph (`Graph::isForwardOnly`) is planned
/// by `forwardOnlyMinPeak` under `auto` and `forward-min-peak` (without a
/// budget: the least peak it finds, unlike a training step's `auto`, which
/// is store-all without a budget), by store-all under `store-all`; any other
/// strategy is an error naming these.
PlannerResult planRematerialization(const sched::Graph &graph,
                                    const PlannerOptions &options);

/// One plan per strategy with default parameters (for comparisons and
/// benchmarks); strategies that decline the graph are reported in `notes`.
/// On a forward-only graph: store-all and forward-min-peak (least peak).
///
/// Any topological order is planned (Phases.h): when forward nodes come after
/// the first backward node, both here and in `planRematerialization` every
/// strategy plans the input order with those nodes pinned where they are and
/// the stable forward-first re-sequencing, and the better plan is kept (for
/// each strategy here, the one with the smaller least peak); plans of the
/// re-sequencing carry
/// `PlanResult::order`, and a note starting with `kOrderNotePrefix` says so.
std::vector<sched::PlanResult>
planAllStrategies(const sched::Graph &graph, std::vector<std::string> &notes,
                  unsigned dpSlots = 500);

/// Parses a recompute limit: "30%", "30" or "12.5%" (percent of the forward
/// cost, >= 0). Empty text is no limit (-1). None if malformed.
std::optional<double> parseRecomputeLimit(llvm::StringRef text);

/// The non-dominated plans of `plans` (no other plan has a smaller or equal
/// peak and recompute cost, one of them smaller), by increasing recompute
/// and decreasing peak; among equal plans the first one.
std::vector<sched::PlanResult>
paretoFrontier(std::vector<sched::PlanResult> plans);

/// The (peak, recompute) frontier of every strategy and parameter: `auto`'s
/// candidates (the min-cut sweep included) plus Revolve and the chain
/// optimum at budgets of 0.2 .. 0.9 of store-all's peak, in the input order
/// (late forward ops pinned) and, if some are late, forward-first.
/// Monotone: choosing, for a budget, the least-recompute frontier plan
/// within it, a larger budget never gives more recompute.
std::vector<sched::PlanResult>
planFrontier(const sched::Graph &graph, std::vector<std::string> &notes,
             unsigned dpSlots = 500);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_PLANNER_H

namespace llvm {
namespace json {
class OStream;
} // namespace json
} // namespace llvm

namespace remat {
/// One line describing a plan: strategy, peak against store-all, recompute
/// cost as a percentage of the forward cost, recomputed ops, planning time.
std::string describePlan(const sched::PlanResult &plan,
                         const sched::Graph &graph, int64_t storeAllPeak);

/// Writes `plan` as a JSON object.
void writePlanJSON(llvm::json::OStream &j, const sched::PlanResult &plan,
                   const sched::Graph &graph, int64_t storeAllPeak);

/// A fixed-width table of plans, one row per plan.
std::string formatPlanTable(llvm::StringRef title,
                            llvm::ArrayRef<sched::PlanResult> plans,
                            const sched::Graph &graph, int64_t storeAllPeak);
} // namespace remat
