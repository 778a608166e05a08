//===- BudgetSearchTest.cpp - Less recompute within a budget -------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/Planner.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

using namespace remat::sched;
using remat::sched::test::makeCostNode;

namespace {

/// Two 100 B forward values read at the very end of the backward, one
/// expensive (E, cost 100) and one cheap (C, cost 1), and a 150 B gradient
/// live through the middle of the backward:
///   0 E 100 B, cost 100   1 C 100 B, cost 1   2 s(E, C) 10 B
///   3 loss(s) 1 B, output   4 g1(loss) 150 B   5 g2(g1) 10 B
///   6 g3(g2, E, C) 10 B, output
/// Store-all peaks at g2 (E + C + g1 + g2 = 360 B). Within 260 B one of E and
/// C must be dropped through g1 and g2: recomputing C (cost 1) is the
/// optimum, recomputing E (cost 100) the plan to improve.
Graph makeTradeGraph() {
  Graph g;
  g.addNode(makeCostNode("E", 100, 100, {}));
  g.addNode(makeCostNode("C", 100, 1, {}));
  g.addNode(makeCostNode("s", 10, 1, {0, 1}));
  g.addNode(makeCostNode("loss", 1, 1, {2}));
  g.nodes[3].output = true;
  g.addNode(makeCostNode("g1", 150, 1, {3}, true));
  g.addNode(makeCostNode("g2", 10, 1, {4}, true));
  g.addNode(makeCostNode("g3", 10, 1, {5, 0, 1}, true));
  g.nodes[6].output = true;
  return g;
}

constexpr int64_t kTradeBudget = 260;

SimResult simulateKept(const Graph &g, const std::vector<bool> &kept) {
  SimResult sim;
  EXPECT_FALSE(simulate(g, lowerKeptSet(g, kept), sim));
  return sim;
}

/// A candidate plan of strategy "test": `kept` lowered and simulated.
PlanResult keptSetPlan(const Graph &g, const std::vector<bool> &kept) {
  PlanResult p;
  p.strategy = "test";
  p.schedule = lowerKeptSet(g, kept);
  p.sim = simulateKept(g, kept);
  return p;
}

} // namespace

TEST(BudgetSearchTest, TradesTheExpensiveRecomputationForTheCheapOne) {
  Graph g = makeTradeGraph();
  ASSERT_FALSE(g.validate());
  SimResult storeAll;
  ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
  EXPECT_EQ(storeAll.peakBytes, 360);
  // The start: keep C, recompute E before g3.
  std::vector<bool> start(g.size(), false);
  start[1] = start[2] = true;
  SimResult before = simulateKept(g, start);
  EXPECT_EQ(before.peakBytes, 260);
  EXPECT_EQ(before.recomputeCost, 100);
  // Keeping E alone needs 360 B: the move must drop C in the same step.
  unsigned evaluations = 0;
  std::optional<KeptChoice> choice = reduceRecomputeInBudget(
      g, start, kTradeBudget, BudgetSearchOptions(), &evaluations);
  ASSERT_TRUE(choice);
  EXPECT_TRUE(choice->kept[0]);
  EXPECT_FALSE(choice->kept[1]);
  SimResult after = simulateKept(g, choice->kept);
  EXPECT_LE(after.peakBytes, kTradeBudget);
  EXPECT_EQ(after.recomputeCost, 1);
  EXPECT_GT(evaluations, 2u);
  // Without drops the move cannot be taken.
  BudgetSearchOptions noDrops;
  noDrops.maxDrops = 0;
  EXPECT_FALSE(reduceRecomputeInBudget(g, start, kTradeBudget, noDrops));
  // The exact MILP proves recompute 1 optimal within the budget.
  if (milpAvailable()) {
    std::string note;
    std::optional<PlanResult> exact = milpOptimal(g, kTradeBudget, 10, note);
    ASSERT_TRUE(exact) << note;
    ASSERT_TRUE(exact->solver && exact->solver->optimal);
    EXPECT_EQ(exact->sim.recomputeCost, after.recomputeCost);
  }
}

