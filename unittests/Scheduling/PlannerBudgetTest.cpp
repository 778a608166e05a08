//===- PlannerBudgetTest.cpp - The budget driver and the registry ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Scheduling/Algorithms.h"
#include "remat/Scheduling/Planner.h"
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

TEST(PlannerBudgetTest, SelectionIsInclusiveAndCheapest) {
  std::vector<PlanResult> plans = {fakePlan("A", 100, 0), fakePlan("B", 60, 10),
                                   fakePlan("C", 60, 5), fakePlan("D", 40, 50),
                                   fakePlan("E", 70, 5)};
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
}

TEST(PlannerBudgetTest, EvaluatePlan) {
  test::GradChain c = test::makeGradChain(30, 10);
  llvm::Expected<PlanResult> evaluated =
      evaluatePlan(c.graph, "sqrt", "k", sqrtN);
  ASSERT_TRUE(bool(evaluated)) << llvm::toString(evaluated.takeError());
  const PlanResult &plan = *evaluated;
  SimResult direct;
  ASSERT_FALSE(simulate(c.graph, sqrtN(c.graph), direct));
  EXPECT_EQ(plan.strategy, "sqrt");
  EXPECT_EQ(plan.detail, "k");
  EXPECT_EQ(plan.sim.peakBytes, direct.peakBytes);
  EXPECT_EQ(plan.sim.recomputeCount, direct.recomputeCount);
  EXPECT_EQ(plan.schedule.recomputeBefore, sqrtN(c.graph).recomputeBefore);
  EXPECT_GE(plan.planSeconds, 0.0);

  llvm::Expected<PlanResult> broken = evaluatePlan(
      c.graph, "broken", "", [](const Graph &) { return Schedule(3); });
  ASSERT_FALSE(bool(broken));
  std::string error = llvm::toString(broken.takeError());
  EXPECT_EQ(error.rfind("broken: malformed schedule", 0), 0u) << error;
}

/// planRematerialization with a budget on a 60-layer chain: at store-all's
/// peak store-all, at sqrt's peak a plan no more expensive than sqrt, at the
/// least peak of auto's candidates exactly that peak, one byte below an error
/// that names it.
TEST(PlannerBudgetTest, BudgetsOnLongChain) {
  test::GradChain c = test::makeGradChain(60, kMiB);
  PlannerOptions options;
  llvm::Expected<PlannerResult> none = planRematerialization(c.graph, options);
  ASSERT_TRUE(bool(none)) << llvm::toString(none.takeError());
  EXPECT_EQ(none->plan.strategy, strategy::kStoreAll);
  EXPECT_EQ(none->plan.sim.peakBytes, none->storeAllPeak);

  options.budget = none->storeAllPeak;
  llvm::Expected<PlannerResult> atStoreAll =
      planRematerialization(c.graph, options);
  ASSERT_TRUE(bool(atStoreAll)) << llvm::toString(atStoreAll.takeError());
  EXPECT_EQ(atStoreAll->plan.sim.recomputeCost, 0.0);

  PlanCache cache(c.graph);
  PlanRequest sqrtRequest(cache, PlannerOptions{});
  llvm::Expected<std::vector<PlanResult>> sqrt = planSqrt(sqrtRequest);
  ASSERT_TRUE(bool(sqrt));
  const PlanResult &sqrtPlan = sqrt->front();
  options.budget = sqrtPlan.sim.peakBytes;
  llvm::Expected<PlannerResult> atSqrt =
      planRematerialization(c.graph, options);
  ASSERT_TRUE(bool(atSqrt)) << llvm::toString(atSqrt.takeError());
  EXPECT_LE(atSqrt->plan.sim.peakBytes, sqrtPlan.sim.peakBytes);
  EXPECT_LE(atSqrt->plan.sim.recomputeCost, sqrtPlan.sim.recomputeCost);

  int64_t least = atSqrt->candidates.front().sim.peakBytes;
  for (const PlanResult &p : atSqrt->candidates)
    least = std::min(least, p.sim.peakBytes);
  options.budget = least;
  llvm::Expected<PlannerResult> atLeast =
      planRematerialization(c.graph, options);
  ASSERT_TRUE(bool(atLeast)) << llvm::toString(atLeast.takeError());
  EXPECT_EQ(atLeast->plan.sim.peakBytes, least);

  options.budget = least - 1;
  std::optional<int64_t> named;
  std::string message;
  llvm::Expected<PlannerResult> below = planRematerialization(c.graph, options);
  ASSERT_FALSE(bool(below));
  llvm::handleAllErrors(below.takeError(), [&](const PlanningError &err) {
    named = err.getMinFeasibleBudget();
    message = err.getMessage();
  });
  EXPECT_EQ(named, least);
  EXPECT_EQ(message, "budget of " + std::to_string(least - 1) +
                         " bytes is below what strategy 'auto' can meet");
}

