//===- Algorithms.h - The planner's strategies ------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One free function per strategy of the registry (Planner.h): each takes a
/// `PlanRequest` (graph, options, what has been computed for the graph so
/// far) and returns its candidate plans or an `llvm::Error` saying why it
/// declines the graph. The algorithms they run (Strategies.h, Chain.h,
/// Revolve.h, ChainOptimal.h, MinCut.h, Milp.h, ForwardOnly.h) are memoized
/// in a `PlanCache`, so that `auto`, which collects the plans of every
/// strategy, runs each algorithm once per graph and parameter.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_ALGORITHMS_H
#define REMAT_SCHEDULING_ALGORITHMS_H

#include "remat/Scheduling/Planner.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// The results of the algorithms run on one graph, by algorithm and
/// parameter. Each runs at most once per key; a failure (the algorithm
/// declined the graph) is remembered with its message.
class PlanCache {
public:
  explicit PlanCache(const Graph &graph) : graph(graph) {}
  PlanCache(const PlanCache &) = delete;
  PlanCache &operator=(const PlanCache &) = delete;

  const Graph &getGraph() const { return graph; }

  /// What an algorithm produced: its plans, or why it declined (an empty
  /// message declines without a note), and the parameters it chose or
  /// computed (greedy search: its threshold; the threshold grid: its
  /// thresholds; the stage chain: the number of stages).
  struct Entry {
    std::vector<PlanResult> plans;
    std::optional<std::string> error;
    std::vector<int64_t> parameters;
  };

  /// The entry of `algorithm` at `parameter`, running `compute` the first
  /// time and counting that run under `algorithm`.
  const Entry &get(llvm::StringRef algorithm, llvm::StringRef parameter,
                   llvm::function_ref<Entry()> compute);

  /// Runs an uncached algorithm (the MILP, whose result depends on its warm
  /// start and time limit), counting the run.
  void countRun(llvm::StringRef algorithm) { ++runs[algorithm.str()]; }

  /// How many times each algorithm ran.
  const std::map<std::string, unsigned> &getRuns() const { return runs; }

private:
  const Graph &graph;
  std::map<std::string, Entry> entries;
  std::map<std::string, unsigned> runs;
};

/// One planning request: the options, the cache of the graph, and notes on
/// what declined the graph along the way.
class PlanRequest {
public:
  PlanRequest(PlanCache &cache, PlannerOptions options)
      : cache(cache), options(std::move(options)) {}

  const Graph &getGraph() const { return cache.getGraph(); }
  const PlannerOptions &getOptions() const { return options; }
  PlanCache &getCache() { return cache; }

  /// Notes on strategies and algorithms that declined the graph.
  std::vector<std::string> notes;

  /// `auto`'s candidates for this graph and budget where the caller planned
  /// them already (the planner's `milp` on a graph with late forward ops,
  /// which plans `auto` first): `planMilp`'s warm starts, instead of
  /// planning them again within the MILP's time.
  std::optional<std::vector<PlanResult>> autoStarts;

  /// Records `err` as a note (consuming it; an empty message adds none).
  void note(llvm::Error err);

private:
  PlanCache &cache;
  PlannerOptions options;
};

//===----------------------------------------------------------------------===//
// The strategies of the registry (PlanFn)
//===----------------------------------------------------------------------===//

/// Every strategy's plans and the budget-specific ones, from which the budget
/// driver chooses; on a forward-only graph, `planForwardMinPeak`.
llvm::Expected<std::vector<PlanResult>> planAuto(PlanRequest &request);
/// Keeps every value.
llvm::Expected<std::vector<PlanResult>> planStoreAll(PlanRequest &request);
/// Chen's sqrt(n) segmentation.
llvm::Expected<std::vector<PlanResult>> planSqrt(PlanRequest &request);
/// Chen's greedy at `threshold`, or the search over the threshold.
llvm::Expected<std::vector<PlanResult>> planGreedy(PlanRequest &request);
/// The logarithmic chain schedule.
llvm::Expected<std::vector<PlanResult>> planLogN(PlanRequest &request);
/// Revolve with `slots`, or the most slots within the budget, or sqrt(#stages).
llvm::Expected<std::vector<PlanResult>> planRevolve(PlanRequest &request);
/// The heterogeneous-chain optimum at the budget (without one: at the memory
/// of sqrt(n), or the chain model's least memory when that is below it).
llvm::Expected<std::vector<PlanResult>> planChainOpt(PlanRequest &request);
/// The forward-only least-peak search (within the budget, if one is given).
llvm::Expected<std::vector<PlanResult>>
planForwardMinPeak(PlanRequest &request);
/// The exact MILP, warm-started from the budget driver's heuristic plans.
llvm::Expected<std::vector<PlanResult>> planMilp(PlanRequest &request);
/// Every plan of the min-cut sweep.
llvm::Expected<std::vector<PlanResult>> planMinCut(PlanRequest &request);

//===----------------------------------------------------------------------===//
// Building blocks shared by the strategies and the entry points
//===----------------------------------------------------------------------===//

/// Store-all (memoized).
llvm::Expected<PlanResult> storeAllPlan(PlanRequest &request);

/// The forward-only least-peak search at `budget` (memoized).
PlanResult forwardMinPeakPlan(PlanRequest &request, int64_t budget);

/// One plan per strategy with default parameters in the graph's own order
/// (`planAllStrategies` without the re-sequencing).
std::vector<PlanResult> planAllInOrder(PlanRequest &request);

/// `auto`'s candidates for the options' budget (without the extra frontier
/// plans a recompute limit brings).
std::vector<PlanResult> autoCandidates(PlanRequest &request);

/// `auto`'s search within the options' budget (BudgetSearch.h) on `graph`
/// in its input order with its late forward nodes unpinned (Phases.h): from
/// the cheapest of `candidates` within the budget (plans of the
/// `pinLateForward` graph, whose schedules keep the input's node indices)
/// and from the lower bound's cut on `graph` (half the step evaluations of
/// the pinned order's cut seeds), where kept-set moves may also
/// drop a late forward value and recompute it before its backward readers
/// (`lowerKeptSet`). Returns the plans that recompute less than the
/// cheapest candidate within the budget, each simulated on `graph`; none
/// without a budget, without late forward nodes or with `budgetSearch` off.
std::vector<PlanResult>
lateForwardCandidates(const Graph &graph,
                      const std::vector<PlanResult> &candidates,
                      const PlannerOptions &options);

/// `autoCandidates` without a budget, plus Revolve and the chain optimum at
/// budgets of 0.2 .. 0.9 of store-all's peak.
std::vector<PlanResult> frontierCandidates(PlanRequest &request);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_ALGORITHMS_H