/// An expensive value X feeding two cheap ops A and R, all 100 B, with X
/// and R read at the end of the backward and a 200 B gradient in between:
///   0 X 100 B, cost 100   1 A(X) 100 B, cost 1   2 R(A) 100 B, cost 1
///   3 s(R) 10 B   4 loss(s) output   5 g1(loss) 200 B   6 g2(g1) 10 B
///   7 g3(g2, X, R) 10 B, output
/// Within 310 B, X and R cannot both stay live through g2. The start keeps
/// R (and A) and recomputes X (cost 100). Keeping X needs R gone, but
/// dropping R alone recomputes it from A, which then stays live instead
/// (the same bytes): only dropping R with A, recomputing both from X
/// (cost 2), fits, and that is the optimum.
Graph makeChainGraph() {
  Graph g;
  g.addNode(makeCostNode("X", 100, 100, {}));
  g.addNode(makeCostNode("A", 100, 1, {0}));
  g.addNode(makeCostNode("R", 100, 1, {1}));
  g.addNode(makeCostNode("s", 10, 1, {2}));
  g.addNode(makeCostNode("loss", 1, 1, {3}));
  g.nodes[4].output = true;
  g.addNode(makeCostNode("g1", 200, 1, {4}, true));
  g.addNode(makeCostNode("g2", 10, 1, {5}, true));
  g.addNode(makeCostNode("g3", 10, 1, {6, 0, 2}, true));
  g.nodes[7].output = true;
  return g;
}

constexpr int64_t kChainBudget = 310;

TEST(BudgetSearchTest, DropsACheapChainToKeepTheExpensiveValue) {
  Graph g = makeChainGraph();
  ASSERT_FALSE(g.validate());
  std::vector<bool> start(g.size(), false);
  start[1] = start[2] = start[3] = true;
  SimResult before = simulateKept(g, start);
  EXPECT_LE(before.peakBytes, kChainBudget);
  EXPECT_EQ(before.recomputeCost, 100);
  // Single-value moves alone find nothing: the drop of R is zero-sum.
  BudgetSearchOptions single;
  single.chains = single.refresh = false;
  EXPECT_FALSE(reduceRecomputeInBudget(g, start, kChainBudget, single));
  std::optional<KeptChoice> choice =
      reduceRecomputeInBudget(g, start, kChainBudget, BudgetSearchOptions());
  ASSERT_TRUE(choice);
  EXPECT_TRUE(choice->kept[0]);
  EXPECT_FALSE(choice->kept[1]);
  EXPECT_FALSE(choice->kept[2]);
  SimResult after;
  ASSERT_FALSE(simulate(g, lowerKeptChoice(g, *choice), after));
  EXPECT_LE(after.peakBytes, kChainBudget);
  EXPECT_EQ(after.recomputeCost, 2);
  // searchWithinBudget runs the single moves, then the larger changes.
  PlanResult p = keptSetPlan(g, start);
  std::vector<PlanResult> found =
      searchWithinBudget(g, {p}, kChainBudget, BudgetSearchOptions());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].sim.recomputeCost, 2);
  EXPECT_LE(found[0].sim.peakBytes, kChainBudget);
  // The exact MILP proves recompute 2 optimal within the budget.
  if (milpAvailable()) {
    std::string note;
    std::optional<PlanResult> exact = milpOptimal(g, kChainBudget, 10, note);
    ASSERT_TRUE(exact) << note;
    ASSERT_TRUE(exact->solver && exact->solver->optimal);
    EXPECT_EQ(exact->sim.recomputeCost, after.recomputeCost);
  }
}

TEST(BudgetSearchTest, DeclinesAStartOverTheBudgetOrWithoutAMove) {
  Graph g = makeTradeGraph();
  // Keeping both is over the budget: nothing to improve from.
  std::vector<bool> both(g.size(), false);
  both[0] = both[1] = both[2] = true;
  EXPECT_FALSE(
      reduceRecomputeInBudget(g, both, kTradeBudget, BudgetSearchOptions()));
  // The optimum itself has no improving move.
  std::vector<bool> best(g.size(), false);
  best[0] = best[2] = true;
  EXPECT_FALSE(
      reduceRecomputeInBudget(g, best, kTradeBudget, BudgetSearchOptions()));
}

TEST(BudgetSearchTest, SearchWithinBudgetImprovesOnlyTheCheapestPlan) {
  Graph g = makeTradeGraph();
  std::vector<bool> start(g.size(), false);
  start[1] = start[2] = true;
  PlanResult p = keptSetPlan(g, start);
  std::vector<PlanResult> found =
      searchWithinBudget(g, {p}, kTradeBudget, BudgetSearchOptions());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].strategy, "test");
  EXPECT_EQ(found[0].detail, "local search in the budget");
  EXPECT_EQ(found[0].sim.recomputeCost, 1);
  // A candidate of another op order, or over the budget, is no start.
  PlanResult reordered = p;
  reordered.order = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(
      searchWithinBudget(g, {reordered}, kTradeBudget, BudgetSearchOptions())
          .empty());
  EXPECT_TRUE(searchWithinBudget(g, {p}, 250, BudgetSearchOptions()).empty());
}

