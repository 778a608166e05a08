//===- PhasesTest.cpp - Phases from dependences, op order ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Strategies.h"

#include "TestGraphs.h"

#include <gtest/gtest.h>

using namespace remat::sched;
using remat::sched::test::makeNode;

namespace {

/// AOTAutograd-like order: x, (seed), stat (forward, read by the backward
/// only), gx (backward), mask (forward, placed in the backward), gy.
///   0 x(100)  1 seed(4, bwd)  2 stat(8)  3 gx(100, bwd: seed, x)
///   4 mask(100: x)  5 gy(100, bwd: gx, mask, stat)
Graph makeInterleaved() {
  Graph g;
  g.addNode(makeNode("x", 100, {}, false, 50));
  g.addNode(makeNode("seed", 4, {}, true));
  g.addNode(makeNode("stat", 8, {0}));
  g.addNode(makeNode("gx", 100, {1, 0}, true));
  g.addNode(makeNode("mask", 100, {0}));
  g.addNode(makeNode("gy", 100, {3, 4, 2}, true));
  g.nodes[5].output = true;
  return g;
}

} // namespace

TEST(PhasesTest, DependsOnSeedsByHand) {
  Graph g = makeInterleaved();
  std::vector<bool> d = dependsOnSeeds(g, {1});
  EXPECT_EQ(d, (std::vector<bool>{false, true, false, true, false, true}));
  // No seed: nothing depends on one; an out-of-range seed is ignored.
  EXPECT_EQ(dependsOnSeeds(g, {}), std::vector<bool>(6, false));
  EXPECT_EQ(dependsOnSeeds(g, {42}), std::vector<bool>(6, false));
  // x as the seed reaches everything but the seed node.
  EXPECT_EQ(dependsOnSeeds(g, {0}),
            (std::vector<bool>{true, false, true, true, true, true}));
}

TEST(PhasesTest, LateForwardPinnedAndForwardFirstOrder) {
  Graph g = makeInterleaved();
  ASSERT_FALSE(g.validate());
  EXPECT_EQ(firstBackwardNode(g), 1u);
  EXPECT_EQ(lateForwardNodes(g), (std::vector<unsigned>{2, 4}));
  Graph pinned = pinLateForward(g);
  ASSERT_FALSE(pinned.validate());
  EXPECT_TRUE(pinned.nodes[2].backward);
  EXPECT_TRUE(pinned.nodes[4].backward);
  EXPECT_FALSE(pinned.nodes[0].backward);
  EXPECT_TRUE(lateForwardNodes(pinned).empty());

  std::vector<unsigned> order = forwardFirstOrder(g);
  EXPECT_EQ(order, (std::vector<unsigned>{0, 2, 4, 1, 3, 5}));
  Graph first = reorderGraph(g, order);
  ASSERT_FALSE(first.validate());
  EXPECT_TRUE(lateForwardNodes(first).empty());
  EXPECT_EQ(first.nodes[2].name, "mask");
  // gy reads gx (now #4), mask (#2) and stat (#1).
  EXPECT_EQ(first.nodes[5].operands, (std::vector<unsigned>{4, 2, 1}));
  // The identity on a graph without late forward nodes.
  Graph plain = test::makeGradChain(4, 10).graph;
  std::vector<unsigned> identity(plain.size());
  for (unsigned i = 0; i < plain.size(); ++i)
    identity[i] = i;
  EXPECT_EQ(forwardFirstOrder(plain), identity);
}

TEST(PhasesTest, PinnedScheduleSimulatesOnTheInputGraph) {
  // Dropping x in the pinned graph recomputes it before stat (its first
  // reader from the first backward node on, a pinned late forward node), and
  // gx and mask read that instance; the schedule is valid on the input graph
  // too (lists may precede late forward nodes) and simulates identically.
  Graph g = makeInterleaved();
  Graph pinned = pinLateForward(g);
  std::vector<bool> kept(g.size(), false);
  Schedule s = lowerKeptSet(pinned, kept);
  EXPECT_EQ(s.recomputeBefore[2], (std::vector<unsigned>{0}));
  EXPECT_EQ(s.numRecomputed(), 1u);
  SimResult a, b;
  ASSERT_FALSE(simulate(pinned, s, a));
  ASSERT_FALSE(simulate(g, s, b));
  EXPECT_EQ(a.peakBytes, b.peakBytes);
  EXPECT_DOUBLE_EQ(a.recomputeCost, 50);
  EXPECT_DOUBLE_EQ(b.recomputeCost, 50);
  // x's first instance has no reader left; the recomputed one lives to mask:
  // seed + x + stat + gx = 212 at gx, x + stat + gx + mask = 308 at mask, and
  // gx + mask + stat + gy = 308 at gy.
  EXPECT_EQ(a.peakBytes, 308);
}

TEST(PhasesTest, StrategiesPlanEveryInterleavingOfARandomGraph) {
  // A random graph, then random interleavings that move forward nodes after
  // backward ones (each phase keeps its order): on the forward-first order
  // every strategy's plan is exactly the one of the original order, and on
  // the pinned input order every strategy plans a valid schedule.
  std::mt19937 rng(7);
  for (int iter = 0; iter < 30; ++iter) {
    Graph g = test::makeRandomGraph(rng, 6 + iter % 10, 4 + iter % 7);
    // A random merge of the forward and backward sequences that respects
    // the dependences: a forward node may be delayed past backward nodes
    // that do not read it (directly or through other delayed nodes).
    unsigned n = g.size();
    std::vector<std::vector<unsigned>> readers(n);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned op : g.nodes[i].operands)
        readers[op].push_back(i);
    std::vector<unsigned> pending(n);
    for (unsigned i = 0; i < n; ++i)
      pending[i] = g.nodes[i].operands.size();
    std::vector<unsigned> fwd, bwd, order;
    for (unsigned i = 0; i < n; ++i)
      (g.nodes[i].backward ? bwd : fwd).push_back(i);
    size_t fi = 0, bi = 0;
    while (order.size() < n) {
      bool fwdReady = fi < fwd.size() && pending[fwd[fi]] == 0;
      bool bwdReady = bi < bwd.size() && pending[bwd[bi]] == 0;
      ASSERT_TRUE(fwdReady || bwdReady);
      bool takeFwd = fwdReady && (!bwdReady || rng() % 3 == 0);
      unsigned v = takeFwd ? fwd[fi++] : bwd[bi++];
      order.push_back(v);
      for (unsigned r : readers[v])
        --pending[r];
    }
    Graph shuffled = reorderGraph(g, order);
    ASSERT_FALSE(shuffled.validate());
    Graph back = reorderGraph(shuffled, forwardFirstOrder(shuffled));
    for (unsigned i = 0; i < n; ++i) {
      EXPECT_EQ(back.nodes[i].name, g.nodes[i].name);
      EXPECT_EQ(back.nodes[i].operands, g.nodes[i].operands);
    }
    Graph pinned = pinLateForward(shuffled);
    ASSERT_FALSE(pinned.validate());
    for (const Schedule &s : {sqrtN(pinned), greedySearch(pinned).schedule}) {
      SimResult a, b;
      ASSERT_FALSE(simulate(pinned, s, a));
      ASSERT_FALSE(simulate(shuffled, s, b));
      EXPECT_EQ(a.peakBytes, b.peakBytes);
      EXPECT_EQ(a.recomputeCost, b.recomputeCost);
    }
  }
}
