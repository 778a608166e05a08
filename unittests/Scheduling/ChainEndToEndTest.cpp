//===- ChainEndToEndTest.cpp - Chain strategies on graphs, simulated ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/ChainOptimal.h"
#include "remat/Scheduling/Revolve.h"
#include "remat/Scheduling/Strategies.h"

#include "CpuSeconds.h"
#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace remat::sched;

namespace {

constexpr int64_t kBytes = 1000;

/// A homogeneous chain of L single-node stages: f_i reads f_{i-1}; the
/// backward b_i reads f_i and the incoming gradient b_{i+1}.
Graph homogeneousChain(unsigned L) {
  Graph g;
  std::vector<unsigned> f(L);
  for (unsigned i = 0; i < L; ++i) {
    Node n;
    n.name = "f" + std::to_string(i);
    n.bytes = kBytes;
    n.cost = 1;
    if (i)
      n.operands = {f[i - 1]};
    f[i] = g.addNode(n);
  }
  unsigned grad = ~0u;
  for (unsigned i = L; i-- > 0;) {
    Node n;
    n.name = "b" + std::to_string(i);
    n.backward = true;
    n.bytes = kBytes;
    n.cost = 2;
    n.operands = {f[i]};
    if (grad != ~0u)
      n.operands.push_back(grad);
    grad = g.addNode(n);
  }
  return g;
}

SimResult simulateOk(const Graph &g, const Schedule &s) {
  SimResult sim;
  std::optional<std::string> error = simulate(g, s, sim);
  EXPECT_FALSE(error) << *error;
  return sim;
}

/// Chen-style sqrt schedule on the chain: checkpoints every k stages in the
/// first sweep, each segment taped whole and reversed.
ChainSchedule segmentSchedule(unsigned L, unsigned k) {
  ChainSchedule out;
  std::vector<unsigned> cps = {0};
  for (unsigned b = k; b < L; b += k) {
    out.push_back(ChainAction::advance(cps.back(), b));
    out.push_back(ChainAction::checkpoint(b));
    cps.push_back(b);
  }
  for (size_t i = cps.size(); i-- > 0;) {
    unsigned a = cps[i], e = i + 1 < cps.size() ? cps[i + 1] : L;
    for (unsigned s = a + 1; s <= e; ++s)
      out.push_back(ChainAction::tape(s));
    if (a != 0)
      out.push_back(ChainAction::free(a));
    for (unsigned s = e; s > a; --s)
      out.push_back(ChainAction::backward(s));
  }
  return out;
}

} // namespace

TEST(ChainEndToEndTest, RevolveTradesMemoryForRecompute) {
  const unsigned L = 100;
  Graph g = homogeneousChain(L);
  SimResult storeAllSim = simulateOk(g, Schedule(g.size()));
  int64_t prevPeak = storeAllSim.peakBytes + 1;
  double prevCost = -1;
  for (unsigned c : {40u, 20u, 10u, 5u, 3u, 2u, 1u, 0u}) {
    ChainPlan plan = revolve(g, c);
    ASSERT_TRUE(plan.ok) << plan.detail;
    SimResult sim = simulateOk(g, plan.schedule);
    // Fewer checkpoints: strictly less memory, strictly more recompute.
    EXPECT_LT(sim.peakBytes, prevPeak) << "c=" << c;
    EXPECT_GT(sim.recomputeCost, prevCost) << "c=" << c;
    // On single-node stages every recomputed stage is one execution, and
    // Revolve's count (initial sweep included, reversal tapes excluded) is
    // exactly the number of recomputed executions.
    EXPECT_EQ(sim.recomputeCount, revolveMinForwards(L, c + 1)) << "c=" << c;
    // c boundaries, the stage being recomputed and its input, the tape and
    // two gradients.
    EXPECT_LE(sim.peakBytes, static_cast<int64_t>(c + 5) * kBytes) << "c=" << c;
    EXPECT_LE(sim.peakBytes,
              plan.stats.modelPeakBytes + 0 /* no pinned nodes */);
    prevPeak = sim.peakBytes;
    prevCost = sim.recomputeCost;
  }
}

TEST(ChainEndToEndTest, LogNUsesLogarithmicMemory) {
  for (unsigned L : {16u, 100u, 1000u}) {
    Graph g = homogeneousChain(L);
    ChainPlan plan = logN(g);
    ASSERT_TRUE(plan.ok) << plan.detail;
    SimResult sim = simulateOk(g, plan.schedule);
    unsigned log2ceil = 0;
    while ((1u << log2ceil) < L)
      ++log2ceil;
    EXPECT_LE(sim.peakBytes, static_cast<int64_t>(log2ceil + 5) * kBytes)
        << "L=" << L;
    EXPECT_LE(sim.recomputeCount, static_cast<size_t>(L) * (log2ceil + 1))
        << "L=" << L;
    // Far below store-all.
    if (L >= 100) {
      EXPECT_LT(sim.peakBytes * 4, static_cast<int64_t>(L) * kBytes);
    }
  }
}

