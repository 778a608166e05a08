//===- MilpWindowsTest.cpp - Windows of stages re-planned by the MILP -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpWindows.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/Strategies.h"

#include "MilpTestSupport.h"
#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <random>

using namespace remat::sched;

namespace {

/// Window solves whose limits of time never bind (CBC's node limit is the
/// only limit that may stop them), so that the tests are deterministic.
MilpWindowSearchOptions deterministic() {
  MilpWindowSearchOptions options;
  options.seconds = 600;
  options.windowSeconds = 600;
  options.windowNodes = 100;
  return options;
}

/// A plan of `g` that recomputes a lot (greedy's with the smallest
/// threshold) and a budget it meets: its peak plus `slack` of the way to
/// store-all's.
std::pair<Schedule, int64_t> startAndBudget(const Graph &g,
                                            double slack = 1.0 / 3) {
  Schedule start = greedy(g, 1);
  SimResult sim, storeAllSim;
  EXPECT_FALSE(simulate(g, start, sim));
  EXPECT_FALSE(simulate(g, storeAll(g), storeAllSim));
  int64_t budget =
      sim.peakBytes +
      int64_t(slack * double(storeAllSim.peakBytes - sim.peakBytes));
  return {start, std::max(budget, sim.peakBytes)};
}

/// Every answer of a window inside a plan: the steps after the window hold
/// at most what they held (what they read leaves the window resident, and
/// nothing else does), every step is within the budget, and without values
/// kept from before the window the steps before it hold at most what they
/// held too (only what the plan has resident enters).
TEST(MilpWindows, AnswersKeepTheStepsOutsideTheWindow) {
  REQUIRE_CBC();
  std::mt19937 rng(7);
  unsigned answers = 0, extended = 0;
  for (unsigned iter = 0; iter != 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 14, 14);
    ASSERT_FALSE(g.validate());
    // The plan's own peak (every byte of the budget matters) or a little
    // more.
    auto [plan, budget] = startAndBudget(g, iter % 2 ? 0.1 : 0.0);
    SimResult sim;
    std::vector<int64_t> before;
    ASSERT_FALSE(liveBytesTrace(g, plan, sim, before));
    for (unsigned keep : {0u, 48u}) {
      MilpWindowSearchOptions options = deterministic();
      options.maxKeptFromBefore = keep;
      for (unsigned first = 15; first + 4 <= g.size(); first += 3) {
        unsigned last = first + 3;
        MilpWindowRequest request =
            milpWindowRequest(g, plan, first, last, budget, options);
        request.cutoff.reset(); // Any answer, not only cheaper ones.
        MilpWindowAnswer answer = milpReplanWindowAtBudget(g, plan, request);
        if (!answer.schedule)
          continue;
        std::vector<int64_t> after;
        ASSERT_FALSE(liveBytesTrace(g, *answer.schedule, sim, after));
        for (unsigned k = 0; k != g.size(); ++k) {
          std::string where = "graph " + std::to_string(iter) + " window " +
                              std::to_string(first) + ".." +
                              std::to_string(last) + " step " +
                              std::to_string(k);
          EXPECT_LE(after[k], budget) << where;
          if (k > last || (k < first && request.enterAlso.empty())) {
            EXPECT_LE(after[k], before[k]) << where;
          }
          if (k < first || k > last) {
            EXPECT_EQ(answer.schedule->recomputeBefore[k],
                      plan.recomputeBefore[k])
                << where;
          }
        }
        ++answers;
        extended += !request.enterAlso.empty();
      }
    }
  }
  EXPECT_GE(answers, 40u);
  EXPECT_GE(extended, 10u);
}

/// The search on random training graphs: never more recompute than its
/// start, always within the budget, and better than the start on most.
TEST(MilpWindows, SearchNeverWorseThanItsStartAndWithinBudget) {
  REQUIRE_CBC();
  std::mt19937 rng(11);
  unsigned better = 0;
  for (unsigned iter = 0; iter != 8; ++iter) {
    Graph g = test::makeRandomGraph(rng, 12 + iter, 12 + iter);
    ASSERT_FALSE(g.validate());
    auto [start, budget] = startAndBudget(g);
    SimResult startSim;
    ASSERT_FALSE(simulate(g, start, startSim));
    MilpWindowSearchOptions options = deterministic();
    options.maxSolves = 12;
    std::optional<MilpWindowSearchResult> r =
        milpWindowSearch(g, budget, start, options);
    ASSERT_TRUE(r) << "graph " << iter;
    SimResult sim;
    ASSERT_FALSE(simulate(g, r->schedule, sim));
    EXPECT_LE(sim.peakBytes, budget) << "graph " << iter;
    EXPECT_EQ(sim.peakBytes, r->sim.peakBytes);
    EXPECT_LE(sim.recomputeCost, startSim.recomputeCost) << "graph " << iter;
    better += sim.recomputeCost < startSim.recomputeCost;
  }
  EXPECT_GE(better, 4u);
}

