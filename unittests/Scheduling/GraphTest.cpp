//===- GraphTest.cpp - Tests of the graph model and simulate --------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "CpuSeconds.h"
#include "TestGraphs.h"

#include "remat/Scheduling/Graph.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>

using namespace remat::sched;
using remat::sched::test::makeNode;

namespace {

/// 0 a(100) <- 1 b(50) <- 2 c(10, loss); 3 gb(10) uses c, b; 4 ga(10) uses
/// gb, a and is the output.
Graph smallChain() {
  Graph g;
  g.addNode(makeNode("a", 100, {}, false, 1));
  g.addNode(makeNode("b", 50, {0}, false, 2));
  g.addNode(makeNode("c", 10, {1}, false, 4));
  g.addNode(makeNode("gb", 10, {2, 1}, true));
  g.addNode(makeNode("ga", 10, {3, 0}, true));
  g.nodes[4].output = true;
  g.inputBytes = 7;
  return g;
}

/// An independent quadratic reference of the simulate semantics: an instance
/// counts during execution p if it is p's result, or was produced before p
/// and is read at p or later. The returned part of the final instance of an
/// output is counted apart (not at all here).
int64_t referencePeak(const Graph &g, const Schedule &s, unsigned &peakAt) {
  std::vector<unsigned> seq;
  for (unsigned k = 0; k < g.size(); ++k) {
    for (unsigned u : s.recomputeBefore[k])
      seq.push_back(u);
    seq.push_back(k);
  }
  size_t e = seq.size();
  const size_t kForever = std::numeric_limits<size_t>::max();
  std::vector<size_t> lastUse(e);
  std::map<unsigned, size_t> latest;
  for (size_t p = 0; p < e; ++p) {
    lastUse[p] = p;
    for (unsigned op : g.nodes[seq[p]].operands)
      lastUse[latest.at(op)] = p;
    latest[seq[p]] = p;
  }
  std::vector<int64_t> counted(e);
  for (size_t p = 0; p < e; ++p)
    counted[p] = g.nodes[seq[p]].bytes;
  for (auto [node, inst] : latest)
    if (g.nodes[node].output) {
      const Node &n = g.nodes[node];
      counted[inst] -= n.outputBytes >= 0 ? n.outputBytes : n.bytes;
    }
  (void)kForever;
  int64_t peak = 0;
  for (size_t p = 0; p < e; ++p) {
    int64_t during = 0;
    for (size_t q = 0; q <= p; ++q)
      if (q == p || lastUse[q] >= p)
        during += counted[q];
    if (during > peak) {
      peak = during;
      peakAt = seq[p];
    }
  }
  return peak;
}

} // namespace

TEST(GraphTest, AddNodeValidateForwardCost) {
  Graph g = smallChain();
  EXPECT_EQ(g.size(), 5u);
  EXPECT_FALSE(g.validate());
  EXPECT_DOUBLE_EQ(g.forwardCost(), 7.0);

  Graph bad = smallChain();
  bad.nodes[1].operands = {1};
  ASSERT_TRUE(bad.validate());
  EXPECT_NE(bad.validate()->find("does not precede"), std::string::npos);

  bad = smallChain();
  bad.nodes[2].bytes = -1;
  ASSERT_TRUE(bad.validate());
  EXPECT_NE(bad.validate()->find("negative size"), std::string::npos);

  bad = smallChain();
  bad.nodes[2].cost = -3;
  ASSERT_TRUE(bad.validate());
  EXPECT_NE(bad.validate()->find("cost"), std::string::npos);

  bad = smallChain();
  bad.addNode(makeNode("fwdAfterBwd", 1, {3}));
  ASSERT_TRUE(bad.validate());
  EXPECT_NE(bad.validate()->find("uses backward node 'gb'"), std::string::npos);
}

