//===- BudgetSearch.cpp - Less recompute within a budget ------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/BudgetSearch.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/KeptSetSearch.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>

using namespace remat::sched;

namespace {

/// A lowered kept set and its simulation.
struct Evaluated {
  Schedule schedule;
  SimResult sim;
  /// Live bytes of each step (`liveBytesTrace`).
  std::vector<int64_t> steps;
};

/// Lowers and simulates kept sets, counting the evaluations against a limit
/// (one Simulator: the graph is validated once, not per evaluation).
class Evaluator {
public:
  Evaluator(const Graph &graph, unsigned limit)
      : graph(graph), simulator(graph), limit(limit) {}

  bool exhausted() const { return count >= limit; }
  unsigned getCount() const { return count; }

  /// False if the limit is reached or the lowering does not simulate (only
  /// on an invalid graph).
  bool evaluate(const std::vector<bool> &kept, Evaluated &out) {
    if (exhausted())
      return false;
    ++count;
    out.schedule = lowerKeptSet(graph, kept);
    return !simulator.liveBytesTrace(out.schedule, out.sim, out.steps);
  }

private:
  const Graph &graph;
  Simulator simulator;
  unsigned limit;
  unsigned count = 0;
};

} // namespace

/// The nodes `schedule` recomputes that a move may keep, the most expensive
/// first (ties: lower index first, so the order is deterministic).
static std::vector<unsigned> recomputedNodes(const Graph &graph,
                                             const Schedule &schedule) {
  std::vector<bool> seen(graph.size(), false);
  std::vector<unsigned> result;
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned v : list)
      if (!seen[v] && !isAlwaysKept(graph.nodes[v])) {
        seen[v] = true;
        result.push_back(v);
      }
  llvm::sort(result, [&](unsigned a, unsigned b) {
    double ca = graph.nodes[a].cost, cb = graph.nodes[b].cost;
    return ca != cb ? ca > cb : a < b;
  });
  return result;
}

/// The kept values a move may drop to relieve step `step` of `schedule`:
/// kept forward values (not always kept, not `except`) live during that
/// step, the most bytes per unit of cost first.
static std::vector<unsigned> keptLiveAt(const Graph &graph,
                                        const std::vector<bool> &kept,
                                        const Schedule &schedule,
                                        unsigned step, unsigned except) {
  unsigned n = graph.size();
  std::vector<unsigned> lastUse = lastReadSteps(graph, schedule);
  std::vector<unsigned> live;
  for (unsigned v = 0; v != n; ++v) {
    const Node &node = graph.nodes[v];
    if (v == except || node.backward || !kept[v] || isAlwaysKept(node) ||
        node.bytes == 0)
      continue;
    if (v <= step && step <= lastUse[v])
      live.push_back(v);
  }
  // Bytes per cost, compared by cross-multiplication (cost may be 0).
  llvm::sort(live, [&](unsigned a, unsigned b) {
    const Node &x = graph.nodes[a], &y = graph.nodes[b];
    double lhs = double(x.bytes) * y.cost, rhs = double(y.bytes) * x.cost;
    if (lhs != rhs)
      return lhs > rhs;
    return x.bytes != y.bytes ? x.bytes > y.bytes : a < b;
  });
  return live;
}

/// Bytes by which the steps of `e` exceed `budget`, summed over the steps.
static double excessOver(const Evaluated &e, int64_t budget) {
  double excess = 0;
  for (int64_t bytes : e.steps)
    if (bytes > budget)
      excess += double(bytes - budget);
  return excess;
}

/// Repairs `over` (the plan of `kept`, which keeps `added` and exceeds the
/// budget) by dropping kept values live at its peak step, one at a time:
/// of the first `maxEjections` candidates (most bytes per unit of cost
/// first) the drop that removes the most excess bytes per unit of added
/// recompute, until the plan fits the budget. Fails when no candidate
/// lowers the excess, the recompute reaches `limit`, or after `maxDrops`
/// drops. On success `kept` holds the move and `out` its plan; on failure
/// `kept` is as it came.
static bool repair(const Graph &graph, std::vector<bool> &kept,
                   Evaluated over, unsigned added, int64_t budget, double limit,
                   const BudgetSearchOptions &options, Evaluator &evaluator,
                   Evaluated &out) {
  std::vector<unsigned> dropped;
  double excess = excessOver(over, budget);
  for (unsigned drop = 0; drop != options.maxDrops; ++drop) {
    std::vector<unsigned> cands = keptLiveAt(graph, kept, over.schedule,
                                             over.sim.peakStep, added);
    if (cands.size() > options.maxEjections)
      cands.resize(options.maxEjections);
    std::optional<Evaluated> best;
    unsigned bestNode = 0;
    double bestExcess = 0, bestRate = 0;
    for (unsigned u : cands) {
      kept[u] = false;
      Evaluated trial;
      bool ok = evaluator.evaluate(kept, trial);
      kept[u] = true;
      if (!ok)
        break;
      if (trial.sim.recomputeCost >= limit)
        continue;
      double trialExcess = excessOver(trial, budget);
      if (trialExcess >= excess)
        continue;
      double addedCost =
          std::max(trial.sim.recomputeCost - over.sim.recomputeCost, 0.0);
      // A drop that fits ends the repair: take the cheapest such drop.
      double rate = trialExcess == 0
                        ? std::numeric_limits<double>::infinity()
                        : (excess - trialExcess) / (addedCost + 1e-9);
      bool take = !best;
      if (!take && rate != bestRate)
        take = rate > bestRate;
      else if (!take)
        take = trial.sim.recomputeCost < best->sim.recomputeCost;
      if (take) {
        bestNode = u;
        bestExcess = trialExcess;
        bestRate = rate;
        best = std::move(trial);
      }
    }
    if (!best)
      break;
    kept[bestNode] = false;
    dropped.push_back(bestNode);
    excess = bestExcess;
    over = std::move(*best);
    if (over.sim.peakBytes <= budget) {
      out = std::move(over);
      return true;
    }
  }
  for (unsigned u : dropped)
    kept[u] = true;
  return false;
}

