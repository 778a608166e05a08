//===- WindowLoweringTest.cpp - Interval solutions lowered by windows -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/WindowLowering.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/StepProgram.h"

#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include <gtest/gtest.h>

#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <random>

using namespace remat::sched;

namespace {

/// Up to `count` distinct steps from the last forward node on, increasing.
std::vector<unsigned> randomSteps(std::mt19937 &rng, const Graph &g,
                                  unsigned count) {
  unsigned first = firstBackwardNode(g);
  unsigned lo = first > 0 ? first - 1 : 0;
  std::vector<unsigned> steps = {lo};
  for (unsigned i = 1; i < count; ++i)
    steps.push_back(
        std::uniform_int_distribution<unsigned>(lo, g.size() - 1)(rng));
  llvm::sort(steps);
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

TEST(WindowLoweringTest, LoweringExecutesOnlyWhatTheSolutionPays) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Random graphs of 5-7 forward and 8-12 backward nodes, 1-4 steps, at
  // budgets between the least-peak bound and store-all: every solution of
  // the interval program lowers to a valid schedule whose recomputations
  // in each window (the lists after a step up to the next step) are values
  // the solution executes there, each at most once, so its recompute is at
  // most the solution's cost; and a value the solution drops at a step is
  // never read after it before it is rebuilt.
  std::mt19937 rng(4321);
  unsigned lowered = 0, recomputing = 0;
  for (unsigned iter = 0; iter != 120; ++iter) {
    Graph g = test::makeRandomGraph(rng, 5 + iter % 3, 8 + iter % 5);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    int64_t least = leastPeakLowerBound(g);
    if (least >= storeAll.peakBytes)
      continue;
    int64_t budget = std::uniform_int_distribution<int64_t>(
        least, storeAll.peakBytes - 1)(rng);
    std::vector<unsigned> steps = randomSteps(rng, g, 1 + iter % 4);
    std::optional<IntervalSolution> solution =
        solveIntervalSteps(g, budget, steps, 10, 50);
    if (!solution)
      continue;
    ASSERT_EQ(solution->steps, steps);
    ASSERT_EQ(solution->held.size(), steps.size());
    ASSERT_EQ(solution->dropped.size(), steps.size());
    ASSERT_EQ(solution->executed.size(), steps.size());
    Schedule s = lowerByWindows(g, *solution);
    SimResult sim;
    std::optional<std::string> err = simulate(g, s, sim);
    ASSERT_FALSE(err) << *err << " graph " << iter;
    ++lowered;
    recomputing += sim.recomputeCount > 0;
    EXPECT_LE(sim.recomputeCost, solution->cost * (1 + 1e-9) + 1e-9)
        << "graph " << iter;
    // Every value the solution drops at a step is recomputed after the
    // step before anything reads it: no read uses an instance it dropped.
    for (unsigned j = 0; j != steps.size(); ++j)
      for (unsigned v : solution->dropped[j]) {
        if (g.nodes[v].backward || isAlwaysKept(g.nodes[v]))
          continue;
        bool rebuilt = false;
        for (unsigned k = steps[j] + 1; k != g.size() && !rebuilt; ++k) {
          for (unsigned u : s.recomputeBefore[k]) {
            if (u == v) {
              rebuilt = true;
              break;
            }
            EXPECT_FALSE(llvm::is_contained(g.nodes[u].operands, v))
                << "graph " << iter << ": " << v << " dropped at " << steps[j]
                << " read by a recomputation before " << k;
          }
          if (!rebuilt) {
            EXPECT_FALSE(llvm::is_contained(g.nodes[k].operands, v))
                << "graph " << iter << ": " << v << " dropped at " << steps[j]
                << " read by " << k;
          }
        }
      }
    std::vector<std::vector<unsigned>> inWindow(steps.size());
    for (unsigned k = 0; k != g.size(); ++k)
      for (unsigned v : s.recomputeBefore[k]) {
        // The window of list k: after step j, up to and including node
        // steps[j + 1].
        auto it = llvm::lower_bound(steps, k);
        ASSERT_NE(it, steps.begin()) << "a list before the first step";
        unsigned j = it - steps.begin() - 1;
        EXPECT_TRUE(llvm::is_contained(solution->executed[j], v))
            << "graph " << iter << ": " << v << " before " << k
            << " not executed in window " << j;
        EXPECT_FALSE(llvm::is_contained(inWindow[j], v))
            << "graph " << iter << ": " << v << " twice in window " << j;
        inWindow[j].push_back(v);
      }
  }
  EXPECT_GT(lowered, 60u);
  EXPECT_GT(recomputing, 20u) << "of " << lowered;
}

TEST(WindowLoweringTest, PlansFitAndNeverBeatTheExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Random 7-8 node graphs at every budget from the least peak of their
  // enumerated schedules to store-all: a plan of `intervalWindowPlan`
  // simulates within the budget and recomputes at most the cost of the
  // solution it lowers (`WindowPlanStats::cost`), the programs' bound is at
  // most the least recompute of every enumerated schedule
  // (test::allSchedules), the wall-time cap is never reached, and plans
  // are found at most budgets where a schedule fits, most of them optimal.
  std::mt19937 rng(1357);
  unsigned fits = 0, planned = 0, optimal = 0;
  for (unsigned iter = 0; iter != 40; ++iter) {
    Graph g = test::makeEnumerableGraph(rng, iter);
    ASSERT_FALSE(g.validate());
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    auto [minPeak, maxPeak] = test::peakRange(points);
    unsigned first = firstBackwardNode(g);
    for (int64_t budget = minPeak; budget <= maxPeak; ++budget) {
      double optimum = test::leastWithin(points, budget);
      ++fits;
      WindowPlanOptions options;
      options.seconds = 10;
      WindowPlanStats stats;
      std::optional<Schedule> s = intervalWindowPlan(
          g, budget, first > 0 ? first - 1 : 0, options, &stats);
      EXPECT_FALSE(stats.timedOut) << "graph " << iter;
      if (!s)
        continue;
      ++planned;
      SimResult sim;
      std::optional<std::string> err = simulate(g, *s, sim);
      ASSERT_FALSE(err) << *err;
      EXPECT_LE(sim.peakBytes, budget) << "graph " << iter;
      EXPECT_LE(sim.recomputeCost, stats.cost * (1 + 1e-9) + 1e-9)
          << "graph " << iter << " budget " << budget;
      EXPECT_LE(stats.bound, optimum * (1 + 1e-9) + 1e-9)
          << "graph " << iter << " budget " << budget;
      optimal += sim.recomputeCost <= optimum + 1e-9;
    }
  }
  EXPECT_GT(planned, fits / 2) << "of " << fits;
  EXPECT_GT(optimal, planned / 2) << "of " << planned;
}

TEST(WindowLoweringTest, StatsSayWhenTheTimeLimitEndedTheSearch) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // The same search on random graphs with 10 s and with no time at all:
  // the first ends within its node limits (`timedOut` false), the second
  // is cut short by the cap, which the stats say.
  std::mt19937 rng(2468);
  unsigned searched = 0;
  for (unsigned iter = 0; iter != 20; ++iter) {
    Graph g = test::makeRandomGraph(rng, 5, 9);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    int64_t least = leastPeakLowerBound(g);
    if (least >= storeAll.peakBytes)
      continue;
    int64_t budget = (least + storeAll.peakBytes) / 2;
    unsigned first = firstBackwardNode(g) - 1;
    WindowPlanOptions options;
    options.seconds = 10;
    WindowPlanStats stats;
    intervalWindowPlan(g, budget, first, options, &stats);
    EXPECT_FALSE(stats.timedOut) << "graph " << iter;
    searched += stats.programs > 0;
    options.seconds = 0;
    WindowPlanStats cut;
    EXPECT_FALSE(intervalWindowPlan(g, budget, first, options, &cut));
    EXPECT_TRUE(cut.timedOut) << "graph " << iter;
    EXPECT_EQ(cut.programs, 0u);
  }
  EXPECT_GT(searched, 10u);
}

