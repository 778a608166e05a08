//===- StepProgramTest.cpp - Tests of the exact step cut problem ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/StepProgram.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Planner.h"
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

/// The operands of `p` with one added to every value that has none (the
/// value before it), so that a second step may recompute the values the
/// first pins.
std::vector<std::vector<unsigned>> operandsForEveryValue(const StepProgram &p) {
  std::vector<std::vector<unsigned>> operands = p.operands;
  for (unsigned v = 1; v != p.cost.size(); ++v)
    if (operands[v].empty())
      operands[v].push_back(v - 1);
  return operands;
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

/// The least cost of a solution of the interval program `steps` by
/// enumeration of every value's state at every step (neither, live,
/// executed in the step's window; live and executed together is never
/// cheaper than live alone); infinity if none. Each step's own program
/// holds with recomputed(v) at most "not live and executed in a window
/// from the step on": the largest such set closed under the operands.
double enumerateIntervals(const std::vector<IntervalStep> &steps) {
  unsigned m = steps.front().program.cost.size(), k = steps.size();
  std::vector<unsigned> state(m * k, 0); // state[j * m + v]
  double best = std::numeric_limits<double>::infinity();
  auto at = [&](unsigned j, unsigned v) { return state[j * m + v]; };
  while (true) {
    bool ok = true;
    double cost = 0;
    for (unsigned j = 0; j != k && ok; ++j) {
      const IntervalStep &step = steps[j];
      const StepProgram &p = step.program;
      int64_t bytes = 0;
      std::vector<bool> recomputed(m, false);
      for (unsigned v = 0; v != m && ok; ++v) {
        unsigned s = at(j, v);
        if (step.readInWindow[v] && s == 0)
          ok = false;
        if (s == 1)
          bytes += p.bytes[v];
        if (s == 1 && j != 0 && steps[j - 1].relevant[v] && step.relevant[v] &&
            at(j - 1, v) == 0)
          ok = false;
        if (s == 2) {
          ok = ok && !p.pinned[v];
          cost += p.cost[v];
          for (unsigned u : p.operands[v])
            ok = ok && at(j, u) != 0;
        }
        for (unsigned i = j; i != k && s != 1 && !p.pinned[v]; ++i)
          recomputed[v] = recomputed[v] || at(i, v) == 2;
      }
      // The step's own rows with the largest closed recomputed set.
      for (bool changed = true; changed;) {
        changed = false;
        for (unsigned v = 0; v != m; ++v)
          for (unsigned u : p.operands[v])
            if (recomputed[v] && at(j, u) != 1 && !recomputed[u]) {
              recomputed[v] = false;
              changed = true;
            }
      }
      for (unsigned v = 0; v != m; ++v)
        ok = ok && (!p.needed[v] || at(j, v) == 1 || recomputed[v]);
      ok = ok && bytes <= p.cap;
    }
    if (ok)
      best = std::min(best, cost);
    unsigned i = 0;
    while (i != m * k && state[i] == 2)
      state[i++] = 0;
    if (i == m * k)
      break;
    ++state[i];
  }
  return best;
}

/// Two interval steps over 3-5 values (`iter` picks the count): the same
/// costs, bytes and operands; different needed, pinned and relevant values
/// and caps. A value a step does not concern is neither needed nor executed
/// after it (as LowerBound.cpp builds them); a value read in the window is
/// needed at the step.
std::vector<IntervalStep> randomIntervalSteps(std::mt19937 &rng,
                                              unsigned iter) {
  StepProgram a = randomProgram(rng, 3 + iter % 3);
  std::vector<std::vector<unsigned>> operands = operandsForEveryValue(a);
  std::vector<IntervalStep> steps(2);
  steps[0].program = a;
  steps[1].program = otherStep(rng, a, operands);
  for (IntervalStep &step : steps) {
    StepProgram &p = step.program;
    for (unsigned v = 0; v != a.cost.size(); ++v) {
      step.relevant.push_back(p.needed[v] ||
                              std::uniform_int_distribution<int>(0, 3)(rng));
      step.readInWindow.push_back(
          p.needed[v] && std::uniform_int_distribution<int>(0, 1)(rng));
      if (!step.relevant[v]) {
        p.pinned[v] = true;
        p.operands[v].clear();
      }
    }
  }
  return steps;
}

/// Checks the best solution of `r`, reported step by step (`live`,
/// `executed`), against the rows of the interval program `steps` (not
/// against the solver's own view of them): its executions cost what it
/// says and are listed in `recomputed`; a value read in a window is live at
/// its step or executed in the window; an execution's operands are live at
/// the step or executed in the same window, never of a pinned value; a
/// value live at a step and concerned by the one before was live there or
/// executed in its window; the live values fit each cap; and each needed
/// value is live or executed in a window from its step on, with operands
/// the same way (the step's own rows).
void expectIntervalSolution(const std::vector<IntervalStep> &steps,
                            const StepProgramResult &r, unsigned iter) {
  unsigned m = steps.front().program.cost.size(), k = steps.size();
  const StepProgram &a = steps.front().program;
  ASSERT_EQ(r.live.size(), k) << "pair " << iter;
  ASSERT_EQ(r.executed.size(), k) << "pair " << iter;
  double paid = 0;
  for (unsigned j = 0; j != k; ++j) {
    const StepProgram &p = steps[j].program;
    int64_t bytes = 0;
    std::vector<bool> recomputed(m, false);
    for (unsigned v = 0; v != m; ++v) {
      bool live = r.live[j][v], executed = r.executed[j][v];
      paid += executed ? a.cost[v] : 0;
      bytes += live ? a.bytes[v] : 0;
      EXPECT_TRUE(!executed || r.recomputed[v])
          << "pair " << iter << " step " << j << " value " << v;
      if (steps[j].readInWindow[v]) {
        EXPECT_TRUE(live || executed)
            << "pair " << iter << " step " << j << " value " << v;
      }
      if (executed) {
        EXPECT_FALSE(p.pinned[v]) << "pair " << iter << " value " << v;
        for (unsigned u : p.operands[v])
          EXPECT_TRUE(r.live[j][u] || r.executed[j][u])
              << "pair " << iter << " step " << j << " operand " << u;
      }
      if (live && j > 0 && steps[j - 1].relevant[v] && steps[j].relevant[v]) {
        EXPECT_TRUE(r.live[j - 1][v] || r.executed[j - 1][v])
            << "pair " << iter << " step " << j << " value " << v;
      }
      for (unsigned i = j; i != k && !live && !p.pinned[v]; ++i)
        recomputed[v] = recomputed[v] || r.executed[i][v];
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned v = 0; v != m; ++v)
        for (unsigned u : p.operands[v])
          if (recomputed[v] && !r.live[j][u] && !recomputed[u]) {
            recomputed[v] = false;
            changed = true;
          }
    }
    for (unsigned v = 0; v != m; ++v)
      if (p.needed[v]) {
        EXPECT_TRUE(r.live[j][v] || recomputed[v])
            << "pair " << iter << " step " << j << " needed " << v;
      }
    EXPECT_LE(bytes, p.cap) << "pair " << iter << " step " << j;
  }
  EXPECT_NEAR(paid, r.solutionCost, 1e-9) << "pair " << iter;
}

