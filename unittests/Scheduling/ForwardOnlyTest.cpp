//===- ForwardOnlyTest.cpp - Tests of forward-only rematerialization ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "CpuSeconds.h"
#include "TestGraphs.h"

#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Planner.h"
#include "remat/Scheduling/Strategies.h"

#include "gtest/gtest.h"

#include <map>

using namespace remat::sched;
using remat::sched::test::makeNode;

namespace {

/// 0 a(100) <- 1 b(10) <- 2 c(10) <- 3 d(10, output, also reads a).
Graph smallForward() {
  Graph g;
  g.addNode(makeNode("a", 100, {}, false, 7));
  g.addNode(makeNode("b", 10, {0}));
  g.addNode(makeNode("c", 10, {1}));
  g.addNode(makeNode("d", 10, {0, 2}));
  g.nodes[3].output = true;
  return g;
}

/// A diamond with a fan-out and a late use:
///   0 s(8) <- 1 big(100, cost 5) <- 2 x(10), 3 y(10) <- 4 z(10, reads x, y)
///   <- 5 w(10) <- 6 out(4, output, reads w and big).
Graph diamond() {
  Graph g;
  g.addNode(makeNode("s", 8, {}));
  g.addNode(makeNode("big", 100, {0}, false, 5));
  g.addNode(makeNode("x", 10, {1}));
  g.addNode(makeNode("y", 10, {1}));
  g.addNode(makeNode("z", 10, {2, 3}));
  g.addNode(makeNode("w", 10, {4}));
  g.addNode(makeNode("out", 4, {5, 1}));
  g.nodes[6].output = true;
  return g;
}

/// An independent quadratic reference of the schedule semantics (Graph.h):
/// the peak of the activation bytes over the execution sequence.
int64_t referencePeak(const Graph &g, const Schedule &s) {
  std::vector<unsigned> seq;
  for (unsigned k = 0; k < g.size(); ++k) {
    for (unsigned u : s.recomputeBefore[k])
      seq.push_back(u);
    seq.push_back(k);
  }
  std::vector<size_t> lastUse(seq.size());
  std::map<unsigned, size_t> latest;
  for (size_t p = 0; p < seq.size(); ++p) {
    lastUse[p] = p;
    for (unsigned op : g.nodes[seq[p]].operands)
      lastUse[latest.at(op)] = p;
    latest[seq[p]] = p;
  }
  std::vector<int64_t> counted(seq.size());
  for (size_t p = 0; p < seq.size(); ++p)
    counted[p] = g.nodes[seq[p]].bytes;
  for (auto [node, inst] : latest)
    if (g.nodes[node].output)
      counted[inst] = 0;
  int64_t peak = 0;
  for (size_t p = 0; p < seq.size(); ++p) {
    int64_t during = 0;
    for (size_t q = 0; q <= p; ++q)
      if (lastUse[q] >= p)
        during += counted[q];
    peak = std::max(peak, during);
  }
  return peak;
}

/// A random layered DAG in the spirit of the Moccasin benchmark graphs: one
/// source, layers of 1..width nodes each reading 1-3 nodes of the previous
/// three layers, and one sink (the output) reading the last layer.
Graph makeLayeredGraph(std::mt19937 &rng, unsigned numNodes, unsigned width) {
  auto pick = [&](unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  };
  Graph g;
  std::vector<std::vector<unsigned>> layers = {
      {g.addNode(makeNode("src", 10 * pick(1, 100), {}, false, 0))}};
  while (g.size() + 1 < numNodes) {
    std::vector<unsigned> layer;
    unsigned w = std::min<unsigned>(pick(1, width), numNodes - 1 - g.size());
    for (unsigned i = 0; i < w; ++i) {
      std::vector<unsigned> ops;
      for (unsigned k = pick(1, 3); k--;) {
        unsigned back = std::min<unsigned>(pick(1, 3), layers.size());
        const std::vector<unsigned> &from = layers[layers.size() - back];
        ops.push_back(from[pick(0, from.size() - 1)]);
      }
      std::sort(ops.begin(), ops.end());
      ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
      layer.push_back(
          g.addNode(makeNode("n" + std::to_string(g.size()), 10 * pick(1, 100),
                             ops, false, pick(1, 1000))));
    }
    layers.push_back(layer);
  }
  unsigned sink = g.addNode(makeNode("sink", 40, layers.back(), false, 0));
  g.nodes[sink].output = true;
  // Values nobody reads are outputs too (like remat-import's sinks).
  std::vector<bool> used(g.size());
  for (const Node &node : g.nodes)
    for (unsigned op : node.operands)
      used[op] = true;
  for (unsigned v = 0; v < g.size(); ++v)
    if (!used[v])
      g.nodes[v].output = true;
  return g;
}

int64_t storeAllPeak(const Graph &g) {
  SimResult r;
  EXPECT_FALSE(simulate(g, storeAll(g), r));
  return r.peakBytes;
}

/// Checks `plan` against an independent simulation: the schedule is valid,
/// its simulation is the one reported and matches the reference, and it
/// never recomputes a value a hint or the output keeps.
void checkPlan(const Graph &g, const PlanResult &plan) {
  SimResult sim;
  ASSERT_FALSE(simulate(g, plan.schedule, sim));
  EXPECT_EQ(sim.peakBytes, plan.sim.peakBytes);
  EXPECT_EQ(sim.recomputeCount, plan.sim.recomputeCount);
  EXPECT_DOUBLE_EQ(sim.recomputeCost, plan.sim.recomputeCost);
  EXPECT_EQ(referencePeak(g, plan.schedule), sim.peakBytes);
  for (const std::vector<unsigned> &list : plan.schedule.recomputeBefore)
    for (unsigned u : list)
      EXPECT_FALSE(isAlwaysKept(g.nodes[u])) << g.nodes[u].name;
}

} // namespace

