//===- ChainBuildTest.cpp - Tests of the stage chain model ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/ChainOptimal.h"
#include "remat/Scheduling/Revolve.h"

#include "RecurrentGraphs.h"
#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace remat::sched;

namespace {

Node fwd(std::string name, int64_t bytes, std::vector<unsigned> ops,
         double cost = 1) {
  Node n;
  n.name = std::move(name);
  n.bytes = bytes;
  n.cost = cost;
  n.operands = std::move(ops);
  return n;
}

Node bwd(std::string name, int64_t bytes, std::vector<unsigned> ops,
         double cost = 2) {
  Node n = fwd(std::move(name), bytes, std::move(ops), cost);
  n.backward = true;
  return n;
}

/// f_0..f_{L-1} (f_i reads f_{i-1}); backward b_{L-1}..b_0 where b_i reads
/// f_i and the incoming gradient b_{i+1}.
Graph simpleChain(unsigned L, int64_t bytes, std::vector<unsigned> *f = nullptr,
                  std::vector<unsigned> *b = nullptr) {
  Graph g;
  std::vector<unsigned> fs(L), bs(L);
  for (unsigned i = 0; i < L; ++i)
    fs[i] = g.addNode(
        fwd("f" + std::to_string(i), bytes,
            i ? std::vector<unsigned>{fs[i - 1]} : std::vector<unsigned>{}));
  for (unsigned i = L; i-- > 0;) {
    std::vector<unsigned> ops = {fs[i]};
    if (i + 1 < L)
      ops.push_back(bs[i + 1]);
    bs[i] = g.addNode(bwd("b" + std::to_string(i), bytes, ops));
  }
  if (f)
    *f = fs;
  if (b)
    *b = bs;
  return g;
}

/// A random chain-like training graph: blocks of 1-3 forward nodes (with
/// occasional skip edges across blocks and reads of resident "parameter"
/// nodes), and a backward pass that mostly mirrors them (occasionally
/// reading across stages or out of order), with gradient outputs.
Graph randomChainGraph(std::mt19937 &rng, unsigned blocks) {
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  Graph g;
  std::vector<std::vector<unsigned>> block(blocks);
  std::vector<unsigned> params;
  for (unsigned k = 0; k < 2; ++k) {
    Node p = fwd("param" + std::to_string(k), 1 + pick(50), {});
    p.keep = true;
    params.push_back(g.addNode(p));
  }
  unsigned prev = params[0];
  for (unsigned k = 0; k < blocks; ++k) {
    unsigned size = 1 + pick(3);
    for (unsigned i = 0; i < size; ++i) {
      std::vector<unsigned> ops = {prev};
      if (i > 0 && pick(2))
        ops.push_back(block[k][pick(i)]);
      if (pick(4) == 0)
        ops.push_back(params[pick(2)]);
      if (k > 1 && i == 0 && pick(12) == 0)
        ops.push_back(block[pick(k - 1)].back()); // skip edge
      Node n = fwd("f" + std::to_string(k) + "_" + std::to_string(i),
                   1 + pick(100), ops, 1 + pick(10));
      n.noRecompute = pick(25) == 0;
      n.output = pick(40) == 0;
      prev = g.addNode(n);
      block[k].push_back(prev);
    }
  }
  unsigned grad = ~0u;
  for (unsigned k = blocks; k-- > 0;) {
    unsigned reads = 1 + pick(2);
    for (unsigned r = 0; r < reads; ++r) {
      std::vector<unsigned> ops;
      if (grad != ~0u)
        ops.push_back(grad);
      ops.push_back(block[k][pick(block[k].size())]);
      if (k > 0 && pick(3) == 0)
        ops.push_back(block[k - 1].back()); // the stage input
      if (k > 1 && pick(30) == 0)
        ops.push_back(block[pick(k - 1)][0]); // across stages
      Node n = bwd("g" + std::to_string(k) + "_" + std::to_string(r),
                   1 + pick(100), ops, 1 + pick(10));
      grad = g.addNode(n);
    }
    if (pick(3) == 0) {
      Node out =
          bwd("dW" + std::to_string(k), 1 + pick(60), {grad, block[k].back()});
      out.output = true;
      g.addNode(out);
    }
    if (k > 2 && pick(40) == 0) {
      // Out of order: a late read of a later stage.
      g.addNode(bwd("late" + std::to_string(k), 1 + pick(20),
                    {grad, block[k + 1 < blocks ? k + 1 : k][0]}));
    }
  }
  return g;
}

/// Simulates `actions` on the chain's graph and checks that the model is an
/// upper bound of the simulated peak and that the recompute costs agree.
void expectModelBounds(const Graph &graph, const StageChain &chain,
                       const ChainSchedule &actions, const std::string &what) {
  ChainRunStats stats;
  std::optional<std::string> error =
      checkChainSchedule(actions, chain.size(), stats, &chain);
  ASSERT_FALSE(error) << what << ": " << *error;
  Schedule schedule;
  error = materializeChainSchedule(chain, actions, schedule);
  ASSERT_FALSE(error) << what << ": " << *error;
  SimResult sim;
  error = simulate(graph, schedule, sim);
  ASSERT_FALSE(error) << what << ": " << *error;
  EXPECT_LE(sim.peakBytes, stats.modelPeakBytes + chain.pinnedBytes) << what;
  EXPECT_NEAR(sim.recomputeCost, stats.recomputeCost,
              1e-9 * (1 + stats.recomputeCost))
      << what;
}

} // namespace