/// On graphs small enough to enumerate, windows that cover every backward
/// stage (after narrower ones) reach the least recompute within the budget
/// of every schedule of the stage model.
TEST(MilpWindows, ReachesTheExhaustiveOptimumOnSmallGraphs) {
  REQUIRE_CBC();
  std::mt19937 rng(23);
  unsigned compared = 0, improved = 0;
  for (unsigned iter = 0; iter != 12; ++iter) {
    unsigned numF = 3, numB = 5 + iter % 2;
    Graph g = test::makeRandomGraph(rng, numF, numB);
    ASSERT_FALSE(g.validate());
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    auto [start, budget] = startAndBudget(g);
    SimResult startSim;
    ASSERT_FALSE(simulate(g, start, startSim));
    double optimum = test::leastWithin(points, budget);
    MilpWindowSearchOptions options = deterministic();
    options.widths = {2, numB};
    options.windowNodes = -1;
    std::optional<MilpWindowSearchResult> r =
        milpWindowSearch(g, budget, start, options);
    ASSERT_TRUE(r);
    EXPECT_LE(r->sim.peakBytes, budget);
    EXPECT_NEAR(r->sim.recomputeCost, optimum, 1e-9) << "graph " << iter;
    improved += optimum < startSim.recomputeCost;
    ++compared;
  }
  EXPECT_EQ(compared, 12u);
  EXPECT_GE(improved, 4u);
}

/// `strategy=milp` on a graph above kMilpMaxNodes at a budget: the window
/// search from the warm start, never worse than it, with the gap against
/// LowerBound's bound, and optimal only when the bound meets the plan.
/// Without a budget, the least peak the descent of MilpLarge.h reaches from
/// the warm start (no longer declined), never claimed optimal.
TEST(MilpWindows, MilpOptimalSearchesWindowsAboveTheSizeLimit) {
  REQUIRE_CBC();
  std::mt19937 rng(5);
  Graph g = test::makeRandomGraph(rng, 160, 160);
  ASSERT_GT(g.size(), kMilpMaxNodes);
  auto [start, budget] = startAndBudget(g);
  SimResult startSim;
  ASSERT_FALSE(simulate(g, start, startSim));
  std::string note;
  EXPECT_FALSE(milpOptimal(g, budget, 5, note));
  EXPECT_NE(note.find("needs a plan to start from"), std::string::npos) << note;
  std::optional<PlanResult> least = milpOptimal(g, 0, 5, note, &start);
  ASSERT_TRUE(least) << note;
  ASSERT_TRUE(least->solver);
  EXPECT_LE(least->sim.peakBytes, startSim.peakBytes);
  EXPECT_EQ(least->solver->objective, double(least->sim.peakBytes));
  EXPECT_LE(least->solver->bound, least->solver->objective);
  EXPECT_FALSE(least->solver->optimal);
  EXPECT_NE(least->detail.find("more than the 300 solved whole"),
            std::string::npos)
      << least->detail;
  // The limit holds up to the step under way when it runs out; twice the
  // limit leaves room for a loaded or instrumented (sanitizer) run.
  EXPECT_LT(least->solver->seconds, 2 * 5.0);
  std::optional<PlanResult> p = milpOptimal(g, budget, 5, note, &start);
  ASSERT_TRUE(p) << note;
  ASSERT_TRUE(p->solver);
  EXPECT_LE(p->sim.peakBytes, budget);
  EXPECT_LT(p->sim.recomputeCost, startSim.recomputeCost) << p->detail;
  EXPECT_NEAR(p->solver->objective, p->sim.recomputeCost, 1e-6);
  EXPECT_LE(p->solver->bound, p->solver->objective);
  EXPECT_EQ(p->solver->optimal,
            p->solver->bound >= p->solver->objective - 1e-9);
  EXPECT_NE(p->detail.find("windows of stages"), std::string::npos)
      << p->detail;
  EXPECT_LT(p->solver->seconds, 5 + 1.0);
}

} // namespace
