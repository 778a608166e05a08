//===- PlannerFrontierTest.cpp - mincut in auto, frontier, limits --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Planner.h"

#include "../Scheduling/TestGraphs.h"

#include <gtest/gtest.h>
#include <random>

using namespace remat;
using namespace remat::sched;

TEST(PlannerFrontierTest, AutoNoWorseThanMinCutAtAnyBudget) {
  std::mt19937 rng(29);
  for (int iter = 0; iter < 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 34 + 3 * iter, 20 + iter);
    PlannerOptions mincut;
    mincut.strategy = "mincut";
    llvm::Expected<PlannerResult> least = planRematerialization(g, mincut);
    ASSERT_TRUE(bool(least)) << llvm::toString(least.takeError());
    std::vector<std::string> notes;
    for (const PlanResult &p : planAllStrategies(g, notes)) {
      if (p.strategy != "mincut")
        continue;
      PlannerOptions withBudget;
      withBudget.budget = p.sim.peakBytes;
      llvm::Expected<PlannerResult> a = planRematerialization(g, withBudget);
      withBudget.strategy = "mincut";
      llvm::Expected<PlannerResult> m = planRematerialization(g, withBudget);
      ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
      ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
      EXPECT_LE(a->plan.sim.peakBytes, p.sim.peakBytes);
      EXPECT_LE(a->plan.sim.recomputeCost, m->plan.sim.recomputeCost);
    }
  }
}

TEST(PlannerFrontierTest, FrontierIsNonDominatedAndMonotone) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 30 + 4 * iter, 25 + iter);
    std::vector<std::string> notes;
    std::vector<PlanResult> f = planFrontier(g, notes);
    ASSERT_FALSE(f.empty());
    EXPECT_EQ(f.front().sim.recomputeCost, 0); // Store-all's end.
    for (size_t i = 1; i < f.size(); ++i) {
      EXPECT_GT(f[i].sim.recomputeCost, f[i - 1].sim.recomputeCost);
      EXPECT_LT(f[i].sim.peakBytes, f[i - 1].sim.peakBytes);
    }
    // No strategy's default plan lies below the frontier.
    for (const PlanResult &p : planAllStrategies(g, notes)) {
      bool dominated = false;
      for (const PlanResult &q : f)
        dominated |= q.sim.peakBytes <= p.sim.peakBytes &&
                     q.sim.recomputeCost <= p.sim.recomputeCost;
      EXPECT_TRUE(dominated) << p.strategy;
    }
    // A recompute limit picks the least frontier peak within it; a larger
    // limit never gives a larger peak.
    int64_t last = -1;
    for (double pct : {0.0, 5.0, 20.0, 50.0, 100.0, 400.0}) {
      PlannerOptions o;
      o.maxRecomputePercent = pct;
      llvm::Expected<PlannerResult> r = planRematerialization(g, o);
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      EXPECT_LE(r->plan.sim.recomputeCost,
                pct / 100 * g.forwardCost() * (1 + 1e-9));
      if (last >= 0) {
        EXPECT_LE(r->plan.sim.peakBytes, last);
      }
      last = r->plan.sim.peakBytes;
    }
  }
}

TEST(PlannerFrontierTest, ParseRecomputeLimit) {
  EXPECT_EQ(parseRecomputeLimit(""), -1.0);
  EXPECT_EQ(parseRecomputeLimit("30%"), 30.0);
  EXPECT_EQ(parseRecomputeLimit("12.5"), 12.5);
  EXPECT_EQ(parseRecomputeLimit(" 0% "), 0.0);
  EXPECT_FALSE(parseRecomputeLimit("-3%"));
  EXPECT_FALSE(parseRecomputeLimit("lots"));
}

TEST(PlannerFrontierTest, AutoRecomputeNeverGrowsWithTheBudget) {
  // Issue 11's "monotone: a larger budget never gives more recompute", for
  // the plan `auto` returns (not only the frontier report): budgets from 30%
  // to 100% of store-all's peak; once a budget is met every larger one is,
  // with at most the recompute of the smaller one.
  std::mt19937 rng(37);
  for (int iter = 0; iter < 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 34 + 3 * iter, 22 + iter);
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    double last = -1;
    for (int pct = 30; pct <= 100; pct += 5) {
      SCOPED_TRACE("iter " + std::to_string(iter) + " budget " +
                   std::to_string(pct) + "%");
      PlannerOptions o;
      o.budget = storeAll.peakBytes * pct / 100;
      llvm::Expected<PlannerResult> r = planRematerialization(g, o);
      if (!r) {
        llvm::consumeError(r.takeError());
        EXPECT_LT(last, 0) << "a smaller budget was met";
        continue;
      }
      EXPECT_LE(r->plan.sim.peakBytes, o.budget);
      if (last >= 0) {
        EXPECT_LE(r->plan.sim.recomputeCost, last);
      }
      last = r->plan.sim.recomputeCost;
    }
    EXPECT_EQ(last, 0); // Store-all's budget: nothing recomputed.
  }
}