TEST(BudgetSearchTest, FitToBudgetRepairsASeedOverTheBudget) {
  Graph g = makeTradeGraph();
  // Keeping everything is store-all, 100 B over the budget: the repair
  // drops the value that sheds the most excess per unit of recompute (C).
  KeptChoice all{std::vector<bool>(g.size(), true),
                 std::vector<bool>(g.size(), false)};
  unsigned evaluations = 0;
  std::optional<KeptChoice> fitted = fitToBudget(
      g, all, kTradeBudget, BudgetSearchOptions(), 8, &evaluations);
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(fitted->kept[0]);
  EXPECT_FALSE(fitted->kept[1]);
  SimResult sim;
  ASSERT_FALSE(simulate(g, lowerKeptChoice(g, *fitted), sim));
  EXPECT_LE(sim.peakBytes, kTradeBudget);
  EXPECT_EQ(sim.recomputeCost, 1);
  EXPECT_GT(evaluations, 1u);
  // A seed within the budget comes back as it is, after one evaluation.
  std::optional<KeptChoice> same =
      fitToBudget(g, *fitted, kTradeBudget, BudgetSearchOptions(), 8,
                  &evaluations);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->kept, fitted->kept);
  EXPECT_EQ(evaluations, 1u);
  // Below the least peak any schedule can reach (g1 and g2, 160 B), or
  // with no change allowed, it fails.
  EXPECT_FALSE(fitToBudget(g, all, 150, BudgetSearchOptions(), 8));
  EXPECT_FALSE(fitToBudget(g, all, kTradeBudget, BudgetSearchOptions(), 0));
}

TEST(BudgetSearchTest, SearchWithinBudgetStartsFromASeedOverTheBudget) {
  Graph g = makeTradeGraph();
  // The candidate recomputes E (cost 100); the seed keeps everything and
  // is over the budget until made to fit.
  std::vector<bool> start(g.size(), false);
  start[1] = start[2] = true;
  PlanResult p = keptSetPlan(g, start);
  KeptSeed seed{{std::vector<bool>(g.size(), true),
                 std::vector<bool>(g.size(), false)},
                "seeded",
                "a seed"};
  BudgetSearchOptions noMoves;
  noMoves.maxStarts = 1;
  std::vector<PlanResult> found =
      searchWithinBudget(g, {p}, kTradeBudget, noMoves, {seed});
  // The start's own search finds the optimum too; the seed's plan is the
  // same optimum, reported under its own strategy and detail.
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[1].strategy, "seeded");
  EXPECT_EQ(found[1].detail, "a seed, local search in the budget");
  EXPECT_EQ(found[1].sim.recomputeCost, 1);
  EXPECT_LE(found[1].sim.peakBytes, kTradeBudget);
  // With no candidate within the budget the seed alone gives the plan.
  found = searchWithinBudget(g, {}, kTradeBudget, noMoves, {seed});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].sim.recomputeCost, 1);
  // Never a plan over the budget, and none that a candidate within the
  // budget already beats (store-all at a budget it meets).
  EXPECT_TRUE(searchWithinBudget(g, {}, 150, noMoves, {seed}).empty());
  PlanResult storeAll;
  storeAll.strategy = "store-all";
  storeAll.schedule = Schedule(g.size());
  ASSERT_FALSE(simulate(g, storeAll.schedule, storeAll.sim));
  EXPECT_TRUE(
      searchWithinBudget(g, {storeAll}, 400, noMoves, {seed}).empty());
}

