//===- ForwardRebuildTest.cpp - Tests of the rebuilding construction ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/ForwardRebuild.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <random>

using namespace remat::sched;
using remat::sched::test::makeNode;

namespace {

/// The exact least peak of a forward-only graph whose outputs nobody reads,
/// by exhaustive search. Recomputation makes the stages independent: a
/// schedule may rebuild every operand of node t from nothing before t, and
/// every schedule's executions up to t's contain such a rebuild, so the
/// least peak is the largest, over t, of the least peak of a pebbling that
/// ends by computing t (with its operands held). That is a bottleneck path
/// over the sets of held values (at most 2^12 of them): computing a value
/// whose operands are held costs the held bytes plus its own and its
/// workspace (an output's final instance counts nothing, as in `simulate`);
/// freeing is free.
int64_t exhaustiveLeastPeak(const Graph &g) {
  unsigned n = g.size();
  EXPECT_LE(n, 12u);
  int64_t least = 0;
  for (unsigned t = 0; t < n; ++t) {
    unsigned target = 1u << t;
    std::vector<int64_t> best(1u << n, std::numeric_limits<int64_t>::max());
    using Item = std::pair<int64_t, unsigned>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    best[0] = 0;
    queue.push({0, 0});
    int64_t peakT = -1;
    while (!queue.empty()) {
      auto [peak, mask] = queue.top();
      queue.pop();
      if (peak != best[mask])
        continue;
      if (mask & target) {
        peakT = peak;
        break;
      }
      int64_t held = 0;
      for (unsigned v = 0; v < n; ++v)
        if (mask >> v & 1)
          held += g.nodes[v].bytes;
      auto relax = [&](unsigned next, int64_t p) {
        if (p < best[next]) {
          best[next] = p;
          queue.push({p, next});
        }
      };
      for (unsigned v = 0; v <= t; ++v) {
        if (mask >> v & 1) {
          relax(mask & ~(1u << v), peak);
          continue;
        }
        bool ready = true;
        for (unsigned op : g.nodes[v].operands)
          ready &= (mask >> op & 1) != 0;
        if (!ready)
          continue;
        int64_t own =
            (g.nodes[v].output ? 0 : g.nodes[v].bytes) + g.nodes[v].workspace;
        relax(mask | 1u << v, std::max(peak, held + own));
      }
    }
    EXPECT_GE(peakT, 0);
    least = std::max(least, peakT);
  }
  return least;
}

/// Checks that `schedule` is valid, recomputes no always-kept node, and
/// simulates within `budget`.
void checkWithin(const Graph &g, const Schedule &schedule, int64_t budget) {
  SimResult sim;
  ASSERT_FALSE(simulate(g, schedule, sim));
  EXPECT_LE(sim.peakBytes, budget);
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned u : list)
      EXPECT_FALSE(isAlwaysKept(g.nodes[u])) << g.nodes[u].name;
}

} // namespace

TEST(ForwardRebuildTest, RebuildsFromTheInputsWhenNothingElseFits) {
  // a(50) <- b(10) <- c(10) <- d(10) <- out(1, output, reads d and a).
  // Store-all holds a to the end: 70 at c and at d. Rebuilding a (from the
  // graph's input) before out instead: 20 at c and d, 60 at a's rebuild and
  // at out (d and a; an output's final instance counts nothing), the least
  // peak, since out needs d and a at once.
  Graph g;
  g.addNode(makeNode("a", 50, {}, false, 4));
  g.addNode(makeNode("b", 10, {0}));
  g.addNode(makeNode("c", 10, {1}));
  g.addNode(makeNode("d", 10, {2}));
  g.addNode(makeNode("out", 1, {3, 0}));
  g.nodes[4].output = true;
  EXPECT_EQ(exhaustiveLeastPeak(g), 60);
  std::optional<Schedule> s = rebuildWithinBudget(g, 60);
  ASSERT_TRUE(s);
  checkWithin(g, *s, 60);
  EXPECT_EQ(s->recomputeBefore[4], (std::vector<unsigned>{0}));
  // One byte less: out's execution alone holds 60.
  EXPECT_FALSE(rebuildWithinBudget(g, 59));
}

