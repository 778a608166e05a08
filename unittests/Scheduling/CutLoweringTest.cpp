//===- CutLoweringTest.cpp - Tests of a bound's cut lowered to a plan -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/CutLowering.h"
#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/StepProgram.h"

#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

using namespace remat::sched;

namespace {

/// On random graphs and random cuts, at budgets between the plain
/// lowering's peak and below it: the result simulates within the budget at
/// the recompute it reports, and it is the cheapest of the lowerings that
/// refresh no value, one or two values of the cut at each gap, enumerated
/// here directly with `lowerKeptChoice`. Some budgets need a refresh (the
/// plain lowering overflows) and get a plan all the same.
TEST(CutLowering, CheapestRefreshLoweringWithinTheBudget) {
  std::mt19937 rng(1907);
  unsigned compared = 0, needRefresh = 0;
  for (unsigned iter = 0; iter != 60; ++iter) {
    Graph g = test::makeRandomGraph(rng, 6 + iter % 4, 5 + iter % 3);
    ASSERT_FALSE(g.validate());
    unsigned n = g.size();
    std::vector<unsigned> cut;
    for (unsigned v = 0; v != n; ++v)
      if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]) && rng() % 2)
        cut.push_back(v);
    if (cut.empty())
      continue;
    KeptChoice base{std::vector<bool>(n, true), std::vector<bool>(n, false)};
    for (unsigned v : cut)
      base.kept[v] = false;
    SimResult plain;
    ASSERT_FALSE(simulate(g, lowerKeptChoice(g, base), plain));
    CutLoweringOptions options;
    for (int64_t budget :
         {plain.peakBytes, plain.peakBytes * 9 / 10, plain.peakBytes * 3 / 4}) {
      // Every lowering the function is to try.
      double best = std::numeric_limits<double>::infinity();
      for (size_t a = 0; a <= cut.size(); ++a)
        for (size_t b = a; b <= cut.size(); ++b) {
          if (a == b && a != cut.size())
            continue;
          for (unsigned gap : options.refreshGaps) {
            KeptChoice c = base;
            c.refreshGap = gap;
            if (a < cut.size())
              c.refresh[cut[a]] = true;
            if (b < cut.size())
              c.refresh[cut[b]] = true;
            SimResult sim;
            ASSERT_FALSE(simulate(g, lowerKeptChoice(g, c), sim));
            if (sim.peakBytes <= budget)
              best = std::min(best, sim.recomputeCost);
          }
        }
      std::optional<CutLowering> got = lowerCutWithinBudget(g, budget, cut);
      ASSERT_EQ(got.has_value(),
                best != std::numeric_limits<double>::infinity())
          << "graph " << iter << " budget " << budget;
      if (!got)
        continue;
      ++compared;
      needRefresh += plain.peakBytes > budget;
      SimResult check;
      ASSERT_FALSE(simulate(g, got->schedule, check));
      EXPECT_LE(check.peakBytes, budget);
      EXPECT_DOUBLE_EQ(check.recomputeCost, got->sim.recomputeCost);
      EXPECT_DOUBLE_EQ(got->sim.recomputeCost, best)
          << "graph " << iter << " budget " << budget;
      EXPECT_LE(got->refreshed, 2u);
      Schedule again = lowerKeptChoice(g, got->choice);
      EXPECT_EQ(again.recomputeBefore, got->schedule.recomputeBefore);
    }
  }
  EXPECT_GE(compared, 60u);
  EXPECT_GT(needRefresh, 0u) << "of " << compared;
}

/// The evaluation limit is a deterministic bound on the work: never more
/// lowerings than allowed, and with a limit of one only the plain lowering.
TEST(CutLowering, EvaluationLimitHolds) {
  std::mt19937 rng(77);
  for (unsigned iter = 0; iter != 20; ++iter) {
    Graph g = test::makeRandomGraph(rng, 8, 6);
    ASSERT_FALSE(g.validate());
    std::vector<unsigned> cut;
    for (unsigned v = 0; v != g.size(); ++v)
      if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
        cut.push_back(v);
    CutLoweringOptions options;
    options.maxEvaluations = 7;
    std::optional<CutLowering> got = lowerCutWithinBudget(
        g, std::numeric_limits<int64_t>::max(), cut, options);
    ASSERT_TRUE(got);
    EXPECT_LE(got->evaluations, 7u);
    EXPECT_EQ(got->refreshed,
              0u); // The plain lowering fits; nothing is cheaper.
  }
}