/// A recomputed chain brought back early and read again late: A (10 B,
/// cost 100) feeds the cheap values r0 -> r1 -> r2 (100 B each, cost 1);
/// the first backward step g1 reads r2, ten 200-byte gradient steps follow,
/// and the last step reads r1:
///   0 A   1 r0(A)   2 r1(r0)   3 r2(r1)   4 loss(r2), output
///   5 g1(loss, r2)   6..15 m0(g1) .. m9(m8), 200 B   16 g4(m9, r1), output
/// With A kept and r0..r2 dropped, step 5 recomputes the chain and holds
/// r1 to step 16: 500 B at the gradient steps. Within 450 B r1 must be
/// recomputed again at step 16; refreshing r1 alone only holds r0 instead
/// (the same bytes), so the repair needs r0 and r1 refreshed together.
Graph makeRefreshChainGraph() {
  Graph g;
  g.addNode(makeCostNode("A", 10, 100, {}));
  g.addNode(makeCostNode("r0", 100, 1, {0}));
  g.addNode(makeCostNode("r1", 100, 1, {1}));
  g.addNode(makeCostNode("r2", 100, 1, {2}));
  g.addNode(makeCostNode("loss", 1, 1, {3}));
  g.nodes[4].output = true;
  g.addNode(makeCostNode("g1", 10, 1, {4, 3}, true));
  for (unsigned i = 0; i != 10; ++i)
    g.addNode(makeCostNode("m" + std::to_string(i), 200, 1,
                           {unsigned(g.size() - 1)}, true));
  g.addNode(makeCostNode("g4", 10, 1, {15, 2}, true));
  g.nodes[16].output = true;
  return g;
}

TEST(BudgetSearchTest, RefreshesARecomputedChainToFitTheBudget) {
  Graph g = makeRefreshChainGraph();
  ASSERT_FALSE(g.validate());
  constexpr int64_t budget = 450;
  KeptChoice seed{std::vector<bool>(g.size(), false),
                  std::vector<bool>(g.size(), false)};
  seed.kept[0] = true;
  SimResult start;
  ASSERT_FALSE(simulate(g, lowerKeptChoice(g, seed), start));
  EXPECT_EQ(start.peakBytes, 500);
  EXPECT_EQ(start.recomputeCost, 3);
  // Without chain refreshes the repair gets stuck over the budget.
  BudgetSearchOptions old;
  old.refreshChains = false;
  EXPECT_FALSE(fitToBudget(g, seed, budget, old, 8));
  EXPECT_TRUE(searchWithinBudget(g, {}, budget, old,
                                 {KeptSeed{seed, "seeded", "a seed"}})
                  .empty());
  // With them r0 and r1 are recomputed again for g4: 2 more, within the
  // budget.
  std::optional<KeptChoice> fitted =
      fitToBudget(g, seed, budget, BudgetSearchOptions(), 8);
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(fitted->refresh[1] && fitted->refresh[2]);
  SimResult sim;
  ASSERT_FALSE(simulate(g, lowerKeptChoice(g, *fitted), sim));
  EXPECT_LE(sim.peakBytes, budget);
  EXPECT_EQ(sim.recomputeCost, 5);
  // The search then keeps r2 (read only by g1): r0 and r1 are recomputed
  // for g4 alone, the optimum (r1 must be brought back for g4, and holding
  // r0 or r1 through the gradient steps exceeds the budget).
  std::vector<PlanResult> found =
      searchWithinBudget(g, {}, budget, BudgetSearchOptions(),
                         {KeptSeed{seed, "seeded", "a seed"}});
  ASSERT_EQ(found.size(), 1u);
  SimResult check;
  ASSERT_FALSE(simulate(g, found[0].schedule, check));
  EXPECT_EQ(check.peakBytes, found[0].sim.peakBytes);
  EXPECT_LE(check.peakBytes, budget);
  EXPECT_EQ(check.recomputeCost, 2);
  // With a refresh gap of 11 or more the readers of r1 at steps 5 and 16
  // share its recomputation again: nothing fits.
  BudgetSearchOptions wide;
  wide.refreshGap = 11;
  EXPECT_FALSE(fitToBudget(g, seed, budget, wide, 8));
}

/// A cheap value read early and twice late, next to each other: A (10 B,
/// cost 100) feeds X (100 B, cost 1); the first backward step g1 reads X,
/// ten 200-byte gradient steps follow, then g2 and g3 both read X:
///   0 A   1 X(A)   2 loss(X), output   3 g1(loss, X)
///   4..13 m0(g1) .. m9(m8), 200 B   14 g2(m9, X)   15 g3(g2, X), output
/// Within 450 B X cannot be held through the gradient steps (510 B), so it
/// is recomputed for g1 and again after them: before each of g2 and g3
/// with a refresh gap of 0 (cost 3), once for both with a gap of 1 or more
/// (cost 2).
Graph makeCloseReadersGraph() {
  Graph g;
  g.addNode(makeCostNode("A", 10, 100, {}));
  g.addNode(makeCostNode("X", 100, 1, {0}));
  g.addNode(makeCostNode("loss", 1, 1, {1}));
  g.nodes[2].output = true;
  g.addNode(makeCostNode("g1", 10, 1, {2, 1}, true));
  for (unsigned i = 0; i != 10; ++i)
    g.addNode(makeCostNode("m" + std::to_string(i), 200, 1,
                           {unsigned(g.size() - 1)}, true));
  g.addNode(makeCostNode("g2", 10, 1, {13, 1}, true));
  g.addNode(makeCostNode("g3", 10, 1, {14, 1}, true));
  g.nodes[15].output = true;
  return g;
}

