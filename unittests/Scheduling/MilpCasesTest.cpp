//===- MilpCasesTest.cpp - The case tree's leaves solved by CBC -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Tests of milpCaseLeaf and milpCaseProof (MilpCases.h) against every
// stage-model schedule of tiny training and forward-only graphs, and of
// the proof's place in milpOptimal.
//
//===----------------------------------------------------------------------===//

#include "MilpTestSupport.h"
#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpCases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace remat::sched;

namespace {

/// A schedule with its simulated peak and cost and how often it recomputes
/// each node.
struct Point {
  Schedule schedule;
  int64_t peak = 0;
  double cost = 0;
  std::vector<unsigned> counts;
  /// `everyRecomputationRead`.
  bool read = false;
};

std::vector<unsigned> countsOf(const Graph &g, const Schedule &s) {
  std::vector<unsigned> counts(g.size(), 0);
  for (const std::vector<unsigned> &list : s.recomputeBefore)
    for (unsigned v : list)
      ++counts[v];
  return counts;
}

/// Whether every recomputation of `s` is read before its node executes
/// again: the schedules the model has a solution for whatever their counts
/// (one that recomputes a value nobody reads is dominated: without that
/// execution it costs less and peaks no higher).
bool everyRecomputationRead(const Graph &g, const Schedule &s) {
  std::vector<int> unread(g.size(), 0); // 1: the last execution is unread.
  auto execute = [&](unsigned v, bool recomputed) {
    for (unsigned op : g.nodes[v].operands)
      unread[op] = 0;
    if (unread[v] == 1)
      return false;
    unread[v] = recomputed ? 1 : 0;
    return true;
  };
  for (unsigned k = 0; k != g.size(); ++k) {
    for (unsigned v : s.recomputeBefore[k])
      if (!execute(v, true))
        return false;
    if (!execute(k, false))
      return false;
  }
  return std::find(unread.begin(), unread.end(), 1) == unread.end();
}

/// Every stage-model schedule (test::forEachStageSchedule).
std::vector<Point> enumerate(const Graph &g) {
  std::vector<Point> points;
  test::forEachStageSchedule(g, [&](const Schedule &s, const SimResult &sim) {
    points.push_back({s, sim.peakBytes, sim.recomputeCost, countsOf(g, s),
                      everyRecomputationRead(g, s)});
  });
  return points;
}

/// Training graphs of 7-8 nodes and forward-only DAGs of 5-6 nodes.
Graph makeGraph(std::mt19937 &rng, unsigned iter) {
  if (iter % 2 == 0)
    return test::makeEnumerableGraph(rng, iter / 2);
  return test::makeTinyDag(rng, 5 + iter / 2 % 2, /*workspace=*/iter % 3 == 0);
}

bool within(const std::vector<unsigned> &counts,
            const std::vector<RecomputeRange> &ranges) {
  for (const RecomputeRange &r : ranges)
    if (counts[r.node] < r.lo || counts[r.node] > r.hi)
      return false;
  return true;
}

/// The distinct peaks of `points`: every budget at which the set of
/// schedules within it changes.
std::set<int64_t> budgetsOf(const std::vector<Point> &points) {
  std::set<int64_t> peaks;
  for (const Point &p : points)
    peaks.insert(p.peak);
  return peaks;
}

/// The recomputable forward nodes of `g` (those the schedules may recompute).
std::vector<unsigned> recomputable(const Graph &g) {
  std::vector<unsigned> out;
  for (unsigned v = 0; v != g.size(); ++v)
    if (!g.nodes[v].backward && !isAlwaysKept(g.nodes[v]))
      out.push_back(v);
  return out;
}

/// Range sets on one or two recomputable nodes: each node's range one of
/// [0, 0], [1, 1], [1, inf], [0, 1], [2, inf], and an empty one [1, 0].
std::vector<std::vector<RecomputeRange>> rangeSets(const Graph &g) {
  std::vector<std::pair<unsigned, unsigned>> shapes = {
      {0, 0}, {1, 1}, {1, ~0u}, {0, 1}, {2, ~0u}, {1, 0}};
  std::vector<unsigned> nodes = recomputable(g);
  std::vector<std::vector<RecomputeRange>> out;
  for (unsigned a = 0; a != nodes.size(); ++a)
    for (auto [lo, hi] : shapes) {
      out.push_back({{nodes[a], lo, hi}});
      if (a + 1 < nodes.size())
        for (auto [lo2, hi2] : shapes)
          if (lo2 <= hi2)
            out.push_back({{nodes[a], lo, hi}, {nodes[a + 1], lo2, hi2}});
    }
  // Two ranges on one node intersect.
  if (!nodes.empty())
    out.push_back({{nodes[0], 0, 1}, {nodes[0], 1, ~0u}});
  return out;
}

} // namespace

