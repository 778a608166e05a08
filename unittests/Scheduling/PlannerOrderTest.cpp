//===- PlannerOrderTest.cpp - Planning in any topological order ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Every strategy plans a graph whatever topological order it comes in
// (Phases.h): shuffles that move forward nodes among the backward ones keep
// every strategy's plan at the same or a better peak, and full random
// topological orders keep every strategy planning.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Planner.h"

#include "../Scheduling/TestGraphs.h"

#include <chrono>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>

using namespace remat;
using namespace remat::sched;

namespace {

/// A random topological order of `g`. With `interleaveOnly`, forward nodes
/// keep their relative order and backward nodes theirs (a random merge of
/// the two sequences); otherwise any ready node may come next.
std::vector<unsigned> randomOrder(const Graph &g, std::mt19937 &rng,
                                  bool interleaveOnly) {
  unsigned n = g.size();
  std::vector<std::vector<unsigned>> readers(n);
  std::vector<unsigned> pending(n);
  for (unsigned i = 0; i < n; ++i) {
    for (unsigned op : g.nodes[i].operands)
      readers[op].push_back(i);
    pending[i] = g.nodes[i].operands.size();
  }
  std::vector<unsigned> order, ready;
  std::vector<unsigned> fwd, bwd;
  for (unsigned i = 0; i < n; ++i)
    (g.nodes[i].backward ? bwd : fwd).push_back(i);
  size_t fi = 0, bi = 0;
  for (unsigned i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  while (order.size() < n) {
    unsigned v;
    if (interleaveOnly) {
      bool f = fi < fwd.size() && pending[fwd[fi]] == 0;
      bool b = bi < bwd.size() && pending[bwd[bi]] == 0;
      v = (f && (!b || rng() % 2)) ? fwd[fi++] : bwd[bi++];
    } else {
      size_t pick = rng() % ready.size();
      v = ready[pick];
      ready.erase(ready.begin() + pick);
    }
    order.push_back(v);
    for (unsigned r : readers[v])
      if (--pending[r] == 0 && !interleaveOnly)
        ready.push_back(r);
  }
  return order;
}

/// The least peak of every strategy among `plans`.
std::map<std::string, int64_t> leastPeaks(const std::vector<PlanResult> &plans) {
  std::map<std::string, int64_t> best;
  for (const PlanResult &p : plans) {
    auto it = best.find(p.strategy);
    if (it == best.end() || p.sim.peakBytes < it->second)
      best[p.strategy] = p.sim.peakBytes;
  }
  return best;
}

/// Simulates every plan on `g` (re-sequenced when the plan says so) and
/// checks it reproduces the plan's figures.
void expectPlansSimulate(const Graph &g, const std::vector<PlanResult> &plans) {
  for (const PlanResult &p : plans) {
    Graph h = p.order.empty() ? g : reorderGraph(g, p.order);
    SimResult sim;
    std::optional<std::string> err = simulate(h, p.schedule, sim);
    ASSERT_FALSE(err) << p.strategy << ": " << *err;
    EXPECT_EQ(sim.peakBytes, p.sim.peakBytes) << p.strategy;
    EXPECT_EQ(sim.recomputeCost, p.sim.recomputeCost) << p.strategy;
  }
}

std::vector<Graph> exampleGraphs() {
  std::vector<Graph> graphs;
  graphs.push_back(test::makeGradChain(20, 100).graph);
  graphs.push_back(test::makeGradChain(30, 64, 2.0).graph);
  std::mt19937 rng(11);
  for (int i = 0; i < 6; ++i)
    graphs.push_back(test::makeRandomGraph(rng, 8 + 3 * i, 6 + 2 * i));
  return graphs;
}

} // namespace

TEST(PlannerOrderTest, InterleavedOrdersPlanSameOrBetter) {
  std::mt19937 rng(3);
  for (const Graph &g : exampleGraphs()) {
    std::vector<std::string> notes;
    std::map<std::string, int64_t> base =
        leastPeaks(planAllStrategies(g, notes));
    for (int iter = 0; iter < 4; ++iter) {
      Graph shuffled = reorderGraph(g, randomOrder(g, rng, true));
      ASSERT_FALSE(shuffled.validate());
      std::vector<std::string> shuffledNotes;
      std::vector<PlanResult> plans = planAllStrategies(shuffled, shuffledNotes);
      expectPlansSimulate(shuffled, plans);
      std::map<std::string, int64_t> peaks = leastPeaks(plans);
      for (auto [name, peak] : base) {
        ASSERT_TRUE(peaks.count(name)) << name << " no longer plans";
        EXPECT_LE(peaks[name], peak) << name;
      }
      // auto under a budget: the least peak of the original order is met.
      // (Graphs above 32 ops: smaller ones add the exact MILP to auto's
      // candidates, seconds of CBC per call.)
      if (g.size() <= 32)
        continue;
      int64_t least = std::min_element(base.begin(), base.end(),
                                       [](auto &a, auto &b) {
                                         return a.second < b.second;
                                       })
                          ->second;
      PlannerOptions options;
      options.budget = least;
      llvm::Expected<PlannerResult> r = planRematerialization(shuffled, options);
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      EXPECT_LE(r->plan.sim.peakBytes, least);
    }
  }
}

TEST(PlannerOrderTest, AnyTopologicalOrderStillPlans) {
  std::mt19937 rng(5);
  for (const Graph &g : exampleGraphs()) {
    std::vector<std::string> notes;
    std::map<std::string, int64_t> base =
        leastPeaks(planAllStrategies(g, notes));
    for (int iter = 0; iter < 4; ++iter) {
      Graph shuffled = reorderGraph(g, randomOrder(g, rng, false));
      ASSERT_FALSE(shuffled.validate());
      std::vector<std::string> shuffledNotes;
      std::vector<PlanResult> plans = planAllStrategies(shuffled, shuffledNotes);
      expectPlansSimulate(shuffled, plans);
      std::map<std::string, int64_t> peaks = leastPeaks(plans);
      for (auto [name, peak] : base)
        EXPECT_TRUE(peaks.count(name)) << name << " no longer plans";
      // No strategy is worse than store-all in the order it was given.
      SimResult storeAllSim;
      ASSERT_FALSE(simulate(shuffled, Schedule(shuffled.size()), storeAllSim));
      for (auto [name, peak] : peaks)
        EXPECT_LE(peak, storeAllSim.peakBytes) << name;
    }
  }
}

TEST(PlannerOrderTest, ShuffledOrdersAreTopologicalAndReproducible) {
  // sched::shuffledOrder (remat-import --shuffle, --remat-shuffle-ops).
  unsigned movedSomewhere = 0;
  for (const Graph &g : exampleGraphs()) {
    unsigned n = g.size();
    EXPECT_EQ(shuffledOrder(g, OrderShuffle::ForwardFirst, 0),
              forwardFirstOrder(g));
    for (OrderShuffle mode :
         {OrderShuffle::Interleave, OrderShuffle::Topological}) {
      for (unsigned seed : {1u, 2u, 7u}) {
        std::vector<unsigned> order = shuffledOrder(g, mode, seed);
        EXPECT_EQ(order, shuffledOrder(g, mode, seed)) << "not reproducible";
        ASSERT_EQ(order.size(), n);
        std::vector<unsigned> position(n, ~0u);
        for (unsigned i = 0; i < n; ++i) {
          ASSERT_LT(order[i], n);
          ASSERT_EQ(position[order[i]], ~0u) << "not a permutation";
          position[order[i]] = i;
          movedSomewhere += order[i] != i;
        }
        for (unsigned v = 0; v < n; ++v)
          for (unsigned u : g.nodes[v].operands)
            EXPECT_LT(position[u], position[v]) << "operand after its reader";
        EXPECT_FALSE(reorderGraph(g, order).validate());
        if (mode != OrderShuffle::Interleave)
          continue;
        // Each phase keeps its relative order.
        for (unsigned u = 0; u < n; ++u) {
          for (unsigned v = u + 1; v < n; ++v) {
            if (g.nodes[u].backward == g.nodes[v].backward) {
              EXPECT_LT(position[u], position[v]);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(movedSomewhere, 0u);
}

TEST(PlannerOrderTest, AutoDropsALateForwardValue) {
  // test::makeLateCdf (TestGraphs.h): pinned, no plan goes below 500 bytes (cdf
  // and pdf run once where they are); forward-first, 404 bytes cost 501
  // (pdf, then cdf recomputed). In the input order with cdf dropped and
  // recomputed from x before out the peak is 404 at a cost of 1.
  Graph g = test::makeLateCdf();
  PlannerOptions options;
  options.budget = 404;
  llvm::Expected<PlannerResult> r = planRematerialization(g, options);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE(r->plan.order.empty());
  EXPECT_LE(r->plan.sim.peakBytes, 404);
  EXPECT_DOUBLE_EQ(r->plan.sim.recomputeCost, 1);
  EXPECT_EQ(r->plan.schedule.recomputeBefore[7], (std::vector<unsigned>{4}));
  SimResult sim;
  ASSERT_FALSE(simulate(g, r->plan.schedule, sim));
  EXPECT_EQ(sim.peakBytes, r->plan.sim.peakBytes);
}

TEST(PlannerOrderTest, MilpProvesNothingOutsideItsOrder) {
  // On makeLateCdf at 404 bytes the MILP can only plan in the forward-first
  // order (pinned, nothing fits), where it proves 501 optimal; dropping cdf
  // in the input order costs 1 (auto, AutoDropsALateForwardValue). `milp`
  // returns auto's plan (milpWithAutoPlan in Planner.cpp), optimal over
  // every order because LowerBound's any-order bound meets it (and then the
  // MILP does not run); before, it returned 501 (its order's optimum).
  if (!milpAvailable())
    GTEST_SKIP() << "built without CBC";
  Graph g = test::makeLateCdf();
  PlannerOptions options;
  options.strategy = "milp";
  options.budget = 404;
  options.timeLimitSeconds = 20;
  llvm::Expected<PlannerResult> r = planRematerialization(g, options);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_TRUE(r->plan.solver.has_value());
  EXPECT_EQ(r->plan.strategy, "milp");
  EXPECT_DOUBLE_EQ(r->plan.sim.recomputeCost, 1);
  EXPECT_LE(r->plan.sim.peakBytes, 404);
  SimResult sim;
  ASSERT_FALSE(simulate(g, r->plan.schedule, sim));
  EXPECT_DOUBLE_EQ(sim.recomputeCost, 1);
  // The claim is LowerBound's over every order, which meets the plan.
  LowerBound lb = recomputeLowerBoundAnyOrder(g, 404);
  ASSERT_FALSE(lb.infeasible);
  EXPECT_TRUE(r->plan.solver->optimal) << r->plan.detail;
  EXPECT_GE(lb.recomputeCost, 1 - 1e-9) << r->plan.detail;
  EXPECT_NE(r->plan.detail.find("over every order"), std::string::npos)
      << r->plan.detail;
  EXPECT_NE(r->plan.detail.find("strategy milp's own MILP is not run"),
            std::string::npos)
      << r->plan.detail;
  // auto's plan is not the solver's, nor a warm start of it.
  EXPECT_FALSE(r->plan.solver->warmStarted);
  EXPECT_FALSE(r->plan.solver->fromWarmStart);
  EXPECT_EQ(r->plan.solver->nodes, 0);
  // Without late forward ops the same claim stands: the chain of
  // AutoDropsALateForwardValue's graph in forward-first order is the
  // MILP's own model.
  Graph ff = reorderGraph(g, forwardFirstOrder(g));
  llvm::Expected<PlannerResult> own = planRematerialization(ff, options);
  ASSERT_TRUE(bool(own)) << llvm::toString(own.takeError());
  ASSERT_TRUE(own->plan.solver.has_value());
  EXPECT_TRUE(own->plan.solver->optimal) << own->plan.detail;
  EXPECT_DOUBLE_EQ(own->plan.sim.recomputeCost, 501);
}

/// With `lower-bound=` asked for, the report's bound is the any-order bound
/// the planner computed to restate a solver's claim, not a second one: once
/// per request, and the report and the claim agree on it.
TEST(PlannerOrderTest, ReportAndClaimShareOneAnyOrderBound) {
  if (!milpAvailable())
    GTEST_SKIP() << "built without CBC";
  Graph g = test::makeLateCdf();
  PlannerOptions options;
  options.strategy = "milp";
  options.budget = 404;
  options.timeLimitSeconds = 20;
  options.boundSeconds = 1;
  llvm::Expected<PlannerResult> r = planRematerialization(g, options);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_TRUE(r->plan.solver.has_value());
  ASSERT_TRUE(r->plan.bound.has_value());
  EXPECT_EQ(r->algorithmRuns["lower-bound-any-order"], 1u);
  EXPECT_DOUBLE_EQ(r->plan.bound->recomputeCost, r->plan.solver->bound);
  EXPECT_LE(r->plan.bound->recomputeCost, 1.0);
  // No solver claim to restate: the report's bound alone, once.
  options.strategy = "auto";
  llvm::Expected<PlannerResult> a = planRematerialization(g, options);
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  ASSERT_TRUE(a->plan.bound.has_value());
  EXPECT_EQ(a->algorithmRuns["lower-bound-any-order"], 1u);
  // Nor without `lower-bound=`.
  options.boundSeconds = 0;
  llvm::Expected<PlannerResult> n = planRematerialization(g, options);
  ASSERT_TRUE(bool(n)) << llvm::toString(n.takeError());
  EXPECT_FALSE(n->plan.bound.has_value());
  EXPECT_EQ(n->algorithmRuns.count("lower-bound-any-order"), 0u);
}

TEST(PlannerOrderTest, AutoWithLateDropsNeverOverTheBudget) {
  // Random interleavings at budgets between the least peak and store-all:
  // auto's plan simulates on its graph as reported and fits the budget, and
  // never recomputes more than the better of the pinned input order and
  // the forward-first order planned alone (the planner before late forward
  // values could be dropped compared those two only).
  std::mt19937 rng(17);
  for (int iter = 0; iter < 8; ++iter) {
    Graph base = test::makeRandomGraph(rng, 34 + iter, 20 + iter);
    Graph g = reorderGraph(
        base, shuffledOrder(base, OrderShuffle::Interleave, 7 + iter));
    if (lateForwardNodes(g).empty())
      continue;
    PlannerOptions none;
    llvm::Expected<PlannerResult> least = planRematerialization(g, none);
    ASSERT_TRUE(bool(least)) << llvm::toString(least.takeError());
    SimResult storeAll;
    ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
    for (double f : {0.25, 0.6}) {
      PlannerOptions options;
      options.budget = least->plan.sim.peakBytes +
                       int64_t(f * double(storeAll.peakBytes -
                                          least->plan.sim.peakBytes));
      llvm::Expected<PlannerResult> r = planRematerialization(g, options);
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      Graph h = r->plan.order.empty() ? g : reorderGraph(g, r->plan.order);
      SimResult sim;
      ASSERT_FALSE(simulate(h, r->plan.schedule, sim));
      EXPECT_EQ(sim.peakBytes, r->plan.sim.peakBytes);
      EXPECT_DOUBLE_EQ(sim.recomputeCost, r->plan.sim.recomputeCost);
      EXPECT_LE(sim.peakBytes, options.budget);
      double before = std::numeric_limits<double>::infinity();
      for (const Graph &alone :
           {pinLateForward(g), reorderGraph(g, forwardFirstOrder(g))}) {
        llvm::Expected<PlannerResult> a = planRematerialization(alone, options);
        if (a)
          before = std::min(before, a->plan.sim.recomputeCost);
        else
          llvm::consumeError(a.takeError());
      }
      EXPECT_LE(r->plan.sim.recomputeCost, before) << "iteration " << iter;
    }
  }
}

/// A random training graph of 400 ops (above kMilpMaxNodes, where the MILP
/// searches windows of stages from auto's candidates) with its phases
/// interleaved: 98 late forward ops.
static Graph lateForwardGraph400() {
  std::mt19937 rng(23);
  Graph base = test::makeRandomGraph(rng, 220, 180);
  return reorderGraph(base, shuffledOrder(base, OrderShuffle::Interleave, 3));
}

/// Wall seconds of `fn`.
template <typename Fn> static double wallSeconds(Fn &&fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// `milp` within a budget on a graph with late forward ops plans `auto`
/// first (Planner.cpp, milpAfterAuto), then runs the MILP in the time left
/// of `time-limit=`, warm-started from auto's candidates. With a limit of
/// about auto's own time, nothing is left: the whole call stays near the
/// limit. Before, planMilp planned auto's candidates again in each order on
/// graphs above 300 ops, whatever the limit (gpt12_b4 at 0.5 of store-all:
/// 23 s at time-limit=10); here about 1.8 times the limit. Not a test of
/// speed: the limit is auto's time on this machine, measured here.
TEST(PlannerOrderTest, MilpAfterAutoStaysWithinTheTimeLimit) {
  if (!milpAvailable())
    GTEST_SKIP() << "built without CBC";
  Graph g = lateForwardGraph400();
  ASSERT_GT(g.size(), kMilpMaxNodes);
  ASSERT_FALSE(lateForwardNodes(g).empty());
  SimResult storeAll;
  ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
  PlannerOptions options;
  options.budget = storeAll.peakBytes * 8 / 10;
  options.strategy = "auto";
  double autoSeconds = 0;
  for (int i = 0; i < 2; ++i)
    autoSeconds = std::max(autoSeconds, wallSeconds([&] {
                             llvm::Expected<PlannerResult> r =
                                 planRematerialization(g, options);
                             ASSERT_TRUE(bool(r))
                                 << llvm::toString(r.takeError());
                           }));
  options.strategy = "milp";
  options.timeLimitSeconds = std::max(0.5, autoSeconds);
  std::string detail;
  double seconds = wallSeconds([&] {
    llvm::Expected<PlannerResult> r = planRematerialization(g, options);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    detail = r->plan.detail;
  });
  EXPECT_LT(seconds, 1.35 * options.timeLimitSeconds)
      << "auto alone: " << autoSeconds << " s; " << detail;
}
/// `milp` within a budget on a graph with late forward ops runs the MILP
/// after `auto`'s plan unless the any-order bound meets that plan, and
/// keeps the MILP's plan where it recomputes less (Planner.cpp,
/// milpAfterAuto). A random 40-op graph (11 late forward ops) at half of
/// store-all's peak: auto plans 71, the MILP 53 in the forward-first order,
/// proven there.
TEST(PlannerOrderTest, MilpAfterAutoKeepsTheMilpPlanWhereCheaper) {
  if (!milpAvailable())
    GTEST_SKIP() << "built without CBC";
  std::mt19937 rng(1);
  Graph base = test::makeRandomGraph(rng, 25, 15);
  Graph g =
      reorderGraph(base, shuffledOrder(base, OrderShuffle::Interleave, 1));
  ASSERT_EQ(lateForwardNodes(g).size(), 11u);
  SimResult storeAll;
  ASSERT_FALSE(simulate(g, Schedule(g.size()), storeAll));
  PlannerOptions options;
  options.budget = storeAll.peakBytes / 2;
  llvm::Expected<PlannerResult> a = planRematerialization(g, options);
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  options.strategy = "milp";
  options.timeLimitSeconds = 20;
  llvm::Expected<PlannerResult> m = planRematerialization(g, options);
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  ASSERT_TRUE(m->plan.solver.has_value());
  EXPECT_LT(m->plan.sim.recomputeCost, a->plan.sim.recomputeCost)
      << m->plan.detail;
  EXPECT_LE(m->plan.sim.peakBytes, options.budget);
  Graph h = m->plan.order.empty() ? g : reorderGraph(g, m->plan.order);
  SimResult sim;
  ASSERT_FALSE(simulate(h, m->plan.schedule, sim));
  EXPECT_DOUBLE_EQ(sim.recomputeCost, m->plan.sim.recomputeCost);
  // The MILP's own plan, its claim restated over every order, and auto's
  // cost named.
  EXPECT_EQ(m->plan.detail.find("auto's plan ("), std::string::npos)
      << m->plan.detail;
  EXPECT_NE(m->plan.detail.find("over every order"), std::string::npos)
      << m->plan.detail;
  EXPECT_NE(m->plan.detail.find("the solver's claim covers the "
                                "forward-first order only: optimal"),
            std::string::npos)
      << m->plan.detail;
  EXPECT_NE(m->plan.detail.find("auto's plan recomputes"), std::string::npos)
      << m->plan.detail;
  // auto's work is part of the request: its runs (the MILP, warm-started
  // from its candidates, runs no heuristic itself), candidates and notes.
  EXPECT_GT(m->algorithmRuns["greedy-search"], 0u);
  EXPECT_GE(m->algorithmRuns["milp"], 2u);
  EXPECT_TRUE(llvm::any_of(
      m->candidates, [](const PlanResult &p) { return p.strategy != "milp"; }));
}
