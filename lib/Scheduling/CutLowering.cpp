//===- CutLowering.cpp - A lower bound's cut lowered to a plan ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/CutLowering.h"
#include "remat/Scheduling/WindowLowering.h"

#include <chrono>
#include <vector>

using namespace remat::sched;

std::optional<CutLowering>
remat::sched::lowerCutWithinBudget(const Graph &graph, int64_t budgetBytes,
                                   llvm::ArrayRef<unsigned> cut,
                                   const CutLoweringOptions &options) {
  unsigned n = graph.size();
  KeptChoice base{std::vector<bool>(n, true), std::vector<bool>(n, false)};
  std::vector<unsigned> values;
  for (unsigned v : cut)
    if (v < n && base.kept[v]) {
      base.kept[v] = false;
      values.push_back(v);
    }
  std::optional<CutLowering> best;
  unsigned evaluations = 0;
  auto began = std::chrono::steady_clock::now();
  auto outOfTime = [&] {
    return options.seconds > 0 && std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - began)
                                          .count() > options.seconds;
  };
  // Lowers the cut with `a` and `b` refreshed (n: none) at every gap
  // (without a refresh the gap changes nothing: one lowering).
  auto tryRefresh = [&](unsigned a, unsigned b) {
    llvm::ArrayRef<unsigned> gaps = options.refreshGaps;
    if (a == n && !gaps.empty())
      gaps = gaps.take_front();
    for (unsigned gap : gaps) {
      if (evaluations == options.maxEvaluations || outOfTime())
        return;
      ++evaluations;
      KeptChoice choice = base;
      choice.refreshGap = gap;
      if (a < n)
        choice.refresh[a] = true;
      if (b < n)
        choice.refresh[b] = true;
      Schedule schedule = lowerKeptChoice(graph, choice);
      SimResult sim;
      if (simulate(graph, schedule, sim) || sim.peakBytes > budgetBytes ||
          (best && sim.recomputeCost >= best->sim.recomputeCost))
        continue;
      best = CutLowering{std::move(schedule), sim, std::move(choice),
                         unsigned(a < n) + unsigned(b < n), 0};
    }
  };
  tryRefresh(n, n);
  for (unsigned v : values)
    tryRefresh(v, n);
  for (size_t i = 0; i != values.size(); ++i)
    for (size_t j = i + 1; j != values.size(); ++j)
      tryRefresh(values[i], values[j]);
  if (best)
    best->evaluations = evaluations;
  return best;
}

std::optional<CutLowering>
remat::sched::lowerBoundWithinBudget(const Graph &graph, int64_t budgetBytes,
                                     const LowerBound &bound,
                                     const CutLoweringOptions &options) {
  std::optional<CutLowering> best;
  if (!bound.jointSolution.steps.empty()) {
    Schedule schedule = lowerByWindows(graph, bound.jointSolution);
    SimResult sim;
    if (!simulate(graph, schedule, sim) && sim.peakBytes <= budgetBytes) {
      best = CutLowering();
      best->schedule = std::move(schedule);
      best->sim = sim;
      best->byWindows = true;
      best->evaluations = 1;
    }
  }
  if (bound.cutRecomputed.empty())
    return best;
  std::optional<CutLowering> cut =
      lowerCutWithinBudget(graph, budgetBytes, bound.cutRecomputed, options);
  if (cut && (!best || cut->sim.recomputeCost < best->sim.recomputeCost)) {
    cut->evaluations += best ? best->evaluations : 0;
    return cut;
  }
  if (best && cut)
    best->evaluations += cut->evaluations;
  return best;
}
