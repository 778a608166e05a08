//===- BudgetSearch.cpp - Less recompute within a budget ------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/BudgetSearch.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/KeptSetSearch.h"
#include "remat/Scheduling/RecomputeHoist.h"

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
  bool evaluate(const KeptChoice &choice, Evaluated &out) {
    if (exhausted())
      return false;
    ++count;
    out.schedule = lowerKeptChoice(graph, choice);
    return !simulator.liveBytesTrace(out.schedule, out.sim, out.steps);
  }

private:
  const Graph &graph;
  Simulator simulator;
  unsigned limit;
  unsigned count = 0;
};

} // namespace

Schedule remat::sched::lowerKeptChoice(const Graph &graph,
                                       const KeptChoice &choice) {
  return lowerKeptSet(graph, choice.kept, choice.refresh, choice.refreshGap);
}

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

/// The dropped values a move may refresh (recompute at every reader,
/// `lowerKeptSet`) to relieve step `step` of `schedule`: values not yet
/// refreshed with a recomputed instance live during that step and read at
/// some other step too, the most bytes per unit of cost first.
static std::vector<unsigned> refreshableAt(const Graph &graph,
                                           const KeptChoice &choice,
                                           const Schedule &schedule,
                                           unsigned step) {
  unsigned n = graph.size();
  constexpr unsigned kNone = ~0u;
  // The start and last read of each value's current recomputed instance.
  std::vector<unsigned> start(n, kNone), lastRead(n, kNone);
  std::vector<bool> chosen(n, false);
  std::vector<unsigned> result;
  auto close = [&](unsigned v) {
    if (start[v] == kNone || chosen[v] || lastRead[v] == kNone)
      return;
    if (start[v] <= step && step <= lastRead[v] && start[v] < lastRead[v]) {
      chosen[v] = true;
      result.push_back(v);
    }
  };
  auto read = [&](unsigned v, unsigned k) {
    if (start[v] != kNone)
      lastRead[v] = k;
  };
  for (unsigned k = 0; k != n; ++k) {
    for (unsigned u : schedule.recomputeBefore[k]) {
      for (unsigned v : graph.nodes[u].operands)
        read(v, k);
      close(u);
      start[u] = k;
      lastRead[u] = kNone;
    }
    for (unsigned v : graph.nodes[k].operands)
      read(v, k);
  }
  for (unsigned v = 0; v != n; ++v)
    close(v);
  llvm::erase_if(result, [&](unsigned v) {
    const Node &node = graph.nodes[v];
    return choice.refresh[v] || choice.kept[v] || isAlwaysKept(node) ||
           node.bytes == 0;
  });
  llvm::sort(result, [&](unsigned a, unsigned b) {
    const Node &x = graph.nodes[a], &y = graph.nodes[b];
    double lhs = double(x.bytes) * y.cost, rhs = double(y.bytes) * x.cost;
    if (lhs != rhs)
      return lhs > rhs;
    return x.bytes != y.bytes ? x.bytes > y.bytes : a < b;
  });
  return result;
}

/// Bytes by which the steps of `e` exceed `budget`, summed over the steps.
static double excessOver(const Evaluated &e, int64_t budget) {
  double excess = 0;
  for (int64_t bytes : e.steps)
    if (bytes > budget)
      excess += double(bytes - budget);
  return excess;
}

/// `u` and, transitively, the operands `joins` accepts that are forward,
/// not always kept and cost at most `kChainCostRatio` times as much as `u`.
template <typename Joins>
static std::vector<unsigned> cheapChainOf(const Graph &graph, unsigned u,
                                          Joins joins) {
  constexpr double kChainCostRatio = 4;
  double cap = kChainCostRatio * graph.nodes[u].cost;
  std::vector<unsigned> chain{u}, work{u};
  while (!work.empty()) {
    unsigned v = work.back();
    work.pop_back();
    for (unsigned w : graph.nodes[v].operands) {
      const Node &node = graph.nodes[w];
      if (node.backward || !joins(w) || isAlwaysKept(node) ||
          node.cost > cap || llvm::is_contained(chain, w))
        continue;
      chain.push_back(w);
      work.push_back(w);
    }
  }
  return chain;
}

/// The kept values a chain drop of `u` clears: `u` and, transitively, its
/// cheap kept operands (the cheap ops between `u` and the expensive op that
/// feeds them, as a batch norm and its activation between two
/// convolutions), so that `u` is recomputed from the expensive op's output
/// instead of keeping its inputs live.
static std::vector<unsigned> chainOf(const Graph &graph,
                                     const std::vector<bool> &kept,
                                     unsigned u) {
  return cheapChainOf(graph, u, [&](unsigned w) { return bool(kept[w]); });
}