TEST(ChainBuildTest, SimpleChainStages) {
  std::vector<unsigned> f, b;
  Graph g = simpleChain(5, 10, &f, &b);
  StageChain chain = buildStageChain(g);
  ASSERT_TRUE(chain.reversible) << chain.reason;
  EXPECT_TRUE(chain.notes.empty()) << chain.notes;
  ASSERT_EQ(chain.size(), 5u);
  EXPECT_EQ(chain.pinnedBytes, 0);
  EXPECT_EQ(chain.numNodes, g.size());
  for (unsigned i = 0; i < 5; ++i) {
    const ChainStage &st = chain.stages[i];
    EXPECT_EQ(st.firstNode, f[i]);
    EXPECT_EQ(st.boundaryNode, f[i]);
    EXPECT_EQ(st.firstBackward, b[i]);
    EXPECT_EQ(st.boundaryBytes, 10);
    EXPECT_EQ(st.tapeBytes, 10);
    EXPECT_EQ(st.advancePeakBytes, 10);
    EXPECT_EQ(st.tapePeakBytes, 10);
    // The incoming gradient b_{i+1} is live while recomputing for stage i,
    // and during b_i together with b_i itself.
    EXPECT_EQ(st.gradientBytes, i == 4 ? 0 : 10);
    EXPECT_EQ(st.backwardPeakBytes, i == 4 ? 20 : 30);
    EXPECT_EQ(st.advanceNodes, std::vector<unsigned>{f[i]});
    EXPECT_EQ(st.tapeNodes, std::vector<unsigned>{f[i]});
    EXPECT_EQ(st.forwardCost, 1);
    EXPECT_EQ(st.backwardCost, 2);
  }
}

TEST(ChainBuildTest, ResidualBlocksFormStages) {
  // x; per block: h_k = f(y_{k-1}), y_k = h_k + y_{k-1}. The skip edge makes
  // h_k no separator: each block is one stage with input y_{k-1}.
  Graph g;
  unsigned x = g.addNode(fwd("x", 8, {}));
  std::vector<unsigned> h, y;
  unsigned prev = x;
  for (unsigned k = 0; k < 4; ++k) {
    h.push_back(g.addNode(fwd("h" + std::to_string(k), 5, {prev}, 3)));
    y.push_back(g.addNode(fwd("y" + std::to_string(k), 8, {h.back(), prev})));
    prev = y.back();
  }
  unsigned grad = ~0u;
  std::vector<unsigned> dh(4);
  for (unsigned k = 4; k-- > 0;) {
    std::vector<unsigned> ops = {h[k]};
    if (grad != ~0u)
      ops.push_back(grad);
    dh[k] = g.addNode(bwd("dh" + std::to_string(k), 8, ops));
    grad = g.addNode(bwd("dy" + std::to_string(k), 8,
                         grad == ~0u ? std::vector<unsigned>{dh[k]}
                                     : std::vector<unsigned>{dh[k], grad}));
  }
  StageChain chain = buildStageChain(g);
  ASSERT_TRUE(chain.reversible) << chain.reason;
  // x is read by no backward node: merged into the first block.
  ASSERT_EQ(chain.size(), 4u);
  EXPECT_FALSE(chain.notes.empty());
  for (unsigned k = 0; k < 4; ++k) {
    const ChainStage &st = chain.stages[k];
    EXPECT_EQ(st.boundaryNode, y[k]);
    EXPECT_EQ(st.firstBackward, dh[k]);
    EXPECT_EQ(st.boundaryBytes, 8);
    EXPECT_EQ(st.tapeBytes, 5 + 8);
    if (k > 0) {
      EXPECT_EQ(st.advanceNodes, (std::vector<unsigned>{h[k], y[k]}));
      EXPECT_EQ(st.forwardCost, 4);
      // h_k and y_k live together.
      EXPECT_EQ(st.advancePeakBytes, 13);
    }
  }
  EXPECT_EQ(chain.stages[0].advanceNodes,
            (std::vector<unsigned>{x, h[0], y[0]}));
}