/// A caller's time limit stops the lowerings even where the limit of
/// evaluations would not: with a nanosecond, at most the first is tried.
TEST(CutLowering, TimeLimitHolds) {
  std::mt19937 rng(78);
  Graph g = test::makeRandomGraph(rng, 8, 6);
  ASSERT_FALSE(g.validate());
  std::vector<unsigned> cut;
  for (unsigned v = 0; v != g.size(); ++v)
    if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
      cut.push_back(v);
  ASSERT_GE(cut.size(), 4u);
  CutLoweringOptions options;
  std::optional<CutLowering> all = lowerCutWithinBudget(
      g, std::numeric_limits<int64_t>::max(), cut, options);
  ASSERT_TRUE(all);
  EXPECT_GT(all->evaluations, 1u);
  options.seconds = 1e-9;
  std::optional<CutLowering> got = lowerCutWithinBudget(
      g, std::numeric_limits<int64_t>::max(), cut, options);
  EXPECT_TRUE(!got || got->evaluations <= 1u);
}

/// The bound's plans (`lowerBoundWithinBudget`) on random 7-8 node graphs
/// at every budget, with 8 joint interval steps: within the budget, never
/// below the least recompute of every enumerated schedule, at least as cheap
/// as the cut's lowering alone; the joint interval solution lowered by
/// windows is cheaper than the cut's lowering (or the only plan) somewhere,
/// and a plan at the bound somewhere.
TEST(CutLowering, BoundsIntervalSolutionByWindows) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  std::mt19937 rng(97);
  LowerBoundOptions options;
  options.timeLimitSeconds = 60;
  options.jointExactSteps = 8;
  options.intervalSteps = true;
  unsigned plans = 0, byWindows = 0, atBound = 0;
  for (unsigned iter = 0; iter != 80; ++iter) {
    Graph g = test::makeEnumerableGraph(rng, iter);
    ASSERT_FALSE(g.validate());
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    auto [minPeak, maxPeak] = test::peakRange(points);
    for (int64_t budget = minPeak; budget <= maxPeak; ++budget) {
      LowerBound bound = recomputeLowerBound(g, budget, options);
      ASSERT_FALSE(bound.infeasible);
      std::optional<CutLowering> got = lowerBoundWithinBudget(g, budget, bound);
      std::optional<CutLowering> cut;
      if (!bound.cutRecomputed.empty())
        cut = lowerCutWithinBudget(g, budget, bound.cutRecomputed);
      ASSERT_TRUE(got || !cut) << "graph " << iter << " budget " << budget;
      if (!got)
        continue;
      ++plans;
      SimResult check;
      ASSERT_FALSE(simulate(g, got->schedule, check));
      EXPECT_LE(check.peakBytes, budget);
      EXPECT_DOUBLE_EQ(check.recomputeCost, got->sim.recomputeCost);
      double optimum = test::leastWithin(points, budget);
      EXPECT_GE(check.recomputeCost, optimum * (1 - 1e-9) - 1e-9)
          << "graph " << iter << " budget " << budget;
      if (cut) {
        EXPECT_LE(check.recomputeCost, cut->sim.recomputeCost);
      }
      byWindows += got->byWindows &&
                   (!cut || check.recomputeCost < cut->sim.recomputeCost);
      atBound += check.recomputeCost <= bound.recomputeCost * (1 + 1e-9);
    }
  }
  EXPECT_GT(plans, 100u);
  EXPECT_GT(byWindows, 0u) << "of " << plans;
  EXPECT_GT(atBound, 0u) << "of " << plans;
}

} // namespace
