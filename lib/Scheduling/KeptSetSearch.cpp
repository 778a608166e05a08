//===- KeptSetSearch.cpp - Local search on kept sets ----------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSetSearch.h"

#include "remat/Scheduling/KeptSet.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <optional>
#include <tuple>

using namespace remat::sched;

namespace {

/// A lowered kept set with what the search compares.
struct Evaluated {
  Schedule schedule;
  SimResult sim;
  /// Steps of the original op order whose live bytes reach the peak.
  unsigned stepsAtPeak = 0;
};

} // namespace

static bool evaluate(const Graph &graph, Simulator &simulator,
                     const std::vector<bool> &kept, Evaluated &out) {
  out.schedule = lowerKeptSet(graph, kept);
  std::vector<int64_t> steps;
  if (simulator.liveBytesTrace(out.schedule, out.sim, steps))
    return false;
  out.stepsAtPeak = static_cast<unsigned>(
      std::count(steps.begin(), steps.end(), out.sim.peakBytes));
  return true;
}

/// True if `a` is strictly better than `b`: less peak, then fewer steps at
/// the peak, then less recompute.
static bool better(const Evaluated &a, const Evaluated &b) {
  return std::make_tuple(a.sim.peakBytes, a.stepsAtPeak, a.sim.recomputeCost) <
         std::make_tuple(b.sim.peakBytes, b.stepsAtPeak, b.sim.recomputeCost);
}

/// The forward nodes whose value (kept, or recomputed by `schedule`) is live
/// during step `step`, largest first: the nodes a move may toggle.
static std::vector<unsigned> liveAtStep(const Graph &graph,
                                        const std::vector<bool> &kept,
                                        const Schedule &schedule,
                                        unsigned step) {
  unsigned n = graph.size();
  const unsigned none = ~0u;
  // Step of each node's recomputation (lowerKeptSet recomputes once).
  std::vector<unsigned> recomputedAt(n, none);
  for (unsigned k = 0; k != n; ++k)
    for (unsigned v : schedule.recomputeBefore[k])
      recomputedAt[v] = k;
  std::vector<unsigned> lastUse = lastReadSteps(graph, schedule);
  std::vector<unsigned> live;
  for (unsigned v = 0; v != n; ++v) {
    const Node &node = graph.nodes[v];
    if (node.backward || isAlwaysKept(node) || node.bytes == 0)
      continue;
    unsigned from = kept[v] ? v : recomputedAt[v];
    if (from != none && from <= step && step <= lastUse[v])
      live.push_back(v);
  }
  std::stable_sort(live.begin(), live.end(), [&](unsigned a, unsigned b) {
    return graph.nodes[a].bytes > graph.nodes[b].bytes;
  });
  return live;
}