TEST(WindowLoweringTest, NoStepAddedAboveTheCallersCost) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Random graphs at budgets between the least-peak bound and store-all,
  // each searched without a cost limit and with `stopAboveCost` at 1e-9
  // (any solution that recomputes something): where the limit stops the
  // search (`aboveCost`), it has solved no more programs than the free
  // search, fewer on most graphs; elsewhere both searches are the same.
  std::mt19937 rng(8642);
  unsigned stopped = 0, fewer = 0, fitAtTheLimit = 0;
  for (unsigned iter = 0; iter != 60; ++iter) {
    Graph g = test::makeRandomGraph(rng, 6 + iter % 4, 10 + iter % 6);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    int64_t least = leastPeakLowerBound(g);
    if (least >= storeAll.peakBytes)
      continue;
    int64_t budget = std::uniform_int_distribution<int64_t>(
        least, storeAll.peakBytes - 1)(rng);
    unsigned first = firstBackwardNode(g) - 1;
    WindowPlanOptions options;
    options.seconds = 10;
    options.finalNodes = options.maxNodes;
    WindowPlanStats free;
    std::optional<Schedule> freePlan =
        intervalWindowPlan(g, budget, first, options, &free);
    EXPECT_FALSE(free.aboveCost);
    options.stopAboveCost = 1e-9;
    WindowPlanStats limited;
    std::optional<Schedule> limitedPlan =
        intervalWindowPlan(g, budget, first, options, &limited);
    if (limitedPlan) {
      SimResult sim;
      ASSERT_FALSE(simulate(g, *limitedPlan, sim)) << "graph " << iter;
      EXPECT_LE(sim.peakBytes, budget) << "graph " << iter;
    }
    // The stop comes after the fit check: with the limit just below the
    // cost of the free search's fitting solution, a search whose earlier
    // solutions were cheaper returns that plan (a stop before the check
    // would drop it, reporting `aboveCost` there instead).
    if (freePlan && free.cost > 0) {
      WindowPlanOptions below = options;
      below.stopAboveCost = free.cost * (1 - 1e-9);
      WindowPlanStats at;
      std::optional<Schedule> atPlan =
          intervalWindowPlan(g, budget, first, below, &at);
      if (!at.aboveCost) {
        EXPECT_TRUE(atPlan) << "graph " << iter;
        EXPECT_EQ(at.programs, free.programs) << "graph " << iter;
        fitAtTheLimit += atPlan.has_value();
      }
    }
    if (limited.aboveCost) {
      // Stopped where the free search added a step and went on (its next
      // program may have found nothing, and counts only when it did).
      ++stopped;
      EXPECT_LE(limited.programs, free.programs) << "graph " << iter;
      EXPECT_LE(limited.steps.size(), free.steps.size()) << "graph " << iter;
      fewer += limited.programs < free.programs;
    } else {
      // Nothing to stop: the same search.
      EXPECT_EQ(limited.steps, free.steps) << "graph " << iter;
      EXPECT_EQ(limited.programs, free.programs) << "graph " << iter;
    }
  }
  EXPECT_GT(stopped, 5u);
  EXPECT_GT(fewer, stopped / 2) << "of " << stopped;
  EXPECT_GT(fitAtTheLimit, 5u);
}

