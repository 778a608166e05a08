//===- CutsTest.cpp - Tests of the multi-value cuts of the forward pass ---===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "CpuSeconds.h"
#include "RecurrentGraphs.h"
#include "TestGraphs.h"

#include "remat/Scheduling/Cuts.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace remat::sched;

namespace {
using List = std::vector<unsigned>;

/// The cut set at forward position `i` straight from its definition in
/// Cuts.h, by looking at every edge.
List bruteForceCutSet(const Graph &g, unsigned i) {
  List forward;
  std::vector<unsigned> pos(g.size(), 0);
  for (unsigned v = 0; v < g.size(); ++v)
    if (!g.nodes[v].backward) {
      pos[v] = forward.size();
      forward.push_back(v);
    }
  List set;
  for (unsigned u : forward) {
    if (pos[u] > i || isAlwaysKept(g.nodes[u]))
      continue;
    bool member = false;
    for (unsigned w = 0; w < g.size(); ++w)
      for (unsigned op : g.nodes[w].operands) {
        if (op != u)
          continue;
        if (!g.nodes[w].backward && pos[w] > i)
          member = true; // Read across the cut.
        if (pos[u] == i)
          member = true; // The i-th node, read by anything.
      }
    if (member)
      set.push_back(u);
  }
  return set;
}

int64_t setBytes(const Graph &g, const List &set) {
  int64_t bytes = 0;
  for (unsigned v : set)
    bytes += g.nodes[v].bytes;
  return bytes;
}

List allPositions(const ForwardCuts &cuts) {
  List positions(cuts.numPositions());
  for (unsigned p = 0; p < positions.size(); ++p)
    positions[p] = p;
  return positions;
}
} // namespace

TEST(CutsTest, TwoCarryRecurrenceByHand) {
  // Three steps, z = 4 bytes, c = h = loss = 1 byte. Positions:
  //   0 z0, 1 c0, 2 h0, 3 z1, 4 c1, 5 h1, 6 z2, 7 c2, 8 h2, 9 loss.
  // Membership intervals [def, last forward use), or [def, def + 1) for the
  // loss, which only backward nodes read:
  //   z0 [0,2) c0 [1,4) h0 [2,3) z1 [3,5) c1 [4,7) h1 [5,6) z2 [6,8)
  //   c2 [7,8) h2 [8,9) loss [9,10).
  // So the cut after h_t is {c_t, h_t} (2 bytes), after z_t {c_{t-1}, z_t}
  // and after c_t {z_t, c_t} (5 bytes each); only z0, h2 and the loss are
  // separators.
  test::TwoCarry r = test::makeTwoCarry(3);
  const Graph &g = r.graph;
  ASSERT_FALSE(g.validate());
  ForwardCuts cuts = computeForwardCuts(g);
  ASSERT_EQ(cuts.numPositions(), 10u);
  EXPECT_EQ(cuts.forward, (List{r.z[0], r.c[0], r.h[0], r.z[1], r.c[1], r.h[1],
                                r.z[2], r.c[2], r.h[2], r.loss}));
  EXPECT_EQ(cuts.bytes, (std::vector<int64_t>{4, 5, 2, 5, 5, 2, 5, 5, 1, 1}));
  EXPECT_EQ(cuts.numValues, (List{1, 2, 2, 2, 2, 2, 2, 2, 1, 1}));
  EXPECT_EQ(cutSet(cuts, 2), (List{r.c[0], r.h[0]}));
  EXPECT_EQ(cutSet(cuts, 3), (List{r.c[0], r.z[1]}));
  EXPECT_EQ(cutSet(cuts, 5), (List{r.c[1], r.h[1]}));
  EXPECT_EQ(cutSet(cuts, 8), (List{r.h[2]}));
  EXPECT_EQ(cutSet(cuts, 9), (List{r.loss}));
  EXPECT_EQ(findSeparators(g), (List{r.z[0], r.h[2], r.loss}));

  // Candidates: the separators 0, 8, 9 and the local minima of the bytes.
  // With a window of 1 both h-cuts are minima; with the default window (4)
  // the 1-byte cut at 8 shadows the h1 cut at 5, not the h0 cut at 2.
  EXPECT_EQ(cutCandidates(g, cuts, 1), (List{0, 2, 5, 8, 9}));
  EXPECT_EQ(cutCandidates(g, cuts), (List{0, 2, 8, 9}));
  // At most one value: the 2-value h-cuts drop out, the separators stay.
  EXPECT_EQ(cutCandidates(g, cuts, 1, 1), (List{0, 8, 9}));

  // A no-recompute c1 is resident anyway: it leaves the cuts [4, 7).
  test::TwoCarry hinted = test::makeTwoCarry(3);
  hinted.graph.nodes[hinted.c[1]].noRecompute = true;
  ForwardCuts hintedCuts = computeForwardCuts(hinted.graph);
  EXPECT_EQ(hintedCuts.bytes,
            (std::vector<int64_t>{4, 5, 2, 5, 4, 1, 4, 5, 1, 1}));
  EXPECT_EQ(hintedCuts.numValues, (List{1, 2, 2, 2, 1, 1, 1, 2, 1, 1}));
  EXPECT_EQ(cutSet(hintedCuts, 5), (List{hinted.h[1]}));
}

