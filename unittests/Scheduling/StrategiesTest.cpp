//===- StrategiesTest.cpp - Tests of store-all, sqrt(n) and greedy --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"
#include "remat/Scheduling/Strategies.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace remat::sched;
using test::GradChain;
using test::makeGradChain;

namespace {
using List = std::vector<unsigned>;
constexpr int64_t kMiB = 1 << 20;

List keptIndices(const std::vector<bool> &kept) {
  List result;
  for (unsigned v = 0; v < kept.size(); ++v)
    if (kept[v])
      result.push_back(v);
  return result;
}

/// A forward-only chain of `n` nodes of 1 byte each plus one backward node
/// reading all of them.
Graph plainChain(unsigned n) {
  Graph g;
  for (unsigned i = 0; i < n; ++i) {
    Node node;
    node.name = "f" + std::to_string(i);
    node.bytes = 1;
    if (i)
      node.operands = {i - 1};
    g.addNode(node);
  }
  Node grad;
  grad.name = "g";
  grad.backward = true;
  for (unsigned i = 0; i < n; ++i)
    grad.operands.push_back(i);
  g.addNode(grad);
  return g;
}

SimResult sim(const Graph &g, const Schedule &s) {
  SimResult r;
  std::optional<std::string> error = simulate(g, s, r);
  EXPECT_FALSE(error) << *error;
  return r;
}

/// A 1000-layer chain whose layer sizes vary (`variant` picks the profile).
GradChain heterogeneousChain(int variant) {
  GradChain c = makeGradChain(1000, kMiB);
  for (unsigned i = 0; i < 1000; ++i) {
    int64_t bytes = variant == 0 ? (i < 500 ? 4 * kMiB : kMiB / 4)
                                 : (i < 100 ? 16 * kMiB : kMiB);
    c.graph.nodes[c.f[i]].bytes = bytes;
    c.graph.nodes[c.b[i]].bytes = bytes;
  }
  return c;
}
} // namespace

TEST(StrategiesTest, StoreAllRecomputesNothing) {
  GradChain c = makeGradChain(20, 100);
  Schedule s = storeAll(c.graph);
  EXPECT_EQ(s.recomputeBefore.size(), c.graph.size());
  SimResult r = sim(c.graph, s);
  EXPECT_EQ(r.recomputeCount, 0u);
  // All 20 layers and the loss, plus b19 being produced.
  EXPECT_EQ(r.peakBytes, 21 * 100 + 4);
}

TEST(StrategiesTest, SqrtNSegmentCount) {
  EXPECT_EQ(sqrtNSegments(plainChain(16)), 4u);
  EXPECT_EQ(sqrtNSegments(plainChain(17)), 5u);
  EXPECT_EQ(sqrtNSegments(plainChain(1)), 1u);
  EXPECT_EQ(sqrtNSegments(Graph()), 0u);
  // 1000 layers and the loss.
  EXPECT_EQ(sqrtNSegments(makeGradChain(1000, 1).graph), 32u);
}

TEST(StrategiesTest, SqrtNKeptSetOnChainAndResidualBlocks) {
  // 16 forward nodes, 4 segments: boundaries after positions 3, 7, 11.
  EXPECT_EQ(keptIndices(sqrtNKeptSet(plainChain(16))), (List{3, 7, 11}));
  EXPECT_EQ(keptIndices(sqrtNKeptSet(plainChain(16), 2)), (List{7}));
  EXPECT_TRUE(keptIndices(sqrtNKeptSet(plainChain(16), 1)).empty());

  // Residual blocks of 4 nodes: x -> a -> b -> add(x, b), chained. Only the
  // block outputs (and the first input) are separators, at positions 0, 3, 6,
  // 9, 12, 15. The targets 3, 7, 11 snap to the nearest separators 3, 6, 12.
  Graph g;
  auto add = [&](std::string name, List operands) {
    Node node;
    node.name = std::move(name);
    node.bytes = 1;
    node.operands = std::move(operands);
    return g.addNode(node);
  };
  unsigned prev = add("x0", {});
  for (unsigned block = 0; block < 5; ++block) {
    unsigned a = add("a", {prev});
    unsigned b = add("b", {a});
    prev = add("add", {prev, b});
  }
  ASSERT_FALSE(g.validate());
  ASSERT_EQ(findSeparators(g), (List{0, 3, 6, 9, 12, 15}));
  EXPECT_EQ(keptIndices(sqrtNKeptSet(g)), (List{3, 6, 12}));
}

TEST(StrategiesTest, SqrtNOnThousandLayerChain) {
  const unsigned n = 1000;
  GradChain c = makeGradChain(n, kMiB);
  Schedule s = sqrtN(c.graph);
  SimResult r = sim(c.graph, s);
  // m = 1001 forward nodes in k = 32 segments. At any time at most the k - 1
  // kept boundaries, one segment's recomputed values (<= ceil(m / k) = 32),
  // the incoming and outgoing gradients and the loss (< 1 layer) are live:
  // (31 + 32 + 3) layers = 66 MiB = 1.044 * 2 sqrt(n) layers, so C = 1.05.
  unsigned m = n + 1, k = sqrtNSegments(c.graph);
  int64_t analytic = (k - 1 + (m + k - 1) / k + 3) * kMiB;
  EXPECT_LE(r.peakBytes, analytic);
  EXPECT_LE(r.peakBytes, 1.05 * 2 * std::sqrt(double(n)) * kMiB);
  // Every forward value is read by a backward node, so each of the m - (k - 1)
  // dropped values is recomputed exactly once: less than the forward cost.
  EXPECT_EQ(r.recomputeCount, m - (k - 1));
  EXPECT_LE(r.recomputeCost, c.graph.forwardCost());
  // Nothing near store-all.
  EXPECT_LT(r.peakBytes, sim(c.graph, storeAll(c.graph)).peakBytes / 10);
}