/// The dropped values a chain refresh of `u` refreshes: `u` and,
/// transitively, its cheap dropped operands (not kept, not yet refreshed).
/// Refreshing `u` alone only moves its bytes to its inputs, which its later
/// recomputations then need held: a recomputed residual stream (each block
/// output brought back for the next block's recomputation and held to its
/// own backward reader) piles up at the step that recomputes it unless the
/// whole cheap chain is recomputed at every reader.
static std::vector<unsigned>
refreshChainOf(const Graph &graph, const KeptChoice &choice, unsigned u) {
  return cheapChainOf(graph, u, [&](unsigned w) {
    return !choice.kept[w] && !choice.refresh[w];
  });
}

/// Repairs `over` (the plan of `choice`, which keeps `added` and exceeds
/// the budget) one change at a time, each relieving its peak step: dropping
/// a kept value live there, or refreshing a recomputed value whose instance
/// is live there (`refreshableAt`). Of the first `maxEjections` candidates
/// of each kind (most bytes per unit of cost first) the change that removes
/// the most excess bytes per unit of added recompute is taken, until the
/// plan fits the budget. Fails when no candidate lowers the excess, the
/// recompute reaches `limit`, or after `maxDrops` changes. On success
/// `choice` holds the move and `out` its plan; on failure `choice` is as it
/// came.
static bool repair(const Graph &graph, KeptChoice &choice, Evaluated over,
                   unsigned added, int64_t budget, double limit,
                   const BudgetSearchOptions &options, Evaluator &evaluator,
                   Evaluated &out) {
  /// A change: drop `nodes` (clear their kept entries) or refresh them (set
  /// their refresh entries).
  struct Change {
    std::vector<unsigned> nodes;
    bool refresh;
  };
  auto apply = [&](const Change &c, bool on) {
    for (unsigned u : c.nodes) {
      if (c.refresh)
        choice.refresh[u] = on;
      else
        choice.kept[u] = !on;
    }
  };
  std::vector<Change> taken;
  double excess = excessOver(over, budget);
  for (unsigned step = 0; step != options.maxDrops; ++step) {
    std::vector<unsigned> drops = keptLiveAt(graph, choice.kept, over.schedule,
                                             over.sim.peakStep, added);
    if (drops.size() > options.maxEjections)
      drops.resize(options.maxEjections);
    // Single drops first; the larger changes only when no single drop
    // lowers the excess.
    std::vector<Change> cands;
    for (unsigned u : drops)
      cands.push_back({{u}, false});
    std::optional<Evaluated> best;
    size_t bestIndex = 0;
    double bestExcess = 0, bestRate = 0;
    for (bool larger : {false, true}) {
      if (larger) {
        if (best)
          break;
        cands.clear();
        if (options.chains)
          for (unsigned u : drops) {
            std::vector<unsigned> chain = chainOf(graph, choice.kept, u);
            if (chain.size() > 1)
              cands.push_back({std::move(chain), false});
          }
        if (options.refresh) {
          std::vector<unsigned> refreshes =
              refreshableAt(graph, choice, over.schedule, over.sim.peakStep);
          if (refreshes.size() > options.maxEjections)
            refreshes.resize(options.maxEjections);
          for (unsigned u : refreshes)
            cands.push_back({{u}, true});
          if (options.refreshChains)
            for (unsigned u : refreshes) {
              std::vector<unsigned> chain = refreshChainOf(graph, choice, u);
              if (chain.size() > 1)
                cands.push_back({std::move(chain), true});
            }
        }
      }
      for (size_t i = 0; i != cands.size(); ++i) {
        apply(cands[i], true);
        Evaluated trial;
        bool ok = evaluator.evaluate(choice, trial);
        apply(cands[i], false);
        if (!ok)
          break;
        if (trial.sim.recomputeCost >= limit)
          continue;
        double trialExcess = excessOver(trial, budget);
        if (trialExcess >= excess)
          continue;
        double addedCost =
            std::max(trial.sim.recomputeCost - over.sim.recomputeCost, 0.0);
        // A change that fits ends the repair: take the cheapest such change.
        double rate = trialExcess == 0
                          ? std::numeric_limits<double>::infinity()
                          : (excess - trialExcess) / (addedCost + 1e-9);
        bool take = !best;
        if (!take && rate != bestRate)
          take = rate > bestRate;
        else if (!take)
          take = trial.sim.recomputeCost < best->sim.recomputeCost;
        if (take) {
          bestIndex = i;
          bestExcess = trialExcess;
          bestRate = rate;
          best = std::move(trial);
        }
      }
    }
    if (!best)
      break;
    apply(cands[bestIndex], true);
    taken.push_back(std::move(cands[bestIndex]));
    excess = bestExcess;
    over = std::move(*best);
    if (over.sim.peakBytes <= budget) {
      out = std::move(over);
      return true;
    }
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it)
    apply(*it, false);
  return false;
}