TEST(CutsTest, OwnNodeAndUnreadValues) {
  // a -> b -> d with a side value s (after b) read only by a backward node
  // and a dead value x (after d) that nothing reads:
  //   positions 0 a, 1 b, 2 s, 3 d, 4 x.
  Graph g;
  auto add = [&](int64_t bytes, List operands, bool backward = false) {
    Node node;
    node.name = "n" + std::to_string(g.size());
    node.bytes = bytes;
    node.backward = backward;
    node.operands = std::move(operands);
    return g.addNode(node);
  };
  unsigned a = add(1, {});
  unsigned b = add(10, {a});
  unsigned s = add(100, {a});
  unsigned d = add(1000, {b});
  unsigned x = add(10000, {d});
  add(7, {s, d}, /*backward=*/true);
  ForwardCuts cuts = computeForwardCuts(g);
  // a: [0, 2) (read by b and s); b: [1, 3); s: [2, 3) (its own position
  // only: backward readers do not cross cuts); d: [3, 4) (read by x and the
  // backward node); x: nothing.
  EXPECT_EQ(cuts.memberEnd, (List{2, 3, 3, 4, 4}));
  EXPECT_EQ(cuts.bytes, (std::vector<int64_t>{1, 11, 110, 1000, 0}));
  EXPECT_EQ(cutSet(cuts, 2), (List{b, s}));
  EXPECT_EQ(cutSet(cuts, 4), List{});
  (void)x;
}

TEST(CutsTest, MatchesDefinitionOnRandomGraphs) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 300; ++iter) {
    Graph g = test::makeRandomGraph(rng, 1 + iter % 40, iter % 9);
    ForwardCuts cuts = computeForwardCuts(g);
    List positions = allPositions(cuts);
    std::vector<List> sets = cutSets(cuts, positions);
    ASSERT_EQ(sets.size(), cuts.numPositions());
    for (unsigned p : positions) {
      List expected = bruteForceCutSet(g, p);
      EXPECT_EQ(cutSet(cuts, p), expected) << "iter " << iter << " pos " << p;
      EXPECT_EQ(sets[p], expected) << "iter " << iter << " pos " << p;
      EXPECT_EQ(cuts.bytes[p], setBytes(g, expected));
      EXPECT_EQ(cuts.numValues[p], expected.size());
    }
    // A subset of positions gives the same sets as the full sweep.
    List some;
    for (unsigned p : positions)
      if (rng() % 3 == 0)
        some.push_back(p);
    std::vector<List> someSets = cutSets(cuts, some);
    for (size_t i = 0; i < some.size(); ++i)
      EXPECT_EQ(someSets[i], sets[some[i]]);
  }
}

