//===- KeptSetSearchTest.cpp - Local search on kept sets -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/KeptSetSearch.h"
#include "remat/Scheduling/MinCut.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace remat::sched;
using remat::sched::test::makeCostNode;

namespace {

/// conv -> relu -> pool -> conv2 -> loss, where the backward reads the pool
/// output (conv2 and pool gradients) and the conv output (relu gradient),
/// and a 50 B gradient is live while the pool output is recomputed:
///   0 a = conv    100 B, cost 200    1 r = relu(a)  100 B, cost 1
///   2 p = pool(r)  10 B, cost 1      3 q = conv2(p)  10 B, cost 200
///   4 loss(q)       1 B, output
///   5 gl(loss) 50 B   6 gq(gl, p) 10 B   7 gr(gq, p, gl) 10 B
///   8 ga(gr, a) 10 B, output
/// The memory-only cut saves {a} (100 B) and recomputes r and p from it
/// (saving p as well would cost 10 B more): before gq the recomputation holds
/// a + gl + r + p = 260 B, above the forward's a + r + p = 210 B. Keeping p
/// removes that recomputation: peak 210, nothing recomputed.
Graph makePoolGraph() {
  Graph g;
  g.addNode(makeCostNode("a", 100, 200, {}));
  g.addNode(makeCostNode("r", 100, 1, {0}));
  g.addNode(makeCostNode("p", 10, 1, {1}));
  g.addNode(makeCostNode("q", 10, 200, {2}));
  g.addNode(makeCostNode("loss", 1, 1, {3}));
  g.nodes[4].output = true;
  g.addNode(makeCostNode("gl", 50, 1, {4}, true));
  g.addNode(makeCostNode("gq", 10, 1, {5, 2}, true));
  g.addNode(makeCostNode("gr", 10, 1, {6, 2, 5}, true));
  g.addNode(makeCostNode("ga", 10, 1, {7, 0}, true));
  g.nodes[8].output = true;
  return g;
}

std::vector<bool> setOf(unsigned n, std::vector<unsigned> members) {
  std::vector<bool> s(n, false);
  for (unsigned m : members)
    s[m] = true;
  return s;
}

} // namespace

TEST(KeptSetSearchTest, KeepsThePoolOutputByHand) {
  Graph g = makePoolGraph();
  MinCutOptions memoryOnly;
  memoryOnly.banCostPerByte = 1; // conv and conv2 (cost 200 > 100 B).
  std::vector<bool> cut = minCutKeptSet(g, memoryOnly);
  ASSERT_EQ(cut, setOf(g.size(), {0, 4})); // The loss is an output.
  SimResult start;
  ASSERT_FALSE(simulate(g, lowerKeptSet(g, cut), start));
  EXPECT_EQ(start.peakBytes, 260);
  EXPECT_EQ(start.recomputeCost, 2);
  EXPECT_TRUE(start.peakInRecompute);

  KeptSetSearchOptions options;
  options.maxRecomputeCost = start.recomputeCost;
  std::vector<SimResult> trail;
  options.onMove = [&](const std::vector<bool> &, const Schedule &,
                       const SimResult &sim) { trail.push_back(sim); };
  KeptSetSearchResult r = improveKeptSet(g, cut, options);
  EXPECT_EQ(r.sim.peakBytes, 210);
  EXPECT_EQ(r.sim.recomputeCost, 0);
  EXPECT_EQ(r.moves, 1u);
  EXPECT_TRUE(r.kept[0] && r.kept[2]);
  ASSERT_EQ(trail.size(), 1u);
  EXPECT_EQ(trail[0].peakBytes, 210);
}

TEST(KeptSetSearchTest, RecomputeLimitIsHonoured) {
  // A value kept through a large gradient:
  //   0 a 100 B, cost 1   1 b(a) 10 B   2 loss(b), output
  //   3 g1(loss) 100 B   4 g2(g1, b) 10 B   5 g3(g2, a) 10 B, output
  // Everything kept: during g2, a + b + g1 + g2 = 220 B. Dropping a
  // (recomputed before g3 at cost 1) leaves b + g1 + g2 = 120 B there and
  // g2 + a + g3 = 120 B at the end: peak 120.
  Graph g;
  g.addNode(makeCostNode("a", 100, 1, {}));
  g.addNode(makeCostNode("b", 10, 1, {0}));
  g.addNode(makeCostNode("loss", 1, 1, {1}));
  g.nodes[2].output = true;
  g.addNode(makeCostNode("g1", 100, 1, {2}, true));
  g.addNode(makeCostNode("g2", 10, 1, {3, 1}, true));
  g.addNode(makeCostNode("g3", 10, 1, {4, 0}, true));
  g.nodes[5].output = true;
  std::vector<bool> all = setOf(g.size(), {0, 1});
  KeptSetSearchOptions options;
  options.maxRecomputeCost = 0;
  KeptSetSearchResult r = improveKeptSet(g, all, options);
  EXPECT_EQ(r.sim.peakBytes, 220);
  EXPECT_EQ(r.sim.recomputeCost, 0);
  EXPECT_EQ(r.moves, 0u);
  options.maxRecomputeCost = 1;
  r = improveKeptSet(g, all, options);
  EXPECT_EQ(r.sim.peakBytes, 120);
  EXPECT_EQ(r.sim.recomputeCost, 1);
  EXPECT_FALSE(r.kept[0]);
}