TEST(ForwardRebuildTest, PlansFitTheBudgetOnRandomDags) {
  std::mt19937 rng(2711);
  unsigned met = 0, belowHalf = 0;
  for (int iter = 0; iter < 80; ++iter) {
    Graph g = iter % 2 ? test::makeRandomGraph(rng, 10 + iter, 0)
                       : test::makeTinyDag(rng, 20 + iter);
    ASSERT_FALSE(g.validate());
    ASSERT_TRUE(g.isForwardOnly());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    for (int tenths = 2; tenths <= 10; ++tenths) {
      int64_t budget = storeAll.peakBytes * tenths / 10;
      std::optional<Schedule> s = rebuildWithinBudget(g, budget);
      if (!s)
        continue;
      ++met;
      belowHalf += tenths < 5;
      checkWithin(g, *s, budget);
    }
    std::optional<RebuildPlan> least = rebuildLeastPeak(g, storeAll.peakBytes);
    if (least) {
      checkWithin(g, least->schedule, least->sim.peakBytes);
      EXPECT_LT(least->sim.peakBytes, storeAll.peakBytes);
    }
  }
  // Store-all's peak is always met (nothing needs giving up), and some
  // budgets below half of it are (measured: 492 of 720 budgets, 64 below
  // half).
  EXPECT_GE(met, 80u);
  EXPECT_GT(belowHalf, 30u);
}

TEST(ForwardRebuildTest, NeverBelowAndOftenAtTheExhaustiveLeastPeak) {
  std::mt19937 rng(99);
  unsigned reached = 0, searchReached = 0, belowStoreAll = 0;
  const unsigned graphs = 60;
  for (unsigned iter = 0; iter < graphs; ++iter) {
    Graph g = test::makeTinyDag(rng, 6 + iter % 6);
    int64_t least = exhaustiveLeastPeak(g);
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    ASSERT_LE(least, storeAll.peakBytes);
    std::optional<RebuildPlan> rebuilt =
        rebuildLeastPeak(g, storeAll.peakBytes + 1);
    ASSERT_TRUE(rebuilt) << "store-all's peak is met";
    checkWithin(g, rebuilt->schedule, rebuilt->sim.peakBytes);
    EXPECT_GE(rebuilt->sim.peakBytes, least) << "iteration " << iter;
    reached += rebuilt->sim.peakBytes == least;
    // forward-min-peak takes the rebuilt plan where it peaks lower. It
    // bisects below the drop-mode search's own peak, so it is compared with
    // that same bisection: the construction is not monotone in the budget,
    // and a bisection from another upper limit (`rebuilt`'s) tries other
    // budgets and may end lower.
    PlanResult search = forwardOnlyMinPeak(g, 0, /*rebuild=*/false);
    std::optional<RebuildPlan> below =
        rebuildLeastPeak(g, search.sim.peakBytes);
    PlanResult plan = forwardOnlyMinPeak(g, 0);
    EXPECT_GE(plan.sim.peakBytes, least);
    EXPECT_EQ(plan.sim.peakBytes,
              below ? below->sim.peakBytes : search.sim.peakBytes)
        << "iteration " << iter;
    searchReached += plan.sim.peakBytes == least;
    belowStoreAll += rebuilt->sim.peakBytes < storeAll.peakBytes;
  }
  // Measured: 56 and 59 of 60 reach the optimum; 46 rebuilds peak below
  // store-all.
  EXPECT_GE(reached, 50u);
  EXPECT_GE(searchReached, 55u);
  EXPECT_GT(belowStoreAll, 30u);
}