// Sizes and costs whose sums would overflow are rejected by validate and
// therefore by simulate: two 2^62-byte values live together have a true
// peak of 2^63, which used to wrap and be reported as 2^62.
TEST(GraphTest, ValidateAndSimulateRejectOverflowingTotals) {
  Graph g = smallChain();
  g.nodes[0].bytes = int64_t(1) << 62;
  g.nodes[1].bytes = int64_t(1) << 62;
  ASSERT_TRUE(g.validate());
  EXPECT_NE(g.validate()->find("exceed the limit of 2^60"), std::string::npos)
      << *g.validate();
  SimResult result;
  std::optional<std::string> error = simulate(g, Schedule(g.size()), result);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("2^60"), std::string::npos) << *error;

  // At the limit itself the graph is fine and the peak is exact.
  g = smallChain();
  g.inputBytes = 0;
  g.nodes[0].bytes = kMaxGraphBytes - 80;
  ASSERT_FALSE(g.validate());
  ASSERT_FALSE(simulate(g, Schedule(g.size()), result));
  // During gb: a, b, c and gb live (the node bytes sum to the limit).
  EXPECT_EQ(result.peakBytes, kMaxGraphBytes - 80 + 50 + 10 + 10);

  g = smallChain();
  g.inputBytes = kMaxGraphBytes + 1;
  ASSERT_TRUE(g.validate());

  // Costs near the double range: each is finite, their sum is not.
  g = smallChain();
  g.nodes[0].cost = 1e308;
  g.nodes[1].cost = 1e308;
  ASSERT_TRUE(g.validate());
  EXPECT_NE(g.validate()->find("1e280"), std::string::npos) << *g.validate();
  g.nodes[1].cost = std::numeric_limits<double>::quiet_NaN();
  g.nodes[0].cost = 1;
  EXPECT_TRUE(g.validate());
}

TEST(GraphTest, NumRecomputed) {
  Schedule s(5);
  EXPECT_EQ(s.numRecomputed(), 0u);
  s.recomputeBefore[3] = {0, 1};
  s.recomputeBefore[4] = {2};
  EXPECT_EQ(s.numRecomputed(), 3u);
}

TEST(GraphTest, SimulateStoreAllByHand) {
  // p0 a: 100 | p1 b: 150 | p2 c: 160 | p3 gb: 170, frees b, c -> 110
  // p4 ga: 110, frees gb, a -> 0 (ga is an output: its 10 bytes are counted
  // apart, like a preallocated gradient buffer).
  Graph g = smallChain();
  SimResult r;
  ASSERT_FALSE(simulate(g, Schedule(5), r));
  EXPECT_EQ(r.peakBytes, 170);
  EXPECT_EQ(r.outputBytes, 10);
  EXPECT_EQ(r.peakTotalBytes, 187);
  EXPECT_EQ(r.peakAt, 3u);
  EXPECT_EQ(r.peakStep, 3u);
  EXPECT_FALSE(r.peakInRecompute);
  EXPECT_EQ(r.recomputeCount, 0u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 0.0);

  std::vector<int64_t> trace;
  ASSERT_FALSE(liveBytesTrace(g, Schedule(5), r, trace));
  EXPECT_EQ(trace, (std::vector<int64_t>{100, 150, 160, 170, 110}));
}

TEST(GraphTest, SimulateRecomputeByHand) {
  // Recomputing a before ga frees the original a after b:
  // p0 a: 100 | p1 b: 150, frees a -> 50 | p2 c: 60 | p3 gb: 70 -> 10
  // p4 a': 110 | p5 ga: 110 (ga counted apart).
  Graph g = smallChain();
  Schedule s(5);
  s.recomputeBefore[4] = {0};
  SimResult r;
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 150);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_EQ(r.recomputeCount, 1u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 1.0);
  std::vector<int64_t> trace;
  ASSERT_FALSE(liveBytesTrace(g, s, r, trace));
  EXPECT_EQ(trace, (std::vector<int64_t>{100, 150, 60, 70, 110}));

  // Recomputing a and b before gb: the originals die in the forward pass.
  s = Schedule(5);
  s.recomputeBefore[3] = {0, 1};
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 170);
  EXPECT_EQ(r.recomputeCount, 2u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 3.0);
  ASSERT_FALSE(liveBytesTrace(g, s, r, trace));
  // Step 3 covers a' (110), b' (160) and gb (170).
  EXPECT_EQ(trace, (std::vector<int64_t>{100, 150, 60, 170, 110}));
}

TEST(GraphTest, WorkspaceCountsDuringItsExecutionOnly) {
  // smallChain with 40 bytes of scratch on b and 25 on ga:
  // p0 a: 100 | p1 b: 150 + 40 = 190 | p2 c: 160 | p3 gb: 170 -> 110
  // p4 ga: 110 + 25 = 135. The workspace is never part of the live bytes
  // after its node: c sees 160, not 200.
  Graph g = smallChain();
  g.nodes[1].workspace = 40;
  g.nodes[4].workspace = 25;
  SimResult r;
  ASSERT_FALSE(simulate(g, Schedule(5), r));
  EXPECT_EQ(r.peakBytes, 190);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_EQ(r.peakTotalBytes, 190 + 7 + 10);
  std::vector<int64_t> trace;
  ASSERT_FALSE(liveBytesTrace(g, Schedule(5), r, trace));
  EXPECT_EQ(trace, (std::vector<int64_t>{100, 190, 160, 170, 135}));

  // Recomputing b before gb runs its workspace again, on top of a, c and
  // b' (p3 b': 100 + 10 + 50 + 40 = 200, the peak, in the recomputation).
  Schedule s(5);
  s.recomputeBefore[3] = {1};
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 200);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_EQ(r.peakStep, 3u);
  EXPECT_TRUE(r.peakInRecompute);

  // A negative workspace is a malformed graph.
  g.nodes[2].workspace = -1;
  EXPECT_TRUE(g.validate());
  EXPECT_TRUE(simulate(g, Schedule(5), r));
}