TEST(CutsTest, LaterForwardPassNeedsNothingBehindTheCut) {
  // Keeping the cut set at i, every forward operand of a forward node after
  // i is after i, in the set, or resident anyway: recomputing the rest of
  // the forward pass never crosses the cut. Separators have the cut {v} or {}.
  std::mt19937 rng(23);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 2 + iter % 50, iter % 6);
    ForwardCuts cuts = computeForwardCuts(g);
    std::vector<unsigned> pos(g.size(), 0);
    for (unsigned p = 0; p < cuts.numPositions(); ++p)
      pos[cuts.forward[p]] = p;
    for (unsigned i = 0; i < cuts.numPositions(); ++i) {
      List set = cutSet(cuts, i);
      for (unsigned p = i + 1; p < cuts.numPositions(); ++p)
        for (unsigned u : g.nodes[cuts.forward[p]].operands)
          EXPECT_TRUE(pos[u] > i || isAlwaysKept(g.nodes[u]) ||
                      std::binary_search(set.begin(), set.end(), u))
              << "iter " << iter << " cut " << i;
    }
    List candidates = cutCandidates(g, cuts);
    for (unsigned v : findSeparators(g)) {
      List set = cutSet(cuts, pos[v]);
      EXPECT_TRUE(set.empty() || set == List{v});
      EXPECT_TRUE(
          std::binary_search(candidates.begin(), candidates.end(), pos[v]));
    }
  }
}

TEST(CutsTest, CandidatesAreSmallLocalMinimaOrSeparators) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 1 + iter % 60, iter % 5);
    ForwardCuts cuts = computeForwardCuts(g);
    unsigned window = iter % 6, maxValues = 1 + iter % 4;
    List candidates = cutCandidates(g, cuts, window, maxValues);
    ASSERT_TRUE(std::is_sorted(candidates.begin(), candidates.end()));
    List separatorPos;
    for (unsigned v : findSeparators(g))
      separatorPos.push_back(
          std::find(cuts.forward.begin(), cuts.forward.end(), v) -
          cuts.forward.begin());
    unsigned m = cuts.numPositions();
    for (unsigned p = 0; p < m; ++p) {
      bool localMin = cuts.numValues[p] <= maxValues;
      for (unsigned q = p > window ? p - window : 0; q < m && q <= p + window;
           ++q)
        localMin &= cuts.bytes[p] <= cuts.bytes[q];
      bool separator =
          std::binary_search(separatorPos.begin(), separatorPos.end(), p);
      EXPECT_EQ(std::binary_search(candidates.begin(), candidates.end(), p),
                localMin || separator)
          << "iter " << iter << " pos " << p;
    }
  }
  EXPECT_TRUE(computeForwardCuts(Graph()).bytes.empty());
  EXPECT_TRUE(cutCandidates(Graph(), computeForwardCuts(Graph())).empty());
}

TEST(CutsTest, LinearTimeOnLongRecurrence) {
  // 300001 forward nodes: anything quadratic would take hours.
  test::TwoCarry r = test::makeTwoCarry(100000);
  double start = test::cpuSeconds();
  ForwardCuts cuts = computeForwardCuts(r.graph);
  List candidates = cutCandidates(r.graph, cuts);
  std::vector<List> sets = cutSets(cuts, candidates);
  double seconds = test::cpuSeconds() - start;
  EXPECT_LT(seconds, 10.0);
  // Every h-cut but the last few (shadowed by the 1-byte cuts at the end)
  // is a candidate {c_t, h_t}.
  EXPECT_GE(candidates.size(), 99990u);
  EXPECT_EQ(sets[1], (List{r.c[0], r.h[0]}));
}