TEST(WindowLoweringTest, AutoTakesTheWindowPlanOnlyWhenItIsCheaper) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // `auto` on random graphs of 38-50 ops (above the size where the exact
  // MILP joins the candidates) at 0.7 and 0.8 of store-all, with and
  // without window plans (PlannerOptions::budgetSearchWindows): a window
  // candidate, where there is one, simulates within the budget; `auto`
  // takes it exactly when it is cheaper than every other candidate within
  // the budget (at equal cost the earlier candidate stays), which happens
  // on some graphs (the plan without window plans then costs more, or
  // nothing else fits), so it never pays more than the best other
  // candidate. Some window candidates lose (ties), and some graphs get none.
  // Every comparison is within one run (the candidates of two runs may
  // differ where a wall-clock cap binds, e.g. under a sanitizer); the run
  // without window plans only checks that one exists whenever the other.
  unsigned taken = 0, kept = 0, none = 0;
  for (unsigned seed = 0; seed != 24; ++seed) {
    std::mt19937 rng(seed);
    Graph g = test::makeRandomGraph(rng, 16 + seed % 8, 20 + seed % 10);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    for (double fraction : {0.7, 0.8}) {
      PlannerOptions on;
      on.strategy = "auto";
      on.budget = int64_t(double(storeAll.peakBytes) * fraction);
      PlannerOptions off = on;
      off.budgetSearchWindows = false;
      llvm::Expected<PlannerResult> withWindows = planRematerialization(g, on);
      llvm::Expected<PlannerResult> without = planRematerialization(g, off);
      if (!withWindows || !without) {
        // Neither finds a plan, or both do.
        ASSERT_EQ(bool(withWindows), bool(without)) << "seed " << seed;
        llvm::consumeError(withWindows.takeError());
        llvm::consumeError(without.takeError());
        continue;
      }
      const PlanResult *window = nullptr;
      double other = std::numeric_limits<double>::infinity();
      int64_t otherPeak = 0;
      for (const PlanResult &c : withWindows->candidates) {
        bool isWindow =
            c.detail.find("lowered by windows") != std::string::npos;
        if (isWindow) {
          ASSERT_FALSE(window) << "two window candidates, seed " << seed;
          window = &c;
        } else if (c.sim.peakBytes <= on.budget &&
                   (c.sim.recomputeCost < other ||
                    (c.sim.recomputeCost == other &&
                     c.sim.peakBytes < otherPeak))) {
          other = c.sim.recomputeCost;
          otherPeak = c.sim.peakBytes;
        }
      }
      const PlanResult &plan = withWindows->plan;
      bool chosen = plan.detail.find("lowered by windows") != std::string::npos;
      // `auto`'s plan is the cheapest candidate within the budget.
      EXPECT_LE(plan.sim.recomputeCost, other) << "seed " << seed;
      if (!window) {
        EXPECT_FALSE(chosen);
        EXPECT_EQ(plan.sim.recomputeCost, other) << "seed " << seed;
        ++none;
        continue;
      }
      SimResult sim;
      ASSERT_FALSE(simulate(g, window->schedule, sim)) << "seed " << seed;
      EXPECT_LE(sim.peakBytes, on.budget) << "seed " << seed;
      bool cheaper = window->sim.recomputeCost < other ||
                     (window->sim.recomputeCost == other &&
                      window->sim.peakBytes < otherPeak);
      EXPECT_EQ(chosen, cheaper) << "seed " << seed << " " << fraction;
      if (chosen) {
        ++taken;
        EXPECT_EQ(plan.sim.recomputeCost, window->sim.recomputeCost)
            << "seed " << seed;
        EXPECT_EQ(plan.sim.peakBytes, window->sim.peakBytes) << "seed " << seed;
      } else {
        ++kept;
        EXPECT_EQ(plan.sim.recomputeCost, other) << "seed " << seed;
      }
    }
  }
  EXPECT_GT(taken, 10u);
  EXPECT_GT(kept, 0u);
  EXPECT_GT(none, 0u);
}

