//===- KeptSetTest.cpp - Tests of lowerKeptSet ----------------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "CpuSeconds.h"
#include "TestGraphs.h"

#include "remat/Scheduling/KeptSet.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <random>

using namespace remat::sched;
using test::GradChain;
using test::makeGradChain;

namespace {
using List = std::vector<unsigned>;
} // namespace

TEST(KeptSetTest, FiveLayerChainByHand) {
  // Node indices: f0..f4 = 0..4, loss = 5, b4 = 6, b3 = 7, b2 = 8, b1 = 9,
  // b0 = 10. b_i uses (b_{i+1} or loss), f_i, f_{i-1}.
  GradChain c = makeGradChain(5, 1000);
  ASSERT_EQ(c.b[4], 6u);
  std::vector<bool> kept(c.graph.size(), false);
  kept[c.f[2]] = true;
  Schedule s = lowerKeptSet(c.graph, kept);
  // b4 needs loss, f4, f3: recompute f3 (from kept f2), f4, then the loss.
  EXPECT_EQ(s.recomputeBefore[6], (List{3, 4, 5}));
  // b3 needs f3 (recomputed already) and f2 (kept).
  EXPECT_EQ(s.recomputeBefore[7], List{});
  // b2 needs f2 and f1; f1 needs f0.
  EXPECT_EQ(s.recomputeBefore[8], (List{0, 1}));
  EXPECT_EQ(s.recomputeBefore[9], List{});
  EXPECT_EQ(s.recomputeBefore[10], List{});
  for (unsigned k = 0; k < 6; ++k)
    EXPECT_TRUE(s.recomputeBefore[k].empty());
  SimResult r;
  ASSERT_FALSE(simulate(c.graph, s, r));
  EXPECT_EQ(r.recomputeCount, 5u);
  // Store-all peak: 5 layers + loss + two gradients (b4 live with b3).
  SimResult all;
  ASSERT_FALSE(simulate(c.graph, Schedule(c.graph.size()), all));
  EXPECT_LT(r.peakBytes, all.peakBytes);

  // Hints force keeping: a kept loss is not recomputed...
  c.graph.nodes[c.loss].keep = true;
  s = lowerKeptSet(c.graph, kept);
  EXPECT_EQ(s.recomputeBefore[6], (List{3, 4}));
  // ...and neither is a no-recompute f1, so b2 needs nothing and b1 only f0.
  c.graph.nodes[c.f[1]].noRecompute = true;
  s = lowerKeptSet(c.graph, kept);
  EXPECT_EQ(s.recomputeBefore[8], List{});
  EXPECT_EQ(s.recomputeBefore[9], (List{0}));
  // An output is never recomputed either.
  c.graph.nodes[c.f[1]].noRecompute = false;
  c.graph.nodes[c.f[4]].output = true;
  s = lowerKeptSet(c.graph, kept);
  EXPECT_EQ(s.recomputeBefore[6], (List{3}));
}

TEST(KeptSetTest, AllKeptIsStoreAll) {
  GradChain c = makeGradChain(7, 10);
  Schedule s = lowerKeptSet(c.graph, std::vector<bool>(c.graph.size(), true));
  EXPECT_EQ(s.numRecomputed(), 0u);
}

TEST(KeptSetTest, NothingKeptRecomputesEachForwardValueOnce) {
  GradChain c = makeGradChain(50, 10);
  Schedule s = lowerKeptSet(c.graph, std::vector<bool>(c.graph.size(), false));
  // Everything is recomputed before the first backward node, in order.
  List expected;
  for (unsigned i = 0; i <= c.loss; ++i)
    expected.push_back(i);
  EXPECT_EQ(s.recomputeBefore[c.b[49]], expected);
  EXPECT_EQ(s.numRecomputed(), expected.size());
}

TEST(KeptSetTest, RandomGraphsRecomputeOnceInTopologicalOrder) {
  std::mt19937 rng(77);
  for (int iter = 0; iter < 300; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 30, 2 + iter % 20);
    std::vector<bool> kept(g.size());
    for (unsigned v = 0; v < g.size(); ++v)
      kept[v] = rng() % 3 == 0;
    Schedule s = lowerKeptSet(g, kept);
    auto isKept = [&](unsigned v) {
      return kept[v] || isAlwaysKept(g.nodes[v]);
    };
    // Before every backward node, each forward operand is kept or has been
    // recomputed; each recomputation's operands precede it; nothing kept,
    // backward or recomputed twice shows up.
    std::vector<bool> recomputed(g.size(), false);
    for (unsigned k = 0; k < g.size(); ++k) {
      if (!g.nodes[k].backward) {
        EXPECT_TRUE(s.recomputeBefore[k].empty());
        continue;
      }
      for (unsigned u : s.recomputeBefore[k]) {
        ASSERT_FALSE(g.nodes[u].backward);
        EXPECT_FALSE(isKept(u));
        EXPECT_FALSE(recomputed[u]) << "node " << u << " recomputed twice";
        for (unsigned op : g.nodes[u].operands)
          EXPECT_TRUE(isKept(op) || recomputed[op]);
        recomputed[u] = true;
      }
      for (unsigned op : g.nodes[k].operands) {
        if (!g.nodes[op].backward) {
          EXPECT_TRUE(isKept(op) || recomputed[op]);
        }
      }
    }
    SimResult r;
    ASSERT_FALSE(simulate(g, s, r));
  }
}

