//===- MinCutTest.cpp - Saved-set selection by minimum cut ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/MinCut.h"

#include "TestGraphs.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>
#include <limits>

using namespace remat::sched;
using remat::sched::test::makeCostNode;

namespace {

/// conv -> bn -> relu -> loss; the backward reads relu's output (ReLU
/// gradient) and conv's output (batch-norm gradient).
///   0 a = conv(input)  200 cost, 100 B     1 b = bn(a)    1 cost, 100 B
///   2 c = relu(b)      1 cost, 100 B        3 loss(c)      1 cost, 4 B
///   4 gc(loss, c)  5 gb(gc, a)  6 ga(gb), the output
Graph makeConvBnRelu() {
  Graph g;
  g.addNode(makeCostNode("a", 100, 200, {}));
  g.addNode(makeCostNode("b", 100, 1, {0}));
  g.addNode(makeCostNode("c", 100, 1, {1}));
  g.addNode(makeCostNode("loss", 4, 1, {2}));
  g.addNode(makeCostNode("gc", 100, 2, {3, 2}, true));
  g.addNode(makeCostNode("gb", 100, 2, {4, 0}, true));
  g.addNode(makeCostNode("ga", 100, 2, {5}, true));
  g.nodes[6].output = true;
  return g;
}

std::vector<bool> setOf(unsigned n, std::vector<unsigned> members) {
  std::vector<bool> s(n, false);
  for (unsigned m : members)
    s[m] = true;
  return s;
}

/// saved bytes + weight * cost of the dropped forward values the backward
/// needs (directly or through other dropped values); infinity if one of
/// those is banned.
double objective(const Graph &g, const std::vector<bool> &kept,
                 const MinCutOptions &o) {
  unsigned n = g.size();
  std::vector<bool> needed(n, false);
  for (unsigned v = n; v-- > 0;) {
    const Node &node = g.nodes[v];
    bool reads = node.backward || needed[v];
    if (!reads)
      continue;
    if (!node.backward && (kept[v] || isAlwaysKept(node)))
      continue;
    for (unsigned op : node.operands)
      if (!g.nodes[op].backward)
        needed[op] = true;
  }
  double total = 0;
  for (unsigned v = 0; v < n; ++v) {
    const Node &node = g.nodes[v];
    if (node.backward || isAlwaysKept(node))
      continue;
    if (kept[v]) {
      total += node.bytes;
    } else if (needed[v]) {
      if (node.noRecompute || node.cost > o.banCostPerByte * node.bytes)
        return std::numeric_limits<double>::infinity();
      total += o.recomputeWeight * node.cost;
    }
  }
  return total;
}

} // namespace

TEST(MinCutTest, ConvBnReluByHand) {
  Graph g = makeConvBnRelu();
  ASSERT_FALSE(g.validate());
  // Cost per byte: a 2, b 0.01, c 0.01, loss 0.25: the median is 0.25.
  EXPECT_DOUBLE_EQ(medianCostPerByte(g), 0.25);
  MinCutOptions pytorch; // Memory only, conv banned (200 > 4 * 0.25 * 100).
  pytorch.banCostPerByte = 4 * 0.25;
  std::vector<bool> kept = minCutKeptSet(g, pytorch);
  // Save the conv output (100 B); recompute bn, relu and the loss from it
  // rather than saving relu and the loss (104 B).
  EXPECT_EQ(kept, setOf(7, {0}));
  Schedule s = lowerKeptSet(g, kept);
  EXPECT_EQ(s.recomputeBefore[4], (std::vector<unsigned>{1, 2, 3}));
  SimResult sim;
  ASSERT_FALSE(simulate(g, s, sim));
  EXPECT_DOUBLE_EQ(sim.recomputeCost, 3);

  // Recompute weighted at lambda bytes per cost unit: {a} costs 100 +
  // 3 lambda, {a, loss} 104 + 2 lambda (relu recomputed from a), {a, c,
  // loss} 204: the cut moves at lambda = 4 and 50.
  MinCutOptions heavy = pytorch;
  heavy.recomputeWeight = 3;
  EXPECT_EQ(minCutKeptSet(g, heavy), setOf(7, {0}));
  heavy.recomputeWeight = 10;
  EXPECT_EQ(minCutKeptSet(g, heavy), setOf(7, {0, 3}));
  heavy.recomputeWeight = 60;
  EXPECT_EQ(minCutKeptSet(g, heavy), setOf(7, {0, 2, 3}));

  // Nothing banned, memory only: everything is recomputed from the input.
  EXPECT_EQ(minCutKeptSet(g, MinCutOptions()), setOf(7, {}));
  // Nothing banned, but the conv (200 cost) weighted at 1 B per unit: saving
  // a (100 B) beats recomputing it (200).
  MinCutOptions light;
  light.recomputeWeight = 1;
  EXPECT_EQ(minCutKeptSet(g, light), setOf(7, {0}));
}

