//===- StrategiesTest.cpp - Tests of store-all, sqrt(n) and greedy --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "RecurrentGraphs.h"
#include "TestGraphs.h"

#include "remat/Scheduling/Cuts.h"
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

/// Residual blocks of 1..8 layers with random sizes, then a loss and a
/// backward chain in which each gradient reads its forward value.
Graph randomResidualNet(std::mt19937 &rng) {
  Graph g;
  List forward;
  auto add = [&](List operands, int64_t bytes, bool backward) {
    Node node;
    node.name = "n" + std::to_string(g.size());
    node.bytes = bytes;
    node.cost = 1 + rng() % 5;
    node.backward = backward;
    node.operands = std::move(operands);
    return g.addNode(node);
  };
  unsigned prev = add({}, 1 + rng() % 100, false);
  forward.push_back(prev);
  for (unsigned block = 0, e = 2 + rng() % 30; block < e; ++block) {
    unsigned cur = prev;
    for (unsigned i = 0, len = 1 + rng() % 8; i < len; ++i)
      forward.push_back(cur = add({cur}, 1 + rng() % 100, false));
    forward.push_back(prev = add({prev, cur}, 1 + rng() % 100, false));
  }
  unsigned grad = add({prev}, 4, false);
  for (unsigned i = forward.size(); i-- > 0;)
    grad = add({grad, forward[i]}, g.nodes[forward[i]].bytes, true);
  g.nodes[grad].output = true;
  return g;
}

