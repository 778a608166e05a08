//===- RecomputeHoistTest.cpp - Tests of recomputations moved earlier -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/RecomputeHoist.h"
#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/KeptSet.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace remat::sched;
using remat::sched::test::makeCostNode;

namespace {

/// The encoder's pattern in six nodes: a (4 bytes, dear) feeds the cheap
/// mask m (1 byte), read only by the last gradient g3; x and g1 are the
/// last readers of a; g2 makes 4 bytes. Store-all peaks at 7 (g1: a, m, x,
/// g1). Within 6, m must be dropped at g1; rebuilt before g3 (the kept
/// set's lowering) it holds a through g2 (9), before g1 it overflows g1
/// (7); only rebuilt before g2 (a freed first: 6 during it and during g2)
/// does it fit, at a cost of 1.
Graph makeMaskGraph() {
  Graph g;
  g.addNode(makeCostNode("a", 4, 100, {}));
  g.addNode(makeCostNode("m", 1, 1, {0}));
  g.addNode(makeCostNode("x", 1, 1, {0}, true));
  g.addNode(makeCostNode("g1", 1, 1, {0, 2}, true));
  g.addNode(makeCostNode("g2", 4, 1, {3}, true));
  g.addNode(makeCostNode("g3", 1, 1, {4, 1}, true));
  return g;
}

TEST(RecomputeHoistTest, RebuildMovedBeforeTheLargeResult) {
  Graph g = makeMaskGraph();
  ASSERT_FALSE(g.validate());
  std::vector<bool> kept(g.size(), true);
  kept[1] = false;
  Schedule lowered = lowerKeptSet(g, kept);
  ASSERT_EQ(lowered.recomputeBefore[5], std::vector<unsigned>{1});
  SimResult before;
  ASSERT_FALSE(simulate(g, lowered, before));
  EXPECT_EQ(before.peakBytes, 9);
  unsigned evaluations = 0;
  std::optional<Schedule> hoisted =
      hoistToBudget(g, lowered, 6, 32, &evaluations);
  ASSERT_TRUE(hoisted);
  EXPECT_EQ(hoisted->recomputeBefore[4], std::vector<unsigned>{1});
  EXPECT_TRUE(hoisted->recomputeBefore[5].empty());
  SimResult after;
  ASSERT_FALSE(simulate(g, *hoisted, after));
  EXPECT_EQ(after.peakBytes, 6);
  EXPECT_EQ(after.recomputeCost, before.recomputeCost);
  EXPECT_GT(evaluations, 1u);
  EXPECT_LE(evaluations, 32u);
  // Below 6 no list works: none.
  EXPECT_FALSE(hoistToBudget(g, lowered, 5, 32));
  // Without evaluations left: none.
  EXPECT_FALSE(hoistToBudget(g, lowered, 6, 1));
}

TEST(RecomputeHoistTest, SeedFitsOnlyWithTheRebuildMoved) {
  // The lower bound's cut at g1 drops m (cost 1, the optimum within 6). As
  // a seed of the search within the budget its lowering overflows (9), and
  // no drop or refresh fits it; with the rebuild moved it is a plan of 1.
  Graph g = makeMaskGraph();
  KeptSeed seed{
      {std::vector<bool>(g.size(), true), std::vector<bool>(g.size(), false)},
      "seeded",
      "m dropped"};
  seed.choice.kept[1] = false;
  BudgetSearchOptions options;
  std::vector<PlanResult> plans = searchWithinBudget(g, {}, 6, options, {seed});
  ASSERT_FALSE(plans.empty());
  double best = -1;
  for (const PlanResult &p : plans) {
    SimResult sim;
    ASSERT_FALSE(simulate(g, p.schedule, sim));
    EXPECT_EQ(sim.peakBytes, p.sim.peakBytes);
    EXPECT_LE(sim.peakBytes, 6);
    if (best < 0 || sim.recomputeCost < best)
      best = sim.recomputeCost;
  }
  EXPECT_EQ(best, 1);
  options.hoist = false;
  for (const PlanResult &p : searchWithinBudget(g, {}, 6, options, {seed}))
    EXPECT_GT(p.sim.recomputeCost, 1);
}

} // namespace