/// The least recompute of `plans` (-1 if empty), each checked: it
/// simulates as reported and fits `budget`.
double cheapestChecked(const Graph &g, const std::vector<PlanResult> &plans,
                       int64_t budget) {
  double best = -1;
  for (const PlanResult &p : plans) {
    SimResult sim;
    EXPECT_FALSE(simulate(g, p.schedule, sim));
    EXPECT_EQ(sim.peakBytes, p.sim.peakBytes);
    EXPECT_EQ(sim.recomputeCost, p.sim.recomputeCost);
    EXPECT_LE(sim.peakBytes, budget);
    if (best < 0 || sim.recomputeCost < best)
      best = sim.recomputeCost;
  }
  return best;
}

TEST(BudgetSearchTest, BothRefreshGapsKeepTheBetterPlan) {
  Graph g = makeCloseReadersGraph();
  ASSERT_FALSE(g.validate());
  constexpr int64_t budget = 450;
  KeptSeed seed{
      {std::vector<bool>(g.size(), true), std::vector<bool>(g.size(), false)},
      "seeded",
      "X dropped"};
  seed.choice.kept[1] = false;
  BudgetSearchOptions options;
  double gap0 = cheapestChecked(
      g, searchWithinBudgetGaps(g, {}, budget, options, {0u}, {seed}), budget);
  double gap8 = cheapestChecked(
      g, searchWithinBudgetGaps(g, {}, budget, options, {8u}, {seed}), budget);
  double both = cheapestChecked(
      g, searchWithinBudgetGaps(g, {}, budget, options, {0u, 8u}, {seed}),
      budget);
  EXPECT_EQ(gap0, 3);
  EXPECT_EQ(gap8, 2);
  EXPECT_EQ(both, 2);
  // On the graph where a wide gap fits nothing, both gaps keep the plan of
  // the gap of 0 (RefreshesARecomputedChainToFitTheBudget).
  Graph chain = makeRefreshChainGraph();
  KeptSeed chainSeed{{std::vector<bool>(chain.size(), false),
                      std::vector<bool>(chain.size(), false)},
                     "seeded",
                     "A kept"};
  chainSeed.choice.kept[0] = true;
  EXPECT_TRUE(
      searchWithinBudgetGaps(chain, {}, 450, options, {11u}, {chainSeed})
          .empty());
  EXPECT_EQ(cheapestChecked(chain,
                            searchWithinBudgetGaps(chain, {}, 450, options,
                                                   {0u, 11u}, {chainSeed}),
                            450),
            2);
}

/// On random graphs at budgets of 0.3 .. 0.9 of store-all, `auto` seeded
/// also by the cut the lower bound's final cut replaced
/// (`PlannerOptions::budgetSearchPreviousCut`) keeps within the budget,
/// simulates as reported and never recomputes more than without it; it
/// recomputes strictly less somewhere.
TEST(BudgetSearchTest, PreviousCutSeedNeverWorseSometimesBetter) {
  std::mt19937 rng(5);
  unsigned better = 0, withPrevious = 0;
  for (unsigned trial = 0; trial != 16; ++trial) {
    Graph g = test::makeRandomGraph(rng, 30, 30);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    for (double f : {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}) {
      PlannerOptions options;
      options.budget = int64_t(f * double(storeAll.peakBytes));
      options.budgetSearchCutSeconds = 10;
      LowerBoundOptions boundOptions;
      boundOptions.timeLimitSeconds = 0;
      if (!recomputeLowerBound(g, options.budget, boundOptions)
               .previousCut.empty())
        ++withPrevious;
      options.budgetSearchPreviousCut = false;
      llvm::Expected<PlannerResult> without = planRematerialization(g, options);
      options.budgetSearchPreviousCut = true;
      llvm::Expected<PlannerResult> with = planRematerialization(g, options);
      // A plan where none fitted without the seed counts as cheaper.
      ASSERT_TRUE(with || !without);
      if (!with) {
        llvm::consumeError(without.takeError());
        llvm::consumeError(with.takeError());
        continue;
      }
      SimResult sim;
      ASSERT_FALSE(simulate(g, with->plan.schedule, sim));
      EXPECT_EQ(sim.peakBytes, with->plan.sim.peakBytes);
      EXPECT_EQ(sim.recomputeCost, with->plan.sim.recomputeCost);
      EXPECT_LE(sim.peakBytes, options.budget);
      if (!without) {
        llvm::consumeError(without.takeError());
        ++better;
        continue;
      }
      EXPECT_LE(with->plan.sim.recomputeCost, without->plan.sim.recomputeCost);
      if (with->plan.sim.recomputeCost < without->plan.sim.recomputeCost)
        ++better;
    }
  }
  std::cout << "budgets with a previous cut: " << withPrevious
            << ", plans it made cheaper: " << better << "\n";
  EXPECT_GT(withPrevious, 0u);
  EXPECT_GT(better, 0u);
}