/// `reduceRecomputeInBudget` on a shared evaluator.
static std::optional<std::vector<bool>>
reduce(const Graph &graph, std::vector<bool> kept, int64_t budget,
       const BudgetSearchOptions &options, Evaluator &evaluator) {
  Evaluated current;
  if (!evaluator.evaluate(kept, current) || current.sim.peakBytes > budget)
    return std::nullopt;
  bool improved = false;
  for (bool progress = true; progress && !evaluator.exhausted();) {
    progress = false;
    for (unsigned v : recomputedNodes(graph, current.schedule)) {
      if (evaluator.exhausted())
        break;
      if (kept[v])
        continue; // Kept by an earlier move of this pass.
      kept[v] = true;
      Evaluated trial;
      if (!evaluator.evaluate(kept, trial)) {
        kept[v] = false;
        break;
      }
      double limit = current.sim.recomputeCost;
      bool take = false;
      if (trial.sim.recomputeCost < limit) {
        if (trial.sim.peakBytes <= budget) {
          take = true;
        } else {
          Evaluated repaired;
          take = repair(graph, kept, trial, v, budget, limit, options,
                        evaluator, repaired);
          if (take)
            trial = std::move(repaired);
        }
      }
      if (!take) {
        kept[v] = false;
        continue;
      }
      assert(trial.sim.peakBytes <= budget &&
             trial.sim.recomputeCost < current.sim.recomputeCost);
      current = std::move(trial);
      improved = progress = true;
    }
  }
  if (!improved)
    return std::nullopt;
  return kept;
}

std::optional<std::vector<bool>> remat::sched::reduceRecomputeInBudget(
    const Graph &graph, std::vector<bool> kept, int64_t budgetBytes,
    const BudgetSearchOptions &options, unsigned *evaluations) {
  assert(kept.size() == graph.size() && "one entry per node");
  Evaluator evaluator(graph, options.maxEvaluations);
  std::optional<std::vector<bool>> result =
      reduce(graph, std::move(kept), budgetBytes, options, evaluator);
  if (evaluations)
    *evaluations = evaluator.getCount();
  return result;
}

std::vector<PlanResult>
remat::sched::searchWithinBudget(const Graph &graph,
                                 const std::vector<PlanResult> &candidates,
                                 int64_t budgetBytes,
                                 const BudgetSearchOptions &options) {
  auto start = std::chrono::steady_clock::now();
  std::vector<KeptSetStart> starts =
      cheapestKeptSets(graph, candidates, budgetBytes, options.maxStarts);
  if (starts.empty())
    return {};
  double best = starts.front().plan->sim.recomputeCost;
  std::vector<PlanResult> out;
  for (KeptSetStart &origin : starts) {
    const PlanResult *p = origin.plan;
    std::vector<bool> &kept = origin.kept;
    BudgetSearchOptions share = options;
    share.maxEvaluations = options.maxEvaluations / options.maxStarts;
    // A start whose share is spent still gets its first evaluation.
    share.maxEvaluations = std::max(share.maxEvaluations, 1u);
    Evaluator evaluator(graph, share.maxEvaluations);
    std::optional<std::vector<bool>> improved =
        reduce(graph, std::move(kept), budgetBytes, share, evaluator);
    if (!improved)
      continue;
    PlanResult plan;
    plan.strategy = p->strategy;
    plan.detail = p->detail.empty()
                      ? "local search in the budget"
                      : p->detail + ", local search in the budget";
    plan.schedule = lowerKeptSet(graph, *improved);
    if (simulate(graph, plan.schedule, plan.sim) ||
        plan.sim.peakBytes > budgetBytes || plan.sim.recomputeCost >= best)
      continue;
    out.push_back(std::move(plan));
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  for (PlanResult &p : out)
    p.planSeconds = seconds;
  return out;
}