TEST(ForwardRebuildTest, LeastPeakBoundNeverAboveTheExhaustiveLeastPeak) {
  std::mt19937 rng(7);
  unsigned met = 0, raised = 0;
  const unsigned graphs = 120;
  for (unsigned iter = 0; iter < graphs; ++iter) {
    Graph g = test::makeTinyDag(rng, 5 + iter % 8, /*workspace=*/iter % 2 == 1);
    int64_t least = exhaustiveLeastPeak(g);
    unsigned at = g.size();
    int64_t bound = forwardLeastPeakBound(g, &at);
    EXPECT_LE(bound, least) << "iteration " << iter;
    ASSERT_LT(at, g.size());
    met += bound == least;
    // The stage bound: a node's operands, result and workspace at once.
    int64_t stage = 0;
    for (const Node &node : g.nodes) {
      int64_t bytes = (node.output ? 0 : node.bytes) + node.workspace;
      std::vector<unsigned> ops = node.operands;
      std::sort(ops.begin(), ops.end());
      ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
      for (unsigned op : ops)
        bytes += g.nodes[op].bytes;
      stage = std::max(stage, bytes);
    }
    EXPECT_GE(bound, stage);
    raised += bound > stage;
  }
  // Measured: the bound meets the least peak on 115 of 120 graphs (so a
  // bound one byte higher fails there) and is above the stage bound on 36.
  EXPECT_GE(met, 100u);
  EXPECT_GE(raised, 25u);
}

/// `forwardLeastPeakBound` on training graphs too (MilpLarge.h proves
/// budgets infeasible with it there): random graphs with backward nodes,
/// operands read twice, outputs read by later nodes and partly returned,
/// `keep` and `no_recompute` nodes; never above the least peak of every
/// enumerated schedule (the MILP's model on these graphs), nor above the
/// peak of schedules whose lists are shuffled and repeat values (outside
/// that model).
TEST(ForwardRebuildTest, LeastPeakBoundHoldsOnTrainingGraphs) {
  std::mt19937 rng(808);
  unsigned checked = 0, shuffled = 0, tight = 0;
  for (unsigned iter = 0; iter != 60; ++iter) {
    Graph g = test::makeRandomGraph(rng, 3 + iter % 2, 4);
    for (Node &node : g.nodes)
      if (node.output && rng() % 2)
        node.outputBytes = node.bytes / 2;
    ASSERT_FALSE(g.validate());
    int64_t bound = forwardLeastPeakBound(g);
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    int64_t least = test::peakRange(points).first;
    EXPECT_LE(bound, least) << "graph " << iter;
    tight += bound == least;
    ++checked;
    std::vector<unsigned> forward;
    for (unsigned v = 0; v != g.size(); ++v)
      if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
        forward.push_back(v);
    for (unsigned trial = 0; trial != 20 && !forward.empty(); ++trial) {
      Schedule s(g.size());
      for (unsigned t = 0; t != g.size(); ++t)
        if (g.nodes[t].backward)
          for (unsigned k = rng() % 4; k != 0; --k)
            s.recomputeBefore[t].push_back(forward[rng() % forward.size()]);
      SimResult sim;
      if (simulate(g, s, sim))
        continue;
      EXPECT_LE(bound, sim.peakBytes) << "graph " << iter;
      ++shuffled;
    }
  }
  EXPECT_EQ(checked, 60u);
  EXPECT_GT(shuffled, 100u);
  EXPECT_GT(tight, 0u);
}

/// An operand read twice counts once in the term of the operand that reads
/// it: a = f(x, x) with x of 100 bytes needs 101 bytes (x and a), which is
/// the least peak; counting x twice would give 201.
TEST(ForwardRebuildTest, LeastPeakBoundCountsARepeatedOperandOnce) {
  Graph g;
  g.addNode(test::makeCostNode("x", 100, 1, {}));
  g.addNode(test::makeCostNode("a", 1, 1, {0, 0}));
  g.addNode(test::makeCostNode("y", 1, 1, {}));
  g.addNode(test::makeCostNode("t", 1, 1, {1, 2}));
  g.nodes[3].output = true;
  ASSERT_FALSE(g.validate());
  SimResult sim;
  ASSERT_FALSE(simulate(g, Schedule(g.size()), sim));
  EXPECT_EQ(sim.peakBytes, 101);
  EXPECT_EQ(forwardLeastPeakBound(g), 101);
}