TEST(ForwardOnlyTest, IsForwardOnly) {
  EXPECT_TRUE(smallForward().isForwardOnly());
  EXPECT_TRUE(Graph().isForwardOnly());
  Graph g = smallForward();
  g.nodes[3].backward = true;
  EXPECT_FALSE(g.isForwardOnly());
}

TEST(ForwardOnlyTest, SimulateRecomputeBeforeForwardNode) {
  // Store-all: a lives to d; the peak is at c: a + b + c = 120.
  Graph g = smallForward();
  SimResult r;
  ASSERT_FALSE(simulate(g, Schedule(4), r));
  EXPECT_EQ(r.peakBytes, 120);
  EXPECT_EQ(r.peakAt, 2u);

  // a is freed after b and recomputed before d: b 110 (a + b), c 20 (b + c),
  // recomputed a 110 (c + a), d 110 (its own bytes are an output's).
  Schedule s(4);
  s.recomputeBefore[3] = {0};
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 110);
  EXPECT_EQ(r.peakAt, 1u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 7);
  EXPECT_EQ(r.recomputeCount, 1u);
  EXPECT_EQ(referencePeak(g, s), 110);

  // The same list before forward node d of a training graph is rejected,
  // while it is accepted before a backward node.
  Graph t = g;
  t.addNode(makeNode("grad", 10, {3}, true));
  Schedule ts(5);
  ts.recomputeBefore[3] = {0};
  std::optional<std::string> error = simulate(t, ts, r);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("forward node 'd'"), std::string::npos) << *error;
  EXPECT_NE(error->find("only backward nodes"), std::string::npos) << *error;
  ts = Schedule(5);
  ts.recomputeBefore[4] = {0};
  EXPECT_FALSE(simulate(t, ts, r));

  // In a forward-only graph a node may not be "recomputed" before it ran.
  for (unsigned u : {1u, 2u}) {
    Schedule early(4);
    early.recomputeBefore[1] = {u};
    error = simulate(g, early, r);
    ASSERT_TRUE(error);
    EXPECT_NE(error->find("precedes its first execution"), std::string::npos)
        << *error;
  }
  // No-recompute nodes stay rejected.
  g.nodes[0].noRecompute = true;
  error = simulate(g, s, r);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("no-recompute node 'a'"), std::string::npos) << *error;
}