TEST(ChainEndToEndTest, ChainOptimalRespectsBudgets) {
  const unsigned L = 100;
  Graph g = homogeneousChain(L);
  SimResult storeAllSim = simulateOk(g, Schedule(g.size()));
  StageChain chain = buildStageChain(g);
  int64_t minBytes = chainMinModelBytes(chain) + chain.pinnedBytes;

  // Below the minimum: infeasible, with the minimum reported.
  ChainPlan below = chainOptimal(g, minBytes - 1);
  EXPECT_FALSE(below.ok);
  EXPECT_TRUE(below.infeasible);
  ASSERT_TRUE(below.minFeasibleBytes);
  EXPECT_EQ(*below.minFeasibleBytes, minBytes);

  double prevCost = HUGE_VAL;
  for (int64_t budget = minBytes; budget <= storeAllSim.peakBytes;
       budget += (storeAllSim.peakBytes - minBytes) / 12) {
    ChainPlan plan = chainOptimal(g, budget);
    ASSERT_TRUE(plan.ok) << plan.detail;
    SimResult sim = simulateOk(g, plan.schedule);
    EXPECT_LE(sim.peakBytes, budget) << plan.detail;
    // More memory never costs more recomputation.
    EXPECT_LE(sim.recomputeCost, prevCost + 1e-9) << plan.detail;
    prevCost = sim.recomputeCost;
  }
  // With the store-all peak nothing needs recomputing.
  ChainPlan roomy = chainOptimal(g, storeAllSim.peakBytes);
  ASSERT_TRUE(roomy.ok);
  EXPECT_EQ(roomy.schedule.numRecomputed(), 0u);
}

TEST(ChainEndToEndTest, ChainOptimalBeatsSqrtAndRevolveAtTheirPeak) {
  const unsigned L = 100;
  Graph g = homogeneousChain(L);
  StageChain chain = buildStageChain(g);
  auto check = [&](const Schedule &other, const std::string &what) {
    SimResult otherSim = simulateOk(g, other);
    ChainPlan plan = chainOptimal(g, otherSim.peakBytes);
    ASSERT_TRUE(plan.ok) << what << ": " << plan.detail;
    SimResult sim = simulateOk(g, plan.schedule);
    EXPECT_LE(sim.peakBytes, otherSim.peakBytes) << what;
    EXPECT_LE(sim.recomputeCost, otherSim.recomputeCost + 1e-9)
        << what << ": " << plan.detail;
  };
  for (unsigned k : {5u, 10u, 20u, 50u}) {
    Schedule s;
    ASSERT_FALSE(materializeChainSchedule(chain, segmentSchedule(L, k), s));
    check(s, "segments of " + std::to_string(k));
  }
  check(sqrtN(g), "sqrtN");
  for (unsigned c : {2u, 5u, 10u})
    check(revolve(g, c).schedule, "revolve " + std::to_string(c));
}

TEST(ChainEndToEndTest, GradChainStrategies) {
  test::GradChain c = test::makeGradChain(60, 400, 2.0);
  const Graph &g = c.graph;
  SimResult storeAllSim = simulateOk(g, Schedule(g.size()));
  SimResult sqrtSim = simulateOk(g, sqrtN(g));
  for (unsigned k : {1u, 4u}) {
    ChainPlan plan = revolve(g, k);
    ASSERT_TRUE(plan.ok) << plan.detail;
    SimResult sim = simulateOk(g, plan.schedule);
    EXPECT_LT(sim.peakBytes, storeAllSim.peakBytes);
  }
  ChainPlan plan = chainOptimal(g, sqrtSim.peakBytes);
  ASSERT_TRUE(plan.ok) << plan.detail;
  SimResult sim = simulateOk(g, plan.schedule);
  EXPECT_LE(sim.peakBytes, sqrtSim.peakBytes);
  EXPECT_LE(sim.recomputeCost, sqrtSim.recomputeCost + 1e-9) << plan.detail;
}

TEST(ChainEndToEndTest, LongChainIsCoarsened) {
  // 10000 nodes: 5000 forward stages, coarsened for the DP.
  const unsigned L = 5000;
  Graph g = homogeneousChain(L);
  double start = test::cpuSeconds();
  StageChain chain = buildStageChain(g);
  ASSERT_EQ(chain.size(), L);
  SimResult storeAllSim = simulateOk(g, Schedule(g.size()));
  int64_t budget = storeAllSim.peakBytes / 10;
  ChainOptimalOptions options;
  options.maxStages = 150;
  ChainPlan plan = chainOptimal(g, budget, options);
  ASSERT_TRUE(plan.ok) << plan.detail;
  EXPECT_NE(plan.detail.find("coarsened from 5000"), std::string::npos)
      << plan.detail;
  SimResult sim = simulateOk(g, plan.schedule);
  EXPECT_LE(sim.peakBytes, budget);
  EXPECT_GT(sim.recomputeCount, 0u);
  ChainPlan rev = revolve(g, 20);
  ASSERT_TRUE(rev.ok);
  ChainPlan log = logN(g);
  ASSERT_TRUE(log.ok);
  double seconds = test::cpuSeconds() - start;
  // CPU seconds (CpuSeconds.h); generous for the sanitizer tree.
  EXPECT_LT(seconds, 20.0);
}

TEST(ChainEndToEndTest, LeastMemoryOnALongChainStaysMaterialisable) {
  // 2,500 stages: the one-slot binomial schedule recomputes about 3 * 10^6
  // stages, more than chain-opt materialises. The least budget the strategy
  // names is one a schedule of at most that many recomputations meets, and
  // planning at it returns such a schedule.
  const unsigned L = 2500;
  Graph g = homogeneousChain(L);
  ChainPlan probe = chainOptimal(g, 0);
  ASSERT_FALSE(probe.ok);
  ASSERT_TRUE(probe.infeasible);
  ASSERT_TRUE(probe.minFeasibleBytes);
  ChainPlan plan = chainOptimal(g, *probe.minFeasibleBytes);
  ASSERT_TRUE(plan.ok) << plan.detail;
  SimResult sim = simulateOk(g, plan.schedule);
  EXPECT_LE(sim.peakBytes, *probe.minFeasibleBytes);
  EXPECT_LE(sim.recomputeCount, size_t(2000000)) << plan.detail;
  EXPECT_GT(sim.recomputeCount, size_t(L)) << plan.detail;
}
