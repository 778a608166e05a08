//===- StepProgramTest.cpp - Tests of the exact step cut problem ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/StepProgram.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Strategies.h"

#include "ScheduleEnumeration.h"
#include "TestGraphs.h"

#include <gtest/gtest.h>

#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <random>

using namespace remat::sched;

namespace {

/// The least cost of a solution of `p` by enumeration of every value's
/// state (neither, live, recomputed); infinity if none.
double enumerate(const StepProgram &p) {
  unsigned m = p.cost.size();
  std::vector<unsigned> state(m, 0);
  double best = std::numeric_limits<double>::infinity();
  while (true) {
    bool ok = true;
    int64_t bytes = 0;
    double cost = 0;
    for (unsigned v = 0; v != m && ok; ++v) {
      if (p.needed[v] && state[v] == 0)
        ok = false;
      if (state[v] == 1)
        bytes += p.bytes[v];
      if (state[v] == 2) {
        ok = ok && !p.pinned[v];
        cost += p.cost[v];
        for (unsigned u : p.operands[v])
          ok = ok && state[u] != 0;
      }
    }
    if (ok && bytes <= p.cap)
      best = std::min(best, cost);
    unsigned i = 0;
    while (i != m && state[i] == 2)
      state[i++] = 0;
    if (i == m)
      return best;
    ++state[i];
  }
}

/// A random program: values with operands among earlier ones, costs from a
/// few levels (so classes of equal cost are common), some pinned, the
/// later ones needed, and a cap between none and all of the needed bytes.
StepProgram randomProgram(std::mt19937 &rng, unsigned m) {
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  StepProgram p;
  p.operands.resize(m);
  int64_t neededBytes = 0;
  for (unsigned v = 0; v != m; ++v) {
    p.cost.push_back(1 + pick(4) * 3);
    p.bytes.push_back(1 + pick(40));
    p.pinned.push_back(pick(8) == 0);
    p.needed.push_back(v >= m / 3 && pick(3) != 0);
    if (p.needed.back())
      neededBytes += p.bytes.back();
    if (v > 0 && !p.pinned.back())
      for (unsigned k = 0, e = 1 + pick(2); k != e; ++k)
        p.operands[v].push_back(pick(v));
  }
  p.cap = pick(unsigned(neededBytes) + 1);
  return p;
}

/// Whether `recomputed` (with every other needed value and every operand
/// of a recomputed value live) is a solution of `p` within its cap.
bool isSolution(const StepProgram &p, const std::vector<bool> &recomputed) {
  unsigned m = p.cost.size();
  std::vector<bool> live(m, false);
  for (unsigned v = 0; v != m; ++v) {
    if (recomputed[v] && p.pinned[v])
      return false;
    if (p.needed[v] && !recomputed[v])
      live[v] = true;
    if (recomputed[v])
      for (unsigned u : p.operands[v])
        if (!recomputed[u])
          live[u] = true;
  }
  int64_t bytes = 0;
  for (unsigned v = 0; v != m; ++v)
    bytes += live[v] ? p.bytes[v] : 0;
  return bytes <= p.cap;
}

/// The recomputed sets (bit masks) of every solution of `p`, by
/// enumeration of every value's state.
std::vector<unsigned> solutionMasks(const StepProgram &p) {
  unsigned m = p.cost.size();
  std::vector<unsigned> state(m, 0), masks;
  while (true) {
    bool ok = true;
    int64_t bytes = 0;
    unsigned mask = 0;
    for (unsigned v = 0; v != m && ok; ++v) {
      if (p.needed[v] && state[v] == 0)
        ok = false;
      if (state[v] == 1)
        bytes += p.bytes[v];
      if (state[v] == 2) {
        ok = ok && !p.pinned[v];
        mask |= 1u << v;
        for (unsigned u : p.operands[v])
          ok = ok && state[u] != 0;
      }
    }
    if (ok && bytes <= p.cap)
      masks.push_back(mask);
    unsigned i = 0;
    while (i != m && state[i] == 2)
      state[i++] = 0;
    if (i == m)
      break;
    ++state[i];
  }
  llvm::sort(masks);
  masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
  return masks;
}

/// The least cost of the union of one solution of each of two programs
/// (the joint program's optimum); infinity if one has none.
double enumerateJoint(const StepProgram &a, const StepProgram &b) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<unsigned> masksB = solutionMasks(b);
  for (unsigned x : solutionMasks(a))
    for (unsigned y : masksB) {
      double cost = 0;
      for (unsigned v = 0; v != a.cost.size(); ++v)
        cost += ((x | y) >> v & 1) ? a.cost[v] : 0;
      best = std::min(best, cost);
    }
  return best;
}

