//===- WindowLowering.cpp - Interval solutions lowered to schedules -------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/WindowLowering.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Phases.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>

using namespace remat::sched;

Schedule remat::sched::lowerByWindows(const Graph &graph,
                                      const IntervalSolution &solution) {
  unsigned n = graph.size();
  Schedule schedule(n);
  unsigned phaseStart = firstBackwardNode(graph);
  if (phaseStart == n)
    phaseStart = 0; // Forward-only: lists anywhere.
  std::vector<bool> recomputable(n);
  for (unsigned v = 0; v != n; ++v)
    recomputable[v] = !graph.nodes[v].backward && !isAlwaysKept(graph.nodes[v]);
  // An instance of each value exists (made by its original execution, or
  // by a recomputation since its last drop).
  std::vector<bool> held(n, true);
  // Recomputes `v` before node `k` after its missing operands, depth first.
  std::vector<std::pair<unsigned, unsigned>> stack;
  auto ensure = [&](unsigned v, unsigned k) {
    if (held[v] || !recomputable[v])
      return;
    stack.push_back({v, 0});
    while (!stack.empty()) {
      auto &[u, next] = stack.back();
      const std::vector<unsigned> &operands = graph.nodes[u].operands;
      if (next < operands.size()) {
        unsigned op = operands[next++];
        // The stack is a path of the DAG: `op` is not on it.
        if (!held[op] && recomputable[op])
          stack.push_back({op, 0});
        continue;
      }
      if (!held[u]) {
        schedule.recomputeBefore[k].push_back(u);
        held[u] = true;
      }
      stack.pop_back();
    }
  };
  unsigned j = 0;
  for (unsigned k = 0; k != n; ++k) {
    if (k >= phaseStart)
      for (unsigned op : graph.nodes[k].operands)
        ensure(op, k);
    for (; j != solution.steps.size() && solution.steps[j] <= k; ++j) {
      if (solution.steps[j] != k)
        continue;
      // What the solution holds live at the step and executes in the
      // window before it (no node of that window needed it).
      if (k >= phaseStart && j < solution.held.size())
        for (unsigned v : solution.held[j])
          if (v < n)
            ensure(v, k);
      if (j < solution.dropped.size())
        for (unsigned v : solution.dropped[j])
          if (v < n && recomputable[v])
            held[v] = false;
    }
  }
  return schedule;
}

std::optional<Schedule> remat::sched::intervalWindowPlan(
    const Graph &graph, int64_t budgetBytes, unsigned firstStep,
    const WindowPlanOptions &options, WindowPlanStats *stats) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto left = [&] {
    return options.seconds -
           std::chrono::duration<double>(Clock::now() - start).count();
  };
  unsigned n = graph.size();
  if (firstStep >= n)
    return std::nullopt;
  std::vector<unsigned> steps = {firstStep}, fitting;
  std::optional<Schedule> best;
  double bestCost = 0;
  Simulator simulator(graph);
  WindowPlanStats local;
  WindowPlanStats &out = stats ? *stats : local;
  auto offer = [&](Schedule schedule, const SimResult &sim,
                   const IntervalSolution &solution) {
    if (sim.peakBytes > budgetBytes || (best && sim.recomputeCost >= bestCost))
      return;
    best = std::move(schedule);
    bestCost = sim.recomputeCost;
    out.cost = solution.cost;
  };
  // Solves the program of `stepSet`, noting a search cut short by the cap
  // (not finished within its node limit, or no answer, with no time left).
  auto solve = [&](const std::vector<unsigned> &stepSet, unsigned maxNodes) {
    std::optional<IntervalSolution> solution =
        solveIntervalSteps(graph, budgetBytes, stepSet, left(), maxNodes);
    if (solution) {
      ++out.programs;
      out.steps = stepSet;
      out.bound = std::max(out.bound, solution->bound);
    }
    if (left() <= 0 &&
        (!solution ||
         (!solution->optimal && (maxNodes == 0 || solution->nodes < maxNodes))))
      out.timedOut = true;
    return solution;
  };
  while (true) {
    if (left() <= 0) {
      out.timedOut = true;
      break;
    }
    std::optional<IntervalSolution> solution = solve(steps, options.maxNodes);
    if (!solution)
      break;
    Schedule schedule = lowerByWindows(graph, *solution);
    SimResult sim;
    if (simulator.simulate(schedule, sim))
      break;
    if (sim.peakBytes <= budgetBytes) {
      offer(std::move(schedule), sim, *solution);
      fitting = steps;
      break;
    }
    unsigned peak = sim.peakStep;
    // Count the memory where the lowering peaks (the step before a list
    // that peaks at an existing step).
    if (llvm::is_contained(steps, peak) && peak > 0)
      --peak;
    if (llvm::is_contained(steps, peak))
      break;
    if (peak < steps.front()) {
      // Nothing is dropped before the first step: start there instead.
      steps.front() = peak;
      llvm::sort(steps);
      continue;
    }
    if (steps.size() >= options.maxSteps)
      break;
    // A step added only adds rows: the program's optimum never falls.
    if (options.stopAboveCost > 0 && solution->cost > options.stopAboveCost) {
      out.aboveCost = true;
      break;
    }
    steps.push_back(peak);
    llvm::sort(steps);
  }
  // The steps whose lowering fits, solved again with more nodes.
  if (!fitting.empty() && options.finalNodes > options.maxNodes) {
    if (left() <= 0) {
      out.timedOut = true;
    } else if (std::optional<IntervalSolution> solution =
                   solve(fitting, options.finalNodes)) {
      Schedule schedule = lowerByWindows(graph, *solution);
      SimResult sim;
      if (!simulator.simulate(schedule, sim))
        offer(std::move(schedule), sim, *solution);
    }
  }
  return best;
}