KeptSetSearchResult
remat::sched::improveKeptSet(const Graph &graph, std::vector<bool> start,
                             const KeptSetSearchOptions &options) {
  assert(start.size() == graph.size() && "one entry per node");
  KeptSetSearchResult result;
  Simulator simulator(graph);
  Evaluated current;
  ++result.evaluations;
  if (!evaluate(graph, simulator, start, current)) {
    // Only on an invalid graph: hand back the start unchanged.
    result.kept = std::move(start);
    return result;
  }
  std::vector<bool> kept = std::move(start);
  for (; result.moves < options.maxMoves; ++result.moves) {
    double limit =
        std::max(options.maxRecomputeCost, current.sim.recomputeCost) *
        (1 + 1e-12);
    std::vector<unsigned> cands =
        liveAtStep(graph, kept, current.schedule, current.sim.peakStep);
    if (cands.size() > options.maxCandidates)
      cands.resize(options.maxCandidates);
    // Bytes of peak saved per unit of recompute added (infinite when
    // nothing is added).
    auto rate = [&](const Evaluated &t) {
      double added = t.sim.recomputeCost - current.sim.recomputeCost;
      if (added <= 0)
        return std::numeric_limits<double>::infinity();
      return double(current.sim.peakBytes - t.sim.peakBytes) / added;
    };
    Evaluated best;
    int bestNode = -1;
    for (unsigned v : cands) {
      if (result.evaluations >= options.maxEvaluations)
        break;
      ++result.evaluations;
      kept[v] = !kept[v];
      Evaluated trial;
      if (evaluate(graph, simulator, kept, trial) && trial.sim.recomputeCost <= limit &&
          better(trial, current)) {
        bool take = bestNode < 0;
        if (!take && options.bestRate) {
          double a = rate(trial), b = rate(best);
          take = a > b || (a == b && better(trial, best));
        } else if (!take) {
          take = better(trial, best);
        }
        if (take) {
          best = std::move(trial);
          bestNode = static_cast<int>(v);
        }
      }
      kept[v] = !kept[v];
    }
    if (bestNode < 0)
      break;
    kept[bestNode] = !kept[bestNode];
    current = std::move(best);
    if (options.onMove)
      options.onMove(kept, current.schedule, current.sim);
  }
  // Polish: keep recomputed values, most expensive first, where the peak
  // stays and the recompute falls.
  std::vector<unsigned> recomputed;
  for (const std::vector<unsigned> &list : current.schedule.recomputeBefore)
    for (unsigned v : list)
      if (!isAlwaysKept(graph.nodes[v]))
        recomputed.push_back(v);
  std::stable_sort(recomputed.begin(), recomputed.end(),
                   [&](unsigned a, unsigned b) {
                     return graph.nodes[a].cost > graph.nodes[b].cost;
                   });
  if (recomputed.size() > options.maxPolishTries)
    recomputed.resize(options.maxPolishTries);
  for (unsigned v : recomputed) {
    if (kept[v])
      continue;
    if (result.evaluations >= options.maxEvaluations)
      break;
    ++result.evaluations;
    kept[v] = true;
    Evaluated trial;
    if (evaluate(graph, simulator, kept, trial) &&
        trial.sim.peakBytes <= current.sim.peakBytes &&
        trial.sim.recomputeCost < current.sim.recomputeCost) {
      current = std::move(trial);
      if (options.onMove)
        options.onMove(kept, current.schedule, current.sim);
    } else {
      kept[v] = false;
    }
  }
  result.kept = std::move(kept);
  result.schedule = std::move(current.schedule);
  result.sim = current.sim;
  return result;
}

Schedule remat::sched::hoistRecomputations(const Graph &graph,
                                           Schedule schedule, SimResult &sim,
                                           unsigned maxRounds,
                                           unsigned maxTries) {
  Simulator simulator(graph);
  std::vector<int64_t> steps;
  if (simulator.liveBytesTrace(schedule, sim, steps))
    return schedule;
  unsigned n = graph.size(), firstBackward = 0;
  while (firstBackward != n && !graph.nodes[firstBackward].backward)
    ++firstBackward;
  if (firstBackward == n)
    return schedule; // Forward-only: recomputation may go anywhere already.
  for (unsigned round = 0; round != maxRounds && sim.peakInRecompute;
       ++round) {
    unsigned k = sim.peakStep;
    std::vector<unsigned> targets;
    for (unsigned j = firstBackward; j < k; ++j)
      targets.push_back(j);
    std::stable_sort(targets.begin(), targets.end(),
                     [&](unsigned a, unsigned b) { return steps[a] < steps[b]; });
    if (targets.size() > maxTries)
      targets.resize(maxTries);
    std::optional<Schedule> best;
    SimResult bestSim = sim;
    std::vector<int64_t> bestSteps;
    for (unsigned j : targets) {
      Schedule trial = schedule;
      std::vector<unsigned> &to = trial.recomputeBefore[j];
      to.insert(to.end(), trial.recomputeBefore[k].begin(),
                trial.recomputeBefore[k].end());
      trial.recomputeBefore[k].clear();
      SimResult trialSim;
      std::vector<int64_t> trialSteps;
      if (simulator.liveBytesTrace(trial, trialSim, trialSteps) ||
          trialSim.peakBytes >= bestSim.peakBytes)
        continue;
      best = std::move(trial);
      bestSim = trialSim;
      bestSteps = std::move(trialSteps);
    }
    if (!best)
      break;
    schedule = std::move(*best);
    sim = bestSim;
    steps = std::move(bestSteps);
  }
  return schedule;
}