/// The rows of `MilpBuilder::recomputeRanges` admit exactly the schedules
/// whose counts lie in the ranges: at each budget of tiny training and
/// forward-only graphs, for ranges on one or two nodes (empty ones and two
/// ranges of one node included), the leaf's search ends with the least
/// cost of the enumerated schedules within the budget and the ranges, its
/// schedule within both, or proves none when there is none; cut off below
/// that least cost it proves none, above it it finds it (fails when a
/// range row is off by one, or the rows are dropped).
TEST(MilpCases, LeafAdmitsExactlyTheSchedulesInItsRanges) {
  REQUIRE_CBC();
  std::mt19937 rng(1201);
  unsigned solved = 0, empty = 0, restricted = 0;
  for (unsigned iter = 0; iter != 6; ++iter) {
    Graph g = makeGraph(rng, iter);
    std::vector<Point> points = enumerate(g);
    std::set<int64_t> budgets = budgetsOf(points);
    // The least budget, a middle one and store-all's.
    std::vector<int64_t> some = {
        *budgets.begin(), *std::next(budgets.begin(), budgets.size() / 2),
        *budgets.rbegin()};
    for (int64_t budget : some)
      for (const std::vector<RecomputeRange> &ranges : rangeSets(g)) {
        // The least cost within the budget and the ranges, over every
        // schedule and over those whose recomputations are all read, and
        // the least within the budget alone.
        constexpr double inf = std::numeric_limits<double>::infinity();
        double least = inf, leastRead = inf, all = inf;
        for (const Point &p : points)
          if (p.peak <= budget) {
            all = std::min(all, p.cost);
            if (within(p.counts, ranges)) {
              least = std::min(least, p.cost);
              if (p.read)
                leastRead = std::min(leastRead, p.cost);
            }
          }
        std::optional<MilpCaseLeafSolve> leaf =
            milpCaseLeaf(g, budget, ranges, std::nullopt, -1, 20);
        ASSERT_TRUE(leaf);
        ASSERT_TRUE(leaf->finished);
        ++solved;
        std::string what = "budget " + std::to_string(budget) + " ranges {" +
                           formatRanges(g, ranges) + "}";
        if (leaf->infeasible) {
          EXPECT_FALSE(leaf->found) << what;
          EXPECT_EQ(leastRead, inf) << what;
          empty += least == inf;
          continue;
        }
        EXPECT_NE(least, inf) << what;
        ASSERT_TRUE(leaf->found && leaf->optimal) << what;
        // The leaf's optimum: a schedule within the ranges (CBC's solution,
        // before unread recomputations are pruned from it), no dearer than
        // every one whose recomputations are all read.
        EXPECT_GE(leaf->objective, least - 1e-6) << what;
        EXPECT_LE(leaf->objective, leastRead + 1e-6) << what;
        restricted += leaf->objective > all + 1e-9;
        SimResult sim;
        ASSERT_FALSE(simulate(g, leaf->schedule, sim)) << what;
        EXPECT_LE(sim.peakBytes, budget) << what;
        EXPECT_LE(sim.recomputeCost, leaf->objective + 1e-6) << what;
        // Cut off at the optimum: nothing below it; above it: found.
        double optimum = leaf->objective;
        std::optional<MilpCaseLeafSolve> at =
            milpCaseLeaf(g, budget, ranges, optimum, -1, 20);
        ASSERT_TRUE(at && at->finished) << what;
        EXPECT_TRUE(at->infeasible || at->objective >= optimum - 1e-6) << what;
        std::optional<MilpCaseLeafSolve> above =
            milpCaseLeaf(g, budget, ranges, optimum + 0.5, -1, 20);
        ASSERT_TRUE(above && above->finished) << what;
        EXPECT_TRUE(above->found && above->optimal) << what;
        EXPECT_NEAR(above->objective, optimum, 1e-6) << what;
        // Cut off below it: nothing.
        if (optimum >= 1) {
          std::optional<MilpCaseLeafSolve> below =
              milpCaseLeaf(g, budget, ranges, optimum - 0.5, -1, 20);
          ASSERT_TRUE(below && below->finished) << what;
          EXPECT_TRUE(below->infeasible) << what;
        }
      }
  }
  // Counted: the ranges must have excluded schedules (fails where the rows
  // are dropped: every leaf would then have the budget's optimum).
  EXPECT_GE(empty, 20u);
  EXPECT_GE(restricted, 20u);
  EXPECT_GE(solved, 300u);
}