/// Checks `r`, the result of one program or of joint programs whose values
/// cost `cost`, against `optimum`, the least cost of their enumerated
/// solutions (infinity: none, and then `r` has no solution): its bound
/// never above the optimum, its solution never below it and costing what
/// it says, and the bound the optimum where `r` is optimal. `feasible`
/// counts the programs with a solution, `solved` the optimal results.
void checkAgainstOptimum(const std::optional<StepProgramResult> &r,
                         double optimum, const std::vector<double> &cost,
                         const std::string &what, unsigned &feasible,
                         unsigned &solved) {
  if (optimum == std::numeric_limits<double>::infinity()) {
    // No solution: no bound, or one from a node that could not be solved;
    // never a solution.
    EXPECT_TRUE(!r || r->solutionCost < 0) << what;
    return;
  }
  ++feasible;
  ASSERT_TRUE(r) << what;
  EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << what;
  if (r->solutionCost >= 0) {
    EXPECT_GE(r->solutionCost, optimum - 1e-9) << what;
    double paid = 0;
    for (unsigned v = 0; v != cost.size(); ++v)
      paid += r->recomputed[v] ? cost[v] : 0;
    EXPECT_DOUBLE_EQ(paid, r->solutionCost) << what;
  }
  if (r->optimal) {
    ++solved;
    EXPECT_NEAR(r->bound, optimum, 1e-6 * (1 + optimum)) << what;
  }
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
    ASSERT_NO_FATAL_FAILURE(checkAgainstOptimum(
        r, optimum, p.cost, "program " + std::to_string(iter), feasible,
        solved));
    if (optimum == std::numeric_limits<double>::infinity())
      continue;
    if (r->optimal) {
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
    Graph g = test::makeEnumerableGraph(rng, iter);
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
    std::vector<std::vector<unsigned>> operands = operandsForEveryValue(a);
    StepProgram b = otherStep(rng, a, operands);
    double optimum = enumerateJoint(a, b);
    std::optional<StepProgramResult> r = solveJointStepProgram({a, b}, 10);
    ASSERT_NO_FATAL_FAILURE(checkAgainstOptimum(
        r, optimum, a.cost, "pair " + std::to_string(iter), feasible, solved));
    if (optimum == std::numeric_limits<double>::infinity())
      continue;
    above += optimum > std::max(enumerate(a), enumerate(b)) + 1e-9;
  }
  EXPECT_GT(feasible, 60u);
  EXPECT_GT(solved, feasible * 9 / 10) << "of " << feasible;
  EXPECT_GT(above, 0u) << "of " << feasible;
}