TEST(MinCutTest, SmallSeparatorAndHints) {
  // a (10 B, must not be recomputed) feeds b and c (100 B each), both read
  // by the backward: memory only, the cut saves a and recomputes b and c.
  Graph g;
  g.addNode(makeCostNode("a", 10, 1, {}));
  g.addNode(makeCostNode("b", 100, 1, {0}));
  g.addNode(makeCostNode("c", 100, 1, {0}));
  g.addNode(makeCostNode("gb", 10, 1, {1, 2}, true));
  g.nodes[3].output = true;
  g.nodes[0].noRecompute = true;
  EXPECT_EQ(minCutKeptSet(g, MinCutOptions()), setOf(4, {0}));
  // b returned by the step (an output): resident, in the set for free.
  g.nodes[1].output = true;
  EXPECT_EQ(minCutKeptSet(g, MinCutOptions()), setOf(4, {0, 1}));
  // Recomputing c (cost 1) weighs 1000 B: c is saved too.
  MinCutOptions heavy;
  heavy.recomputeWeight = 1000;
  EXPECT_EQ(minCutKeptSet(g, heavy), setOf(4, {0, 1, 2}));
}

TEST(MinCutTest, CutIsMinimalByExhaustiveSearch) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 60; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 8, 2 + iter % 5);
    std::vector<unsigned> fwd;
    for (unsigned v = 0; v < g.size(); ++v)
      if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
        fwd.push_back(v);
    MinCutOptions o;
    o.recomputeWeight = (iter % 4) * 3.0;
    o.banCostPerByte = iter % 3 == 0 ? 0.05 : 1e9;
    double best = std::numeric_limits<double>::infinity();
    for (unsigned mask = 0; mask < (1u << fwd.size()); ++mask) {
      std::vector<bool> kept(g.size(), false);
      for (unsigned i = 0; i < fwd.size(); ++i)
        kept[fwd[i]] = mask >> i & 1;
      best = std::min(best, objective(g, kept, o));
    }
    std::vector<bool> cut = minCutKeptSet(g, o);
    EXPECT_NEAR(objective(g, cut, o), best, 1e-6 * (1 + best)) << iter;
    SimResult sim;
    EXPECT_FALSE(simulate(g, lowerKeptSet(g, cut), sim));
  }
}

TEST(MinCutTest, SweepPlansAreValidAndDistinct) {
  std::mt19937 rng(23);
  for (int iter = 0; iter < 10; ++iter) {
    Graph g = test::makeRandomGraph(rng, 20 + iter, 15 + iter);
    std::vector<MinCutPlan> plans = minCutSweep(g);
    ASSERT_FALSE(plans.empty());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    bool reachesStoreAllCost = false;
    for (const MinCutPlan &p : plans) {
      SimResult sim;
      ASSERT_FALSE(simulate(g, p.schedule, sim));
      EXPECT_EQ(sim.peakBytes, p.sim.peakBytes);
      reachesStoreAllCost |= p.sim.recomputeCost == 0;
    }
    // The heaviest weight saves everything the backward reads.
    EXPECT_TRUE(reachesStoreAllCost) << iter;
  }
  // The conv-bn-relu chain: among the plans, the PyTorch-like cut.
  Graph g = makeConvBnRelu();
  bool found = false;
  for (const MinCutPlan &p : minCutSweep(g))
    found |= p.sim.recomputeCost == 3;
  EXPECT_TRUE(found);
}

TEST(MinCutTest, LessSearchWorkThinsTheGrid) {
  // searchWork 0.01: every tenth grid point (16 of 152), each as a cut and
  // refined; the plans are still valid and simulate as claimed.
  auto isCut = [](const MinCutPlan &p) {
    return p.detail.find("searched") == std::string::npos &&
           p.detail.find("hoisted") == std::string::npos;
  };
  std::mt19937 rng(29);
  size_t fullCuts = 0, thinCuts = 0;
  for (int iter = 0; iter < 6; ++iter) {
    Graph g = test::makeRandomGraph(rng, 20 + iter, 15 + iter);
    std::vector<MinCutPlan> thin = minCutSweep(g, 0.01);
    ASSERT_FALSE(thin.empty());
    for (const MinCutPlan &p : thin) {
      SimResult sim;
      ASSERT_FALSE(simulate(g, p.schedule, sim));
      EXPECT_EQ(sim.peakBytes, p.sim.peakBytes);
      EXPECT_EQ(sim.recomputeCost, p.sim.recomputeCost);
    }
    size_t cuts = llvm::count_if(thin, isCut);
    EXPECT_LE(cuts, 2u * 16) << iter;
    thinCuts += cuts;
    fullCuts += llvm::count_if(minCutSweep(g), isCut);
    // The first grid point (weight 0, the first ban level) is always cut.
    EXPECT_EQ(thin.front().detail.rfind("weight=0 ", 0), 0u) << iter;
  }
  EXPECT_LT(thinCuts, fullCuts);
}
