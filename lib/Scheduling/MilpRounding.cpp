//===- MilpRounding.cpp - LP relaxation and rounding of the MILP ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The LP relaxation of the compact stage model solved by CLP, and
/// Checkmate's two-phase rounding of its keep variables (MilpRounding.h).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpRounding.h"
#include "ClpDuality.h"
#include "MilpBuilder.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Milp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#ifdef REMAT_HAVE_CBC
#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>
#include <coin/CoinPackedMatrix.hpp>
#endif

using namespace remat::sched;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

Schedule
remat::sched::milpRecomputeForKeep(const Graph &graph, unsigned firstStage,
                                   const std::vector<std::vector<bool>> &keep) {
  unsigned n = graph.size();
  Schedule schedule(n);
  bool forwardOnly = firstStage == 0;
  unsigned f = forwardOnly ? n : firstStage;
  unsigned numStages = n - firstStage;
  std::vector<char> alwaysKept(f), need(f);
  for (unsigned i = 0; i != f; ++i)
    alwaysKept[i] = isAlwaysKept(graph.nodes[i]);
  auto kept = [&](unsigned t, unsigned i) {
    return t < keep.size() && i < keep[t].size() && keep[t][i];
  };
  for (unsigned t = 0; t != numStages; ++t) {
    unsigned b = firstStage + t;
    // Values the stage may recompute: forward values before its node.
    unsigned limit = forwardOnly ? b : f;
    std::fill(need.begin(), need.begin() + limit, 0);
    for (unsigned op : graph.nodes[b].operands)
      if (op < limit)
        need[op] = 1;
    if (t + 1 < numStages)
      for (unsigned i = 0; i != limit; ++i)
        if (kept(t + 1, i) && !kept(t, i))
          need[i] = 1;
    std::vector<unsigned> &list = schedule.recomputeBefore[b];
    for (unsigned i = limit; i-- > 0;) {
      if (!need[i] || kept(t, i) || alwaysKept[i])
        continue;
      list.push_back(i);
      for (unsigned op : graph.nodes[i].operands)
        if (op < limit)
          need[op] = 1;
    }
    std::reverse(list.begin(), list.end());
  }
  return schedule;
}

#ifdef REMAT_HAVE_CBC
void remat::sched::detail::solveLpRelaxation(
    const MilpRows &model, int numCols,
    const std::vector<CoinBigIndex> &colStart, const std::vector<int> &index,
    const std::vector<double> &value, const std::vector<int> &memRows,
    double scale, double costScale, LpRelaxation &relax) {
  auto began = Clock::now();
  auto left = [&] { return relax.seconds - secondsSince(began); };
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(numCols, int(model.rowLb.size()), colStart.data(),
                 index.data(), value.data(), model.colLb.data(),
                 model.colUb.data(), model.colObj.data(), model.rowLb.data(),
                 model.rowUb.data());
  for (size_t k = 0; k != relax.budgets.size(); ++k) {
    if (left() <= 0.01)
      break;
    if (k > 0) {
      double shift = double(relax.budgets[k] - relax.budgets[0]) / scale;
      for (int r : memRows)
        lp.setRowUpper(r, model.rowUb[r] + shift);
    }
    // Clp's limit is a point in time; an LP stopped on it proves nothing.
    lp.setMaximumWallSeconds(left());
    auto start = Clock::now();
    if (k == 0 && relax.barrier) {
      ClpSolve options;
      options.setSolveType(ClpSolve::useBarrier);
      lp.initialSolve(options);
    } else if (k == 0) {
      ClpSolve options;
      options.setSolveType(ClpSolve::useDual);
      lp.initialSolve(options);
    } else {
      lp.dual(); // Warm start from the previous budget's basis.
    }
    LpRelaxation::Point point;
    point.budget = relax.budgets[k];
    point.seconds = secondsSince(start);
    point.iterations = lp.numberIterations();
    bool inTime = left() > 0 && !lp.hitMaximumIterations();
    // Optimal: the bound is the weak-duality value of the dual, valid also
    // where CLP says the unscaled problem is slightly infeasible (secondary
    // status 2-4). Infeasible: only without CLP's secondary status, whose 1
    // means "probably infeasible but not proven".
    point.optimal = inTime && lp.isProvenOptimal();
    point.infeasible =
        inTime && lp.isProvenPrimalInfeasible() && lp.secondaryStatus() == 0;
    if (point.optimal) {
      point.objective = lp.objectiveValue() * costScale;
      point.dualBound = detail::weakDualityBound(lp) * costScale;
      point.x.assign(lp.primalColumnSolution(),
                     lp.primalColumnSolution() + numCols);
    }
    relax.points.push_back(std::move(point));
    if (relax.onPoint)
      relax.onPoint(relax.points.back());
    relax.points.back().x.clear();
    if (!relax.points.back().optimal)
      break;
  }
}
#endif