TEST(GraphTest, PeakDuringRecomputation) {
  // 0 a(20) <- 1 big(100) <- 2 x(1) <- 3 loss(5); 4 g uses loss, big.
  // Recompute big before g; a's last use becomes big':
  // p0 a: 20 | p1 big: 120 | p2 x: 121, frees big -> 21
  // p3 loss: 26, frees x -> 25 | p4 big': 125, frees a -> 105
  // p5 g: 106.
  Graph g;
  g.addNode(makeNode("a", 20, {}));
  g.addNode(makeNode("big", 100, {0}, false, 8));
  g.addNode(makeNode("x", 1, {1}));
  g.addNode(makeNode("loss", 5, {2}));
  g.addNode(makeNode("g", 1, {3, 1}, true));
  g.nodes[4].output = true;
  Schedule s(5);
  s.recomputeBefore[4] = {1};
  SimResult r;
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 125);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_EQ(r.peakStep, 4u);
  EXPECT_TRUE(r.peakInRecompute);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 8.0);

  // Store-all: a dies after big; p3 loss: 106, frees x -> 105; p4 g: 106.
  ASSERT_FALSE(simulate(g, Schedule(5), r));
  EXPECT_EQ(r.peakBytes, 120);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_FALSE(r.peakInRecompute);
}

TEST(GraphTest, UnusedValuesAndOutputs) {
  // An unused value is freed right after it is produced; an output is counted
  // apart. 0 a(10); 1 dead(1000, uses a); 2 out(5, uses a, output); 3 g(1).
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("dead", 1000, {0}));
  g.addNode(makeNode("out", 5, {0}));
  g.addNode(makeNode("g", 1, {0}, true));
  g.nodes[2].output = true;
  std::vector<int64_t> trace;
  SimResult r;
  ASSERT_FALSE(liveBytesTrace(g, Schedule(4), r, trace));
  // p0 10 | p1 1010 -> 10 | p2 10 | p3 11, frees a -> 1.
  EXPECT_EQ(trace, (std::vector<int64_t>{10, 1010, 10, 11}));
  EXPECT_EQ(r.outputBytes, 5);
  EXPECT_EQ(r.peakBytes, 1010);
  EXPECT_EQ(r.peakAt, 1u);

  // A duplicated operand is one instance, freed once.
  Graph d;
  d.addNode(makeNode("a", 10, {}));
  d.addNode(makeNode("sq", 3, {0, 0}));
  d.addNode(makeNode("g", 2, {1, 1}, true));
  ASSERT_FALSE(liveBytesTrace(d, Schedule(3), r, trace));
  EXPECT_EQ(trace, (std::vector<int64_t>{10, 13, 5}));
}

TEST(GraphTest, OutputOnlyFinalInstanceStaysLive) {
  // An output recomputed before g: the original dies at its last use, the
  // recomputed (final) instance lives to the end.
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("o", 50, {0}));
  g.addNode(makeNode("h", 1, {1}));
  g.addNode(makeNode("g", 2, {2, 1}, true));
  g.nodes[1].output = true;
  Schedule s(4);
  s.recomputeBefore[3] = {1};
  std::vector<int64_t> trace;
  SimResult r;
  ASSERT_FALSE(liveBytesTrace(g, s, r, trace));
  // p0 a 10 | p1 o 60 | p2 h 61, frees o -> 11 | p3 o' 11 (the final
  // instance is counted apart), frees a -> 1 | p4 g 3, frees h -> 2.
  EXPECT_EQ(trace, (std::vector<int64_t>{10, 60, 61, 11}));
  EXPECT_EQ(r.outputBytes, 50);
  EXPECT_EQ(r.peakBytes, 61);
  EXPECT_EQ(r.peakAt, 2u);
}

