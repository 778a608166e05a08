//===- SeparatorsTest.cpp - Tests of findSeparators -----------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Scheduling/Separators.h"

#include "gtest/gtest.h"

using namespace remat::sched;

namespace {
using List = std::vector<unsigned>;

unsigned add(Graph &g, std::string name, List operands, bool backward = false) {
  Node node;
  node.name = std::move(name);
  node.bytes = 1;
  node.operands = std::move(operands);
  node.backward = backward;
  return g.addNode(node);
}

/// Brute force over all forward edges and all forward nodes.
List bruteForceSeparators(const Graph &g) {
  List forward;
  std::vector<unsigned> pos(g.size());
  for (unsigned v = 0; v < g.size(); ++v)
    if (!g.nodes[v].backward) {
      pos[v] = forward.size();
      forward.push_back(v);
    }
  List result;
  for (unsigned v : forward) {
    bool crossed = false;
    for (unsigned w : forward)
      for (unsigned u : g.nodes[w].operands)
        if (!g.nodes[u].backward && pos[u] < pos[v] && pos[v] < pos[w])
          crossed = true;
    if (!crossed)
      result.push_back(v);
  }
  return result;
}
} // namespace

TEST(SeparatorsTest, ChainEveryForwardNode) {
  test::GradChain c = test::makeGradChain(6, 8);
  List expected(c.f.begin(), c.f.end());
  expected.push_back(c.loss);
  EXPECT_EQ(findSeparators(c.graph), expected);
}

TEST(SeparatorsTest, ResidualBlockInsideIsNotASeparator) {
  // x -> a -> b -> add(x, b) -> y: the skip x -> add crosses a and b.
  Graph g;
  unsigned x = add(g, "x", {});
  unsigned a = add(g, "a", {x});
  unsigned b = add(g, "b", {a});
  unsigned sum = add(g, "add", {x, b});
  unsigned y = add(g, "y", {sum});
  add(g, "gy", {y}, /*backward=*/true);
  add(g, "ga", {a, 5}, /*backward=*/true);
  EXPECT_EQ(findSeparators(g), (List{x, sum, y}));
  (void)b;
}

TEST(SeparatorsTest, Diamond) {
  // s -> l, s -> r, join(l, r): s -> r crosses l, l -> join crosses r.
  Graph g;
  unsigned s = add(g, "s", {});
  unsigned l = add(g, "l", {s});
  unsigned r = add(g, "r", {s});
  unsigned join = add(g, "join", {l, r});
  (void)l;
  (void)r;
  EXPECT_EQ(findSeparators(g), (List{s, join}));
}

TEST(SeparatorsTest, BackwardNodesAreIgnored) {
  // Forward positions skip backward nodes: a -> b is adjacent although a
  // backward node sits between them, and backward edges cross nothing.
  Graph g;
  unsigned a = add(g, "a", {});
  unsigned ga = add(g, "ga", {a}, true);
  unsigned b = add(g, "b", {a});
  unsigned c = add(g, "c", {b});
  add(g, "gc", {ga, a, c}, true);
  EXPECT_EQ(findSeparators(g), (List{a, b, c}));
}

TEST(SeparatorsTest, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 300; ++iter) {
    Graph g = test::makeRandomGraph(rng, 1 + iter % 40, iter % 7);
    EXPECT_EQ(findSeparators(g), bruteForceSeparators(g)) << "iter " << iter;
  }
  // Mostly local edges (window of 4) leave many separators to find.
  size_t found = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Graph g;
    unsigned n = 2 + iter % 50;
    List forward;
    for (unsigned i = 0; i < n; ++i) {
      bool backward = i > 0 && rng() % 5 == 0;
      List ops;
      if (backward) {
        ops.push_back(rng() % i);
      } else {
        for (unsigned k = 0, f = forward.size(), e = f ? 1 + rng() % 2 : 0;
             k < e; ++k)
          ops.push_back(forward[f - 1 - rng() % std::min(f, 4u)]);
      }
      unsigned v = add(g, "n" + std::to_string(i), ops, backward);
      if (!backward)
        forward.push_back(v);
    }
    ASSERT_FALSE(g.validate());
    List expected = bruteForceSeparators(g);
    found += expected.size();
    EXPECT_EQ(findSeparators(g), expected) << "iter " << iter;
  }
  EXPECT_GT(found, 300u);
  EXPECT_TRUE(findSeparators(Graph()).empty());
}