/// A second step over the values of `p`: the same costs, bytes and
/// operands, other needed and pinned values and another cap.
StepProgram otherStep(std::mt19937 &rng, const StepProgram &p,
                      const std::vector<std::vector<unsigned>> &operands) {
  auto pick = [&](unsigned bound) {
    return std::uniform_int_distribution<unsigned>(0, bound - 1)(rng);
  };
  unsigned m = p.cost.size();
  StepProgram q = p;
  int64_t neededBytes = 0;
  for (unsigned v = 0; v != m; ++v) {
    q.pinned[v] = pick(8) == 0;
    q.needed[v] = pick(2) == 0;
    q.operands[v] = q.pinned[v] ? std::vector<unsigned>() : operands[v];
    neededBytes += q.needed[v] ? q.bytes[v] : 0;
  }
  q.cap = pick(unsigned(neededBytes) + 1);
  return q;
}

TEST(StepProgramTest, NodeLimitIsDeterministicAndKeepsSolutionsValid) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Under a limit of 2 split nodes the search (diving, then best first,
  // with a rounded solution at each node) stops early: its bound is never
  // above the enumerated optimum, every solution it returns is one, the
  // same on a second run, and on most feasible programs it has one.
  std::mt19937 rng(24680);
  unsigned feasible = 0, found = 0;
  for (unsigned iter = 0; iter != 200; ++iter) {
    StepProgram p = randomProgram(rng, 5 + iter % 5);
    double optimum = enumerate(p);
    std::optional<StepProgramResult> r = solveStepProgram(p, 10, 2);
    std::optional<StepProgramResult> again = solveStepProgram(p, 10, 2);
    ASSERT_EQ(bool(r), bool(again)) << "program " << iter;
    if (optimum == std::numeric_limits<double>::infinity()) {
      EXPECT_TRUE(!r || r->solutionCost < 0) << "program " << iter;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r) << "program " << iter;
    EXPECT_LE(r->nodes, 2u) << "program " << iter;
    EXPECT_EQ(r->recomputed, again->recomputed) << "program " << iter;
    EXPECT_EQ(r->bound, again->bound) << "program " << iter;
    EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << "program " << iter;
    if (r->solutionCost < 0)
      continue;
    ++found;
    EXPECT_TRUE(isSolution(p, r->recomputed)) << "program " << iter;
    EXPECT_GE(r->solutionCost, optimum - 1e-9) << "program " << iter;
  }
  EXPECT_GT(feasible, 100u);
  EXPECT_GT(found, feasible * 9 / 10) << "of " << feasible;
}

TEST(StepProgramTest, ThreeEqualValuesTwoMustGo) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Three needed values of 10 bytes and cost 5 with a cap of 11: one stays,
  // two are recomputed (10). The LP recomputes 1.9 of them (9.5); the count
  // of the class {x0, x1, x2} is branched on, not a single value.
  StepProgram p;
  p.cost = {5, 5, 5};
  p.bytes = {10, 10, 10};
  p.needed = {true, true, true};
  p.pinned = {false, false, false};
  p.operands.resize(3);
  p.cap = 11;
  std::optional<StepProgramResult> r = solveStepProgram(p, 10);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->optimal);
  EXPECT_NEAR(r->bound, 10, 1e-6);
  EXPECT_DOUBLE_EQ(r->solutionCost, 10);
  ASSERT_EQ(r->recomputed.size(), 3u);
  EXPECT_EQ(r->recomputed[0] + r->recomputed[1] + r->recomputed[2], 2);
}

TEST(StepProgramTest, NeverAboveTheEnumeratedOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // 300 random programs of 4-9 values against the enumeration of every
  // state: the bound never above the optimum, the solution found costs
  // what it says and is never below it, and where the search finished
  // (almost always on these sizes) bound and solution are the optimum.
  std::mt19937 rng(97531);
  unsigned solved = 0, feasible = 0;
  for (unsigned iter = 0; iter != 300; ++iter) {
    StepProgram p = randomProgram(rng, 4 + iter % 6);
    double optimum = enumerate(p);
    std::optional<StepProgramResult> r = solveStepProgram(p, 10);
    if (optimum == std::numeric_limits<double>::infinity()) {
      // No solution: no bound, or one from a node that could not be
      // solved; never a solution.
      EXPECT_TRUE(!r || r->solutionCost < 0) << "program " << iter;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r) << "program " << iter;
    EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << "program " << iter;
    if (r->solutionCost >= 0) {
      EXPECT_GE(r->solutionCost, optimum - 1e-9) << "program " << iter;
      double cost = 0;
      for (unsigned v = 0; v != p.cost.size(); ++v)
        cost += r->recomputed[v] ? p.cost[v] : 0;
      EXPECT_DOUBLE_EQ(cost, r->solutionCost) << "program " << iter;
    }
    if (r->optimal) {
      ++solved;
      EXPECT_NEAR(r->bound, optimum, 1e-6 * (1 + optimum))
          << "program " << iter;
      EXPECT_DOUBLE_EQ(r->solutionCost, optimum) << "program " << iter;
    }
  }
  EXPECT_GT(feasible, 150u);
  EXPECT_GT(solved, feasible * 9 / 10) << "of " << feasible;
}