TEST(KeptSetTest, FastOnLongChains) {
  GradChain c = makeGradChain(10000, 1 << 20);
  std::vector<bool> kept(c.graph.size(), false);
  for (unsigned i = 0; i < 10000; i += 100)
    kept[c.f[i]] = true;
  double start = test::cpuSeconds();
  Schedule s;
  for (int i = 0; i < 100; ++i)
    s = lowerKeptSet(c.graph, kept);
  double seconds = test::cpuSeconds() - start;
  // All 9900 dropped values plus the loss, each once.
  EXPECT_EQ(s.numRecomputed(), 9901u);
  EXPECT_LT(seconds, 3.0);
}

/// A cheap forward value F read by the first backward node and by the last
/// one, with a 200 B gradient in between:
///   0 F 100 B   1 s(F) 10 B   2 loss(s) output   3 g1(loss, F) 10 B
///   4 g2(g1) 200 B   5 g2b(g2) 10 B   6 g3(g2b, F) 10 B, output
/// Held from its recomputation before g1 to g3, F is live through g2
/// (310 B); refreshed, it is recomputed before g1 and again before g3, and
/// the peak is the gradient's 210 B.
TEST(KeptSetTest, RefreshedValueIsRecomputedAtEachReader) {
  Graph g;
  g.addNode(test::makeCostNode("F", 100, 1, {}));
  g.addNode(test::makeCostNode("s", 10, 1, {0}));
  g.addNode(test::makeCostNode("loss", 1, 1, {1}));
  g.nodes[2].output = true;
  g.addNode(test::makeCostNode("g1", 10, 1, {2, 0}, true));
  g.addNode(test::makeCostNode("g2", 200, 1, {3}, true));
  g.addNode(test::makeCostNode("g2b", 10, 1, {4}, true));
  g.addNode(test::makeCostNode("g3", 10, 1, {5, 0}, true));
  g.nodes[6].output = true;
  ASSERT_FALSE(g.validate());
  std::vector<bool> kept(g.size(), false), refresh(g.size(), false);
  kept[1] = true;
  SimResult held, refreshed;
  Schedule once = lowerKeptSet(g, kept, refresh);
  EXPECT_EQ(once.recomputeBefore, lowerKeptSet(g, kept).recomputeBefore);
  EXPECT_EQ(once.recomputeBefore[3], List{0});
  EXPECT_TRUE(once.recomputeBefore[6].empty());
  ASSERT_FALSE(simulate(g, once, held));
  EXPECT_EQ(held.peakBytes, 310);
  refresh[0] = true;
  Schedule twice = lowerKeptSet(g, kept, refresh);
  EXPECT_EQ(twice.recomputeBefore[3], List{0});
  EXPECT_EQ(twice.recomputeBefore[6], List{0});
  EXPECT_EQ(twice.numRecomputed(), 2u);
  ASSERT_FALSE(simulate(g, twice, refreshed));
  EXPECT_EQ(refreshed.peakBytes, 210);
  EXPECT_EQ(refreshed.recomputeCost, 2);
}

/// On random graphs with random kept and refresh sets: with no refresh
/// entry the lowering is `lowerKeptSet`'s; with some, the schedule
/// simulates, and every read of a refreshed dropped value (by a backward
/// node or a recomputation) is served by an instance made in the same step.
TEST(KeptSetTest, RandomRefreshSetsSimulateAndRecomputeAtEachStep) {
  std::mt19937 rng(91);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 30, 2 + iter % 20);
    std::vector<bool> kept(g.size()), refresh(g.size(), false);
    for (unsigned v = 0; v < g.size(); ++v)
      kept[v] = rng() % 3 == 0;
    EXPECT_EQ(lowerKeptSet(g, kept, refresh).recomputeBefore,
              lowerKeptSet(g, kept).recomputeBefore);
    for (unsigned v = 0; v < g.size(); ++v)
      refresh[v] = rng() % 2 == 0;
    Schedule s = lowerKeptSet(g, kept, refresh);
    SimResult sim;
    ASSERT_FALSE(simulate(g, s, sim)) << "iteration " << iter;
    auto dropped = [&](unsigned v) {
      return !g.nodes[v].backward && !kept[v] && !isAlwaysKept(g.nodes[v]);
    };
    for (unsigned k = 0; k < g.size(); ++k) {
      if (!g.nodes[k].backward)
        continue;
      const List &list = s.recomputeBefore[k];
      auto madeHere = [&](unsigned v) {
        return llvm::is_contained(list, v);
      };
      for (unsigned u : list)
        for (unsigned v : g.nodes[u].operands)
          if (dropped(v) && refresh[v]) {
            EXPECT_TRUE(madeHere(v)) << "iteration " << iter;
          }
      for (unsigned v : g.nodes[k].operands)
        if (dropped(v) && refresh[v]) {
          EXPECT_TRUE(madeHere(v)) << "iteration " << iter;
        }
    }
  }
}