TEST(ChainBuildTest, GradChainMergesLossStage) {
  test::GradChain c = test::makeGradChain(6, 100);
  StageChain chain = buildStageChain(c.graph);
  ASSERT_TRUE(chain.reversible) << chain.reason;
  // b_5 reads the loss, f_5 and f_4: f_5 and the loss form one stage.
  ASSERT_EQ(chain.size(), 6u);
  EXPECT_NE(chain.notes.find("reading across"), std::string::npos)
      << chain.notes;
  EXPECT_EQ(chain.stages.back().firstNode, c.f[5]);
  EXPECT_EQ(chain.stages.back().boundaryNode, c.loss);
  // b_i reads f_{i-1}, the stage input.
  EXPECT_EQ(chain.stages[2].tapeBytes, 100);
  EXPECT_TRUE(chain.stages[2].backwardReadsInput);
  EXPECT_FALSE(chain.stages[0].backwardReadsInput);
  for (unsigned i = 0; i < 5; ++i)
    EXPECT_EQ(chain.stages[i].firstBackward, c.b[i]);
}

TEST(ChainBuildTest, InterleavedBackwardIsMerged) {
  std::vector<unsigned> f, b;
  Graph g = simpleChain(6, 10, &f, &b);
  // After b_2 (stage 3), read stage 4 again.
  Node late = bwd("late", 4, {f[3], b[2]});
  g.nodes.insert(g.nodes.begin() + b[2] + 1, late);
  // Fix up operand indices shifted by the insertion.
  for (unsigned v = b[2] + 2; v < g.size(); ++v)
    for (unsigned &op : g.nodes[v].operands)
      if (op > b[2])
        ++op;
  ASSERT_FALSE(g.validate());
  StageChain chain = buildStageChain(g);
  ASSERT_TRUE(chain.reversible) << chain.reason;
  EXPECT_NE(chain.notes.find("interleave"), std::string::npos) << chain.notes;
  // Stages of f_2 and f_3 are one now.
  EXPECT_EQ(chain.size(), 5u);
  EXPECT_EQ(chain.stages[2].firstNode, f[2]);
  EXPECT_EQ(chain.stages[2].boundaryNode, f[3]);
}

TEST(ChainBuildTest, RejectsForwardAfterBackward) {
  Graph g = simpleChain(3, 10);
  g.addNode(fwd("late_forward", 4, {0}));
  StageChain chain = buildStageChain(g);
  EXPECT_FALSE(chain.reversible);
  EXPECT_NE(chain.reason.find("comes after"), std::string::npos)
      << chain.reason;
  EXPECT_FALSE(revolve(g, 2).ok);
  EXPECT_FALSE(logN(g).ok);
  ChainPlan plan = chainOptimal(g, 1000);
  EXPECT_FALSE(plan.ok);
  EXPECT_FALSE(plan.infeasible);
  EXPECT_NE(plan.detail.find("not a reversible chain"), std::string::npos);
}