TEST(StepProgramTest, JointStepsNeverAboveExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Joint steps (`LowerBoundOptions::jointExactSteps`), each value paid
  // once, against the bound without them, on 80 graphs.
  LowerBoundOptions on = plainBoundOptions(), off = plainBoundOptions();
  on.jointExactSteps = 4;
  on.intervalSteps = false;
  expectRaisedBelowExhaustiveOptimum(97, 80, on, off);
}

TEST(StepProgramTest, ReportedBoundHasJointSteps) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // The bound the planner attaches to its plan (`boundSeconds`) has joint
  // exact steps: at the first 4 budgets of JointStepsNeverAboveExhaustive-
  // Optimum's graphs where they raise the library's default bound, the
  // reported bound is the raised one.
  std::mt19937 rng(97);
  LowerBoundOptions plain;
  plain.timeLimitSeconds = 60;
  LowerBoundOptions joint = plain;
  joint.jointExactSteps = 4;
  unsigned checked = 0;
  for (unsigned iter = 0; iter != 80 && checked != 4; ++iter) {
    Graph g = test::makeEnumerableGraph(rng, iter);
    std::vector<std::pair<int64_t, double>> points = test::allSchedules(g);
    auto [minPeak, maxPeak] = test::peakRange(points);
    for (int64_t budget = minPeak; budget <= maxPeak && checked != 4;
         ++budget) {
      double without = recomputeLowerBoundAnyOrder(g, budget, plain)
                           .recomputeCost;
      double with = recomputeLowerBoundAnyOrder(g, budget, joint).recomputeCost;
      if (with <= without * (1 + 1e-6))
        continue;
      PlannerOptions options;
      options.budget = budget;
      options.boundSeconds = 60;
      llvm::Expected<PlannerResult> r = planRematerialization(g, options);
      ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
      ASSERT_TRUE(r->plan.bound) << "graph " << iter << " budget " << budget;
      EXPECT_NEAR(r->plan.bound->recomputeCost, with, 1e-9 * (1 + with))
          << "graph " << iter << " budget " << budget;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);
}

TEST(StepProgramTest, IntervalNeverAboveTheEnumeratedOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // 200 random interval programs of two steps over 3-5 values (the same
  // costs, bytes and operands; different needed, pinned and relevant
  // values and caps) against the enumeration of every value's state at
  // both steps: the bound never above the optimum, the solution found
  // never below it, executing only values it lists and reported step by
  // step (`live`, `executed`), the optimum where
  // the search finished, and above the joint program's optimum (each value
  // paid once) on some.
  std::mt19937 rng(24680);
  unsigned feasible = 0, solved = 0, above = 0;
  for (unsigned iter = 0; iter != 200; ++iter) {
    std::vector<IntervalStep> steps = randomIntervalSteps(rng, iter);
    const StepProgram &a = steps.front().program;
    double optimum = enumerateIntervals(steps);
    std::optional<StepProgramResult> r = solveIntervalStepProgram(steps, 10);
    if (optimum == std::numeric_limits<double>::infinity()) {
      EXPECT_TRUE(!r || r->solutionCost < 0) << "pair " << iter;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r) << "pair " << iter;
    EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << "pair " << iter;
    if (r->solutionCost >= 0) {
      EXPECT_GE(r->solutionCost, optimum - 1e-9) << "pair " << iter;
      double listed = 0;
      for (unsigned v = 0; v != a.cost.size(); ++v)
        listed += r->recomputed[v] ? 2 * a.cost[v] : 0;
      EXPECT_LE(r->solutionCost, listed + 1e-9) << "pair " << iter;
      expectIntervalSolution(steps, *r, iter);
    }
    if (r->optimal) {
      ++solved;
      EXPECT_NEAR(r->bound, optimum, 1e-6 * (1 + optimum)) << "pair " << iter;
      EXPECT_NEAR(r->solutionCost, optimum, 1e-9) << "pair " << iter;
    }
    std::optional<StepProgramResult> joint = solveJointStepProgram(
        {steps[0].program, steps[1].program}, 10);
    above += joint && joint->optimal &&
             optimum > joint->solutionCost * (1 + 1e-6) + 1e-9;
  }
  EXPECT_GT(feasible, 60u);
  EXPECT_GT(solved, feasible * 9 / 10) << "of " << feasible;
  EXPECT_GT(above, 0u) << "of " << feasible;
}