/// Ranges that fix every recomputable node's count (lo = hi = c_v, for
/// every count vector c of the enumerated schedules, at every budget of
/// tiny graphs): the leaf has a solution exactly when a
/// schedule with those counts fits the budget (one whose recomputations are
/// all read: then at its cost, the sum of c_v cost(v)); none fits: the leaf
/// is proved empty (fails when a range row admits one fewer; one more is
/// caught by LeafCapsTheCountFromAbove).
TEST(MilpCases, LeafOfExactCountsHasExactlyTheirSchedules) {
  REQUIRE_CBC();
  std::mt19937 rng(1204);
  unsigned fits = 0, none = 0;
  for (unsigned iter = 0; iter != 8; ++iter) {
    Graph g = makeGraph(rng, iter);
    std::vector<Point> points = enumerate(g);
    std::vector<unsigned> nodes = recomputable(g);
    std::set<int64_t> budgets = budgetsOf(points);
    for (int64_t budget : budgets) {
      std::map<std::vector<unsigned>, std::pair<bool, bool>> byCounts;
      for (const Point &p : points) {
        auto &[anyFits, readFits] = byCounts[p.counts];
        anyFits |= p.peak <= budget;
        readFits |= p.peak <= budget && p.read;
      }
      for (const auto &[counts, fit] : byCounts) {
        std::vector<RecomputeRange> ranges;
        double cost = 0;
        for (unsigned v : nodes) {
          ranges.push_back({v, counts[v], counts[v]});
          cost += counts[v] * g.nodes[v].cost;
        }
        std::optional<MilpCaseLeafSolve> leaf =
            milpCaseLeaf(g, budget, ranges, std::nullopt, -1, 20);
        ASSERT_TRUE(leaf && leaf->finished);
        std::string what = "budget " + std::to_string(budget) + " ranges {" +
                           formatRanges(g, ranges) + "}";
        if (!fit.first) {
          EXPECT_TRUE(leaf->infeasible) << what;
          ++none;
        } else if (fit.second) {
          ASSERT_TRUE(leaf->found && leaf->optimal) << what;
          EXPECT_NEAR(leaf->objective, cost, 1e-6) << what;
          ++fits;
        }
      }
    }
  }
  // Counted: both kinds occur (fails where the graphs' budgets bind no
  // count vector).
  EXPECT_GE(fits, 50u);
  EXPECT_GE(none, 50u);
  std::printf("%u count vectors fit, %u do not\n", fits, none);
}

/// A forward-only graph whose 100-byte x0 is read by x1, x3 and x5 while
/// 80-byte values are made between them (x2 = f(x1), x4 = f(x3), each
/// summarised in one byte before x3 and x5 read it): within 110 bytes x0
/// must be dropped while each 80-byte value lives and recomputed before x3
/// and before x5, exactly twice. A leaf allowing at most one recomputation
/// has no solution, one allowing two has it (fails when a range row admits
/// one more, or one fewer).
TEST(MilpCases, LeafCapsTheCountFromAbove) {
  REQUIRE_CBC();
  Graph g;
  g.addNode(test::makeNode("x0", 100, {}, false, 3));
  g.addNode(test::makeNode("x1", 1, {0}));
  g.addNode(test::makeNode("x2", 80, {1}));
  g.addNode(test::makeNode("x2s", 1, {2}));
  g.addNode(test::makeNode("x3", 1, {0, 3}));
  g.addNode(test::makeNode("x4", 80, {4}));
  g.addNode(test::makeNode("x4s", 1, {5}));
  g.addNode(test::makeNode("x5", 1, {0, 6}));
  g.nodes.back().output = true;
  ASSERT_FALSE(g.validate());
  ASSERT_TRUE(g.isForwardOnly());
  auto leaf = [&](unsigned lo, unsigned hi) {
    return milpCaseLeaf(g, 110, {{0, lo, hi}}, std::nullopt, -1, 20);
  };
  for (auto [lo, hi] :
       std::vector<std::pair<unsigned, unsigned>>{{1, 1}, {0, 1}, {0, 0}}) {
    std::optional<MilpCaseLeafSolve> out = leaf(lo, hi);
    ASSERT_TRUE(out && out->finished);
    EXPECT_TRUE(out->infeasible) << lo << ".." << hi;
  }
  for (auto [lo, hi] : std::vector<std::pair<unsigned, unsigned>>{
           {2, 2}, {1, 2}, {2, ~0u}, {0, ~0u}}) {
    std::optional<MilpCaseLeafSolve> out = leaf(lo, hi);
    ASSERT_TRUE(out && out->finished);
    ASSERT_TRUE(out->found && out->optimal) << lo << ".." << hi;
    EXPECT_NEAR(out->objective, 6, 1e-6) << lo << ".." << hi;
    EXPECT_EQ(countsOf(g, out->schedule)[0], 2u);
  }
}