std::vector<KeptSetStart> remat::sched::cheapestKeptSets(
    const Graph &graph, const std::vector<PlanResult> &candidates,
    int64_t budgetBytes, unsigned maxStarts) {
  std::vector<const PlanResult *> within;
  for (const PlanResult &p : candidates)
    if (p.order.empty() && p.sim.peakBytes <= budgetBytes &&
        p.sim.recomputeCost > 0 &&
        p.schedule.recomputeBefore.size() == graph.size())
      within.push_back(&p);
  llvm::stable_sort(within, [](const PlanResult *a, const PlanResult *b) {
    return a->sim.recomputeCost < b->sim.recomputeCost;
  });
  std::vector<KeptSetStart> starts;
  for (const PlanResult *p : within) {
    if (starts.size() >= maxStarts)
      break;
    std::vector<bool> kept = keptSetOf(graph, p->schedule);
    if (llvm::any_of(starts, [&](const KeptSetStart &s) {
          return s.kept == kept;
        }))
      continue;
    starts.push_back({p, std::move(kept)});
  }
  return starts;
}

std::vector<PlanResult>
remat::sched::relaxToBudget(const Graph &graph,
                            const std::vector<PlanResult> &candidates,
                            int64_t budgetBytes, unsigned maxStarts,
                            unsigned maxEvaluations) {
  auto start = std::chrono::steady_clock::now();
  unsigned n = graph.size();
  std::vector<KeptSetStart> starts =
      cheapestKeptSets(graph, candidates, budgetBytes, maxStarts);
  std::vector<PlanResult> out;
  Simulator simulator(graph);
  unsigned perStart = starts.empty() ? 0 : maxEvaluations / starts.size();
  for (unsigned i = 0; i != starts.size(); ++i) {
    std::vector<bool> &kept = starts[i].kept;
    Evaluated current;
    if (!evaluate(graph, simulator, kept, current) ||
        current.sim.peakBytes > budgetBytes)
      continue; // The lowering of the kept set alone does not fit.
    std::vector<unsigned> dropped;
    for (unsigned v = 0; v != n; ++v)
      if (!graph.nodes[v].backward && !kept[v] && !isAlwaysKept(graph.nodes[v]))
        dropped.push_back(v);
    // Most compute saved per byte held first.
    std::stable_sort(dropped.begin(), dropped.end(), [&](unsigned a,
                                                         unsigned b) {
      const Node &x = graph.nodes[a], &y = graph.nodes[b];
      return x.cost * double(std::max<int64_t>(y.bytes, 1)) >
             y.cost * double(std::max<int64_t>(x.bytes, 1));
    });
    unsigned used = 0;
    bool improved = false;
    for (unsigned v : dropped) {
      if (used >= perStart)
        break;
      ++used;
      kept[v] = true;
      Evaluated trial;
      if (evaluate(graph, simulator, kept, trial) &&
          trial.sim.peakBytes <= budgetBytes &&
          trial.sim.recomputeCost < current.sim.recomputeCost) {
        current = std::move(trial);
        improved = true;
      } else {
        kept[v] = false;
      }
    }
    if (!improved ||
        current.sim.recomputeCost >= starts[i].plan->sim.recomputeCost)
      continue;
    PlanResult p;
    p.strategy = starts[i].plan->strategy;
    p.detail = starts[i].plan->detail.empty()
                   ? "relaxed to the budget"
                   : starts[i].plan->detail + ", relaxed to the budget";
    p.schedule = std::move(current.schedule);
    p.sim = current.sim;
    out.push_back(std::move(p));
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  for (PlanResult &p : out)
    p.planSeconds = seconds;
  return out;
}