TEST(ChainBuildTest, PinnedNodesAreResident) {
  Graph g;
  Node p = fwd("param_t", 50, {});
  p.keep = true;
  unsigned param = g.addNode(p);
  std::vector<unsigned> f;
  unsigned prev = ~0u;
  for (unsigned i = 0; i < 4; ++i) {
    std::vector<unsigned> ops = {param};
    if (prev != ~0u)
      ops.push_back(prev);
    Node n = fwd("f" + std::to_string(i), 10, ops);
    n.noRecompute = i == 2;
    prev = g.addNode(n);
    f.push_back(prev);
  }
  unsigned grad = ~0u;
  for (unsigned i = 4; i-- > 0;) {
    std::vector<unsigned> ops = {f[i]};
    if (grad != ~0u)
      ops.push_back(grad);
    grad = g.addNode(bwd("b" + std::to_string(i), 10, ops));
  }
  StageChain chain = buildStageChain(g);
  ASSERT_TRUE(chain.reversible) << chain.reason;
  // The resident parameter does not tie the stages together; it joins the
  // first stage (no backward node reads a pinned value as a stage value).
  EXPECT_EQ(chain.pinnedBytes, 60);
  // f_2 is never recomputed and its backward reads nothing else: its stage
  // has nothing to recompute and joins the next one.
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain.stages[0].firstNode, param);
  EXPECT_EQ(chain.stages[0].advanceNodes, std::vector<unsigned>{f[0]});
  EXPECT_EQ(chain.stages[1].boundaryBytes, 10);
  EXPECT_EQ(chain.stages[2].firstNode, f[2]);
  EXPECT_EQ(chain.stages[2].advanceNodes, std::vector<unsigned>{f[3]});
  for (const ChainStage &st : chain.stages)
    for (unsigned v : st.tapeNodes)
      EXPECT_TRUE(v != param && v != f[2]);
  ChainPlan plan = logN(g);
  ASSERT_TRUE(plan.ok) << plan.detail;
  expectModelBounds(g, chain, plan.actions, "logN");
}

TEST(ChainBuildTest, NoBackwardGivesEmptyChain) {
  Graph g;
  g.addNode(fwd("a", 4, {}));
  g.addNode(fwd("b", 4, {0}));
  StageChain chain = buildStageChain(g);
  EXPECT_TRUE(chain.reversible);
  EXPECT_EQ(chain.size(), 0u);
  ChainPlan plan = revolve(g, 3);
  ASSERT_TRUE(plan.ok) << plan.detail;
  EXPECT_EQ(plan.schedule.numRecomputed(), 0u);
  EXPECT_EQ(plan.schedule.recomputeBefore.size(), g.size());
}

TEST(ChainBuildTest, CoarsenKeepsTheModelSound) {
  std::vector<unsigned> f, b;
  Graph g = simpleChain(100, 16, &f, &b);
  StageChain fine = buildStageChain(g);
  ASSERT_EQ(fine.size(), 100u);
  StageChain coarse = coarsen(fine, 10);
  ASSERT_EQ(coarse.size(), 10u);
  EXPECT_EQ(coarse.numFineStages, 100u);
  unsigned fineCount = 0;
  double cost = 0;
  for (const ChainStage &st : coarse.stages) {
    fineCount += st.numFineStages;
    cost += st.forwardCost;
    EXPECT_EQ(st.numFineStages, 10u);
  }
  EXPECT_EQ(fineCount, 100u);
  EXPECT_EQ(cost, 100);
  EXPECT_EQ(coarse.stages[3].firstBackward, b[39]);
  EXPECT_EQ(coarse.stages[3].boundaryNode, f[39]);
  EXPECT_EQ(coarse.stages[3].tapeBytes, 160);
  EXPECT_EQ(coarsen(fine, 200).size(), 100u);
  for (unsigned c : {1u, 3u})
    expectModelBounds(g, coarse, revolveSchedule(10, c + 1),
                      "coarse revolve " + std::to_string(c));
  expectModelBounds(g, coarse, logNSchedule(10), "coarse logN");
}