MilpRoundingResult
remat::sched::milpRoundRelaxation(const Graph &graph, int64_t budgetBytes,
                                  double seconds,
                                  const MilpRoundingOptions &options) {
  MilpRoundingResult result;
#ifndef REMAT_HAVE_CBC
  (void)graph;
  (void)budgetBytes;
  (void)seconds;
  (void)options;
  result.declined = "remat was built without CBC/CLP (coinor-libcbc-dev)";
  return result;
#else
  auto began = Clock::now();
  auto left = [&] { return seconds - secondsSince(began); };
  if (std::optional<std::string> err = graph.validate()) {
    result.declined = "malformed graph: " + *err;
    return result;
  }
  if (std::optional<std::string> late = milpForwardFirstViolation(graph)) {
    result.declined = *late;
    return result;
  }
  unsigned n = graph.size();
  unsigned f = 0; // The number of forward nodes (all first).
  while (f < n && !graph.nodes[f].backward)
    ++f;
  if (budgetBytes <= 0 || n == 0 || (f == n && !graph.isForwardOnly())) {
    result.declined = "no budget or no stages";
    return result;
  }
  unsigned firstStage = graph.isForwardOnly() ? 0 : f;
  detail::MilpBuilder builder(graph, graph.isForwardOnly() ? n : f,
                              /*compact=*/true);
  // The knapsack rows leave the LP relaxation as it is (MilpBuilder.h).
  builder.knapsackRows = false;
  detail::LpRelaxation relax;
  relax.budgets.push_back(budgetBytes);
  for (double a : options.allowances)
    if (a > 0 && a < 1)
      relax.budgets.push_back(int64_t(double(budgetBytes) * a));
  relax.barrier = options.barrier;
  // Phase two: round S, recompute what it needs, simulate.
  unsigned numStages = n - firstStage;
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::vector<bool>> keep(numStages);
  auto judge = [&](Schedule schedule, double allowance) {
    SimResult sim;
    ++result.rounded;
    if (simulate(graph, schedule, sim))
      return;
    if (!result.leastPeak || sim.peakBytes < result.leastPeakSim.peakBytes ||
        (sim.peakBytes == result.leastPeakSim.peakBytes &&
         sim.recomputeCost < result.leastPeakSim.recomputeCost)) {
      result.leastPeak = schedule;
      result.leastPeakSim = sim;
    }
    if (sim.peakBytes > budgetBytes)
      return;
    ++result.fit;
    if (!result.schedule || sim.recomputeCost < result.sim.recomputeCost) {
      result.schedule = std::move(schedule);
      result.sim = sim;
      result.allowance = allowance;
    }
  };
  auto tryKeep = [&](double allowance) {
    judge(milpRecomputeForKeep(graph, firstStage, keep), allowance);
  };
  relax.onPoint = [&](const detail::LpRelaxation::Point &point) {
    if (!point.optimal)
      return;
    double allowance = double(point.budget) / double(budgetBytes);
    auto value = [&](unsigned t, unsigned i) {
      int col = relax.keepColumn[t][i];
      return col < 0 ? 0.0 : point.x[col];
    };
    for (double threshold : options.thresholds) {
      if (left() <= 0)
        break;
      for (unsigned t = 0; t != numStages; ++t) {
        keep[t].assign(relax.keepColumn[t].size(), false);
        for (unsigned i = 0; i != keep[t].size(); ++i)
          keep[t][i] = value(t, i) >= threshold - 1e-9;
      }
      tryKeep(allowance);
    }
    // Recompute variables rounded directly: the lists are the R[t][i] at
    // or above the threshold, and every value is kept until its next
    // recomputation (`simulate`'s semantics). On random_layered_n100 at
    // 0.7 of store-all these peak lower than rounded keep variables
    // (0.746 against 0.751 of store-all at best; neither fits).
    for (double threshold : options.thresholds) {
      if (left() <= 0)
        break;
      Schedule schedule(n);
      for (unsigned t = 0; t != numStages; ++t)
        for (unsigned i = 0; i != relax.recomputeColumn[t].size(); ++i) {
          int col = relax.recomputeColumn[t][i];
          if (col >= 0 && point.x[col] >= threshold - 1e-9)
            schedule.recomputeBefore[firstStage + t].push_back(i);
        }
      judge(std::move(schedule), allowance);
    }
    for (unsigned r = 0; r != options.randomRounds; ++r) {
      if (left() <= 0)
        break;
      for (unsigned t = 0; t != numStages; ++t) {
        keep[t].assign(relax.keepColumn[t].size(), false);
        for (unsigned i = 0; i != keep[t].size(); ++i) {
          double v = value(t, i);
          keep[t][i] = v > 1 - 1e-9 || (v > 1e-9 && uniform(rng) < v);
        }
      }
      tryKeep(allowance);
    }
  };
  builder.relaxation = &relax;
  builder.solve(/*peakMode=*/false, budgetBytes, left());
  result.rows = relax.rows;
  result.columns = relax.columns;
  result.nonzeros = relax.nonzeros;
  result.buildSeconds = relax.buildSeconds;
  result.points = relax.points.size();
  if (!relax.points.empty()) {
    const detail::LpRelaxation::Point &first = relax.points.front();
    result.lpSeconds = first.seconds;
    result.lpIterations = first.iterations;
    result.lpOptimal = first.optimal;
    result.lpInfeasible = first.infeasible;
    // The weak-duality bound, not CLP's objective, which its tolerances may
    // leave above the LP optimum; a relative 1e-6 below both besides.
    result.lpObjective = first.objective;
    if (first.optimal)
      result.bound = std::max(0.0, std::min(first.dualBound, first.objective) *
                                       (1 - 1e-6));
  }

  result.seconds = secondsSince(began);
  return result;
#endif
}