TEST(ForwardOnlyTest, LowerDroppedSetDiamondByHand) {
  Graph g = diamond();
  // Store-all: s 8; big 108 (s freed) -> 100; x 110; y 120; z 130 (x, y
  // freed) -> 110; w 120 -> 110; out 110. Peak 130 at z.
  SimResult r;
  ASSERT_FALSE(simulate(g, storeAll(g), r));
  EXPECT_EQ(r.peakBytes, 130);
  EXPECT_EQ(r.peakAt, 4u);

  // Drop big: x, right after it, reads the original; big is recomputed from
  // the kept s before y and before out, so s lives to out.
  //   s 8; big 108; x 118 (big freed) -> 18; big' 118; y 128 (big' freed)
  //   -> 28; z 38 -> 18; w 28 -> 18; big'' 118; out 118. Peak 128 at y.
  std::vector<bool> dropped(g.size());
  dropped[1] = true;
  Schedule s = lowerDroppedSet(g, dropped);
  for (unsigned k = 0; k < g.size(); ++k)
    EXPECT_EQ(
        s.recomputeBefore[k],
        (k == 3 || k == 6 ? std::vector<unsigned>{1} : std::vector<unsigned>{}))
        << "before node " << k;
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 128);
  EXPECT_EQ(r.peakAt, 3u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 10);
  EXPECT_EQ(referencePeak(g, s), 128);

  // Drop s too: it is recomputed with big (in topological order), and is
  // freed right after each recomputation of big.
  //   s 8; big 108 (s freed) -> 100; x 110 (big freed) -> 10; s' 18;
  //   big' 118 (s' freed) -> 110; y 120 (big' freed) -> 20; z 30 -> 10;
  //   w 20 -> 10; s'' 18; big'' 118 -> 110; out 110. Peak 120 at y.
  dropped[0] = true;
  s = lowerDroppedSet(g, dropped);
  EXPECT_EQ(s.recomputeBefore[3], (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(s.recomputeBefore[6], (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(s.numRecomputed(), 4u);
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 120);
  EXPECT_EQ(r.peakAt, 3u);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 12);

  // Outputs, keep and no-recompute nodes are never dropped.
  std::vector<bool> all(g.size(), true);
  g.nodes[1].keep = true;
  g.nodes[2].noRecompute = true;
  s = lowerDroppedSet(g, all);
  for (const std::vector<unsigned> &list : s.recomputeBefore)
    for (unsigned u : list)
      EXPECT_TRUE(u != 1 && u != 2 && u != 6) << "node " << u;
  ASSERT_FALSE(simulate(g, s, r));
}

TEST(ForwardOnlyTest, DropModes) {
  // big (node 1) has consumers x (2), y (3) and out (6). AfterFirstUse: the
  // original serves x only; AtEveryUse is the same here since x follows big
  // directly. Make the first consumer distant to tell them apart.
  Graph g;
  g.addNode(makeNode("s", 8, {}));
  g.addNode(makeNode("v", 50, {0}, false, 3));
  g.addNode(makeNode("p", 10, {0}));
  g.addNode(makeNode("c1", 10, {1, 2}));
  g.addNode(makeNode("c2", 10, {3, 1}));
  g.nodes[4].output = true;
  std::vector<DropMode> modes(g.size(), DropMode::Keep);
  modes[1] = DropMode::AfterFirstUse;
  Schedule s = lowerDropModes(g, modes);
  EXPECT_TRUE(s.recomputeBefore[3].empty());
  EXPECT_EQ(s.recomputeBefore[4], (std::vector<unsigned>{1}));
  modes[1] = DropMode::AtEveryUse;
  s = lowerDropModes(g, modes);
  EXPECT_EQ(s.recomputeBefore[3], (std::vector<unsigned>{1}));
  EXPECT_EQ(s.recomputeBefore[4], (std::vector<unsigned>{1}));
  // AtEveryUse: v lives only during its own execution and around its uses:
  //   s 8; v 58 (v freed at once) -> 8; p 18; v' 68; c1 78 (v', p freed)
  //   -> 18 (s, c1); v'' 68 (s freed) -> 60; c2 60 (its bytes are an
  //   output's). Peak 78 at c1; v is recomputed twice.
  SimResult r;
  ASSERT_FALSE(simulate(g, s, r));
  EXPECT_EQ(r.peakBytes, 78);
  EXPECT_EQ(referencePeak(g, s), 78);
  EXPECT_DOUBLE_EQ(r.recomputeCost, 6);
}

TEST(ForwardOnlyTest, MinPeakBigValueUsedEarlyAndLate) {
  // in(1) <- B(100) <- a1(20) <- a2(20) <- a3(20) <- out(1, output; reads
  // a3 and B). Store-all keeps B to the end: the peak is B + a1 + a2 = 140
  // at a2. Dropping B after its first use and recomputing it from the kept
  // `in` before out: in 1; B 101; a1 121 (B freed) -> 21; a2 41 -> 21;
  // a3 41 -> 21; B' 121 (in freed) -> 120; out 120. The peak is 121
  // (= 140 - 19), at a1 and at B's recomputation, for one execution of B.
  // No schedule goes lower: out needs a3 and an instance of B made after
  // a1, and making it needs `in` live with them: 20 + 1 + 100.
  Graph g;
  g.addNode(makeNode("in", 1, {}, false, 2));
  g.addNode(makeNode("B", 100, {0}, false, 3));
  g.addNode(makeNode("a1", 20, {1}));
  g.addNode(makeNode("a2", 20, {2}));
  g.addNode(makeNode("a3", 20, {3}));
  g.addNode(makeNode("out", 1, {4, 1}));
  g.nodes[5].output = true;
  ASSERT_EQ(storeAllPeak(g), 140);

  PlanResult plan = forwardOnlyMinPeak(g, 0);
  checkPlan(g, plan);
  EXPECT_EQ(plan.strategy, "forward-min-peak");
  EXPECT_EQ(plan.sim.peakBytes, 140 - 19);
  EXPECT_DOUBLE_EQ(plan.sim.recomputeCost, 3);
  EXPECT_EQ(plan.schedule.recomputeBefore[5], (std::vector<unsigned>{1}));

  // A budget store-all meets needs no recomputation; one between needs the
  // same drop; one below the least peak is reported unmet with that peak.
  plan = forwardOnlyMinPeak(g, 140);
  EXPECT_EQ(plan.sim.peakBytes, 140);
  EXPECT_EQ(plan.sim.recomputeCount, 0u);
  plan = forwardOnlyMinPeak(g, 130);
  EXPECT_EQ(plan.sim.peakBytes, 121);
  plan = forwardOnlyMinPeak(g, 100);
  EXPECT_GT(plan.sim.peakBytes, 100);
  EXPECT_EQ(plan.sim.peakBytes, 121);

  // With B kept by a hint, nothing can be done.
  g.nodes[1].keep = true;
  plan = forwardOnlyMinPeak(g, 0);
  EXPECT_EQ(plan.sim.peakBytes, 140);
  EXPECT_EQ(plan.sim.recomputeCount, 0u);
}

/// The drop-mode searches keep only lowerings that simulate (a real check,
/// not an assert): on MinPeakBigValueUsedEarlyAndLate's graph, whose only
/// gain is recomputing B before `out`, every lowering that recomputes B is
/// corrupted (`forwardLoweringTestHook`: `out` recomputed before the first
/// node, whose operands are not made yet); the plan then simulates, at
/// store-all's 140 bytes, and says how many lowerings it rejected; so does
/// the perturbed search's. Where every lowering is corrupted, the plan is
/// the schedule without recomputation. Fails with the check an assert (in
/// a release build the search keeps the corrupted lowering's partial
/// simulation, whose peak is lower).
TEST(ForwardOnlyTest, MinPeakRejectsLoweringsThatDoNotSimulate) {
  Graph g;
  g.addNode(makeNode("in", 1, {}, false, 2));
  g.addNode(makeNode("B", 100, {0}, false, 3));
  g.addNode(makeNode("a1", 20, {1}));
  g.addNode(makeNode("a2", 20, {2}));
  g.addNode(makeNode("a3", 20, {3}));
  g.addNode(makeNode("out", 1, {4, 1}));
  g.nodes[5].output = true;
  ASSERT_EQ(forwardOnlyMinPeak(g, 0).sim.peakBytes, 121);
  bool all = false;
  unsigned corrupted = 0;
  forwardLoweringTestHook() = [&](Schedule &s) {
    bool recomputesB = false;
    for (const std::vector<unsigned> &list : s.recomputeBefore)
      for (unsigned v : list)
        recomputesB = recomputesB || v == 1;
    if (recomputesB || all) {
      s.recomputeBefore[0].push_back(5);
      ++corrupted;
    }
  };
  for (bool everything : {false, true}) {
    all = everything;
    corrupted = 0;
    for (int64_t budget : {int64_t(0), int64_t(130)}) {
      ForwardPerturbOptions perturb;
      perturb.maxRounds = 4;
      for (const PlanResult &plan :
           {forwardOnlyMinPeak(g, budget, /*rebuild=*/false),
            forwardOnlyPerturbedSearch(g, budget, perturb)}) {
        SimResult sim;
        EXPECT_FALSE(simulate(g, plan.schedule, sim))
            << everything << " " << budget << ": " << plan.detail;
        EXPECT_EQ(sim.peakBytes, plan.sim.peakBytes);
        EXPECT_EQ(plan.sim.peakBytes, 140) << plan.detail;
        EXPECT_EQ(plan.sim.recomputeCount, 0u);
        EXPECT_NE(plan.detail.find("lowerings rejected"), std::string::npos)
            << plan.detail;
      }
    }
    EXPECT_GT(corrupted, 0u);
  }
  forwardLoweringTestHook() = nullptr;
}

TEST(ForwardOnlyTest, MinPeakDiamond) {
  // Store-all: 130 at z. Dropping big gives 128 at y (s, x, big', y; see
  // LowerDroppedSetDiamondByHand); s is then live only for big's
  // recomputations, and dropping it after its first use too gives 120 at y
  // (x, big', y), for 2 * (5 + 1) of recompute. No schedule goes lower:
  // y's execution needs an instance of big, and x (or, if x is recomputed
  // later, y) is live with it.
  Graph g = diamond();
  PlanResult plan = forwardOnlyMinPeak(g, 0);
  checkPlan(g, plan);
  EXPECT_EQ(plan.sim.peakBytes, 120);
  EXPECT_DOUBLE_EQ(plan.sim.recomputeCost, 12);
  EXPECT_EQ(plan.schedule.recomputeBefore[3], (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(plan.schedule.recomputeBefore[6], (std::vector<unsigned>{0, 1}));

  // A budget of 128 is met by dropping big alone, for less recompute.
  plan = forwardOnlyMinPeak(g, 128);
  checkPlan(g, plan);
  EXPECT_EQ(plan.sim.peakBytes, 128);
  EXPECT_DOUBLE_EQ(plan.sim.recomputeCost, 10);
}

TEST(ForwardOnlyTest, RandomGraphsMinPeakAndBudgets) {
  std::mt19937 rng(4242);
  int improved = 0;
  for (int iter = 0; iter < 60; ++iter) {
    Graph g = iter % 2 ? test::makeRandomGraph(rng, 8 + iter, 0)
                       : makeLayeredGraph(rng, 20 + 2 * iter, 6);
    ASSERT_FALSE(g.validate());
    ASSERT_TRUE(g.isForwardOnly());
    int64_t storeAll = storeAllPeak(g);

    PlanResult least = forwardOnlyMinPeak(g, 0);
    checkPlan(g, least);
    EXPECT_LE(least.sim.peakBytes, storeAll) << "iteration " << iter;
    improved += least.sim.peakBytes < storeAll;

    // Budgets from store-all down to below the least peak: a plan reported
    // within the budget is, by an independent simulation.
    for (int64_t budget :
         {storeAll, (storeAll + least.sim.peakBytes) / 2, least.sim.peakBytes,
          std::max<int64_t>(1, least.sim.peakBytes / 2)}) {
      PlanResult plan = forwardOnlyMinPeak(g, budget);
      checkPlan(g, plan);
      EXPECT_LE(plan.sim.peakBytes, storeAll);
      if (plan.sim.peakBytes <= budget) {
        EXPECT_LE(referencePeak(g, plan.schedule), budget);
      }
      if (budget == storeAll) {
        EXPECT_EQ(plan.sim.peakBytes, storeAll);
        EXPECT_EQ(plan.sim.recomputeCount, 0u);
      }
    }
  }
  // Most random graphs have a value worth recomputing.
  EXPECT_GT(improved, 30);
}

TEST(ForwardOnlyTest, LayeredGraphOf500NodesIsFast) {
  std::mt19937 rng(500);
  Graph g = makeLayeredGraph(rng, 500, 20);
  int64_t storeAll = storeAllPeak(g);
  double start = test::cpuSeconds();
  PlanResult plan = forwardOnlyMinPeak(g, 0);
  double seconds = test::cpuSeconds() - start;
  checkPlan(g, plan);
  EXPECT_LT(plan.sim.peakBytes, storeAll);
  // Well under a second on one core (CPU seconds, CpuSeconds.h).
  EXPECT_LT(seconds, 20.0);
}

TEST(ForwardOnlyTest, FrontierSweepsBudgetsBetweenLeastPeakAndStoreAll) {
  std::mt19937 rng(77);
  int swept = 0;
  for (int iter = 0; iter < 8; ++iter) {
    Graph g = makeLayeredGraph(rng, 60 + 10 * iter, 6);
    std::vector<std::string> notes;
    std::vector<PlanResult> f = planFrontier(g, notes);
    ASSERT_FALSE(f.empty());
    // Store-all's end and the least-peak search's end.
    EXPECT_EQ(f.front().sim.recomputeCost, 0);
    EXPECT_EQ(f.front().sim.peakBytes, storeAllPeak(g));
    PlanResult least = forwardOnlyMinPeak(g, 0);
    EXPECT_EQ(f.back().sim.peakBytes, least.sim.peakBytes);
    for (size_t i = 1; i < f.size(); ++i) {
      EXPECT_GT(f[i].sim.recomputeCost, f[i - 1].sim.recomputeCost);
      EXPECT_LT(f[i].sim.peakBytes, f[i - 1].sim.peakBytes);
      checkPlan(g, f[i]);
    }
    // Points between the two ends; the search at the halfway budget (one of
    // the sweep's) is on or above the frontier.
    if (f.size() > 2)
      ++swept;
    int64_t mid = (storeAllPeak(g) + least.sim.peakBytes) / 2;
    PlanResult p = forwardOnlyMinPeak(g, mid);
    bool dominated = false;
    for (const PlanResult &q : f)
      dominated |= q.sim.peakBytes <= p.sim.peakBytes &&
                   q.sim.recomputeCost <= p.sim.recomputeCost;
    EXPECT_TRUE(dominated);
  }
  EXPECT_GE(swept, 6);
}

/// The perturbed drop-mode search (iterated local search) never ends above
/// the greedy search it starts from, at the least peak or at a budget the
/// greedy search meets (where it returns the greedy plan itself), its plans
/// simulate as reported, and its kicks lower the least peak on some of the
/// layered graphs. With a round limit and no binding time it is the same on
/// every run.
TEST(ForwardOnlyTest, PerturbedSearchNeverAboveTheGreedySearch) {
  std::mt19937 rng(7);
  ForwardPerturbOptions options;
  options.seconds = 1e9;
  options.maxRounds = 30;
  unsigned lowered = 0;
  for (int iter = 0; iter < 24; ++iter) {
    Graph g = iter % 3 ? makeLayeredGraph(rng, 20 + 2 * iter, 6)
                       : test::makeRandomGraph(rng, 8 + iter, 0);
    ASSERT_FALSE(g.validate());
    std::string what = "graph " + std::to_string(iter);
    PlanResult greedy = forwardOnlyMinPeak(g, 0, /*rebuild=*/false);
    PlanResult least = forwardOnlyPerturbedSearch(g, 0, options);
    checkPlan(g, least);
    EXPECT_LE(least.sim.peakBytes, greedy.sim.peakBytes) << what;
    if (least.sim.peakBytes == greedy.sim.peakBytes) {
      EXPECT_LE(least.sim.recomputeCost, greedy.sim.recomputeCost) << what;
    }
    lowered += least.sim.peakBytes < greedy.sim.peakBytes;
    PlanResult again = forwardOnlyPerturbedSearch(g, 0, options);
    EXPECT_EQ(again.schedule.recomputeBefore, least.schedule.recomputeBefore)
        << what;

    int64_t storeAll = storeAllPeak(g);
    for (int64_t budget : {(storeAll + greedy.sim.peakBytes) / 2,
                           greedy.sim.peakBytes, least.sim.peakBytes}) {
      PlanResult atGreedy = forwardOnlyMinPeak(g, budget, /*rebuild=*/false);
      PlanResult plan = forwardOnlyPerturbedSearch(g, budget, options);
      checkPlan(g, plan);
      if (atGreedy.sim.peakBytes <= budget) {
        EXPECT_EQ(plan.schedule.recomputeBefore,
                  atGreedy.schedule.recomputeBefore)
            << what;
      }
      if (plan.sim.peakBytes <= budget) {
        EXPECT_LE(referencePeak(g, plan.schedule), budget) << what;
      }
    }
  }
  EXPECT_GE(lowered, 4u);
}

/// With a work limit (`maxSteps`) and no round limit, the perturbed search
/// stops after that work whatever its time limit: two runs with different
/// time limits, both far above the work's time, return the same plan and
/// detail, the limit reached; started from the drop-mode search's end
/// (`forwardOnlyMinPeak`'s `search`) it returns that plan too, without
/// searching again.
TEST(ForwardOnlyTest, PerturbedSearchStopsAtItsWorkLimitNotItsTime) {
  std::mt19937 rng(11);
  Graph g = makeLayeredGraph(rng, 200, 8);
  ASSERT_FALSE(g.validate());
  ForwardDropSearch end;
  PlanResult greedy = forwardOnlyMinPeak(g, 0, /*rebuild=*/false, &end);
  ASSERT_EQ(end.modes.size(), g.size());
  EXPECT_EQ(lowerDropModes(g, end.modes).recomputeBefore,
            greedy.schedule.recomputeBefore);
  ForwardPerturbOptions options;
  // About 0.1 CPU s of work in the release build and 4 s under the
  // sanitizers; 60 and 120 s are far above both. (2M steps made one
  // search in the clang-built sanitizer tree, two or more with gcc.)
  options.maxSteps = 4000000;
  options.seconds = 60;
  PlanResult first = forwardOnlyPerturbedSearch(g, 0, options);
  options.seconds = 120;
  PlanResult second = forwardOnlyPerturbedSearch(g, 0, options);
  checkPlan(g, first);
  EXPECT_EQ(first.schedule.recomputeBefore, second.schedule.recomputeBefore);
  EXPECT_EQ(first.detail, second.detail);
  EXPECT_LE(first.sim.peakBytes, greedy.sim.peakBytes);
  // "R perturbed searches, S steps simulated, ...": S >= the limit.
  size_t at = first.detail.find(" perturbed searches, ");
  ASSERT_NE(at, std::string::npos) << first.detail;
  uint64_t steps = std::stoull(first.detail.substr(at + 21));
  EXPECT_GE(steps, options.maxSteps) << first.detail;
  EXPECT_GE(std::stoul(first.detail.substr(first.detail.find("; ") + 2)), 2u)
      << first.detail;

  options.from = &end;
  PlanResult fromEnd = forwardOnlyPerturbedSearch(g, 0, options);
  EXPECT_EQ(fromEnd.schedule.recomputeBefore, first.schedule.recomputeBefore);
  EXPECT_EQ(fromEnd.sim.peakBytes, first.sim.peakBytes);
}