// The chain model over-approximates simulate on random chain-like graphs, for
// every strategy's schedules, before and after coarsening.
TEST(ChainBuildTest, ModelBoundsSimulateOnRandomGraphs) {
  std::mt19937 rng(42);
  unsigned checked = 0, multiStage = 0;
  for (int iter = 0; iter < 150; ++iter) {
    Graph g = randomChainGraph(rng, 3 + iter % 25);
    ASSERT_FALSE(g.validate()) << *g.validate();
    StageChain chain = buildStageChain(g);
    ASSERT_TRUE(chain.reversible) << chain.reason;
    unsigned L = chain.size();
    if (L == 0)
      continue;
    multiStage += L > 3;
    std::string tag = "iter " + std::to_string(iter);
    expectModelBounds(g, chain, logNSchedule(L), tag + " logN");
    for (unsigned c : {1u, 2u, 4u})
      expectModelBounds(g, chain, revolveSchedule(L, c), tag + " revolve");
    expectModelBounds(g, chain, chainMinMemorySchedule(chain),
                      tag + " min-memory");
    int64_t minModel = chainMinModelBytes(chain);
    for (double f : {1.0, 1.3, 2.0}) {
      ChainSolution sol =
          solveChainOptimal(chain, static_cast<int64_t>(minModel * f), 100);
      if (sol.feasible)
        expectModelBounds(g, chain, sol.actions, tag + " dp");
    }
    StageChain coarse = coarsen(chain, 3);
    expectModelBounds(g, coarse, logNSchedule(coarse.size()),
                      tag + " coarse logN");
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  EXPECT_GT(multiStage, 50u);
}

// The TestGraphs random graphs (arbitrary DAGs): the builder never fails on a
// valid graph, and whatever it returns is sound.
TEST(ChainBuildTest, ArbitraryGraphsAreHandled) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 100; ++iter) {
    Graph g = test::makeRandomGraph(rng, 5 + iter % 30, 5 + iter % 20);
    StageChain chain = buildStageChain(g);
    ASSERT_TRUE(chain.reversible) << chain.reason;
    if (chain.size() == 0)
      continue;
    expectModelBounds(g, chain, logNSchedule(chain.size()), "logN");
    expectModelBounds(g, chain, revolveSchedule(chain.size(), 2), "revolve");
  }
}

// Multi-value boundaries (buildStageChain with maxCutValues > 1) on the
// two-carry recurrence (RecurrentGraphs.h: z_t, c_t, h_t per step; h and c
// cross every step boundary): the separator chain has few stages, the cut
// chain one per step with boundary {c_t, h_t}, and the model still bounds
// simulate.
TEST(ChainBuildTest, TwoCarryStepsAreStagesWithCuts) {
  const unsigned T = 8;
  test::TwoCarry r = test::makeTwoCarry(T);
  StageChain single = buildStageChain(r.graph);
  ASSERT_TRUE(single.reversible) << single.reason;
  EXPECT_EQ(single.numMultiValueBoundaries, 0u);
  StageChain cuts = buildStageChain(r.graph, 2);
  ASSERT_TRUE(cuts.reversible) << cuts.reason;
  EXPECT_LE(single.size(), 3u);
  ASSERT_GE(cuts.size(), T - 1);
  // Every step's boundary but the last is {c_t, h_t} (2 bytes; z_t is 4).
  unsigned pairs = 0;
  for (const ChainStage &st : cuts.stages) {
    int64_t bytes = 0;
    for (unsigned v : st.boundaryValues)
      bytes += r.graph.nodes[v].bytes;
    EXPECT_EQ(st.boundaryBytes, bytes);
    if (st.boundaryValues.size() != 2)
      continue;
    ++pairs;
    unsigned t =
        std::find(r.h.begin(), r.h.end(), st.boundaryNode) - r.h.begin();
    ASSERT_LT(t, T) << "boundary ends at " << st.boundaryNode;
    EXPECT_EQ(st.boundaryValues, (std::vector<unsigned>{r.c[t], r.h[t]}));
  }
  EXPECT_GE(pairs, T - 2);
  EXPECT_EQ(cuts.numMultiValueBoundaries, pairs);
  // buildStageChains offers both; the strategies judge them by simulate.
  std::vector<StageChain> chains = buildStageChains(r.graph);
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0].size(), single.size());
  EXPECT_GE(chains[1].size(), cuts.size());
  unsigned L = cuts.size();
  expectModelBounds(r.graph, cuts, logNSchedule(L), "logN");
  for (unsigned c : {1u, 2u, 4u})
    expectModelBounds(r.graph, cuts, revolveSchedule(L, c), "revolve");
  expectModelBounds(r.graph, cuts, chainMinMemorySchedule(cuts), "min-memory");
  int64_t minModel = chainMinModelBytes(cuts);
  for (double f : {1.0, 1.5, 3.0}) {
    ChainSolution sol =
        solveChainOptimal(cuts, static_cast<int64_t>(minModel * f), 100);
    ASSERT_TRUE(sol.feasible);
    expectModelBounds(r.graph, cuts, sol.actions, "dp");
  }
}