/// A refreshed value read at steps 3, 4 and 9: with no gap each of those
/// steps recomputes it; with a gap of 1 the readers at 3 and 4 share one
/// recomputation and the reader five steps later gets its own; with a gap of
/// 5 or more one recomputation serves all three (it is `lowerKeptSet`'s).
TEST(KeptSetTest, RefreshGapSharesARecomputationBetweenCloseReaders) {
  Graph g;
  g.addNode(test::makeCostNode("F", 100, 1, {}));
  g.addNode(test::makeCostNode("s", 10, 1, {0}));
  g.addNode(test::makeCostNode("loss", 1, 1, {1}));
  g.nodes[2].output = true;
  g.addNode(test::makeCostNode("g1", 10, 1, {2, 0}, true));
  g.addNode(test::makeCostNode("g2", 10, 1, {3, 0}, true));
  for (unsigned i = 0; i != 4; ++i)
    g.addNode(test::makeCostNode("m" + std::to_string(i), 200, 1,
                                 {unsigned(g.size() - 1)}, true));
  g.addNode(test::makeCostNode("g3", 10, 1, {8, 0}, true));
  g.nodes[9].output = true;
  ASSERT_FALSE(g.validate());
  std::vector<bool> kept(g.size(), false), refresh(g.size(), false);
  kept[1] = true;
  refresh[0] = true;
  EXPECT_EQ(lowerKeptSet(g, kept, refresh, 0).recomputeBefore,
            lowerKeptSet(g, kept, refresh).recomputeBefore);
  Schedule each = lowerKeptSet(g, kept, refresh, 0);
  EXPECT_EQ(each.numRecomputed(), 3u);
  EXPECT_EQ(each.recomputeBefore[4], List{0});
  Schedule close = lowerKeptSet(g, kept, refresh, 1);
  EXPECT_EQ(close.recomputeBefore[3], List{0});
  EXPECT_TRUE(close.recomputeBefore[4].empty());
  EXPECT_EQ(close.recomputeBefore[9], List{0});
  EXPECT_EQ(close.numRecomputed(), 2u);
  SimResult sim;
  ASSERT_FALSE(simulate(g, close, sim));
  EXPECT_EQ(sim.recomputeCost, 2);
  // F is freed between the two recomputations: the 200-byte steps hold
  // only their own values.
  EXPECT_EQ(sim.peakBytes, 400);
  SimResult held;
  ASSERT_FALSE(simulate(g, lowerKeptSet(g, kept), held));
  EXPECT_EQ(held.peakBytes, 500);
  EXPECT_EQ(lowerKeptSet(g, kept, refresh, 4).numRecomputed(), 2u);
  EXPECT_EQ(lowerKeptSet(g, kept, refresh, 5).recomputeBefore,
            lowerKeptSet(g, kept).recomputeBefore);
}

/// Random graphs, kept and refresh sets and gaps: the lowering simulates,
/// and a larger gap never recomputes more often.
TEST(KeptSetTest, RandomRefreshGapsSimulateAndRecomputeLessWithLargerGaps) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 30, 2 + iter % 20);
    std::vector<bool> kept(g.size()), refresh(g.size());
    for (unsigned v = 0; v < g.size(); ++v) {
      kept[v] = rng() % 3 == 0;
      refresh[v] = rng() % 2 == 0;
    }
    size_t previous = ~size_t(0);
    for (unsigned gap : {0u, 1u, 2u, 4u, 8u, 1000u}) {
      Schedule s = lowerKeptSet(g, kept, refresh, gap);
      SimResult sim;
      ASSERT_FALSE(simulate(g, s, sim)) << "iteration " << iter;
      EXPECT_LE(s.numRecomputed(), previous) << "iteration " << iter;
      previous = s.numRecomputed();
    }
    EXPECT_EQ(lowerKeptSet(g, kept, refresh, 1000).recomputeBefore,
              lowerKeptSet(g, kept).recomputeBefore);
  }
}