TEST(StepProgramTest, IntervalHeuristicsAgainstTheEnumeratedOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // The primal heuristics that run under a node limit (roundings at a
  // half, the local search over held sets with its trades, the dive from
  // the root; WindowLowering.h's callers) on 300 random interval programs
  // of two steps (every needed value read in a window from its step on)
  // against the enumeration of every value's state: with 1 or 2 split
  // nodes, every solution they report satisfies the program's rows step by
  // step and costs at least the optimum, the bound stays at most the
  // optimum, they find a solution on most feasible programs and the
  // optimum on more than 7/8 of those (134 of 160 with the tree's
  // roundings alone, 149 of 161 with the heuristics).
  std::mt19937 rng(97531);
  unsigned feasible = 0, found = 0, optimal = 0;
  for (unsigned iter = 0; iter != 300; ++iter) {
    std::vector<IntervalStep> steps = randomIntervalSteps(rng, iter);
    // As LowerBound.cpp builds them: a value needed at a step (read after
    // it) is read in its window or needed at the next step; the last
    // window runs to the end.
    for (unsigned v = 0; v != steps[0].readInWindow.size(); ++v) {
      steps[1].readInWindow[v] = steps[1].program.needed[v];
      if (steps[0].program.needed[v] && !steps[1].program.needed[v])
        steps[0].readInWindow[v] = true;
    }
    double optimum = enumerateIntervals(steps);
    unsigned maxNodes = 1 + iter % 2;
    std::optional<StepProgramResult> r =
        solveIntervalStepProgram(steps, 10, maxNodes);
    if (optimum == std::numeric_limits<double>::infinity()) {
      EXPECT_TRUE(!r || r->solutionCost < 0) << "pair " << iter;
      continue;
    }
    ++feasible;
    ASSERT_TRUE(r) << "pair " << iter;
    EXPECT_LE(r->nodes, maxNodes) << "pair " << iter;
    EXPECT_LE(r->bound, optimum * (1 + 1e-9) + 1e-9) << "pair " << iter;
    if (r->solutionCost < 0)
      continue;
    ++found;
    EXPECT_GE(r->solutionCost, optimum - 1e-9) << "pair " << iter;
    expectIntervalSolution(steps, *r, iter);
    optimal += r->solutionCost <= optimum + 1e-9;
  }
  EXPECT_GT(feasible, 100u);
  EXPECT_GT(found, feasible * 9 / 10) << "of " << feasible;
  EXPECT_GT(optimal, found * 7 / 8) << "of " << found;
}

TEST(StepProgramTest, IntervalStepsNeverAboveExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Joint steps with each window paid for its executions
  // (`LowerBoundOptions::intervalSteps`) against the bound without joint
  // steps, on 80 graphs. It does not isolate where a window ends (windows
  // that all run to the end, an invalid bound, still pass here).
  LowerBoundOptions on = plainBoundOptions(), off = plainBoundOptions();
  on.jointExactSteps = 4;
  on.intervalSteps = true;
  expectRaisedBelowExhaustiveOptimum(97, 80, on, off);
}

TEST(StepProgramTest, OverflowStepsNeverAboveExhaustiveOptimum) {
  if (!stepProgramAvailable())
    GTEST_SKIP() << "built without CBC/CLP";
  // Joint interval steps (8) where a step of the largest overflow joins
  // the program when the lowered cut peaks at a step already in
  // (`LowerBoundOptions::jointOverflowSteps`) against the loop that stops
  // there, on 200 graphs.
  LowerBoundOptions on = plainBoundOptions(), off = plainBoundOptions();
  on.jointExactSteps = off.jointExactSteps = 8;
  on.intervalSteps = off.intervalSteps = true;
  on.jointOverflowSteps = true;
  off.jointOverflowSteps = false;
  expectRaisedBelowExhaustiveOptimum(97, 200, on, off);
}

} // namespace