TEST(WindowLoweringTest, DroppedValuesAreRecomputedBeforeTheirNextReader) {
  // A chain x -> a -> b (forward), read by backward nodes g1 (reads b),
  // g2 (reads a) and g3 (reads x and b). Holding a at the step after g1 and
  // dropping x and b there: b is rebuilt from a before g3, x from the
  // graph's inputs before g3, and nothing before g2.
  Graph g;
  g.addNode(test::makeCostNode("x", 10, 1, {}));
  g.addNode(test::makeCostNode("a", 10, 2, {0}));
  g.addNode(test::makeCostNode("b", 10, 4, {1}));
  Node g1 = test::makeCostNode("g1", 1, 1, {2});
  g1.backward = true;
  g.addNode(g1);
  Node g2 = test::makeCostNode("g2", 1, 1, {1, 3});
  g2.backward = true;
  g.addNode(g2);
  Node g3 = test::makeCostNode("g3", 1, 1, {0, 2, 4});
  g3.backward = true;
  g.addNode(g3);
  ASSERT_FALSE(g.validate());
  IntervalSolution solution;
  solution.steps = {3};
  solution.held = {{1}};
  solution.dropped = {{0, 2}};
  solution.executed = {{0, 2}};
  Schedule s = lowerByWindows(g, solution);
  EXPECT_TRUE(s.recomputeBefore[4].empty());
  EXPECT_EQ(s.recomputeBefore[5], (std::vector<unsigned>{0, 2}));
  SimResult sim;
  ASSERT_FALSE(simulate(g, s, sim));
  EXPECT_DOUBLE_EQ(sim.recomputeCost, 5);
  // Held at the step but dropped before it (in an earlier step) and
  // executed in between: rebuilt in the step's own list, although no node
  // of that window reads it.
  solution.steps = {2, 3};
  solution.held = {{0}, {0, 1}};
  solution.dropped = {{1}, {}};
  solution.executed = {{1}, {}};
  s = lowerByWindows(g, solution);
  EXPECT_EQ(s.recomputeBefore[3], (std::vector<unsigned>{1}));
  EXPECT_TRUE(s.recomputeBefore[4].empty());
}

} // namespace
