//===- TestGraphs.h - Graphs shared by the scheduling tests -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SCHEDULING_TESTGRAPHS_H
#define REMAT_UNITTESTS_SCHEDULING_TESTGRAPHS_H

#include "remat/Scheduling/Graph.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace remat {
namespace sched {
namespace test {

/// A node with the given name, size, operands, phase and cost.
inline Node makeNode(std::string name, int64_t bytes,
                     std::vector<unsigned> operands, bool backward = false,
                     double cost = 1) {
  Node node;
  node.name = std::move(name);
  node.bytes = bytes;
  node.operands = std::move(operands);
  node.backward = backward;
  node.cost = cost;
  return node;
}

/// A node with its cost before its operands (the min-cut and kept-set tests,
/// where every node's cost matters).
inline Node makeCostNode(std::string name, int64_t bytes, double cost,
                         std::vector<unsigned> operands,
                         bool backward = false) {
  return makeNode(std::move(name), bytes, std::move(operands), backward, cost);
}

/// A training chain: forward f_0..f_{n-1} (f_i uses f_{i-1}), a forward loss
/// using f_{n-1}, then backward b_{n-1}..b_0 where b_i uses the incoming
/// gradient (b_{i+1}, or the loss for i = n-1), f_i and f_{i-1} (if i > 0).
/// b_0 is the step's output.
struct GradChain {
  Graph graph;
  std::vector<unsigned> f, b;
  unsigned loss = 0;
};

inline GradChain makeGradChain(unsigned n, int64_t layerBytes,
                               double layerCost = 1.0, int64_t lossBytes = 4) {
  GradChain c;
  c.f.resize(n);
  c.b.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    Node node;
    node.name = "f" + std::to_string(i);
    node.bytes = layerBytes;
    node.cost = layerCost;
    if (i > 0)
      node.operands = {c.f[i - 1]};
    c.f[i] = c.graph.addNode(node);
  }
  Node loss;
  loss.name = "loss";
  loss.bytes = lossBytes;
  loss.cost = layerCost;
  loss.operands = {c.f[n - 1]};
  c.loss = c.graph.addNode(loss);
  for (unsigned i = n; i-- > 0;) {
    Node node;
    node.name = "b" + std::to_string(i);
    node.backward = true;
    node.bytes = layerBytes;
    node.cost = 2 * layerCost;
    node.operands = {i + 1 == n ? c.loss : c.b[i + 1], c.f[i]};
    if (i > 0)
      node.operands.push_back(c.f[i - 1]);
    node.output = i == 0;
    c.b[i] = c.graph.addNode(node);
  }
  return c;
}

/// A random valid graph: `numForward` forward nodes then `numBackward`
/// backward nodes, each with up to 3 operands among earlier nodes (forward
/// nodes only among forward ones), random sizes, costs, hints and outputs.
inline Graph makeRandomGraph(std::mt19937 &rng, unsigned numForward,
                             unsigned numBackward) {
  Graph g;
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  for (unsigned i = 0, e = numForward + numBackward; i < e; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.backward = i >= numForward;
    node.bytes = 1 + pick(100);
    node.cost = 1 + pick(10);
    node.noRecompute = !node.backward && pick(10) == 0;
    node.keep = !node.backward && pick(15) == 0;
    node.output = pick(12) == 0;
    // Forward nodes come first, so a forward node's operands are forward.
    if (i > 0) {
      unsigned numOps = 1 + pick(3);
      for (unsigned k = 0; k < numOps; ++k)
        node.operands.push_back(pick(i));
    }
    g.addNode(node);
  }
  return g;
}

/// A random forward-only DAG of `n` nodes without hints: node i reads 1-3
/// earlier nodes (none for node 0), sizes 1..100, costs 1..10, with
/// `workspace` a third of them 1..30 bytes of workspace; the nodes nobody
/// reads are the outputs.
inline Graph makeTinyDag(std::mt19937 &rng, unsigned n,
                         bool workspace = false) {
  auto pick = [&](unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  };
  Graph g;
  for (unsigned i = 0; i < n; ++i) {
    std::vector<unsigned> ops;
    if (i > 0)
      for (unsigned k = pick(1, 3); k--;)
        ops.push_back(pick(0, i - 1));
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    unsigned v = g.addNode(makeNode("n" + std::to_string(i), pick(1, 100), ops,
                                    false, pick(1, 10)));
    if (workspace && pick(0, 2) == 0)
      g.nodes[v].workspace = pick(1, 30);
  }
  std::vector<bool> read(n, false);
  for (const Node &node : g.nodes)
    for (unsigned op : node.operands)
      read[op] = true;
  for (unsigned v = 0; v < n; ++v)
    g.nodes[v].output = !read[v];
  return g;
}

/// The `iter`-th random graph of the tests that enumerate every schedule
/// (test::allSchedules, ScheduleEnumeration.h): `makeRandomGraph` with 3 or
/// 4 forward nodes and 7 or 8 nodes in all, by `iter`.
inline Graph makeEnumerableGraph(std::mt19937 &rng, unsigned iter) {
  unsigned numF = 3 + iter % 2, numB = 8 - numF - (iter % 3 == 0);
  return makeRandomGraph(rng, numF, numB);
}

/// `g` with a `keep` hint on its largest forward node that is neither an
/// output nor `noRecompute` (the earliest among equals; none if there is no
/// such node): the value a schedule would most like to drop and recompute.
inline Graph withKeepOnLargest(Graph g) {
  unsigned best = g.size();
  for (unsigned v = 0; v != g.size(); ++v) {
    const Node &node = g.nodes[v];
    if (!node.backward && !node.output && !node.noRecompute &&
        (best == g.size() || node.bytes > g.nodes[best].bytes))
      best = v;
  }
  if (best != g.size())
    g.nodes[best].keep = true;
  return g;
}

/// A training graph where the order of one recompute list decides the
/// least peak (bytes; costs in parentheses):
///   0 x0 100 (4)  1 x1 90 (4: x0)  2 x2 50 (5: x1)  3 x3 50 (8: x0, x1)
///   4 b 1 (bwd, output: x2, x0, x3)
/// Store-all peaks at x3 (290). Recomputing x2 and x0 before b frees their
/// forward instances early (x2 at once, x0 after x3): x3 then runs beside
/// x0 and x1 only (240). In the list x2 must come first, while x1 is still
/// live, so that x1 is freed before x0 comes back (x1 + x3 + x2 = 190,
/// then x3 + x2 + x0 = 200); in index order (the stage model's) x0 comes
/// back beside x1: x1 + x3 + x0 + x2 = 290. Every other stage-model
/// schedule keeps a forward instance of x0, x1 and x2 live during x3 or
/// all four at once in the list: the whole model's least peak is 240 at
/// recompute 9, the stage model's 290.
inline Graph makeListOrderGraph() {
  Graph g;
  g.addNode(makeCostNode("x0", 100, 4, {}));
  g.addNode(makeCostNode("x1", 90, 4, {0}));
  g.addNode(makeCostNode("x2", 50, 5, {1}));
  g.addNode(makeCostNode("x3", 50, 8, {0, 1}));
  g.addNode(makeCostNode("b", 1, 8, {2, 0, 3}, true));
  g.nodes[4].output = true;
  return g;
}

/// A second training graph where the order of a recompute list decides
/// the least peak (bytes; costs in parentheses):
///   0 a 80 (8)  1 b 50 (9: a)  2 c 70 (9: a, b)  3 d 80 (7: c)
///   4 g1 30 (bwd: a, c)  5 g2 30 (bwd, output: a, d, g1)
/// Store-all peaks at g1 (a + c + d + g1 = 260). Recomputing a before both
/// backward nodes frees its forward instance at c, and recomputing d
/// before g2 frees it at once: the forward pass peaks at c (a + b + c =
/// 200), g1 at a + c + g1 = 180. Before g2, d must come first, while a is
/// not live, so that c is freed before a comes back (c + g1 + d = 180,
/// then g1 + d + a = 190); in index order (the stage model's) a comes back
/// beside c: a + c + g1 + d = 260. The whole model's least peak is 200 at
/// recompute 23 (a twice, d once; g2's 30 bytes are returned, counted
/// apart), the stage model's 260 (store-all): no stage-model schedule
/// peaks below it.
inline Graph makeTwoListOrderGraph() {
  Graph g;
  g.addNode(makeCostNode("a", 80, 8, {}));
  g.addNode(makeCostNode("b", 50, 9, {0}));
  g.addNode(makeCostNode("c", 70, 9, {0, 1}));
  g.addNode(makeCostNode("d", 80, 7, {2}));
  g.addNode(makeCostNode("g1", 30, 9, {0, 2}, true));
  g.addNode(makeCostNode("g2", 30, 2, {0, 3, 4}, true));
  g.nodes[5].output = true;
  return g;
}

/// A training graph where a value recomputed twice in one list lowers the
/// least peak (bytes; costs in parentheses):
///   0 u 50 (4)  1 x1 100 (4: u)  2 y 60 (4: x1)  3 x2 30 (4: u, y)
///   4 h 200 (4, noRecompute)  5 loss 1 (1: h; 150 bytes of workspace)
///   6 b 1 (bwd, output: loss, h, x2)
/// Store-all peaks at loss, where x2 waits for b: h + loss + 150 + x2 =
/// 381. Dropping x2 there (351) means recomputing it before b beside h
/// and loss (201): x2 reads u and y, y reads x1, x1 reads u, so in any
/// list without a repeat u lives from its recomputation to x2's, across
/// y: 201 + u + x1 + y = 411. With u recomputed twice, [u, x1, y, u, x2],
/// the first instance dies at x1: 201 + x1 + y = 361 (x1's step 150, x2's
/// 140). Holding u or y instead of x2 costs 50 or 60 at loss. So the least
/// peak is 361 at recompute 20 (lists of up to 5 values), and without a
/// repeat in a list it is store-all's 381.
inline Graph makeListRepeatGraph() {
  Graph g;
  g.addNode(makeCostNode("u", 50, 4, {}));
  g.addNode(makeCostNode("x1", 100, 4, {0}));
  g.addNode(makeCostNode("y", 60, 4, {1}));
  g.addNode(makeCostNode("x2", 30, 4, {0, 2}));
  g.addNode(makeCostNode("h", 200, 4, {}));
  g.addNode(makeCostNode("loss", 1, 1, {4}));
  g.addNode(makeCostNode("b", 1, 1, {5, 4, 3}, true));
  g.nodes[4].noRecompute = true;
  g.nodes[5].workspace = 150;
  g.nodes[6].output = true;
  return g;
}

/// A GELU-derivative-like late forward pair: cdf (cheap) and pdf (dear)
/// read x and come after the first backward node g1; t reads pdf, out reads
/// cdf. (Bytes; costs in parentheses.)
///   0 x 100 (1000)  1 a 200 (1000: x)  2 loss 4 (a)  3 g1 100 (bwd: loss, a)
///   4 cdf 100 (1: x)  5 pdf 100 (500: x)  6 t 100 (bwd: g1, pdf)
///   7 out 4 (bwd, output: t, cdf, x)
inline Graph makeLateCdf() {
  Graph g;
  g.addNode(makeCostNode("x", 100, 1000, {}));
  g.addNode(makeCostNode("a", 200, 1000, {0}));
  g.addNode(makeCostNode("loss", 4, 1, {1}));
  g.addNode(makeCostNode("g1", 100, 1, {2, 1}, true));
  g.addNode(makeCostNode("cdf", 100, 1, {0}));
  g.addNode(makeCostNode("pdf", 100, 500, {0}));
  g.addNode(makeCostNode("t", 100, 1, {3, 5}, true));
  g.addNode(makeCostNode("out", 4, 1, {6, 4, 0}, true));
  g.nodes[7].output = true;
  return g;
}

} // namespace test
} // namespace sched
} // namespace remat

#endif // REMAT_UNITTESTS_SCHEDULING_TESTGRAPHS_H