/// `reduceRecomputeInBudget` on a shared evaluator.
static std::optional<KeptChoice> reduce(const Graph &graph, KeptChoice choice,
                                        int64_t budget,
                                        const BudgetSearchOptions &options,
                                        Evaluator &evaluator) {
  Evaluated current;
  if (!evaluator.evaluate(choice, current) || current.sim.peakBytes > budget)
    return std::nullopt;
  bool improved = false;
  for (bool progress = true; progress && !evaluator.exhausted();) {
    progress = false;
    for (unsigned v : recomputedNodes(graph, current.schedule)) {
      if (evaluator.exhausted())
        break;
      if (choice.kept[v])
        continue; // Kept by an earlier move of this pass.
      choice.kept[v] = true;
      bool wasRefreshed = choice.refresh[v];
      choice.refresh[v] = false;
      Evaluated trial;
      if (!evaluator.evaluate(choice, trial)) {
        choice.kept[v] = false;
        choice.refresh[v] = wasRefreshed;
        break;
      }
      double limit = current.sim.recomputeCost;
      bool take = false;
      if (trial.sim.recomputeCost < limit) {
        if (trial.sim.peakBytes <= budget) {
          take = true;
        } else {
          Evaluated repaired;
          take = repair(graph, choice, trial, v, budget, limit, options,
                        evaluator, repaired);
          if (take)
            trial = std::move(repaired);
        }
      }
      if (!take) {
        choice.kept[v] = false;
        choice.refresh[v] = wasRefreshed;
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
  return choice;
}

std::optional<KeptChoice> remat::sched::reduceRecomputeInBudget(
    const Graph &graph, std::vector<bool> kept, int64_t budgetBytes,
    const BudgetSearchOptions &options, unsigned *evaluations) {
  assert(kept.size() == graph.size() && "one entry per node");
  Evaluator evaluator(graph, options.maxEvaluations);
  KeptChoice start{std::move(kept), std::vector<bool>(graph.size(), false),
                   options.refreshGap};
  std::optional<KeptChoice> result =
      reduce(graph, std::move(start), budgetBytes, options, evaluator);
  if (evaluations)
    *evaluations = evaluator.getCount();
  return result;
}

/// `fitToBudget` on a shared evaluator.
static std::optional<KeptChoice> fit(const Graph &graph, KeptChoice choice,
                                     int64_t budget,
                                     const BudgetSearchOptions &options,
                                     unsigned maxChanges,
                                     Evaluator &evaluator) {
  Evaluated current;
  if (!evaluator.evaluate(choice, current))
    return std::nullopt;
  if (current.sim.peakBytes <= budget)
    return choice;
  BudgetSearchOptions changes = options;
  changes.maxDrops = maxChanges;
  Evaluated fitted;
  if (!repair(graph, choice, std::move(current), /*added=*/~0u, budget,
              std::numeric_limits<double>::infinity(), changes, evaluator,
              fitted))
    return std::nullopt;
  return choice;
}

std::optional<KeptChoice>
remat::sched::fitToBudget(const Graph &graph, KeptChoice choice,
                          int64_t budgetBytes,
                          const BudgetSearchOptions &options,
                          unsigned maxChanges, unsigned *evaluations) {
  assert(choice.kept.size() == graph.size() &&
         choice.refresh.size() == graph.size() && "one entry per node");
  Evaluator evaluator(graph, options.maxEvaluations);
  choice.refreshGap = options.refreshGap;
  std::optional<KeptChoice> result =
      fit(graph, std::move(choice), budgetBytes, options, maxChanges,
          evaluator);
  if (evaluations)
    *evaluations = evaluator.getCount();
  return result;
}

/// Changes the repair of a seed may make to fit it to the budget.
static constexpr unsigned kSeedFitChanges = 64;

/// Simulations of `hoistToBudget` per seed whose lowering exceeds the
/// budget.
static constexpr unsigned kSeedHoistEvaluations = 32;

std::vector<PlanResult> remat::sched::searchWithinBudget(
    const Graph &graph, const std::vector<PlanResult> &candidates,
    int64_t budgetBytes, const BudgetSearchOptions &options,
    const std::vector<KeptSeed> &seeds) {
  auto start = std::chrono::steady_clock::now();
  std::vector<KeptSetStart> starts =
      cheapestKeptSets(graph, candidates, budgetBytes, options.maxStarts);
  if (starts.empty() && seeds.empty())
    return {};
  // A plan must recompute less than the cheapest start, or without one (a
  // seed's plan), than every candidate within the budget.
  double best = std::numeric_limits<double>::infinity();
  if (!starts.empty())
    best = starts.front().plan->sim.recomputeCost;
  else
    for (const PlanResult &p : candidates)
      if (p.sim.peakBytes <= budgetBytes)
        best = std::min(best, p.sim.recomputeCost);
  struct Origin {
    KeptChoice choice;
    std::string strategy, detail;
    bool seed;
  };
  std::vector<Origin> origins;
  for (KeptSetStart &s : starts)
    origins.push_back({{std::move(s.kept), std::vector<bool>(graph.size())},
                       s.plan->strategy,
                       s.plan->detail,
                       false});
  for (const KeptSeed &s : seeds)
    origins.push_back({s.choice, s.strategy, s.detail, true});
  std::vector<PlanResult> out;
  for (Origin &origin : origins) {
    BudgetSearchOptions share = options;
    share.maxEvaluations = options.maxEvaluations / options.maxStarts;
    // A start whose share is spent still gets its first evaluation.
    share.maxEvaluations = std::max(share.maxEvaluations, 1u);
    KeptChoice choice = std::move(origin.choice);
    choice.refreshGap = options.refreshGap;
    if (origin.seed && options.hoist) {
      // A seed over the budget may fit as it is with some recomputations
      // earlier in their lists (RecomputeHoist.h): a plan of its own, at
      // the seed's cost.
      PlanResult plan;
      plan.schedule = lowerKeptChoice(graph, choice);
      if (!simulate(graph, plan.schedule, plan.sim) &&
          plan.sim.peakBytes > budgetBytes &&
          plan.sim.recomputeCost < best) {
        if (std::optional<Schedule> hoisted =
                hoistToBudget(graph, std::move(plan.schedule), budgetBytes,
                              kSeedHoistEvaluations)) {
          plan.schedule = std::move(*hoisted);
          plan.strategy = origin.strategy;
          plan.detail = origin.detail +
                        ", recomputations moved earlier in their lists";
          if (!simulate(graph, plan.schedule, plan.sim) &&
              plan.sim.peakBytes <= budgetBytes)
            out.push_back(std::move(plan));
        }
      }
    }
    if (origin.seed) {
      // A seed may exceed the budget: made to fit first, with the larger
      // changes, on an evaluator of its own.
      Evaluator fitting(graph, share.maxEvaluations);
      std::optional<KeptChoice> fitted = fit(
          graph, std::move(choice), budgetBytes, share, kSeedFitChanges,
          fitting);
      if (!fitted)
        continue;
      choice = std::move(*fitted);
    }
    // Single-value moves first, then, from where they end, the larger
    // changes (chain drops, refreshes), each with the start's share of the
    // evaluations: the larger changes spend evaluations the single moves
    // would otherwise use, so running them second never loses what the
    // single moves find.
    BudgetSearchOptions single = share;
    single.refresh = single.chains = false;
    Evaluator evaluator(graph, share.maxEvaluations);
    std::optional<KeptChoice> improved =
        reduce(graph, choice, budgetBytes, single, evaluator);
    if (options.refresh || options.chains) {
      Evaluator more(graph, share.maxEvaluations);
      if (std::optional<KeptChoice> further =
              reduce(graph, improved ? *improved : choice, budgetBytes, share,
                     more))
        improved = std::move(further);
    }
    // A fitted seed is a plan of its own even when no move improves it.
    if (!improved && origin.seed)
      improved = std::move(choice);
    if (!improved)
      continue;
    PlanResult plan;
    plan.strategy = origin.strategy;
    plan.detail = origin.detail.empty()
                      ? "local search in the budget"
                      : origin.detail + ", local search in the budget";
    plan.schedule = lowerKeptChoice(graph, *improved);
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

std::vector<PlanResult> remat::sched::searchWithinBudgetGaps(
    const Graph &graph, const std::vector<PlanResult> &candidates,
    int64_t budgetBytes, const BudgetSearchOptions &options,
    llvm::ArrayRef<unsigned> refreshGaps, const std::vector<KeptSeed> &seeds) {
  std::vector<PlanResult> out;
  for (unsigned gap : refreshGaps) {
    BudgetSearchOptions withGap = options;
    withGap.refreshGap = gap;
    llvm::append_range(out, searchWithinBudget(graph, candidates, budgetBytes,
                                               withGap, seeds));
  }
  return out;
}