/// On random training graphs at budgets of 0.4 .. 0.9 of store-all, from
/// every strategy's plans: what the search returns simulates, fits the
/// budget and recomputes less than every candidate within it; and auto's
/// plan (which now includes it) never recomputes more than any candidate.
TEST(BudgetSearchTest, NeverWorseNeverOverTheBudgetOnRandomGraphs) {
  std::mt19937 rng(11);
  unsigned improvedCount = 0, seededCount = 0;
  for (unsigned trial = 0; trial != 12; ++trial) {
    Graph g = test::makeRandomGraph(rng, 24, 24);
    ASSERT_FALSE(g.validate());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    std::vector<std::string> notes;
    std::vector<PlanResult> all = planAllStrategies(g, notes);
    for (double f : {0.4, 0.5, 0.6, 0.7, 0.8, 0.9}) {
      int64_t budget = int64_t(f * double(storeAll.peakBytes));
      double cheapest = -1;
      for (const PlanResult &p : all)
        if (p.order.empty() && p.sim.peakBytes <= budget &&
            (cheapest < 0 || p.sim.recomputeCost < cheapest))
          cheapest = p.sim.recomputeCost;
      for (const PlanResult &p :
           searchWithinBudget(g, all, budget, BudgetSearchOptions())) {
        SimResult sim;
        ASSERT_FALSE(simulate(g, p.schedule, sim));
        EXPECT_EQ(sim.peakBytes, p.sim.peakBytes);
        EXPECT_EQ(sim.recomputeCost, p.sim.recomputeCost);
        EXPECT_LE(sim.peakBytes, budget);
        ASSERT_GE(cheapest, 0);
        EXPECT_LT(sim.recomputeCost, cheapest);
        ++improvedCount;
      }
      PlannerOptions options;
      options.budget = budget;
      llvm::Expected<PlannerResult> r = planRematerialization(g, options);
      if (!r) {
        llvm::consumeError(r.takeError());
        continue;
      }
      EXPECT_LE(r->plan.sim.peakBytes, budget);
      for (const PlanResult &c : r->candidates) {
        if (c.sim.peakBytes <= budget) {
          EXPECT_LE(r->plan.sim.recomputeCost, c.sim.recomputeCost);
        }
      }
      // Seeded by the lower bound's cut too: valid, within the budget, and
      // never more recompute than without the seed.
      options.budgetSearchCutSeconds = 1;
      llvm::Expected<PlannerResult> seeded = planRematerialization(g, options);
      ASSERT_TRUE(static_cast<bool>(seeded));
      SimResult sim;
      ASSERT_FALSE(simulate(g, seeded->plan.schedule, sim));
      EXPECT_EQ(sim.peakBytes, seeded->plan.sim.peakBytes);
      EXPECT_LE(sim.peakBytes, budget);
      EXPECT_LE(seeded->plan.sim.recomputeCost, r->plan.sim.recomputeCost);
      if (seeded->plan.sim.recomputeCost < r->plan.sim.recomputeCost)
        ++seededCount;
    }
  }
  // The search is exercised, not vacuous, on these graphs.
  EXPECT_GT(improvedCount, 0u);
  std::cout << "plans the lower bound's cut made cheaper: " << seededCount
            << "\n";
}