/// The recompute lower bound with `on` against the same bound with `off` on
/// `graphs` random 7-8 node graphs at every budget: never below `off`'s
/// bound, never above the least recompute of every enumerated schedule
/// (`test::allSchedules`: each forward node recomputed at most once per
/// list), and above `off`'s bound somewhere.
void expectRaisedBelowExhaustiveOptimum(unsigned seed, unsigned graphs,
                                        const LowerBoundOptions &on,
                                        const LowerBoundOptions &off) {
  std::mt19937 rng(seed);
  unsigned raised = 0, compared = 0;
  for (unsigned iter = 0; iter != graphs; ++iter) {
    unsigned numF = 3 + iter % 2, numB = 8 - numF - (iter % 3 == 0);
    Graph g = test::makeRandomGraph(rng, numF, numB);
    ASSERT_FALSE(g.validate());
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    auto [minPeak, maxPeak] = test::peakRange(points);
    for (int64_t budget = minPeak; budget <= maxPeak; ++budget) {
      double optimum = test::leastWithin(points, budget);
      LowerBound with = recomputeLowerBound(g, budget, on);
      LowerBound without = recomputeLowerBound(g, budget, off);
      ASSERT_FALSE(with.infeasible || without.infeasible)
          << "graph " << iter << " budget " << budget;
      EXPECT_GE(with.recomputeCost, without.recomputeCost * (1 - 1e-9) - 1e-9)
          << "graph " << iter << " budget " << budget;
      EXPECT_LE(with.recomputeCost, optimum * (1 + 1e-9) + 1e-9)
          << "graph " << iter << " budget " << budget;
      ++compared;
      raised += with.recomputeCost > without.recomputeCost * (1 + 1e-6);
    }
  }
  EXPECT_GT(compared, 0u);
  EXPECT_GT(raised, 0u) << "of " << compared;
}

/// Options of the bounds that `expectRaisedBelowExhaustiveOptimum`
/// compares: no branch and bound, no count disjunction, a time limit that
/// these graphs never reach.
LowerBoundOptions plainBoundOptions() {
  LowerBoundOptions options;
  options.maxSplits = 0;
  options.cardinality = false;
  options.timeLimitSeconds = 60;
  return options;
}

TEST(StepProgramTest, LowerBoundNeverAboveExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // The exact step programs (`LowerBoundOptions::exactSteps`) against the
  // bound without them, on 60 graphs.
  LowerBoundOptions on = plainBoundOptions(), off = plainBoundOptions();
  off.exactSteps = 0;
  expectRaisedBelowExhaustiveOptimum(8642, 60, on, off);
}

TEST(StepProgramTest, JointNeverAboveTheEnumeratedOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // 200 random pairs of programs over 4-7 values (the same costs, bytes
  // and operands, different needed and pinned values and caps) against
  // the enumeration of both steps' solutions: the joint bound never above
  // the least cost of a union of one solution of each, its solution never
  // below it, the optimum where the search finished, and above the larger
  // of the two single optima on some pairs.
  std::mt19937 rng(1357);
  unsigned feasible = 0, solved = 0, above = 0;
  for (unsigned iter = 0; iter != 200; ++iter) {
    StepProgram a = randomProgram(rng, 4 + iter % 4);
    std::vector<std::vector<unsigned>> operands = a.operands;
    // Operands for every value, so that the second step may recompute the
    // values the first pins.
    for (unsigned v = 1; v != a.cost.size(); ++v)
      if (operands[v].empty())
        operands[v].push_back(v - 1);
    StepProgram b = otherStep(rng, a, operands);
    double optimum = enumerateJoint(a, b);
    std::optional<StepProgramResult> r = solveJointStepProgram({a, b}, 10);
    if (optimum == std::numeric_limits<double>::infinity()) {
      EXPECT_TRUE(!r || r->solutionCost < 0) << "pair " << iter;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r) << "pair " << iter;
    EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << "pair " << iter;
    if (r->solutionCost >= 0) {
      EXPECT_GE(r->solutionCost, optimum - 1e-9) << "pair " << iter;
      double cost = 0;
      for (unsigned v = 0; v != a.cost.size(); ++v)
        cost += r->recomputed[v] ? a.cost[v] : 0;
      EXPECT_DOUBLE_EQ(cost, r->solutionCost) << "pair " << iter;
    }
    if (r->optimal) {
      ++solved;
      EXPECT_NEAR(r->bound, optimum, 1e-6 * (1 + optimum)) << "pair " << iter;
    }
    above += optimum > std::max(enumerate(a), enumerate(b)) + 1e-9;
  }
  EXPECT_GT(feasible, 60u);
  EXPECT_GT(solved, feasible * 9 / 10) << "of " << feasible;
  EXPECT_GT(above, 0u) << "of " << feasible;
}

TEST(StepProgramTest, JointStepsNeverAboveExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Joint steps (`LowerBoundOptions::jointExactSteps`) against the bound
  // without them, on 80 graphs.
  LowerBoundOptions on = plainBoundOptions(), off = plainBoundOptions();
  on.jointExactSteps = 4;
  expectRaisedBelowExhaustiveOptimum(97, 80, on, off);
}

} // namespace