TEST(GraphTest, PartlyReturnedMultiResultNode) {
  // A 30-byte node of which 10 bytes are returned: the other 20 bytes are an
  // activation freed after their last use. 0 a(10); 1 m(30, uses a, returns
  // 10); 2 g(1, uses m).
  Graph g;
  g.addNode(makeNode("a", 10, {}));
  g.addNode(makeNode("m", 30, {0}, true));
  g.addNode(makeNode("g", 1, {1}, true));
  g.nodes[1].output = true;
  g.nodes[1].outputBytes = 10;
  std::vector<int64_t> trace;
  SimResult r;
  ASSERT_FALSE(liveBytesTrace(g, Schedule(3), r, trace));
  // p0 10 | p1 30, frees a -> 20 | p2 21, frees the 20 of m -> 1.
  EXPECT_EQ(trace, (std::vector<int64_t>{10, 30, 21}));
  EXPECT_EQ(r.outputBytes, 10);
  EXPECT_EQ(r.peakBytes, 30);
}

TEST(GraphTest, MalformedSchedulesRejected) {
  Graph g = smallChain();
  SimResult r;
  auto expectError = [&](const Schedule &s, const std::string &needle) {
    std::optional<std::string> error = simulate(g, s, r);
    ASSERT_TRUE(error) << "expected an error mentioning " << needle;
    EXPECT_NE(error->find(needle), std::string::npos) << *error;
  };
  expectError(Schedule(4), "4 recompute lists for a graph of 5 nodes");

  Schedule s(5);
  s.recomputeBefore[4] = {3};
  expectError(s, "recomputation of backward node 'gb'");

  s = Schedule(5);
  s.recomputeBefore[4] = {9};
  expectError(s, "out of range");

  s = Schedule(5);
  s.recomputeBefore[2] = {0};
  expectError(s, "only backward nodes and nodes after the first backward");

  g.nodes[1].noRecompute = true;
  s = Schedule(5);
  s.recomputeBefore[3] = {1};
  expectError(s, "no-recompute node 'b'");
  g.nodes[1].noRecompute = false;

  // A keep node stays resident (Graph.h), as the bounds and the IR verifier
  // assume.
  g.nodes[1].keep = true;
  expectError(s, "recomputation of keep node 'b' (#1) before");
  g.nodes[1].keep = false;

  g.nodes[0].bytes = -5;
  expectError(Schedule(5), "malformed graph");
  g.nodes[0].bytes = 100;

  // Forward nodes f and f2 placed after the backward node g (Phases.h): a
  // node may not be recomputed before its first execution (f2 before g), but
  // a list may precede the late forward node f.
  Graph late;
  late.addNode(makeNode("a", 10, {}, false, 10));
  late.addNode(makeNode("g", 1, {0}, true));
  late.addNode(makeNode("f", 1, {0}));
  late.addNode(makeNode("f2", 1, {2}));
  Schedule ls(4);
  ls.recomputeBefore[1] = {3};
  std::optional<std::string> error = simulate(late, ls, r);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("recomputation of 'f2' (#3) before 'g' (#1), which "
                        "precedes its first execution"),
            std::string::npos)
      << *error;
  ls = Schedule(4);
  ls.recomputeBefore[2] = {0};
  ASSERT_FALSE(simulate(late, ls, r));
  // a (10 B) is read by g and f: store-all keeps it to f; with the list, the
  // original instance dies at g and a recomputed one is read by f.
  EXPECT_EQ(r.recomputeCount, 1u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 10);
}

TEST(GraphTest, MatchesQuadraticReferenceOnRandomSchedules) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = test::makeRandomGraph(rng, 5 + iter % 20, 3 + iter % 15);
    ASSERT_FALSE(g.validate());
    Schedule s(g.size());
    double expectedCost = 0;
    size_t expectedCount = 0;
    for (unsigned k = 0; k < g.size(); ++k) {
      if (!g.nodes[k].backward)
        continue;
      unsigned count = rng() % 4;
      for (unsigned i = 0; i < count; ++i) {
        unsigned u = rng() % k;
        if (g.nodes[u].backward || g.nodes[u].noRecompute || g.nodes[u].keep)
          continue;
        s.recomputeBefore[k].push_back(u);
        expectedCost += g.nodes[u].cost;
        ++expectedCount;
      }
    }
    SimResult r;
    ASSERT_FALSE(simulate(g, s, r));
    unsigned refAt = 0;
    EXPECT_EQ(r.peakBytes, referencePeak(g, s, refAt)) << "iteration " << iter;
    EXPECT_EQ(r.peakAt, refAt) << "iteration " << iter;
    EXPECT_DOUBLE_EQ(r.recomputeCost, expectedCost);
    EXPECT_EQ(r.recomputeCount, expectedCount);
  }
}

