//===- BudgetDriverTest.cpp - Tests of plans and the budget driver --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Scheduling/BudgetDriver.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Strategies.h"

#include "gtest/gtest.h"

using namespace remat::sched;

namespace {
constexpr int64_t kMiB = 1 << 20;

PlanResult fakePlan(std::string name, int64_t peak, double recomputeCost) {
  PlanResult plan;
  plan.strategy = std::move(name);
  plan.sim.peakBytes = peak;
  plan.sim.recomputeCost = recomputeCost;
  return plan;
}
} // namespace

TEST(BudgetDriverTest, SelectionIsInclusiveAndCheapest) {
  std::vector<PlanResult> plans = {fakePlan("A", 100, 0), fakePlan("B", 60, 10),
                                   fakePlan("C", 60, 5), fakePlan("D", 40, 50),
                                   fakePlan("E", 70, 5)};
  EXPECT_EQ(minFeasiblePeak(plans), 40);
  auto chosen = [&](int64_t budget) {
    BudgetDecision d = selectForBudget(plans, budget);
    EXPECT_TRUE(d.feasible) << budget;
    EXPECT_EQ(d.minPeakBytes, 40);
    return d.plan ? d.plan->strategy : std::string("none");
  };
  EXPECT_EQ(chosen(1000), "A");
  EXPECT_EQ(chosen(100), "A"); // Exactly at A's peak.
  EXPECT_EQ(chosen(99), "C");  // C and E cost 5; C has the smaller peak.
  EXPECT_EQ(chosen(60), "C");
  EXPECT_EQ(chosen(59), "D");
  EXPECT_EQ(chosen(40), "D");

  BudgetDecision d = selectForBudget(plans, 39);
  EXPECT_FALSE(d.feasible);
  EXPECT_EQ(d.minPeakBytes, 40);
  ASSERT_TRUE(d.plan);
  EXPECT_EQ(d.plan->strategy, "D");
  EXPECT_NE(d.message.find("smallest activation peak remat can meet is 40"),
            std::string::npos)
      << d.message;

  d = selectForBudget({}, 1000);
  EXPECT_FALSE(d.feasible);
  EXPECT_FALSE(d.plan);
  EXPECT_FALSE(minFeasiblePeak({}));
}

TEST(BudgetDriverTest, EvaluatePlan) {
  test::GradChain c = test::makeGradChain(30, 10);
  PlanResult plan;
  ASSERT_FALSE(evaluatePlan(c.graph, "sqrt", "k", sqrtN, plan));
  SimResult direct;
  ASSERT_FALSE(simulate(c.graph, sqrtN(c.graph), direct));
  EXPECT_EQ(plan.strategy, "sqrt");
  EXPECT_EQ(plan.detail, "k");
  EXPECT_EQ(plan.sim.peakBytes, direct.peakBytes);
  EXPECT_EQ(plan.sim.recomputeCount, direct.recomputeCount);
  EXPECT_EQ(plan.schedule.recomputeBefore, sqrtN(c.graph).recomputeBefore);
  EXPECT_GE(plan.planSeconds, 0.0);

  std::optional<std::string> error = evaluatePlan(
      c.graph, "broken", "", [](const Graph &) { return Schedule(3); }, plan);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->rfind("broken: malformed schedule", 0), 0u) << *error;
}

TEST(BudgetDriverTest, DriverOnThousandLayerChain) {
  test::GradChain c = test::makeGradChain(1000, kMiB);
  std::vector<PlanResult> candidates = defaultCandidates(c.graph);
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].strategy, "store-all");
  EXPECT_EQ(candidates[1].strategy, "sqrt");
  for (const PlanResult &plan : candidates) {
    SimResult r;
    ASSERT_FALSE(simulate(c.graph, plan.schedule, r));
    EXPECT_EQ(r.peakBytes, plan.sim.peakBytes) << plan.detail;
  }
  std::optional<int64_t> minPeak = minFeasiblePeak(candidates);
  ASSERT_TRUE(minPeak);
  // sqrt reaches 63 MiB here (see StrategiesTest); nothing does better.
  EXPECT_EQ(*minPeak, candidates[1].sim.peakBytes);

  // Budget exactly at the sqrt plan's peak: accepted, and the chosen plan
  // is no more expensive than sqrt.
  BudgetDecision d = budgetDriver(c.graph, candidates[1].sim.peakBytes);
  ASSERT_TRUE(d.feasible) << d.message;
  EXPECT_LE(d.plan->sim.peakBytes, candidates[1].sim.peakBytes);
  EXPECT_LE(d.plan->sim.recomputeCost, candidates[1].sim.recomputeCost);

  // Exactly the minimum: feasible, and that minimum is the chosen peak.
  d = budgetDriver(c.graph, *minPeak);
  ASSERT_TRUE(d.feasible);
  EXPECT_EQ(d.plan->sim.peakBytes, *minPeak);

  // One byte below: rejected, reporting the minimum.
  d = budgetDriver(c.graph, *minPeak - 1);
  EXPECT_FALSE(d.feasible);
  EXPECT_EQ(d.minPeakBytes, *minPeak);
  EXPECT_NE(d.message.find(std::to_string(*minPeak)), std::string::npos);

  // A generous budget picks store-all (no recomputation).
  d = budgetDriver(c.graph, 2000 * kMiB);
  ASSERT_TRUE(d.feasible);
  EXPECT_EQ(d.plan->strategy, "store-all");
  EXPECT_EQ(d.plan->sim.recomputeCost, 0.0);

  // A middle budget: the cheapest fitting plan among all candidates.
  int64_t budget = 300 * kMiB;
  d = budgetDriver(c.graph, budget);
  ASSERT_TRUE(d.feasible);
  EXPECT_LE(d.plan->sim.peakBytes, budget);
  for (const PlanResult &plan : candidates) {
    if (plan.sim.peakBytes <= budget) {
      EXPECT_LE(d.plan->sim.recomputeCost, plan.sim.recomputeCost);
    }
  }
  EXPECT_LT(d.plan->sim.recomputeCost, candidates[1].sim.recomputeCost);
}

TEST(BudgetDriverTest, ExtraCandidatesJoin) {
  test::GradChain c = test::makeGradChain(100, kMiB);
  int64_t minPeak = *minFeasiblePeak(defaultCandidates(c.graph));
  // An extra candidate with a smaller peak: here a fake one, as the chain
  // strategies are tested elsewhere.
  PlanResult extra;
  ASSERT_FALSE(evaluatePlan(
      c.graph, "custom", "all-dropped",
      [](const Graph &g) {
        return lowerKeptSet(g, std::vector<bool>(g.size(), false));
      },
      extra));
  extra.sim.peakBytes = minPeak - 7;
  BudgetDecision d = budgetDriver(c.graph, minPeak - 7, {extra});
  ASSERT_TRUE(d.feasible) << d.message;
  EXPECT_EQ(d.plan->strategy, "custom");
  EXPECT_EQ(d.minPeakBytes, minPeak - 7);
  d = budgetDriver(c.graph, minPeak - 8, {extra});
  EXPECT_FALSE(d.feasible);
  EXPECT_EQ(d.minPeakBytes, minPeak - 7);
}
