//===- KeptSetSearch.h - Local search on kept sets --------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A local search on the kept set of single-level checkpointing (KeptSet.h),
/// judged by the exact simulator. Cut-based selections (MinCut.h) minimise a
/// proxy, saved bytes plus weighted recompute, which misses when values are
/// live: a recomputation materialises its inputs again late in the backward
/// (recomputing a max-pool output brings back the large activation it reads),
/// and a value kept for a backward op far away is live through the peak. The
/// search fixes what the simulator sees, one node at a time.
///
/// Moves, each tried on the values live at the step of the current peak:
/// keep a recomputed value (its recomputation and the inputs it needed leave
/// the peak; the recompute cost never grows), or drop a kept one (it is
/// recomputed right before its first backward reader, after the peak; the
/// recompute cost grows). Every move is lowered (`lowerKeptSet`) and
/// simulated; the best one is taken when it improves the key (peak, then the
/// number of steps reaching the peak, then recompute) within the recompute
/// limit. Steepest descent: it stops in a local optimum, proving nothing.
/// A last pass then keeps recomputed values, most expensive first, wherever
/// that lowers the recompute without raising the peak.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_KEPTSETSEARCH_H
#define REMAT_SCHEDULING_KEPTSETSEARCH_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Plan.h"

#include <functional>
#include <limits>
#include <vector>

namespace remat {
namespace sched {

/// Limits of one search.
struct KeptSetSearchOptions {
  /// Moves whose plan recomputes more than this (in cost units) are refused.
  double maxRecomputeCost = std::numeric_limits<double>::infinity();
  /// At most this many improving moves are taken.
  unsigned maxMoves = 100;
  /// At most this many candidate moves are simulated per step (the values
  /// live at the peak, largest first).
  unsigned maxCandidates = 32;
  /// Among the improving moves take the one that saves the most peak bytes
  /// per unit of recompute added (moves adding none first) instead of the
  /// one with the least peak: a frontier that climbs in small steps.
  bool bestRate = false;
  /// At most this many recomputed values are tried in the last pass.
  unsigned maxPolishTries = 128;
  /// At most this many plans are lowered and simulated in all (each costs
  /// O(nodes + operand references)); the search stops where it is then.
  unsigned maxEvaluations = std::numeric_limits<unsigned>::max();
  /// Called with every plan the search moves to (after each improving move
  /// and each polishing step): the trade-offs passed on the way are plans
  /// of their own (a frontier).
  std::function<void(const std::vector<bool> &kept, const Schedule &,
                     const SimResult &)>
      onMove;
};

/// The outcome: the kept set, its lowered schedule and simulation.
struct KeptSetSearchResult {
  std::vector<bool> kept;
  Schedule schedule;
  SimResult sim;
  /// Improving moves taken.
  unsigned moves = 0;
  /// Plans lowered and simulated.
  unsigned evaluations = 0;
};

/// Improves `start` (one entry per node; entries of backward nodes are
/// ignored) by steepest descent. The result is never worse than `start` in
/// (peak, recompute) and recomputes at most `maxRecomputeCost` if `start`
/// does (otherwise only moves that do not add recompute are taken). The
/// graph must be valid with no forward node after a backward one (plan
/// `pinLateForward` graphs, Phases.h). Each move costs one lowering and one
/// simulation, O(nodes + operand references).
KeptSetSearchResult improveKeptSet(const Graph &graph, std::vector<bool> start,
                                   const KeptSetSearchOptions &options);

/// Moves a recomputation list to an earlier step where that lowers the
/// simulated peak: a kept-set lowering recomputes right before the first
/// reader, which may be where the backward holds the most (the exact MILP
/// recomputes earlier there). While the peak falls in the list of some step
/// k of a training graph, the list is tried before each of the `maxTries`
/// steps from the first backward node to k with the least live bytes, and
/// moved to the best if that lowers the peak (at most `maxRounds` times).
/// Every operand a moved node reads then resolves to an instance the
/// simulator accepts (Graph.h semantics), so the result is a valid schedule
/// whose `sim` is exact. Forward-only graphs and plans whose peak is not in
/// a recomputation are returned unchanged. Each try is one simulation.
Schedule hoistRecomputations(const Graph &graph, Schedule schedule,
                             SimResult &sim, unsigned maxRounds = 4,
                             unsigned maxTries = 8);

/// Spends a budget's slack on less recompute: starting from the `maxStarts`
/// cheapest plans of `candidates` within `budgetBytes` (cheapestKeptSets: a
/// forward node is kept if the plan never recomputes it), keeps recomputed
/// values, the largest cost per byte first, wherever the simulated peak
/// stays within the budget (a plan found for a smaller budget, or for the
/// least peak, usually recomputes more than the budget needs). Returns the
/// improved plans ("relaxed to the budget"), each lowered (`lowerKeptSet`)
/// and simulated; at most `maxEvaluations` lowerings and simulations in
/// all, so the work is deterministic. Plans of another op order
/// (`PlanResult::order`) are skipped. The graph must have no forward node
/// after a backward one (Phases.h).
/// A starting point of a search over kept sets: a candidate plan and its kept
/// set (every forward node the plan never recomputes).
struct KeptSetStart {
  const PlanResult *plan;
  std::vector<bool> kept;
};

/// The candidates planned in the input op order (`PlanResult::order` empty,
/// one schedule entry per node) that fit `budgetBytes` and recompute
/// something, cheapest first (stable), as kept sets: one start per distinct
/// kept set, at most `maxStarts`.
std::vector<KeptSetStart>
cheapestKeptSets(const Graph &graph, const std::vector<PlanResult> &candidates,
                 int64_t budgetBytes, unsigned maxStarts);

std::vector<PlanResult> relaxToBudget(const Graph &graph,
                                      const std::vector<PlanResult> &candidates,
                                      int64_t budgetBytes,
                                      unsigned maxStarts = 8,
                                      unsigned maxEvaluations = 4000);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_KEPTSETSEARCH_H