TEST(KeptSetSearchTest, NeverWorseAndConsistentOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 40; ++iter) {
    Graph g = test::makeRandomGraph(rng, 10 + iter % 20, 8 + iter % 15);
    std::vector<bool> start(g.size());
    for (unsigned v = 0; v < g.size(); ++v)
      start[v] = rng() % 2;
    SimResult before;
    ASSERT_FALSE(simulate(g, lowerKeptSet(g, start), before));
    KeptSetSearchOptions options;
    double limits[] = {0, before.recomputeCost, 2 * before.recomputeCost + 5};
    options.maxRecomputeCost = limits[iter % 3];
    unsigned moves = 0;
    int64_t lastPeak = before.peakBytes;
    options.onMove = [&](const std::vector<bool> &kept, const Schedule &s,
                         const SimResult &sim) {
      ++moves;
      // Every plan passed on the way is the lowering of its kept set, and
      // the peak never rises along the way.
      SimResult check;
      ASSERT_FALSE(simulate(g, lowerKeptSet(g, kept), check));
      EXPECT_EQ(check.peakBytes, sim.peakBytes);
      EXPECT_EQ(s.numRecomputed(), check.recomputeCount);
      EXPECT_LE(sim.peakBytes, lastPeak);
      lastPeak = sim.peakBytes;
    };
    KeptSetSearchResult r = improveKeptSet(g, start, options);
    SimResult check;
    ASSERT_FALSE(simulate(g, lowerKeptSet(g, r.kept), check));
    EXPECT_EQ(check.peakBytes, r.sim.peakBytes) << iter;
    EXPECT_EQ(check.recomputeCost, r.sim.recomputeCost) << iter;
    EXPECT_LE(r.sim.peakBytes, before.peakBytes) << iter;
    EXPECT_LE(r.sim.recomputeCost,
              std::max(options.maxRecomputeCost, before.recomputeCost) + 1e-9)
        << iter;
    if (r.sim.peakBytes == before.peakBytes) {
      EXPECT_LE(r.sim.recomputeCost, before.recomputeCost) << iter;
    }
    EXPECT_GE(moves, r.moves);
  }
}

TEST(KeptSetSearchTest, BestRateTakesTheCheapStepFirst) {
  // Two values kept through a large gradient, both read at the end:
  //   0 a 100 B, cost 100   1 b 60 B, cost 1   2 loss(a, b), output
  //   3 g1(loss) 200 B   4 g2(g1) 10 B   5 g3(g2, a, b) 10 B, output
  // Everything kept: a + b + g1 + g2 = 370 B during g2. Dropping a (cost
  // 100) leaves 270 there, dropping b (cost 1) 310, both 210 (at g3 the
  // recomputed a and b with g2 and g3 hold 180). The least-peak search drops
  // a first; the best-rate search b (40 B per unit against 1); both end
  // with both dropped within a limit of 101.
  Graph g;
  g.addNode(makeCostNode("a", 100, 100, {}));
  g.addNode(makeCostNode("b", 60, 1, {}));
  g.addNode(makeCostNode("loss", 1, 1, {0, 1}));
  g.nodes[2].output = true;
  g.addNode(makeCostNode("g1", 200, 1, {2}, true));
  g.addNode(makeCostNode("g2", 10, 1, {3}, true));
  g.addNode(makeCostNode("g3", 10, 1, {4, 0, 1}, true));
  g.nodes[5].output = true;
  std::vector<bool> all = setOf(g.size(), {0, 1});
  for (bool bestRate : {false, true}) {
    KeptSetSearchOptions options;
    options.maxRecomputeCost = 101;
    options.bestRate = bestRate;
    std::vector<SimResult> trail;
    options.onMove = [&](const std::vector<bool> &, const Schedule &,
                         const SimResult &sim) { trail.push_back(sim); };
    KeptSetSearchResult r = improveKeptSet(g, all, options);
    EXPECT_EQ(r.sim.peakBytes, 210);
    EXPECT_EQ(r.sim.recomputeCost, 101);
    ASSERT_EQ(trail.size(), 2u);
    EXPECT_EQ(trail[0].peakBytes, bestRate ? 310 : 270);
    EXPECT_EQ(trail[0].recomputeCost, bestRate ? 1 : 100);
  }
}