/// The leaves of every proof partition the schedules: each enumerated
/// schedule lies in exactly one leaf that was not split (given one leaf or
/// the two of a split on a node, with node limits of 0 and 50, so that
/// leaves are split again); the proof never claims above the enumerated
/// optimum: its bound is at most it, proven only with a plan at it, a plan
/// above it never proven (fails when a split drops a leaf or a range).
TEST(MilpCases, LeavesPartitionAndNeverProveAboveTheOptimum) {
  REQUIRE_CBC();
  std::mt19937 rng(1202);
  unsigned proofs = 0, provenDearer = 0, openDearer = 0, resplit = 0;
  for (unsigned iter = 0; iter != 8; ++iter) {
    Graph g = makeGraph(rng, iter);
    std::vector<Point> points = enumerate(g);
    std::vector<unsigned> nodes = recomputable(g);
    for (int64_t budget : budgetsOf(points)) {
      double optimum = std::numeric_limits<double>::infinity();
      const Point *dearest = nullptr, *cheapest = nullptr;
      for (const Point &p : points)
        if (p.peak <= budget) {
          optimum = std::min(optimum, p.cost);
          if (!dearest || p.cost > dearest->cost)
            dearest = &p;
          if (!cheapest || p.cost < cheapest->cost)
            cheapest = &p;
        }
      std::vector<std::vector<CaseSplitLeaf>> givens = {{{{}, 0}}};
      if (!nodes.empty())
        givens.push_back({{{{nodes[0], 0, 0}}, 0}, {{{nodes[0], 1, ~0u}}, 0}});
      for (const Point *plan : {dearest, cheapest})
        for (const std::vector<CaseSplitLeaf> &given : givens)
          for (int64_t leafNodes : {0, 50}) {
            MilpCasesOptions options;
            options.leafNodes = leafNodes;
            options.seconds = 60;
            std::optional<MilpCasesResult> r =
                milpCaseProof(g, budget, plan->schedule, given, options);
            ASSERT_TRUE(r);
            ++proofs;
            std::string what = "budget " + std::to_string(budget) + " plan " +
                               std::to_string(plan->cost) + " optimum " +
                               std::to_string(optimum);
            EXPECT_FALSE(r->timeCapped) << what;
            EXPECT_LE(r->bound, optimum + 1e-9) << what;
            EXPECT_LE(r->sim.recomputeCost, plan->cost + 1e-9) << what;
            SimResult sim;
            ASSERT_FALSE(simulate(g, r->schedule, sim)) << what;
            EXPECT_LE(sim.peakBytes, budget) << what;
            EXPECT_NEAR(sim.recomputeCost, r->sim.recomputeCost, 1e-9);
            if (r->proven) {
              EXPECT_NEAR(r->sim.recomputeCost, optimum, 1e-9) << what;
              EXPECT_EQ(r->open, 0u);
              provenDearer += plan->cost > optimum + 1e-9;
            }
            if (r->sim.recomputeCost > optimum + 1e-9) {
              EXPECT_FALSE(r->proven) << what;
              EXPECT_GT(r->open, 0u) << what;
              ++openDearer;
            }
            // Each schedule in exactly one leaf not split again.
            unsigned leaves = 0, opened = 0;
            for (const MilpCaseLeafReport &leaf : r->leaves) {
              resplit += leaf.how == MilpCaseClose::Split && leaf.solved;
              if (leaf.how == MilpCaseClose::Split)
                continue;
              ++leaves;
              opened += leaf.how == MilpCaseClose::Open;
              if (leaf.how == MilpCaseClose::Open) {
                EXPECT_GE(leaf.bound, r->bound - 1e-9) << what;
              }
            }
            EXPECT_EQ(leaves, r->open + r->closed) << what;
            EXPECT_EQ(opened, r->open) << what;
            for (const Point &p : points) {
              unsigned in = 0;
              for (const MilpCaseLeafReport &leaf : r->leaves)
                in += leaf.how != MilpCaseClose::Split &&
                      within(p.counts, leaf.ranges);
              EXPECT_EQ(in, 1u) << what;
            }
          }
    }
  }
  EXPECT_GE(proofs, 100u);
  // Counted: from the dearest schedule a leaf's solve finds the optimum and
  // proves it (fails where found plans are dropped).
  EXPECT_GE(provenDearer, 10u);
  EXPECT_GE(openDearer, 0u);
  // Counted: leaves CBC left open were split again.
  EXPECT_GE(resplit, 1u);
  std::printf("%u proofs, %u proven from a dearer plan, %u open above the "
              "optimum, %u leaves split again\n",
              proofs, provenDearer, openDearer, resplit);
}