// The cut chains of random graphs are reversible (or say why), refine the
// separator chain's stages, and keep the model sound.
TEST(ChainBuildTest, CutChainsKeepTheModelSound) {
  std::mt19937 rng(11);
  unsigned finer = 0;
  for (int iter = 0; iter < 200; ++iter) {
    Graph g = iter % 2
                  ? randomChainGraph(rng, 3 + iter % 25)
                  : test::makeRandomGraph(rng, 5 + iter % 30, 5 + iter % 20);
    ASSERT_FALSE(g.validate()) << *g.validate();
    StageChain single = buildStageChain(g);
    StageChain chain = buildStageChain(g, kChainCutValues);
    ASSERT_EQ(chain.reversible, single.reversible) << chain.reason;
    if (!chain.reversible || chain.size() == 0)
      continue;
    finer += chain.size() > single.size();
    std::string tag = "iter " + std::to_string(iter);
    unsigned L = chain.size();
    expectModelBounds(g, chain, logNSchedule(L), tag + " logN");
    for (unsigned c : {1u, 2u})
      expectModelBounds(g, chain, revolveSchedule(L, c), tag + " revolve");
    expectModelBounds(g, chain, chainMinMemorySchedule(chain),
                      tag + " min-memory");
    ChainSolution sol =
        solveChainOptimal(chain, chainMinModelBytes(chain) * 3 / 2, 100);
    if (sol.feasible)
      expectModelBounds(g, chain, sol.actions, tag + " dp");
  }
  EXPECT_GT(finer, 0u);
}

// The chain strategies on the two-carry recurrence: with the cut chain they
// plan at a lower peak than on the separator chain alone (the old plans),
// and chain-opt meets budgets the separator chain cannot.
TEST(ChainBuildTest, ChainMethodsBeatTheSeparatorChainOnTwoCarry) {
  test::TwoCarry r = test::makeTwoCarry(16);
  const Graph &g = r.graph;
  StageChain single = buildStageChain(g);
  auto peakOf = [&](const ChainPlan &plan) {
    EXPECT_TRUE(plan.ok) << plan.detail;
    SimResult sim;
    EXPECT_FALSE(simulate(g, plan.schedule, sim));
    return sim;
  };
  SimResult oldLogN =
      peakOf(makeChainPlan(single, logNSchedule(single.size()), "old"));
  SimResult newLogN = peakOf(logN(g));
  // 85 -> 17 bytes.
  EXPECT_LT(newLogN.peakBytes * 2, oldLogN.peakBytes);
  for (unsigned c : {1u, 2u}) {
    unsigned slots = std::min(c, single.size()) + 1;
    SimResult oldRev = peakOf(
        makeChainPlan(single, revolveSchedule(single.size(), slots), "old"));
    SimResult newRev = peakOf(revolve(g, c));
    EXPECT_LT(newRev.peakBytes * 2, oldRev.peakBytes);
  }
  // chain-opt's least memory: below the separator chain's.
  ChainPlan probe = chainOptimal(g, 0);
  ASSERT_TRUE(probe.minFeasibleBytes);
  ChainPlan least = chainOptimal(g, *probe.minFeasibleBytes);
  SimResult leastSim = peakOf(least);
  EXPECT_LE(leastSim.peakBytes, *probe.minFeasibleBytes);
  EXPECT_NE(least.detail.find("with multi-value boundaries"), std::string::npos)
      << least.detail;
  // The separator chain's least-memory schedule: store-all's peak here (85
  // bytes; the cut chain's least is 12).
  SimResult oldLeast =
      peakOf(makeChainPlan(single, chainMinMemorySchedule(single), "old"));
  EXPECT_LT(leastSim.peakBytes * 4, oldLeast.peakBytes);
  // At twice that least peak the old chain declined; now a plan fits.
  ChainPlan twice = chainOptimal(g, 2 * leastSim.peakBytes);
  EXPECT_LE(peakOf(twice).peakBytes, 2 * leastSim.peakBytes);
}
