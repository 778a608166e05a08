//===- PhasesTest.cpp - Phases from dependences, op order ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Strategies.h"

#include "TestGraphs.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>
#include <random>

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

TEST(PhasesTest, DroppedLateForwardValueIsRecomputedForItsLaterReader) {
  // Kept, cdf lives from step 4 to out: x + g1 + cdf + pdf + t = 500 at t,
  // as in the pinned graph. Dropped, it still runs at step 4 (no reader
  // left: freed at once) and is recomputed from x (live) right before out:
  // x + g1 + pdf + t = 400 at t, the peak 404 at g1 (x + a + loss + g1).
  Graph g = test::makeLateCdf();
  ASSERT_FALSE(g.validate());
  std::vector<bool> kept(g.size(), true);
  SimResult all;
  ASSERT_FALSE(simulate(g, lowerKeptSet(g, kept), all));
  EXPECT_EQ(all.peakBytes, 500);
  kept[4] = false;
  Schedule s = lowerKeptSet(g, kept);
  EXPECT_EQ(s.recomputeBefore[7], (std::vector<unsigned>{4}));
  EXPECT_EQ(s.numRecomputed(), 1u);
  SimResult sim;
  ASSERT_FALSE(simulate(g, s, sim));
  EXPECT_EQ(sim.peakBytes, 404);
  EXPECT_DOUBLE_EQ(sim.recomputeCost, 1);
  // The pinned graph cannot drop cdf: its kept entry is ignored.
  Graph pinned = pinLateForward(g);
  SimResult p;
  ASSERT_FALSE(simulate(pinned, lowerKeptSet(pinned, kept), p));
  EXPECT_EQ(p.peakBytes, 500);
}

TEST(PhasesTest, DroppedLateChainRunsInPlaceAndIsRecomputedWhole) {
  // c2 reads c1, both late and dropped: c2's original reads c1's original
  // (nothing is recomputed before c2), and before out, their backward
  // reader, both are recomputed from x.
  Graph g;
  g.addNode(test::makeNode("x", 100, {}));
  g.addNode(test::makeNode("loss", 4, {0}));
  g.addNode(test::makeNode("g1", 100, {1}, true));
  g.addNode(test::makeNode("c1", 100, {0}));
  g.addNode(test::makeNode("c2", 100, {3}));
  g.addNode(test::makeNode("t", 100, {2, 0}, true));
  g.addNode(test::makeNode("out", 4, {5, 4}, true));
  g.nodes[6].output = true;
  ASSERT_FALSE(g.validate());
  std::vector<bool> kept(g.size(), true);
  kept[3] = kept[4] = false;
  Schedule s = lowerKeptSet(g, kept);
  EXPECT_TRUE(s.recomputeBefore[4].empty());
  EXPECT_EQ(s.recomputeBefore[6], (std::vector<unsigned>{3, 4}));
  EXPECT_EQ(s.numRecomputed(), 2u);
  SimResult sim;
  ASSERT_FALSE(simulate(g, s, sim));
  // The originals run in place (x + g1 + c1 + c2 = 400 at c2, c2 freed at
  // once); at t x + g1 + t = 300, before out x + t + c1 = 300 and t + c1 + c2
  // = 300 (x freed after c1's recomputation).
  EXPECT_EQ(sim.peakBytes, 400);
  EXPECT_EQ(sim.peakAt, 4u);
  EXPECT_DOUBLE_EQ(sim.recomputeCost, 2);
}

TEST(PhasesTest, LateDropsLowerToValidSchedules) {
  // Random interleavings and random kept and refresh sets, late forward
  // values included: every lowering simulates on the input graph (every
  // recomputation reads instances that exist then); with the late forward
  // values kept it is the lowering of the pinned graph; every dropped late
  // forward value a backward node reads is recomputed for it, never read
  // from its original instance.
  std::mt19937 rng(13);
  unsigned withLate = 0;
  for (int iter = 0; iter < 40; ++iter) {
    Graph base = test::makeRandomGraph(rng, 8 + iter % 9, 5 + iter % 6);
    Graph g = reorderGraph(
        base, shuffledOrder(base, OrderShuffle::Interleave, 100 + iter));
    ASSERT_FALSE(g.validate());
    std::vector<unsigned> late = lateForwardNodes(g);
    withLate += !late.empty();
    Graph pinned = pinLateForward(g);
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<bool> kept(g.size()), refresh(g.size());
      for (unsigned v = 0; v < g.size(); ++v) {
        kept[v] = rng() % 2;
        refresh[v] = rng() % 4 == 0;
      }
      std::vector<bool> lateKept = kept;
      for (unsigned v : late)
        lateKept[v] = true;
      EXPECT_EQ(lowerKeptSet(g, lateKept, refresh).recomputeBefore,
                lowerKeptSet(pinned, lateKept, refresh).recomputeBefore);
      Schedule s = lowerKeptSet(g, kept, refresh);
      SimResult sim;
      std::optional<std::string> error = simulate(g, s, sim);
      ASSERT_FALSE(error) << *error;
      for (unsigned v : late) {
        if (kept[v] || isAlwaysKept(g.nodes[v]))
          continue;
        // The first backward reader of v has v recomputed at or before it
        // (and after v's own step).
        for (unsigned k = v + 1; k < g.size(); ++k) {
          if (!g.nodes[k].backward ||
              !llvm::is_contained(g.nodes[k].operands, v))
            continue;
          bool recomputed = false;
          for (unsigned j = v + 1; j <= k; ++j)
            recomputed |= llvm::is_contained(s.recomputeBefore[j], v);
          EXPECT_TRUE(recomputed) << "late node " << v << " read by " << k;
          break;
        }
      }
    }
  }
  EXPECT_GT(withLate, 20u);
}