/// The registry: every name once, in the order pass options list them, each
/// accepting the graphs its strategy plans.
TEST(PlannerRegistryTest, NamesAndGraphKinds) {
  std::vector<std::string> names;
  for (llvm::StringRef name : getStrategyNames())
    names.push_back(name.str());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "auto", "store-all", "sqrt", "greedy", "logn", "revolve",
                       "chain-opt", "forward-min-peak", "milp", "mincut"}));
  for (const StrategyInfo &info : getStrategies()) {
    EXPECT_EQ(lookupStrategy(info.name), &info);
    bool forwardOnly = info.name == strategy::kAuto ||
                       info.name == strategy::kStoreAll ||
                       info.name == strategy::kForwardMinPeak ||
                       info.name == strategy::kMilp;
    EXPECT_EQ(bool(info.accepts & ForwardOnly), forwardOnly) << info.name.str();
    EXPECT_EQ(bool(info.accepts & TrainingStep),
              info.name != strategy::kForwardMinPeak)
        << info.name.str();
  }
  EXPECT_EQ(lookupStrategy("no-such-strategy"), nullptr);
  PlannerOptions options;
  options.strategy = "no-such-strategy";
  llvm::Expected<PlannerResult> r =
      planRematerialization(test::makeGradChain(4, kMiB).graph, options);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "unknown strategy 'no-such-strategy'");
}

/// Each algorithm runs once per request: auto used to run store-all, sqrt,
/// Chen's greedy search and the min-cut sweep twice (once for the budget
/// driver's candidates, once for every strategy's default plan), and greedy
/// without a threshold used to run every strategy, the chain DP included.
TEST(PlannerRunsTest, EachAlgorithmOncePerRequest) {
  test::GradChain c = test::makeGradChain(24, kMiB);
  PlannerOptions options;
  for (int64_t budget : {int64_t(0), int64_t(8 * kMiB)}) {
    options.budget = budget;
    llvm::Expected<PlannerResult> r = planRematerialization(c.graph, options);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    for (const char *name :
         {"store-all", "sqrt", "greedy-search", "greedy-grid", "logn", "mincut",
          "chain-opt-min-memory"})
      EXPECT_EQ(r->algorithmRuns[name], 1u) << name << " budget " << budget;
    // The greedy plans of every threshold of the grid come from the one
    // greedy-grid run (greedyPlans), none from a greedy run of its own.
    EXPECT_EQ(r->algorithmRuns.count("greedy"), 0u);
    EXPECT_LE(r->algorithmRuns["milp"], 2u);
  }

  options = PlannerOptions();
  options.strategy = strategy::kGreedy;
  llvm::Expected<PlannerResult> greedyResult =
      planRematerialization(c.graph, options);
  ASSERT_TRUE(bool(greedyResult)) << llvm::toString(greedyResult.takeError());
  // Store-all for the report's ratio, and the search: nothing else.
  EXPECT_EQ(greedyResult->algorithmRuns,
            (std::map<std::string, unsigned>{{"greedy-search", 1},
                                             {"store-all", 1}}));
  EXPECT_EQ(greedyResult->candidates.size(), 1u);

  // An infeasible budget: naming the smallest budget reruns the planner at
  // the candidates' peaks, sharing the algorithms' results.
  options = PlannerOptions();
  options.strategy = strategy::kSqrt;
  options.budget = 1;
  llvm::Expected<PlannerResult> below = planRematerialization(c.graph, options);
  ASSERT_FALSE(bool(below));
  std::string message = llvm::toString(below.takeError());
  EXPECT_NE(message.find("; the smallest budget remat can meet for this graph "
                         "is "),
            std::string::npos)
      << message;
}