/// A leaf's tree bound closes it only where it reaches the plan's cost, and
/// bounds the open leaves: with every leaf's bound at the optimum the plan
/// at the optimum is proven without a solve; a bound set above a dearer
/// plan's cost would be a bug in the tree, and a bound below it leaves the
/// plan to the solves. Out of solves (`maxSolves` 0) the proof stops open,
/// reported as open, its bound the least over the leaves; the same run
/// twice gives the same leaves and nodes.
TEST(MilpCases, BoundsAndLimitsLeaveItOpen) {
  REQUIRE_CBC();
  std::mt19937 rng(1203);
  unsigned open = 0, byBound = 0, runs = 0;
  for (unsigned iter = 0; iter != 8; ++iter) {
    Graph g = makeGraph(rng, iter);
    std::vector<Point> points = enumerate(g);
    for (int64_t budget : budgetsOf(points)) {
      double optimum = std::numeric_limits<double>::infinity();
      const Point *dearest = nullptr, *cheapest = nullptr;
      for (const Point &p : points)
        if (p.peak <= budget) {
          optimum = std::min(optimum, p.cost);
          if (!dearest || p.cost > dearest->cost)
            dearest = &p;
          if (!cheapest || p.cost < cheapest->cost)
            cheapest = &p;
        }
      // The optimum as every leaf's bound: proven with no solve.
      std::optional<MilpCasesResult> r = milpCaseProof(
          g, budget, cheapest->schedule, {{{}, optimum}}, MilpCasesOptions());
      ASSERT_TRUE(r);
      EXPECT_TRUE(r->proven);
      EXPECT_EQ(r->solves, 0u);
      byBound += r->proven && r->solves == 0;
      if (dearest->cost <= optimum + 1e-9)
        continue;
      ++runs;
      // Out of solves: open, its bound the given leaves' least.
      MilpCasesOptions none;
      none.maxSolves = 0;
      double lower = optimum / 2;
      r = milpCaseProof(g, budget, dearest->schedule, {{{}, lower}}, none);
      ASSERT_TRUE(r);
      EXPECT_FALSE(r->proven);
      EXPECT_FALSE(r->timeCapped);
      EXPECT_GT(r->open, 0u);
      EXPECT_NEAR(r->bound, lower, 1e-9);
      EXPECT_NEAR(r->sim.recomputeCost, dearest->cost, 1e-9);
      for (const MilpCaseLeafReport &leaf : r->leaves)
        EXPECT_FALSE(leaf.solved);
      open += !r->proven && r->open > 0;
      // No leaves: the whole model of bound 0, never proven unsolved.
      r = milpCaseProof(g, budget, dearest->schedule, {}, none);
      ASSERT_TRUE(r);
      EXPECT_FALSE(r->proven);
      EXPECT_LE(r->bound, optimum + 1e-9);
      // The same proof twice: the same leaves, nodes and outcome.
      MilpCasesOptions some;
      some.leafNodes = 5;
      some.maxSolves = 3;
      std::optional<MilpCasesResult> a =
          milpCaseProof(g, budget, dearest->schedule, {{{}, 0}}, some);
      std::optional<MilpCasesResult> b =
          milpCaseProof(g, budget, dearest->schedule, {{{}, 0}}, some);
      ASSERT_TRUE(a && b);
      EXPECT_EQ(a->proven, b->proven);
      EXPECT_EQ(a->nodes, b->nodes);
      EXPECT_EQ(a->solves, b->solves);
      ASSERT_EQ(a->leaves.size(), b->leaves.size());
      for (size_t k = 0; k != a->leaves.size(); ++k) {
        EXPECT_EQ(a->leaves[k].how, b->leaves[k].how);
        EXPECT_EQ(a->leaves[k].nodes, b->leaves[k].nodes);
      }
      EXPECT_LE(a->solves, 3u);
    }
  }
  EXPECT_GE(runs, 10u);
  EXPECT_GE(open, 10u);
  EXPECT_GE(byBound, 20u);
}