TEST(GraphTest, SimulateIsFastOnLongChains) {
  // 10000 layers: 20001 nodes, every forward value recomputed once.
  test::GradChain c = test::makeGradChain(10000, 1 << 20);
  Schedule s(c.graph.size());
  for (unsigned i = 0; i < 10000; ++i)
    if (i % 100 == 99)
      for (unsigned j = i - 99; j <= i; ++j)
        s.recomputeBefore[c.b[i]].push_back(c.f[j]);
  SimResult r;
  double start = test::cpuSeconds();
  for (int i = 0; i < 100; ++i)
    ASSERT_FALSE(simulate(c.graph, s, r));
  double seconds = test::cpuSeconds() - start;
  EXPECT_EQ(r.recomputeCount, 10000u);
  // About 1 ms per call on one core (CPU seconds, CpuSeconds.h).
  EXPECT_LT(seconds, 3.0);
}

/// Field by field: a reused Simulator must give what a fresh simulate gives.
static void expectSameSim(const SimResult &a, const SimResult &b) {
  EXPECT_EQ(a.peakBytes, b.peakBytes);
  EXPECT_EQ(a.outputBytes, b.outputBytes);
  EXPECT_EQ(a.peakTotalBytes, b.peakTotalBytes);
  EXPECT_EQ(a.peakAt, b.peakAt);
  EXPECT_EQ(a.peakStep, b.peakStep);
  EXPECT_EQ(a.peakInRecompute, b.peakInRecompute);
  EXPECT_EQ(a.recomputeCost, b.recomputeCost);
  EXPECT_EQ(a.recomputeCount, b.recomputeCount);
}

TEST(SimulatorTest, ReusedSimulatorEqualsFreshSimulateOnRandomSchedules) {
  // One Simulator per graph runs schedules of varying length (its buffers
  // shrink and grow between runs), valid and malformed ones; every run must
  // equal simulate / liveBytesTrace on the same schedule.
  std::mt19937 rng(2024);
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  unsigned checked = 0, failed = 0;
  for (unsigned iter = 0; iter != 60; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 25, 2 + iter % 17);
    unsigned n = g.size();
    for (Node &node : g.nodes) {
      node.workspace = pick(4) == 0 ? pick(50) : 0;
      if (node.output && pick(3) == 0)
        node.outputBytes = pick(node.bytes + 1);
    }
    unsigned firstBackward = 0;
    while (!g.nodes[firstBackward].backward)
      ++firstBackward;
    Simulator simulator(g);
    for (unsigned trial = 0; trial != 12; ++trial) {
      Schedule schedule(n);
      // Up to 3 recomputation lists of up to n forward nodes each, in
      // ascending order (often legal, sometimes not: a node recomputed
      // before its operand has an instance, a no-recompute or keep node).
      unsigned lists = pick(4);
      for (unsigned l = 0; l != lists; ++l) {
        unsigned k = firstBackward + pick(n - firstBackward);
        unsigned count = pick(trial % 2 ? n : 4);
        for (unsigned c = 0; c != count; ++c)
          schedule.recomputeBefore[k].push_back(pick(firstBackward));
        std::sort(schedule.recomputeBefore[k].begin(),
                  schedule.recomputeBefore[k].end());
      }
      if (trial == 11)
        schedule.recomputeBefore.pop_back(); // Wrong length.
      SimResult fresh, reused;
      std::optional<std::string> e1 = simulate(g, schedule, fresh);
      std::optional<std::string> e2 = simulator.simulate(schedule, reused);
      ASSERT_EQ(e1, e2);
      std::vector<int64_t> freshSteps, reusedSteps;
      SimResult freshTrace, reusedTrace;
      ASSERT_EQ(liveBytesTrace(g, schedule, freshTrace, freshSteps),
                simulator.liveBytesTrace(schedule, reusedTrace, reusedSteps));
      if (e1) {
        ++failed;
        continue;
      }
      ++checked;
      expectSameSim(fresh, reused);
      expectSameSim(freshTrace, reusedTrace);
      expectSameSim(fresh, freshTrace);
      EXPECT_EQ(freshSteps, reusedSteps);
    }
  }
  // Both kinds of schedule were exercised.
  EXPECT_GT(checked, 100u);
  EXPECT_GT(failed, 60u);
}

TEST(SimulatorTest, MalformedGraphIsReportedOnEveryRun) {
  Graph g = smallChain();
  g.nodes[1].bytes = -1;
  Simulator simulator(g);
  SimResult r;
  std::optional<std::string> expected = simulate(g, Schedule(g.size()), r);
  ASSERT_TRUE(expected);
  EXPECT_NE(expected->find("malformed graph"), std::string::npos);
  for (int i = 0; i != 2; ++i)
    EXPECT_EQ(simulator.simulate(Schedule(g.size()), r), expected);
}