TEST(StrategiesTest, GreedyKeptSetByHand) {
  // Six 1-byte nodes, threshold 2: the accumulator reaches 3 at f2 (kept,
  // reset) and again at f5 (kept).
  Graph g = plainChain(6);
  int64_t x = 0, y = 0;
  EXPECT_EQ(keptIndices(greedyKeptSet(g, 2, &x, &y)), (List{2, 5}));
  EXPECT_EQ(x, 2);
  EXPECT_EQ(y, 3);
  // Threshold 0 keeps every separator; a huge one keeps nothing.
  EXPECT_EQ(keptIndices(greedyKeptSet(g, 0)), (List{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(keptIndices(greedyKeptSet(g, 100)).empty());

  // A skip connection 1 -> 4 leaves no separator at 2 and 3: the
  // accumulator passes the threshold there but is carried on to 4.
  g.nodes[4].operands.push_back(1);
  ASSERT_EQ(findSeparators(g), (List{0, 1, 4, 5}));
  EXPECT_EQ(keptIndices(greedyKeptSet(g, 2, &x, &y)), (List{4}));
  EXPECT_EQ(x, 1);
  EXPECT_EQ(y, 5);
  // greedy lowers exactly that kept set.
  EXPECT_EQ(greedy(g, 2).recomputeBefore,
            lowerKeptSet(g, greedyKeptSet(g, 2)).recomputeBefore);
}

TEST(StrategiesTest, ThresholdGrid) {
  GradChain c = makeGradChain(1000, kMiB);
  std::vector<int64_t> grid = greedyThresholdGrid(c.graph);
  EXPECT_TRUE(std::is_sorted(grid.begin(), grid.end()));
  EXPECT_EQ(std::adjacent_find(grid.begin(), grid.end()), grid.end());
  EXPECT_EQ(grid.front(), 0);
  // Smallest node is the 4-byte loss; the top is the total forward bytes.
  EXPECT_TRUE(std::binary_search(grid.begin(), grid.end(), 4));
  EXPECT_EQ(grid.back(), 1000 * kMiB + 4);
  EXPECT_GE(grid.size(), 55u);
  EXPECT_LE(grid.size(), 62u);
  EXPECT_EQ(greedyThresholdGrid(Graph()), std::vector<int64_t>{0});
}

TEST(StrategiesTest, GreedySearchOnThousandLayerChain) {
  GradChain c = makeGradChain(1000, kMiB);
  GreedySearchResult best = greedySearch(c.graph);
  SimResult sq = sim(c.graph, sqrtN(c.graph));
  // The reported threshold reproduces the plan.
  SimResult again = sim(c.graph, greedy(c.graph, best.threshold));
  EXPECT_EQ(again.peakBytes, best.sim.peakBytes);
  EXPECT_EQ(best.schedule.recomputeBefore,
            greedy(c.graph, best.threshold).recomputeBefore);
  // No threshold of the grid does better.
  for (int64_t t : greedyThresholdGrid(c.graph))
    EXPECT_GE(sim(c.graph, greedy(c.graph, t)).peakBytes, best.sim.peakBytes);
  EXPECT_GE(best.tried, greedyThresholdGrid(c.graph).size());
  // Chen's greedy grows equal segments from the bottom: with q boundaries of
  // segments of L layers the top full segment costs q + L + 1 >= 64 layers for
  // q * L <= 1001, whereas sqrt's 32 equal segments end with a full top
  // segment next to the tiny loss (63 MiB). So greedy is within one layer.
  EXPECT_LE(best.sim.peakBytes, sq.peakBytes + kMiB);
  EXPECT_LE(best.sim.peakBytes, 1.05 * 2 * std::sqrt(1000.0) * kMiB);
  EXPECT_LE(best.sim.recomputeCost, c.graph.forwardCost());
}

TEST(StrategiesTest, GreedySearchBeatsSqrtOnHeterogeneousChains) {
  // sqrt(n) balances node counts, greedy balances bytes.
  for (int variant = 0; variant < 2; ++variant) {
    GradChain c = heterogeneousChain(variant);
    SimResult sq = sim(c.graph, sqrtN(c.graph));
    GreedySearchResult best = greedySearch(c.graph);
    EXPECT_LT(best.sim.peakBytes, sq.peakBytes) << "variant " << variant;
    EXPECT_LE(best.sim.recomputeCost, c.graph.forwardCost());
  }
}

TEST(StrategiesTest, StrategiesRespectHints) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 100; ++iter) {
    Graph g = test::makeRandomGraph(rng, 10 + iter % 30, 5 + iter % 20);
    for (const Schedule &s :
         {sqrtN(g), greedy(g, 50), greedySearch(g).schedule}) {
      SimResult r = sim(g, s);
      EXPECT_LE(r.recomputeCost, g.forwardCost());
      for (const List &list : s.recomputeBefore)
        for (unsigned u : list)
          EXPECT_FALSE(isAlwaysKept(g.nodes[u]));
    }
  }
}