/// Through milpOptimal, from the dearest schedule within each budget of
/// tiny graphs: where CBC proves its plan the leaves never run; where its
/// search is taken as unfinished (`unprovenSearch`) and the gap rule lets
/// them (`caseProofGap`), they run once, say so in the detail, and a plan
/// called optimal is at the enumerated optimum, its bound never above it;
/// with the gap rule at 0 they never run. With the main solve's plan
/// replaced by the dearest start (`mainSolveWarmStart`), the leaves find
/// and prove the optimum (counted: fails where a leaf's plan is not
/// taken).
TEST(MilpCases, RunsInMilpOptimalOnlyWithoutAProof) {
  REQUIRE_CBC();
  test::MilpHooksReset reset;
  std::mt19937 rng(1205);
  unsigned ran = 0, calls = 0, fromDearest = 0;
  milpTestHooks().onCaseProof = [&](const MilpCasesResult &) { ++ran; };
  for (unsigned iter = 0; iter != 8; ++iter) {
    Graph g = makeGraph(rng, iter);
    std::vector<Point> points = enumerate(g);
    for (int64_t budget : budgetsOf(points)) {
      double optimum = std::numeric_limits<double>::infinity();
      const Point *dearest = nullptr;
      for (const Point &p : points)
        if (p.peak <= budget) {
          optimum = std::min(optimum, p.cost);
          if (!dearest || p.cost > dearest->cost)
            dearest = &p;
        }
      enum Mode { Plain, Unproven, UnprovenOff, Dearest };
      for (Mode mode : {Plain, Unproven, UnprovenOff, Dearest}) {
        milpTestHooks().unprovenSearch = mode != Plain;
        milpTestHooks().caseProofGap.reset();
        if (mode == Unproven || mode == Dearest)
          milpTestHooks().caseProofGap = 1e9;
        if (mode == UnprovenOff)
          milpTestHooks().caseProofGap = 0;
        milpTestHooks().mainSolveWarmStart.reset();
        if (mode == Dearest)
          milpTestHooks().mainSolveWarmStart = 0;
        unsigned before = ran;
        std::string note;
        std::optional<PlanResult> p =
            milpOptimal(g, budget, 20, note, &dearest->schedule);
        ASSERT_TRUE(p) << note;
        ASSERT_TRUE(p->solver);
        std::string what = "mode " + std::to_string(mode) + " budget " +
                           std::to_string(budget) + ": " + p->detail;
        EXPECT_GE(p->sim.recomputeCost, optimum - 1e-9) << what;
        EXPECT_LE(p->solver->bound, optimum + 1e-9) << what;
        if (p->solver->optimal) {
          EXPECT_NEAR(p->sim.recomputeCost, optimum, 1e-9) << what;
        }
        bool said = p->detail.find("the case tree's leaves solved by CBC") !=
                    std::string::npos;
        // Proven by the lower bound, or CBC's plan of cost 0 (no gap).
        bool byLowerBound =
            p->detail.find("by the lower bound") != std::string::npos ||
            (p->sim.recomputeCost == 0 && !said && mode == Unproven);
        EXPECT_EQ(said, ran == before + 1) << what;
        if (mode == Plain || mode == UnprovenOff || byLowerBound) {
          EXPECT_EQ(ran, before) << what;
          continue;
        }
        EXPECT_EQ(ran, before + 1) << what;
        ++calls;
        EXPECT_TRUE(p->solver->optimal) << what;
        if (mode == Dearest && dearest->cost > optimum + 1e-9) {
          EXPECT_NE(p->detail.find("the plan: a leaf's solution"),
                    std::string::npos)
              << what;
          fromDearest += p->solver->optimal;
        }
      }
    }
  }
  EXPECT_GE(calls, 20u);
  EXPECT_GE(fromDearest, 10u);
  std::printf("%u calls ran the leaves, %u proved the optimum from the "
              "dearest plan\n",
              calls, fromDearest);
}