TEST(KeptSetSearchTest, EvaluationBudgetStopsTheSearch) {
  // The pool graph with room for one evaluation only: the start's.
  Graph g = makePoolGraph();
  KeptSetSearchOptions options;
  options.maxRecomputeCost = 2; // The cut's own: a is never dropped.
  options.maxEvaluations = 1;
  KeptSetSearchResult r = improveKeptSet(g, setOf(g.size(), {0}), options);
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_EQ(r.moves, 0u);
  EXPECT_EQ(r.sim.peakBytes, 260);
  // Ten are enough: the start, the three values live at the peak (a, r and
  // p, whose keep is the move), then a and p live at the new peak.
  options.maxEvaluations = 10;
  r = improveKeptSet(g, setOf(g.size(), {0}), options);
  EXPECT_EQ(r.sim.peakBytes, 210);
  EXPECT_LE(r.evaluations, 10u);
}

TEST(KeptSetSearchTest, HoistingMovesARecomputationBeforeTheLargeGradient) {
  //   0 x 100 B, cost 1   1 y(x) 10 B, cost 1   2 loss(y), output
  //   3 g1(loss) 10 B   4 big(g1) 100 B   5 g5(big, y) 10 B, output
  // Nothing kept: x and y are recomputed right before g5, while big is live:
  // big + x + y = 210 B during y's recomputation. Before g1 or before big
  // the same recomputation holds at most g1 + x + y = 120 B (x dies once y
  // is made), and y then lives through big: y + g1 + big = 120 B.
  Graph g;
  g.addNode(makeCostNode("x", 100, 1, {}));
  g.addNode(makeCostNode("y", 10, 1, {0}));
  g.addNode(makeCostNode("loss", 1, 1, {1}));
  g.nodes[2].output = true;
  g.addNode(makeCostNode("g1", 10, 1, {2}, true));
  g.addNode(makeCostNode("big", 100, 1, {3}, true));
  g.addNode(makeCostNode("g5", 10, 1, {4, 1}, true));
  g.nodes[5].output = true;
  Schedule lowered = lowerKeptSet(g, setOf(g.size(), {}));
  ASSERT_EQ(lowered.recomputeBefore[5], (std::vector<unsigned>{0, 1}));
  SimResult before;
  ASSERT_FALSE(simulate(g, lowered, before));
  EXPECT_EQ(before.peakBytes, 210);
  EXPECT_TRUE(before.peakInRecompute);

  SimResult after;
  Schedule hoisted = hoistRecomputations(g, lowered, after);
  EXPECT_EQ(after.peakBytes, 120);
  EXPECT_EQ(after.recomputeCost, before.recomputeCost);
  EXPECT_TRUE(hoisted.recomputeBefore[5].empty());
  EXPECT_TRUE(hoisted.recomputeBefore[3] == (std::vector<unsigned>{0, 1}) ||
              hoisted.recomputeBefore[4] == (std::vector<unsigned>{0, 1}));
  SimResult check;
  ASSERT_FALSE(simulate(g, hoisted, check));
  EXPECT_EQ(check.peakBytes, 120);

  // No recomputation at the peak: unchanged.
  SimResult storeAll;
  Schedule same = hoistRecomputations(g, Schedule(g.size()), storeAll);
  EXPECT_EQ(same.numRecomputed(), 0u);
}

TEST(KeptSetSearchTest, RelaxToBudgetKeepsWhatTheSlackAllows) {
  // A 10-layer chain with every other layer kept (the odd ones recomputed
  // from the even ones); at a budget between its peak and store-all's,
  // keeping some odd layers must fit, recompute less, and stay within the
  // budget.
  test::GradChain c = test::makeGradChain(10, 16, 1.0);
  for (unsigned i = 0; i != 10; ++i)
    c.graph.nodes[c.f[i]].cost = 1 + i % 3;
  const Graph &g = c.graph;
  std::vector<bool> none(g.size(), true);
  for (unsigned i = 1; i < 10; i += 2)
    none[c.f[i]] = false;
  PlanResult least;
  least.strategy = "test";
  least.schedule = lowerKeptSet(g, none);
  ASSERT_FALSE(simulate(g, least.schedule, least.sim));
  SimResult all;
  ASSERT_FALSE(simulate(g, Schedule(g.size()), all));
  ASSERT_LT(least.sim.peakBytes, all.peakBytes);
  int64_t budget = (least.sim.peakBytes + all.peakBytes) / 2;
  std::vector<PlanResult> relaxed = relaxToBudget(g, {least}, budget);
  ASSERT_EQ(relaxed.size(), 1u);
  const PlanResult &p = relaxed.front();
  EXPECT_EQ(p.detail, "relaxed to the budget");
  EXPECT_LT(p.sim.recomputeCost, least.sim.recomputeCost);
  SimResult check;
  ASSERT_FALSE(simulate(g, p.schedule, check));
  EXPECT_EQ(check.peakBytes, p.sim.peakBytes);
  EXPECT_LE(p.sim.peakBytes, budget);
  // No slack below the start's own peak: nothing within the budget.
  EXPECT_TRUE(relaxToBudget(g, {least}, least.sim.peakBytes - 1).empty());
}