/// Chen's threshold search with separator boundaries only, as greedySearch
/// did before cuts: the geometric grid and Chen's estimate, then 15 points
/// between the neighbours of the best threshold. Returns the best simulation.
SimResult separatorOnlySearch(const Graph &g) {
  int64_t lo = INT64_MAX, total = 0;
  for (const Node &node : g.nodes)
    if (!node.backward) {
      total += node.bytes;
      if (node.bytes > 0)
        lo = std::min(lo, node.bytes);
    }
  std::vector<int64_t> grid{0};
  if (total > 0) {
    for (unsigned i = 0; i < 60; ++i)
      grid.push_back(std::min<int64_t>(
          total, std::llround(lo * std::pow(double(total) / lo, i / 59.0))));
    int64_t x = 0, y = 0;
    greedySeparatorKeptSet(g, total / std::max(1u, sqrtNSegments(g)), &x, &y);
    grid.push_back(std::llround(std::sqrt(double(x) * double(y))));
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  SimResult best;
  int64_t bestThreshold = 0;
  bool found = false;
  auto consider = [&](int64_t t) {
    SimResult r;
    if (simulate(g, lowerKeptSet(g, greedySeparatorKeptSet(g, t)), r))
      return;
    if (!found || r.peakBytes < best.peakBytes ||
        (r.peakBytes == best.peakBytes &&
         r.recomputeCost < best.recomputeCost)) {
      found = true;
      best = r;
      bestThreshold = t;
    }
  };
  for (int64_t t : grid)
    consider(t);
  size_t at =
      std::lower_bound(grid.begin(), grid.end(), bestThreshold) - grid.begin();
  int64_t low = at ? grid[at - 1] : grid[at];
  int64_t high = at + 1 < grid.size() ? grid[at + 1] : grid[at];
  for (int i = 1; i < 16; ++i)
    consider(low + static_cast<int64_t>(double(high - low) * i / 16));
  return best;
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

TEST(StrategiesTest, SqrtNOnTwoCarryRecurrence) {
  // T = 100 steps carrying h and c (RecurrentGraphs.h; z = 4 bytes, c = h =
  // 1 byte): no separator but the first and the last two forward nodes.
  const unsigned T = 100;
  test::TwoCarry r = test::makeTwoCarry(T);
  const Graph &g = r.graph;
  // Store-all peaks at the first backward node: every z_t and c_t (the
  // backward pass reads them; h_t dies at z_{t+1} or the loss), the loss and
  // gz_{T-1}: 5T + 1 + 4 bytes.
  SimResult all = sim(g, storeAll(g));
  EXPECT_EQ(all.peakBytes, 5 * T + 5);

  // With single separators sqrt(n) degenerates to store-all.
  SimResult separators = sim(g, lowerKeptSet(g, sqrtNSeparatorKeptSet(g)));
  EXPECT_GE(separators.peakBytes, all.peakBytes - 1);

  // With cuts it keeps {c_t, h_t} pairs. m = 3T + 1 = 301 forward nodes,
  // k = 18 segments, so at most 17 cuts of 2 bytes are kept. A target moves
  // by at most r = floor(301 / 72) = 4 positions, so a segment spans at most
  // ceil(301 / 18) + 2r = 25 positions, i.e. at most 10 steps of 6 bytes
  // being recomputed; the backward pass adds gz, gc, gh and their
  // predecessors (<= 12 bytes) and the loss (1): peak <= 34 + 60 + 13 = 107
  // bytes, against 505 for store-all. As k ~ sqrt(3T) this is O(sqrt(T)).
  std::vector<bool> kept = sqrtNKeptSet(g);
  EXPECT_EQ(kept, sqrtNCutKeptSet(g));
  unsigned k = sqrtNSegments(g);
  ASSERT_EQ(k, 18u);
  unsigned numKept = 0;
  for (unsigned t = 0; t < T; ++t) {
    EXPECT_FALSE(kept[r.z[t]]) << t;
    // A kept h_t comes with its c_t.
    if (kept[r.h[t]]) {
      EXPECT_TRUE(kept[r.c[t]]) << t;
    }
    numKept += kept[r.h[t]] + kept[r.c[t]];
  }
  EXPECT_LE(numKept, 2 * (k - 1));
  EXPECT_GE(numKept, 2 * (k - 2));
  SimResult cuts = sim(g, sqrtN(g));
  EXPECT_LE(cuts.peakBytes, 107);
  EXPECT_LT(cuts.peakBytes * 5, all.peakBytes);
  // Each dropped value is recomputed at most once: at most one forward pass.
  EXPECT_LE(cuts.recomputeCost, g.forwardCost());
  EXPECT_LE(cuts.recomputeCount, 3 * T + 1 - numKept);

  // Four times the steps, about twice the peak (store-all: four times).
  test::TwoCarry r4 = test::makeTwoCarry(4 * T);
  SimResult cuts4 = sim(r4.graph, sqrtN(r4.graph));
  EXPECT_LE(cuts4.peakBytes, 2.25 * cuts.peakBytes);
  EXPECT_LE(cuts4.recomputeCost, r4.graph.forwardCost());
}

TEST(StrategiesTest, GreedyOnTwoCarryRecurrence) {
  const unsigned T = 100;
  test::TwoCarry r = test::makeTwoCarry(T);
  const Graph &g = r.graph;
  // Threshold 11: the accumulator (6 bytes a step) passes 11 in the second
  // step, so a {c, h} cut is kept every two steps.
  std::vector<bool> kept = greedyKeptSet(g, 11);
  for (unsigned t = 0; t < T - 3; ++t) {
    EXPECT_FALSE(kept[r.z[t]]) << t;
    EXPECT_EQ(kept[r.h[t]], t % 2 == 1) << t;
    EXPECT_EQ(kept[r.c[t]], t % 2 == 1) << t;
  }
  GreedySearchResult best = greedySearch(g);
  SimResult all = sim(g, storeAll(g));
  EXPECT_LE(best.sim.peakBytes, sim(g, sqrtN(g)).peakBytes);
  EXPECT_LT(best.sim.peakBytes * 5, all.peakBytes);
  EXPECT_LE(best.sim.recomputeCost, g.forwardCost());
}

TEST(StrategiesTest, SqrtNTakesTheBetterBoundaries) {
  // sqrtNKeptSet is whichever of the separator and cut kept sets simulates
  // to the smaller peak (then recompute cost), so never worse than either.
  std::mt19937 rng(11);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 5 + iter % 60, 3 + iter % 30);
    SimResult both = sim(g, sqrtN(g));
    SimResult seps = sim(g, lowerKeptSet(g, sqrtNSeparatorKeptSet(g)));
    SimResult cuts = sim(g, lowerKeptSet(g, sqrtNCutKeptSet(g)));
    EXPECT_EQ(both.peakBytes, std::min(seps.peakBytes, cuts.peakBytes));
    if (seps.peakBytes == cuts.peakBytes) {
      EXPECT_EQ(both.recomputeCost,
                std::min(seps.recomputeCost, cuts.recomputeCost));
    }
  }
  // On a chain both agree with Chen's evenly spaced boundaries.
  GradChain c = makeGradChain(100, kMiB);
  EXPECT_EQ(sqrtNCutKeptSet(c.graph), sqrtNSeparatorKeptSet(c.graph));
}

