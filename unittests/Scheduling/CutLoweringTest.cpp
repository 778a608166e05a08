//===- CutLoweringTest.cpp - Tests of a bound's cut lowered to a plan -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/CutLowering.h"
#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/KeptSet.h"

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

} // namespace