TEST(StrategiesTest, CutKeptSetPrefersCheapCutsNearTheTarget) {
  // 16 forward nodes, 4 segments: targets 3, 7, 11 and radius
  // floor(16 / 16) = 1. A skip edge f3 -> f6 gives the 2-value cuts
  // {f3, f4} and {f3, f5} at positions 4 and 5, shadowed (window 4) by the
  // 1-byte cuts around them. f7, f10 and f11 weigh 5 bytes.
  Graph g = plainChain(16);
  g.nodes[6].operands.push_back(3);
  for (unsigned v : {7u, 10u, 11u})
    g.nodes[v].bytes = 5;
  ForwardCuts cuts = computeForwardCuts(g);
  EXPECT_EQ(cuts.bytes[4], 2);
  EXPECT_EQ(cuts.numValues[4], 2u);
  EXPECT_EQ(cuts.bytes[7], 5);
  List candidates = cutCandidates(g, cuts);
  EXPECT_FALSE(std::binary_search(candidates.begin(), candidates.end(), 4u));
  EXPECT_FALSE(std::binary_search(candidates.begin(), candidates.end(), 5u));
  // Target 3: the 1-byte cut at 3 itself. Target 7 (5 bytes): 6 and 8 (1
  // byte, both one position away), the earlier wins. Target 11: 12 (1 byte)
  // beats 10 and 11 (5 bytes).
  EXPECT_EQ(keptIndices(sqrtNCutKeptSet(g)), (List{3, 6, 12}));
  // The separator kept set takes the closest separators: the targets.
  EXPECT_EQ(keptIndices(sqrtNSeparatorKeptSet(g)), (List{3, 7, 11}));
  // The backward node reads every forward value, so both peaks are all the
  // forward bytes, and the nodes cost nothing: the tie goes to the
  // separators.
  EXPECT_EQ(keptIndices(sqrtNKeptSet(g)), (List{3, 7, 11}));
}

TEST(StrategiesTest, GreedyNeverWorseThanSeparatorsAlone) {
  // At every threshold greedy is at least as good as both of its kept sets'
  // better one, and greedySearch at least as good as Chen's separator-only
  // search: on residual nets with blocks of random lengths (many separators)
  // and on random graphs (almost none).
  std::mt19937 rng(3);
  unsigned improved = 0;
  for (int iter = 0; iter < 120; ++iter) {
    Graph g = iter % 2
                  ? randomResidualNet(rng)
                  : test::makeRandomGraph(rng, 10 + iter % 50, 5 + iter % 30);
    for (int64_t t : {int64_t(0), int64_t(50), int64_t(200), int64_t(1000)}) {
      SimResult both = sim(g, greedy(g, t));
      SimResult seps = sim(g, lowerKeptSet(g, greedySeparatorKeptSet(g, t)));
      SimResult cuts = sim(g, lowerKeptSet(g, greedyCutKeptSet(g, t)));
      EXPECT_EQ(both.peakBytes, std::min(seps.peakBytes, cuts.peakBytes));
    }
    GreedySearchResult search = greedySearch(g);
    SimResult old = separatorOnlySearch(g);
    EXPECT_TRUE(search.sim.peakBytes < old.peakBytes ||
                (search.sim.peakBytes == old.peakBytes &&
                 search.sim.recomputeCost <= old.recomputeCost))
        << "iter " << iter << ": " << search.sim.peakBytes << " vs "
        << old.peakBytes;
    improved += search.sim.peakBytes < old.peakBytes;
    // The reported threshold reproduces the plan.
    EXPECT_EQ(search.schedule.recomputeBefore,
              greedy(g, search.threshold).recomputeBefore);
  }
  // Cuts do help on some of these graphs.
  EXPECT_GT(improved, 5u);
}
