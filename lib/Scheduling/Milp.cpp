//===- Milp.cpp - Exact rematerialization by mixed-integer programming ----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Builds the MILP described in Milp.h, solves it with CBC's C interface,
/// lowers the recompute decisions to a Schedule and checks it with simulate.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Milp.h"
#include "MilpBuilder.h"
#include "MilpRepair.h"
#include "remat/Scheduling/CaseSplitBound.h"
#include "remat/Scheduling/CutLowering.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/ForwardRebuild.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/MilpCases.h"
#include "remat/Scheduling/MilpClaims.h"
#include "remat/Scheduling/MilpLarge.h"
#include "remat/Scheduling/MilpNeighbourhood.h"
#include "remat/Scheduling/MilpWindows.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#ifdef REMAT_HAVE_CBC
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinFinite.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#endif

using namespace remat::sched;

bool remat::sched::milpOutsideStageModel(const Schedule &s) {
  for (const std::vector<unsigned> &list : s.recomputeBefore)
    for (size_t i = 1; i < list.size(); ++i)
      if (list[i - 1] >= list[i])
        return true;
  return false;
}

// On forward-only graphs (every node a stage) the knapsack rows were
// measured to cost the search its plans and to give no proof
// (random_layered_n100 at 0.8 of store-all, quiet machine, 60 s: CBC's own
// 3.39% plan and a 37.4% gap after 2,387 nodes without them, only the warm
// start's 6.36% and 67.4% after 232 nodes with them; at 0.9 1.37% and 50.2%
// either way; lead, 2026-11-24, bench/milp-results.md).
bool remat::sched::milpKnapsackRowsApply(const Graph &graph) {
  return !graph.isForwardOnly();
}

std::optional<std::string>
remat::sched::milpForwardFirstViolation(const Graph &graph) {
  unsigned n = graph.size(), f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return "milp: forward node '" + graph.nodes[v].name +
             "' follows a backward node; the stage model needs the forward "
             "pass first";
  return std::nullopt;
}

bool remat::sched::milpAvailable() {
#ifdef REMAT_HAVE_CBC
  return true;
#else
  return false;
#endif
}

#ifdef REMAT_HAVE_CBC
using namespace remat::sched::detail;

namespace {

std::string formatDetail(const SolverStats &stats, bool peakMode) {
  char buf[256];
  const char *unit = peakMode ? " B" : "";
  if (stats.optimal)
    std::snprintf(buf, sizeof(buf), "optimal (%s %.6g%s, %.2f s of %.0f s%s)",
                  peakMode ? "peak" : "recompute cost", stats.objective, unit,
                  stats.seconds, stats.timeLimitSeconds,
                  stats.warmStarted ? ", warm start" : "");
  else
    std::snprintf(buf, sizeof(buf),
                  "feasible, gap %.2f%% (%s %.6g%s, bound %.6g%s, %.2f s of "
                  "%.0f s%s)",
                  stats.gapPercent, peakMode ? "peak" : "recompute cost",
                  stats.objective, unit, stats.bound, unit, stats.seconds,
                  stats.timeLimitSeconds,
                  stats.warmStarted ? ", warm start" : "");
  return buf;
}

} // namespace
#endif

/// CBC's node limits for each solve of the repair to a budget
/// (`repairToBudget`) and of the sweeps that lower the repaired plan's
/// recompute (`cutRepairedRecompute`) in `milpOptimal`, both without CBC's
/// cuts. random_layered_n100 (load 3, 60 s): at 0.7 of store-all 10.59% of
/// the forward cost with sweeps of 100, 200 or 400 nodes; at 0.6 86.24%
/// with 100 (sweeps converged within 60 s), 226.43% with 400 (time out).
constexpr int64_t kRepairNodes = 50, kSweepNodes = 100;

/// Where CBC may leave its plan unproven and the search over the
/// recomputable set (MilpNeighbourhood.h) applies (a warm start within the
/// budget), work limits decide what runs, so that the plan does not depend
/// on the machine's load: CBC's first solve stops after
/// kCbcNodesBeforeSearch branch-and-bound nodes (the 37 of 42 rows CBC or
/// the bound proves need none), the search from its plan makes at most
/// kSearchMoves moves of MilpNeighbourhoodOptions::moveNodes nodes each,
/// and CBC resumes after it, cut off at the plan, for at most
/// kCbcNodesAfterSearch nodes. Seconds are a safety cap on each, reported
/// in the detail where one fires: CBC's first solve gets at most half of
/// the time left (less the case split's reserve), the search and the
/// resumed CBC what is left. At 60 s (rfx, bench/milp-results.md, loaded):
/// resnet_n4 at 0.4 of store-all 29.56 -> 23.42% of the forward cost (the
/// stage model's optimum; the search's last improving move was its 15th),
/// random_layered_n100 at 0.8 / 0.9 2.30 / 0.79% (its 13th and 1st).
constexpr int64_t kCbcNodesBeforeSearch = 200, kCbcNodesAfterSearch = 200;
constexpr unsigned kSearchMoves = 16;
/// The share of the time left (less the split's reserve) that caps CBC's
/// first solve where the search applies.
constexpr double kCbcShareBeforeSearch = 0.5;

/// The time kept from CBC for the case split (CaseSplitBound.h), in time
/// limits of the bound, at most a third of the time left. A case costs up
/// to 1 + 2p such limits: its capped LowerBound, and for each of its p
/// bounds by executions forced late (p = 1 for the root's first case, 0
/// for its second, up to 2 below the root) a head graph's LowerBound and
/// interval programs that share one more limit; the tree cuts every
/// call's limit to what is left of its seconds (`CaseSplitOptions::
/// seconds`, nine tenths of the reserve, clipped to the call's time left),
/// so the reserve covers the root's two cases (4 limits) and cases below
/// them as far as it lasts, and the lowering of the first case's solution
/// gets what is left of it (the calls may overrun their limits a little).
constexpr double kCaseSplitBounds = 9;
/// At most this many cases of the split's tree are bounded
/// (`CaseSplitOptions::maxCaseBounds`), the root's two included. resnet_n4
/// at 0.4 of store-all: the root's first case 22.96% of the forward, its
/// split on the plan's next costliest node (the stem's batch norm, at most
/// once more or at least twice) 23.08-23.12% (both executions forced after step
/// 83 there) and 24.24-24.36%; 6 more cases on the plan's next nodes raised
/// nothing (bench/milp-results.md, n100s).
constexpr unsigned kCaseSplitCases = 4;
/// The gap (a fraction of the plan's cost) below which the case tree's
/// leaves are solved by CBC (MilpCases.h), and the share of the time the
/// search over the recomputable set would get that they get after CBC's
/// main solve. random_layered_n100 at 0.8 of store-all: CBC's plan 1,105
/// units against its bound 1,007.7 (8.8%); the leaves find the optimum
/// 1,097 and close in 4 solves, 54 nodes. At 0.9: the search's 377 units
/// against CBC's 326 (13.5%); the leaves close in 4 solves, 84 nodes
/// (rn4s, bench/milp-results.md). Of the 42 rows of bench/milp-rows.sh,
/// every other one CBC leaves unproven is above 20% after its main solve.
constexpr double kMilpCasesGap = 0.20, kMilpCasesShare = 0.5;

#ifdef REMAT_HAVE_CBC
/// Whether `bound` reaches `objective` (within a relative 1e-9): a proof
/// that the plan of that objective is optimal.
static bool boundMeets(double bound, double objective) {
  return bound >= objective - 1e-9 * std::max(1.0, std::fabs(objective));
}

/// The search over the recomputable set (MilpNeighbourhood.h) from
/// `result`'s plan (not proven, in the stage model), within `seconds` (a
/// safety cap), with the values `hints` executes after the forward pass as
/// candidates. Where it found a plan that simulates below `result`'s
/// objective (its simulated cost), that plan replaces `result`'s, with its
/// claims recomputed, and `taken` is set. Returns what the search did
/// (none where it did not run).
static std::optional<MilpNeighbourhoodResult>
tryNeighbourhoodSearch(const Graph &graph, int64_t budgetBytes, double seconds,
                       bool knapsackRows, const IntervalSolution &hints,
                       SolveOutcome &result, bool &taken) {
  MilpNeighbourhoodOptions search;
  search.seconds = seconds;
  search.maxMoves = kSearchMoves;
  search.knapsackRows = knapsackRows;
  for (const std::vector<unsigned> &executed : hints.executed)
    llvm::append_range(search.hintValues, executed);
  std::optional<MilpNeighbourhoodResult> found =
      milpNeighbourhoodSearch(graph, budgetBytes, result.schedule, search);
  if (!found)
    return std::nullopt;
  if (milpTestHooks().onNeighbourhoodSearch)
    milpTestHooks().onNeighbourhoodSearch(*found);
  if (found->improvements > 0 &&
      found->sim.recomputeCost < result.objective - 1e-9) {
    result.schedule = found->schedule;
    result.objective = found->sim.recomputeCost;
    result.bound = std::min(result.bound, result.objective);
    result.optimal = boundMeets(result.bound, result.objective);
    result.gapPercent = detail::gapPercent(result.objective, result.bound);
    taken = true;
  }
  return found;
}

/// The case tree's leaves solved by CBC (MilpCases.h) on `result`'s plan
/// (not proven, in the stage model), within `seconds` (a safety cap): the
/// leaves of `split` where given, else one leaf of the whole model, each
/// bounded by at least `result`'s bound. Where a leaf found a plan below
/// `result`'s objective (its simulated cost) that plan replaces it and
/// `taken` is set; the bound rises to the least over the open leaves, and
/// the plan is optimal when every leaf closed. Returns what the proof did
/// (none where it did not run).
static std::optional<MilpCasesResult>
tryCaseProof(const Graph &graph, int64_t budgetBytes, double seconds,
             bool knapsackRows, const CaseSplitBound *split,
             SolveOutcome &result, bool &taken) {
  std::vector<CaseSplitLeaf> leaves;
  if (split)
    leaves = split->cases;
  if (leaves.empty())
    leaves.push_back(CaseSplitLeaf{{}, result.bound});
  for (CaseSplitLeaf &leaf : leaves)
    leaf.bound = std::max(leaf.bound, result.bound);
  MilpCasesOptions options;
  options.seconds = seconds;
  options.knapsackRows = knapsackRows;
  std::optional<MilpCasesResult> cases =
      milpCaseProof(graph, budgetBytes, result.schedule, leaves, options);
  if (!cases)
    return std::nullopt;
  if (milpTestHooks().onCaseProof)
    milpTestHooks().onCaseProof(*cases);
  if (cases->sim.recomputeCost < result.objective - 1e-9) {
    result.schedule = cases->schedule;
    result.objective = cases->sim.recomputeCost;
    taken = true;
  }
  result.bound =
      std::min(std::max(result.bound, cases->bound), result.objective);
  result.optimal = cases->proven || boundMeets(result.bound, result.objective);
  if (result.optimal)
    result.bound = result.objective;
  result.gapPercent = detail::gapPercent(result.objective, result.bound);
  return cases;
}
#endif

MilpTestHooks &remat::sched::milpTestHooks() {
  static MilpTestHooks hooks;
  return hooks;
}

/// Why a model goes to MilpLarge.h instead of CBC, for the plan's detail.
[[maybe_unused]] static std::string milpTooManyNonzeros(int64_t nonzeros) {
  return "model of " + std::to_string(nonzeros) + " nonzeros, more than the " +
         std::to_string(kMilpMaxNonzeros) + " solved whole";
}

std::optional<PlanResult>
remat::sched::milpOptimal(const Graph &graph, int64_t budgetBytes,
                          double timeLimitSeconds, std::string &note,
                          const Schedule *warmStart, MilpModel model,
                          bool rangeRows, bool costFixing, bool knapsackRows,
                          bool treeCuts, const std::string &dumpFile) {
#ifndef REMAT_HAVE_CBC
  (void)treeCuts;
  (void)dumpFile;
  (void)model;
  (void)rangeRows;
  (void)costFixing;
  (void)knapsackRows;
  (void)graph;
  (void)budgetBytes;
  (void)timeLimitSeconds;
  (void)warmStart;
  note = "milp: remat was built without CBC (coinor-libcbc-dev)";
  return std::nullopt;
#else
  if (std::optional<std::string> err = graph.validate()) {
    note = "milp: malformed graph: " + *err;
    return std::nullopt;
  }
  unsigned n = graph.size();
  bool compact = model == MilpModel::Compact;
  unsigned maxNodes = compact ? kMilpMaxNodes : kMilpDenseMaxNodes;
  // Too large to solve whole: the compact model searches windows of stages
  // inside the warm start (MilpWindows.h), or repairs the least-peak plan
  // to the budget or towards a lower peak (MilpLarge.h); the dense model
  // declines.
  bool large = n > maxNodes && compact;
  if (n > maxNodes && !large) {
    note = "milp: graph has " + std::to_string(n) + " nodes, more than the " +
           std::to_string(maxNodes) + " the exact solver accepts";
    return std::nullopt;
  }
  if (graph.isForwardOnly() && !compact) {
    note = "milp: the dense model needs a training step (forward and "
           "backward nodes); the graph is forward-only";
    return std::nullopt;
  }
  if (std::optional<std::string> late = milpForwardFirstViolation(graph)) {
    note = *late;
    return std::nullopt;
  }
  unsigned f = 0; // The number of forward nodes (all first).
  while (f < n && !graph.nodes[f].backward)
    ++f;
  if (large)
    return milpLargePlan(graph, budgetBytes, timeLimitSeconds, warmStart,
                         "graph of " + std::to_string(n) +
                             " nodes, more than the " +
                             std::to_string(maxNodes) + " solved whole",
                         note);

  auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    return timeLimitSeconds -
           std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
               .count();
  };
  // The model too large to solve whole: MilpLarge.h with the time left,
  // reporting the whole call's time against the whole limit.
  auto largePlan = [&](int64_t budget, int64_t nonzeros) {
    MilpLargeOptions options;
    double rest = std::max(0.0, left());
    options.spentSeconds = timeLimitSeconds - rest;
    return milpLargePlan(graph, budget, rest, warmStart,
                         milpTooManyNonzeros(nonzeros), note, options);
  };
  MilpBuilder builder(graph, f, compact);
  builder.costFixing = costFixing;
  builder.knapsackRows = knapsackRows && milpKnapsackRowsApply(graph);
  builder.treeCuts = treeCuts;
  PlanResult plan;
  plan.strategy = strategy::kMilp;
  SolverStats stats;
  stats.timeLimitSeconds = timeLimitSeconds;
  stats.warmStarted = warmStart != nullptr;
  bool peakMode = budgetBytes <= 0;
  bool optimal = true, leastPeakOnly = false;
  double gap = 0;
  int64_t budget = budgetBytes;
  SolveOutcome result;
  // The warm start: its objective is CBC's cutoff (the search only explores
  // what can beat it), and it is returned when CBC finds nothing better in
  // time, with CBC's bound. (Handing it to CBC as a MIP start instead made
  // CBC keep it: 96 against 25 recompute on a 35-node graph at 10 s.)
  std::optional<SimResult> warmSim;
  if (warmStart) {
    SimResult sim;
    if (!simulate(graph, *warmStart, sim))
      warmSim = sim;
  }
  auto declineSize = [&](const SolveOutcome &out) {
    if (!out.tooLargeNonzeros)
      return false;
    note = "milp: the model has " + std::to_string(out.tooLargeNonzeros) +
           " nonzeros (" + std::to_string(out.tooLargeRows) +
           " rows), more than the " + std::to_string(kMilpMaxNonzeros) +
           " CBC is given (building and loading it alone would take "
           "seconds and hundreds of megabytes)";
    return true;
  };
  auto keepWarm = [&](SolveOutcome &out, double warmObjective,
                      bool cutoffUsed) {
    if (out.found && out.objective <= warmObjective + 1e-9)
      return;
    // With the cutoff, a proof that nothing fits proves the start optimal.
    if (cutoffUsed && out.infeasible)
      out.bound = warmObjective;
    out.found = true;
    out.infeasible = false;
    out.schedule = *warmStart;
    out.objective = warmObjective;
    out.bound = std::min(out.bound, warmObjective);
    // Only a search that ended proves the start optimal (a bound at the
    // cutoff from one cut short is what an LP stopped on time leaves;
    // LowerBound's bound meeting the start is handled before CBC runs).
    out.optimal = out.finished && out.bound >= warmObjective - 1e-9;
    out.gapPercent = gapPercent(out.objective, out.bound);
    stats.fromWarmStart = true;
  };
  // Lower bounds (LowerBound.h) hold for every schedule of remat's model,
  // so for every solution of the MILP: they become objective rows and
  // floors of the reported bound, and where one reaches the warm start's
  // objective it proves the warm start optimal without CBC (`boundMeets`).
  // With whole node costs, bounds round up to a whole cost (wholeCostBound).
  std::vector<double> nodeCosts;
  for (const Node &node : graph.nodes)
    nodeCosts.push_back(node.cost);
  LowerBoundOptions boundOptions;
  boundOptions.timeLimitSeconds =
      std::max(0.01, std::min(2.0, timeLimitSeconds / 10));
  // Joint exact steps whose windows pay for what they execute
  // (`LowerBoundOptions::intervalSteps`): a value recomputed after the
  // bound's step and dropped again before a later step it is read after is
  // paid twice. Within the same 2 s, at 0.4 of store-all (milp18,
  // bench/milp-results.md): gpt_l2 56.06 -> 70.47% of the forward cost
  // (the plan, 79.82%, recomputes its 2.1M-flop MLP matmul twice),
  // MobileNet 13.88 -> 14.46% (plan 14.50%), VGG U-Net 36.02 -> 43.05%.
  boundOptions.jointExactSteps = kMilpBoundJointSteps;
  boundOptions.intervalSteps = true;
  bool byBound = false;
  // A plan repaired to the budget (forward-only graphs, repairToBudget).
  Schedule repaired;
  unsigned repairSolves = 0;
  bool byRepair = false;
  // The repair started from the perturbed drop-mode search's plan, within
  // the budget.
  bool perturbedSeed = false;
  // A plan lowered from the lower bound's cut (CutLowering.h).
  Schedule cutPlan;
  bool byCut = false, byWindows = false;
  // The case split's bound and plan (CaseSplitBound.h), when it ran.
  std::optional<CaseSplitBound> split;
  bool bySplit = false, splitDiscarded = false;
  // The plan came from the search over the recomputable set.
  bool byNeighbourhood = false, resumedCbc = false, resumedCbcPlan = false;
  // What the search over the recomputable set did, for the detail.
  std::optional<MilpNeighbourhoodResult> searchRan;
  // CBC's nodes before the search started (its first solve).
  int64_t searchStartNodes = 0;
  // CBC's first solve (where the search applies) and its resumed one
  // stopped by their time caps instead of their node limits; the resumed
  // one's nodes.
  bool firstCbcTimed = false, resumedCbcTimed = false;
  int64_t resumedCbcNodes = 0;
  // What the case tree's leaves solved by CBC did (MilpCases.h), and
  // whether a leaf's plan was taken.
  std::optional<MilpCasesResult> cases;
  bool byCases = false;
  int64_t mismatchPeak = -1; // CBC's plan failed the simulator check.
  // A bound of remat's whole schedule model (LowerBound.h, the operand-order
  // bound), in the objective's units: what is reported for a plan outside
  // the stage model, where CBC's bounds and proofs do not reach.
  double wholeBound = 0;
  bool recomputeByBound = false;
  if (peakMode) {
    std::optional<double> cutoff;
    if (warmSim)
      cutoff = double(warmSim->peakBytes);
    double peakBound = double(
        std::max(leastPeakLowerBound(graph), forwardLeastPeakBound(graph)));
    wholeBound = peakBound;
    SolveOutcome least;
    if (cutoff && boundMeets(peakBound, *cutoff)) {
      least.infeasible = true; // Nothing beats the warm start.
      least.finished = true;   // Proved by the bound, no search needed.
      byBound = true;
    } else {
      builder.mpsFile = dumpFile;
      least = builder.solve(/*peakMode=*/true, 0, left() * 2 / 3, cutoff,
                            peakBound);
      builder.mpsFile.clear();
      stats.nodes += least.nodes;
    }
    // Too large to solve whole: the descent of MilpLarge.h from the warm
    // start (forward-min-peak's plan on a forward-only graph).
    if (least.tooLargeNonzeros && compact &&
        (warmStart || graph.isForwardOnly()))
      return largePlan(0, least.tooLargeNonzeros);
    if (declineSize(least))
      return std::nullopt;
    if (warmSim)
      keepWarm(least, double(warmSim->peakBytes), true);
    if (!least.found) {
      note = "milp: no solution within the time limit";
      return std::nullopt;
    }
    SimResult sim;
    if (std::optional<std::string> err = simulate(graph, least.schedule, sim)) {
      note = "milp: invalid schedule: " + *err;
      return std::nullopt;
    }
    // The objective is the simulated peak (CBC's P can sit a tolerance
    // below it, e.g. 47.99999995 for 48 bytes).
    optimal = least.optimal;
    budget = sim.peakBytes;
    stats.objective = double(sim.peakBytes);
    stats.bound = std::min(least.bound, stats.objective);
    if (optimal)
      stats.bound = stats.objective;
    gap = gapPercent(stats.objective, stats.bound);
    result = std::move(least);
    // Then the least recompute at that peak, if time is left (cut off at the
    // least-peak plan's recompute).
    bool recomputeOptimal = false;
    LowerBound atPeak = recomputeLowerBound(graph, budget, boundOptions);
    atPeak.recomputeCost = wholeCostBound(nodeCosts, atPeak.recomputeCost);
    if (boundMeets(atPeak.recomputeCost, sim.recomputeCost)) {
      recomputeOptimal = true; // The bound proves nothing is cheaper.
      recomputeByBound = true;
    } else if (left() > 0.05) {
      SolveOutcome cheap = builder.solve(
          false, budget, left(), sim.recomputeCost, atPeak.recomputeCost,
          rangeRows ? atPeak.ranges : std::vector<LowerBound::Range>());
      stats.nodes += cheap.nodes;
      SimResult cheapSim;
      if (cheap.found && !simulate(graph, cheap.schedule, cheapSim) &&
          cheapSim.peakBytes <= budget &&
          cheapSim.recomputeCost <= sim.recomputeCost + 1e-9) {
        result = std::move(cheap);
        recomputeOptimal = result.optimal;
        stats.fromWarmStart = false; // CBC's own plan now.
      } else if (cheap.infeasible) {
        recomputeOptimal = true; // Nothing cheaper at that peak.
      }
    }
    // The detail reports the peak solve; the recompute at that peak is
    // claimed least only if the second solve proved it.
    leastPeakOnly = optimal && !recomputeOptimal;
    optimal = optimal && recomputeOptimal;
  } else {
    std::optional<double> cutoff;
    if (warmSim && warmSim->peakBytes <= budgetBytes)
      cutoff = warmSim->recomputeCost;
    LowerBound bound = recomputeLowerBound(graph, budgetBytes, boundOptions);
    bound.recomputeCost = wholeCostBound(nodeCosts, bound.recomputeCost);
    if (bound.infeasible) {
      note = "milp: no schedule fits the budget of " +
             std::to_string(budgetBytes) +
             " bytes (proved): some step holds more whatever is recomputed "
             "(lower bound)";
      return std::nullopt;
    }
    // No plan within the budget on a forward-only graph whose whole model
    // is too large (random_layered_n250: 1.5M nonzeros): the repair of
    // MilpLarge.h, whose windows are kept small, instead of the one below
    // (whose windows of that graph found nothing in 4 s each).
    if (!cutoff && compact && graph.isForwardOnly()) {
      builder.sizeOnly = true;
      SolveOutcome probe = builder.solve(false, budgetBytes, left());
      builder.sizeOnly = false;
      if (probe.tooLargeNonzeros)
        return largePlan(budgetBytes, probe.tooLargeNonzeros);
    }
    // No plan within the budget on a forward-only graph: first ask whether
    // a few stages alone already need more (windowProvesInfeasible), with
    // a sixth of the time (they prove random_layered_n100 at 0.5 of
    // store-all in 1-2 s; the rest goes to the repair below).
    // The operand-order bound (ForwardRebuild.h) first: it holds in
    // remat's whole schedule model, the windows in the stage model only.
    if (!cutoff) {
      unsigned at = 0;
      int64_t orderBound = forwardLeastPeakBound(graph, &at);
      if (orderBound > budgetBytes) {
        note = "milp: no schedule fits the budget of " +
               std::to_string(budgetBytes) + " bytes (proved): node '" +
               graph.nodes[at].name + "' needs " + std::to_string(orderBound) +
               " bytes: whatever order its operands are made in, the last "
               "made needs its own operands with the others held "
               "(forwardLeastPeakBound)";
        return std::nullopt;
      }
    }
    if (!cutoff && compact) {
      if (std::optional<std::pair<unsigned, unsigned>> window =
              windowProvesInfeasible(graph, budgetBytes, left() / 6)) {
        note = "milp: no schedule fits the budget of " +
               std::to_string(budgetBytes) +
               " bytes (proved) in the stage model (a schedule outside it "
               "may fit): the stages of nodes '" +
               graph.nodes[window->first].name + "' to '" +
               graph.nodes[window->second].name +
               "' alone need more, whatever is kept entering them";
        return std::nullopt;
      }
    }
    // Still no plan within the budget on a forward-only graph: repair the
    // plan of forward-min-peak (or the warm start, if it peaks lower) stage
    // by stage (repairToBudget) with two thirds of the time left, then
    // lower its recompute (cutRepairedRecompute) with nine tenths of the
    // rest; the plan is the warm start of the search below (which on
    // random_layered_n100 at 0.6 and 0.7 of store-all never improved it).
    // Both search with CBC node limits (kRepairNodes, kSweepNodes), not
    // seconds per solve, so that the plan depends on the load only where
    // the time runs out: at 0.7 the plan was 19.08% or 56.13% of the
    // forward cost from run to run with 4 s per solve, 10.59% in every run
    // since (n100d, bench/milp-results.md).
    // A warm start outside the stage model (forward-min-peak's rebuilt
    // plans, ForwardRebuild.h: lists out of index order or with repeats)
    // meets the budget but recomputes much: the repair still runs, from
    // the drop-mode search's plan, and its plan is kept where cheaper
    // (random_layered_n100 at 0.7 of store-all: 19.08% against 160.68%).
    bool warmOutside =
        cutoff && graph.isForwardOnly() && milpOutsideStageModel(*warmStart);
    if ((!cutoff || warmOutside) && compact && graph.isForwardOnly() &&
        left() > 0.1) {
      ForwardDropSearch end;
      PlanResult seed =
          forwardOnlyMinPeak(graph, budgetBytes, /*rebuild=*/false, &end);
      // Where the drop-mode search misses the budget, the perturbed search
      // (ForwardOnly.h) gets a little time (it stops once within the
      // budget); its plan is the repair's seed only where within it
      // (random_layered_n100 at 0.7 of store-all: the sweeps then reach
      // 8.21% of the forward against 10.59%; at 0.6, where it misses, the
      // repair from its plan was worse, 232.75% against 86.24%).
      if (seed.sim.peakBytes > budgetBytes) {
        // Its work: what a quiet core does in about half of min(1/30 of the
        // time limit, 2 s) (forwardPerturbSteps), so that the seed does not
        // depend on the load; twice the time left's share is a safety cap.
        ForwardPerturbOptions perturb;
        perturb.maxSteps =
            forwardPerturbSteps(std::min(timeLimitSeconds / 30, 2.0));
        perturb.seconds = std::min(left() / 15, 4.0);
        perturb.from = &end;
        PlanResult q = forwardOnlyPerturbedSearch(graph, budgetBytes, perturb);
        if (q.sim.peakBytes <= budgetBytes) {
          seed = std::move(q);
          perturbedSeed = true;
        }
      }
      if (!warmOutside && warmSim && warmSim->peakBytes < seed.sim.peakBytes)
        seed.schedule = *warmStart;
      SimResult repairedSim;
      if (std::optional<Schedule> fixed =
              repairToBudget(graph, budgetBytes, std::move(seed.schedule),
                             left() * 2 / 3, repairSolves, kRepairNodes,
                             /*best=*/nullptr, /*candidateCap=*/0,
                             /*cuts=*/false)) {
        repaired = std::move(*fixed);
        cutRepairedRecompute(graph, budgetBytes, repaired, left() * 9 / 10,
                             repairSolves, kSweepNodes);
        if (!simulate(graph, repaired, repairedSim) &&
            repairedSim.peakBytes <= budgetBytes &&
            (!cutoff || repairedSim.recomputeCost < *cutoff)) {
          warmStart = &repaired;
          warmSim = repairedSim;
          cutoff = repairedSim.recomputeCost;
          stats.warmStarted = true;
          byRepair = true;
        }
      }
    }
    // The bound's joint interval solution lowered by windows, or its cut
    // lowered (CutLowering.h): where it is cheaper than the warm start
    // within the budget it becomes the warm start, and where it meets the
    // bound it is proven optimal without CBC (MobileNet at 0.4 of
    // store-all: the cut, 3,990 against auto's 4,000; VGG U-Net at 0.4:
    // the interval solution, 43.97% of the forward against 44.78%).
    auto lowerBoundPlan = [&] {
      if ((bound.cutRecomputed.empty() && bound.jointSolution.steps.empty()) ||
          (cutoff && boundMeets(bound.recomputeCost, *cutoff)))
        return;
      // Within a quarter of the time left (about 0.5 ms a lowering on
      // 300 nodes: the 20,000 tried at most would take seconds).
      CutLoweringOptions lowering;
      lowering.seconds = std::max(0.01, left() / 4);
      if (std::optional<CutLowering> lowered =
              lowerBoundWithinBudget(graph, budgetBytes, bound, lowering))
        if (!cutoff || lowered->sim.recomputeCost < *cutoff - 1e-9) {
          cutPlan = std::move(lowered->schedule);
          warmStart = &cutPlan;
          warmSim = lowered->sim;
          cutoff = lowered->sim.recomputeCost;
          stats.warmStarted = true;
          byCut = true;
          byWindows = lowered->byWindows;
          byRepair = false;
        }
    };
    lowerBoundPlan();
    // A bound close to the plan may be a proof its 2 s cut short: once
    // more with a sixth of the time limit (milpBoundRetrySeconds), and its
    // plans lowered again.
    if (cutoff) {
      double seconds = milpBoundRetrySeconds(
          timeLimitSeconds, left(), boundOptions.timeLimitSeconds,
          bound.recomputeCost, *cutoff, bound.cutShort);
      if (seconds > 0) {
        LowerBoundOptions longer = boundOptions;
        longer.timeLimitSeconds = seconds;
        LowerBound again = recomputeLowerBound(graph, budgetBytes, longer);
        again.recomputeCost = wholeCostBound(nodeCosts, again.recomputeCost);
        if (!again.infeasible && again.recomputeCost > bound.recomputeCost) {
          bound = std::move(again);
          lowerBoundPlan();
        }
      }
    }
    // The search over the recomputable set (MilpNeighbourhood.h) on a
    // plan CBC does not prove, from a cutoff (a warm start within the
    // budget): without one CBC gets the whole time.
    bool searchApplies = compact && cutoff.has_value();
    // Time kept from CBC for the case split below (training graphs with a
    // plan the bound does not prove): each case's LowerBound and the
    // lowering of the first case's solution. Not on forward-only graphs,
    // which caseSplitBound bounds too: on random_layered_n100 at 0.6-0.9
    // of store-all its trees raised no bound (the plans' costliest nodes
    // leave both cases at the plain bound, below CBC's at 0.8) and the
    // reserve cost CBC 13 s (n100s, bench/milp-results.md).
    double splitReserve = 0;
    if (cutoff && !boundMeets(bound.recomputeCost, *cutoff) &&
        !graph.isForwardOnly())
      splitReserve = std::min(
          kCaseSplitBounds * boundOptions.timeLimitSeconds + 0.5, left() / 3);
    if (cutoff && boundMeets(bound.recomputeCost, *cutoff)) {
      result.infeasible = true; // Nothing beats the warm start.
      result.finished = true;   // Proved by the bound, no search needed.
      byBound = true;
    } else {
      builder.mpsFile = dumpFile;
      // Where CBC may leave its plan unproven, it gets a share of the time
      // and the search over the recomputable set (MilpNeighbourhood.h) the
      // rest, which CBC resumes where the search ends early.
      double mainSeconds = left() - splitReserve;
      if (searchApplies) {
        mainSeconds *= kCbcShareBeforeSearch;
        builder.maxNodes = kCbcNodesBeforeSearch;
      }
      result = builder.solve(
          false, budgetBytes, mainSeconds, cutoff, bound.recomputeCost,
          rangeRows ? bound.ranges : std::vector<LowerBound::Range>());
      builder.mpsFile.clear();
      builder.maxNodes = -1;
      stats.nodes += result.nodes;
      // Under its node limit, stopped by the time cap instead: the search
      // then starts from a plan the load decided.
      firstCbcTimed =
          searchApplies && !result.finished && !result.stoppedOnLimit;
    }
    if (result.tooLargeNonzeros && compact &&
        (warmStart || graph.isForwardOnly())) {
      return largePlan(budgetBytes, result.tooLargeNonzeros);
    }
    if (declineSize(result))
      return std::nullopt;
    // CBC's plan must pass remat's simulator within the budget; one that
    // does not is a model mismatch, and then none of that solve's claims
    // count: the warm start (if any) is returned with LowerBound's bound.
    if (result.found) {
      SimResult check;
      if (simulate(graph, result.schedule, check) ||
          check.peakBytes > budgetBytes) {
        mismatchPeak = check.peakBytes;
        result = SolveOutcome();
        result.bound = bound.recomputeCost;
      }
    }
    if (cutoff)
      keepWarm(result, *cutoff, /*cutoffUsed=*/mismatchPeak < 0);
    if (milpTestHooks().unprovenSearch && result.found && !byBound) {
      result.optimal = false;
      result.bound = std::min(bound.recomputeCost, result.objective);
      result.gapPercent = gapPercent(result.objective, result.bound);
    }
    if (std::optional<double> slack = milpTestHooks().mainSolveWarmStart;
        slack && cutoff && !byBound && mismatchPeak < 0) {
      result = SolveOutcome();
      result.found = true;
      result.schedule = *warmStart;
      result.objective = *cutoff + *slack;
      result.bound = std::min(bound.recomputeCost, result.objective);
      result.gapPercent = gapPercent(result.objective, result.bound);
    }
    // The plan's simulated cost is its objective: CBC's, from an LP
    // solution integral within its tolerance, may sit off it.
    if (result.found) {
      SimResult planSim;
      if (!simulate(graph, result.schedule, planSim)) {
        result.objective = planSim.recomputeCost;
        result.bound = result.optimal
                           ? result.objective
                           : std::min(result.bound, result.objective);
        result.gapPercent =
            result.optimal ? 0 : gapPercent(result.objective, result.bound);
      }
    }
    // Not proven with a small gap: the case tree's leaves solved by CBC
    // (MilpCases.h), once, at the first of: after CBC's main solve, within
    // a share of the time the search would get (the search, CBC's resume
    // and the split then run only where it leaves the plan unproven); after
    // the search, within the time CBC's resume would get; after the split,
    // within the time left.
    double caseGap = milpTestHooks().caseProofGap.value_or(
        milpTestHooks().unprovenSearch || milpTestHooks().mainSolveWarmStart
            ? 0
            : kMilpCasesGap);
    auto caseProof = [&](double seconds, const CaseSplitBound *tree) {
      if (cases || !compact || !result.found || result.optimal || byBound ||
          mismatchPeak >= 0 || seconds < 1 ||
          result.objective - result.bound >= caseGap * result.objective ||
          milpOutsideStageModel(result.schedule))
        return;
      cases = tryCaseProof(graph, budgetBytes, seconds, builder.knapsackRows,
                           tree, result, byCases);
      if (!cases)
        return;
      stats.nodes += cases->nodes;
      if (byCases)
        byCut = byWindows = bySplit = byRepair = byNeighbourhood =
            stats.fromWarmStart = false;
    };
    caseProof((left() - splitReserve) * kMilpCasesShare, nullptr);
    // Not proven: the search over the recomputable set from CBC's plan (or
    // the warm start), moves decided by node limits, the time left less
    // the split's reserve a safety cap (MilpNeighbourhood.h). The split
    // below still chooses its nodes from the plan before the search.
    // After the search (or where it did not run), CBC again with the time
    // left less the split's reserve, cut off at the plan: it may find a
    // cheaper plan, prove this one, or raise the bound.
    auto resumeCbc = [&] {
      double seconds = left() - splitReserve;
      if (seconds < 1 || milpTestHooks().unprovenSearch)
        return;
      builder.maxNodes = kCbcNodesAfterSearch;
      SolveOutcome again = builder.solve(
          false, budgetBytes, seconds, result.objective, bound.recomputeCost,
          rangeRows ? bound.ranges : std::vector<LowerBound::Range>());
      builder.maxNodes = -1;
      stats.nodes += again.nodes;
      resumedCbc = true;
      resumedCbcNodes = again.nodes;
      resumedCbcTimed = !again.finished && !again.stoppedOnLimit;
      SimResult sim;
      if (again.found && !simulate(graph, again.schedule, sim) &&
          sim.peakBytes <= budgetBytes &&
          sim.recomputeCost < result.objective - 1e-9) {
        result.schedule = std::move(again.schedule);
        result.objective = sim.recomputeCost;
        byNeighbourhood = stats.fromWarmStart = false;
        resumedCbcPlan = true;
      }
      // A bound at the cutoff from a search cut short is what an LP
      // stopped on time leaves (keepWarm): only one below it, or a
      // finished search's, counts.
      if (again.finished && again.infeasible && !again.found)
        result.bound = result.objective;
      else if (again.finished || again.bound < result.objective - 1e-9)
        result.bound = std::max(result.bound, again.bound);
      result.bound = std::min(result.bound, result.objective);
      result.optimal = boundMeets(result.bound, result.objective);
      result.gapPercent =
          result.optimal ? 0 : gapPercent(result.objective, result.bound);
    };
    // The plan the split below chooses its nodes from: CBC's before the
    // search, where the search ran.
    std::optional<Schedule> splitFrom;
    if (searchApplies && result.found && !result.optimal && !byBound &&
        mismatchPeak < 0 && !milpOutsideStageModel(result.schedule)) {
      splitFrom = result.schedule;
      searchStartNodes = stats.nodes;
      searchRan = tryNeighbourhoodSearch(
          graph, budgetBytes, std::max(0.0, left() - splitReserve),
          builder.knapsackRows, bound.jointSolution, result, byNeighbourhood);
      if (searchRan)
        stats.nodes += searchRan->nodes;
      if (byNeighbourhood)
        stats.fromWarmStart = false;
    }
    caseProof(left() - splitReserve, nullptr);
    if (searchApplies && result.found && !result.optimal && !byBound &&
        mismatchPeak < 0)
      resumeCbc();
    // Not proven: split on the node whose recomputations cost the plan the
    // most (CaseSplitBound.h), at most one fewer of them or at least as
    // many, and the case of the least bound again on the plan's next
    // costliest nodes (a tree of cases). The least leaf bound holds for
    // every schedule; the root's first case's interval solution, lowered
    // by windows, is a plan that may beat CBC's (resnet_n4 at 0.4 of
    // store-all: `auto`'s plan runs the stem convolution three times in the
    // backward, the optimum twice).
    if (splitReserve > 0 && result.found && !result.optimal) {
      const Schedule &splitPlan = splitFrom ? *splitFrom : result.schedule;
      if (std::optional<std::pair<unsigned, unsigned>> costliest =
              costliestRecomputation(graph, splitPlan)) {
        // Each LowerBound of the split within its share of the time left.
        auto splitStart = std::chrono::steady_clock::now();
        LowerBoundOptions splitOptions = boundOptions;
        splitOptions.timeLimitSeconds =
            std::max(0.01, std::min(boundOptions.timeLimitSeconds,
                                    left() / kCaseSplitBounds));
        // Deeper cases on the plan's next costliest recomputations, within
        // kCaseSplitCases and nine tenths of the reserve, never beyond the
        // call's time limit (a safety cap; CBC may end late).
        CaseSplitOptions tree;
        tree.plan = &splitPlan;
        tree.maxCaseBounds = kCaseSplitCases;
        tree.seconds = std::max(0.01, std::min(splitReserve * 0.9, left()));
        split = caseSplitBound(
            graph, budgetBytes, costliest->first, costliest->second - 1,
            splitOptions, bound.recomputeCost, bound.jointSolution.steps, tree);
        if (milpTestHooks().onCaseSplit)
          milpTestHooks().onCaseSplit(*split);
        // The lowering within what is left of the reserve (never the time
        // of the rows after this one).
        double reserveLeft =
            splitReserve - std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - splitStart)
                               .count();
        CutLoweringOptions lowering;
        lowering.seconds = std::max(0.01, std::min(left() / 2, reserveLeft));
        if (std::optional<CutLowering> lowered = lowerBoundWithinBudget(
                graph, budgetBytes, split->capped, lowering))
          if (lowered->sim.recomputeCost < result.objective - 1e-9) {
            result.schedule = std::move(lowered->schedule);
            result.objective = lowered->sim.recomputeCost;
            byCut = byWindows = bySplit = true;
            byRepair = stats.fromWarmStart = byNeighbourhood = false;
          }
        // The split's bound, unless it lies above the simulated plan's
        // cost: that would prove a bug in it, not the plan optimal, so it
        // is discarded (and the plan's detail says so).
        double splitBound = wholeCostBound(nodeCosts, split->recomputeCost);
        if (splitBound > result.objective * (1 + 1e-6) + 1e-9) {
          splitDiscarded = true;
          assert(
              (milpTestHooks().onCaseSplit || milpTestHooks().unprovenSearch) &&
              "case split bound above a simulated plan's cost");
        } else if (splitBound > bound.recomputeCost) {
          bound.recomputeCost = splitBound;
          result.bound = std::max(result.bound, splitBound);
        }
        result.bound = std::min(result.bound, result.objective);
        result.optimal = boundMeets(result.bound, result.objective);
        result.gapPercent = gapPercent(result.objective, result.bound);
      }
    }
    caseProof(left(), split && !splitDiscarded ? &*split : nullptr);
    if (!result.found) {
      note = result.infeasible
                 ? "milp: no schedule fits the budget of " +
                       std::to_string(budgetBytes) +
                       " bytes (proved) in the stage model (a schedule "
                       "outside it may fit)"
             : mismatchPeak >= 0
                 ? "milp: model mismatch: CBC's plan has a simulated "
                   "peak of " +
                       std::to_string(mismatchPeak) +
                       " bytes, above the budget of " +
                       std::to_string(budgetBytes)
                 : "milp: no solution within the time limit";
      return std::nullopt;
    }
    optimal = result.optimal;
    gap = result.gapPercent;
    stats.objective = result.objective;
    stats.bound = result.bound;
    wholeBound = bound.recomputeCost;
  }
  plan.planSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.seconds = plan.planSeconds;
  stats.optimal = optimal;
  stats.gapPercent = gap;
  plan.schedule = std::move(result.schedule);
  if (std::optional<std::string> err =
          simulate(graph, plan.schedule, plan.sim)) {
    note = "milp: invalid schedule: " + *err;
    return std::nullopt;
  }
  if (plan.sim.peakBytes > budget) {
    note = "milp: model mismatch: simulated peak " +
           std::to_string(plan.sim.peakBytes) + " bytes exceeds " +
           std::to_string(budget);
    return std::nullopt;
  }
  // CBC's proofs and bounds hold in the stage model; a plan outside it
  // (forward-min-peak's rebuilt lists as the warm start, ForwardRebuild.h)
  // may beat that model's optimum, so only claims of remat's whole model
  // (LowerBound's, the operand-order bound) are made for it.
  bool stageOnly = false;
  if (milpOutsideStageModel(plan.schedule)) {
    if (!byBound) {
      stageOnly = optimal || leastPeakOnly || stats.bound > wholeBound;
      optimal = leastPeakOnly = false;
      stats.bound = std::min(wholeBound, stats.objective);
    } else if (peakMode && optimal && !recomputeByBound) {
      stageOnly = true; // The peak by the bound, the recompute by CBC.
      optimal = false;
      leastPeakOnly = true;
    }
    stats.optimal = optimal;
    stats.gapPercent = optimal ? 0 : gapPercent(stats.objective, stats.bound);
  }
  plan.detail = formatDetail(stats, peakMode);
  if (byBound)
    plan.detail += "; the warm start, proven optimal by the lower bound "
                   "(LowerBound.h) without CBC";
  else if (mismatchPeak >= 0)
    plan.detail += "; CBC's plan failed the simulator check (model "
                   "mismatch: peak " +
                   std::to_string(mismatchPeak) +
                   " bytes), the warm start is returned";
  else if (stats.fromWarmStart)
    plan.detail += "; CBC found nothing better than the warm start in time";
  if (stageOnly)
    plan.detail += "; this plan lies outside the stage model (a recompute "
                   "list out of index order or repeating a value), where "
                   "CBC's proofs and bounds do not reach: only LowerBound's "
                   "(remat's whole model) are claimed";
  if (split) {
    // Each case's bound in % of the forward cost (as the table's bound)
    // and in the units of the plan's recompute cost.
    double forward = graph.forwardCost() > 0 ? graph.forwardCost() : 1;
    char buf[384];
    std::snprintf(buf, sizeof(buf),
                  "; case split on '%s' (recomputed at most %u times: bound "
                  "%.4g%% of the forward cost, %.6g; at least %u: %.4g%%, "
                  "%.6g; %u cases bounded, %zu leaves, %.1f s)",
                  graph.nodes[split->node].name.c_str(),
                  split->maxRecomputations, 100 * split->atMost / forward,
                  split->atMost, split->maxRecomputations + 1,
                  100 * split->atLeast / forward, split->atLeast,
                  split->caseBounds, split->cases.size(), split->seconds);
    plan.detail += buf;
    // Each leaf: its ranges (node index and name), its bound, whether
    // LowerBound bounded it, and its bound by executions forced late.
    plan.detail += "; its leaves:";
    for (const CaseSplitLeaf &leaf : split->cases) {
      plan.detail += " {";
      for (const RecomputeRange &r : leaf.ranges) {
        std::snprintf(buf, sizeof(buf), "%s%u '%s' %u..",
                      &r == &leaf.ranges[0] ? "" : ", ", r.node,
                      graph.nodes[r.node].name.c_str(), r.lo);
        plan.detail += buf;
        plan.detail += r.hi == ~0u ? std::string("inf") : std::to_string(r.hi);
      }
      std::snprintf(buf, sizeof(buf), ": %.4g%%, %.6g%s%s",
                    100 * leaf.bound / forward, leaf.bound,
                    leaf.bounded ? "" : ", not bounded by LowerBound",
                    leaf.cutShort ? ", cut short by time" : "");
      plan.detail += buf;
      if (leaf.lateFrom != ~0u) {
        plan.detail +=
            ", forced after step " + std::to_string(leaf.lateFrom) + ":";
        for (unsigned v : leaf.lateNodes)
          plan.detail += " " + std::to_string(v);
      }
      plan.detail += "}";
    }
    if (splitDiscarded)
      plan.detail += "; the split's bound, above the plan's simulated cost, "
                     "was discarded as inconsistent (a bug, not a proof)";
  }
  if (bySplit)
    plan.detail += "; the plan: the first case's interval solution, lowered "
                   "by windows (CutLowering.h)";
  else if (byCut)
    plan.detail += byWindows ? "; warm start: the lower bound's interval "
                               "solution, lowered by windows (CutLowering.h)"
                             : "; warm start: the lower bound's cut, lowered "
                               "(CutLowering.h)";
  if (byRepair)
    plan.detail +=
        (perturbedSeed ? "; warm start: the perturbed drop-mode search's plan "
                         "(ForwardOnly.h), within the budget, its recompute "
                         "lowered ("
                       : "; warm start: forward-min-peak's plan, repaired to "
                         "the budget and its recompute lowered (") +
        std::to_string(repairSolves) + " solves of windows of stages)";
  if (searchRan) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "; the search over the recomputable set "
                  "(MilpNeighbourhood.h), from CBC's plan after %lld nodes: "
                  "%u moves, %u improving (the last: move %u), %lld nodes, "
                  "%.1f s, stopped by %s",
                  (long long)searchStartNodes, searchRan->moves,
                  searchRan->improvements, searchRan->lastImprovingMove,
                  (long long)searchRan->nodes, searchRan->seconds,
                  searchRan->stopReason());
    plan.detail += buf;
  }
  if (byNeighbourhood)
    plan.detail += "; the plan: improved by the search over the "
                   "recomputable set";
  if (resumedCbcPlan)
    plan.detail += "; the plan: CBC's, resumed after the search over the "
                   "recomputable set, cut off at its plan";
  else if (resumedCbc)
    plan.detail += "; CBC resumed after the search over the recomputable set";
  if (resumedCbc)
    plan.detail += " (" + std::to_string(resumedCbcNodes) + " nodes" +
                   (resumedCbcTimed ? ", stopped by its time cap)" : ")");
  if (firstCbcTimed)
    plan.detail += "; CBC's first solve stopped by its time cap before its "
                   "node limit (the search's start depends on the load)";
  if (cases) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
                  "; the case tree's leaves solved by CBC (MilpCases.h): %s, "
                  "%u solves, %u leaves closed, %u open, %lld nodes, %.1f s%s",
                  cases->proven ? "proven" : "open", cases->solves,
                  cases->closed, cases->open, (long long)cases->nodes,
                  cases->seconds,
                  cases->timeCapped ? ", cut by the seconds cap" : "");
    plan.detail += buf;
    plan.detail += "; its leaves:";
    for (const MilpCaseLeafReport &leaf : cases->leaves) {
      std::snprintf(buf, sizeof(buf), ": %s, bound %.6g",
                    milpCaseCloseName(leaf.how), leaf.bound);
      plan.detail += " {" + formatRanges(graph, leaf.ranges) + buf;
      if (leaf.solved) {
        std::snprintf(buf, sizeof(buf), ", %lld nodes, %.2f s",
                      (long long)leaf.nodes, leaf.seconds);
        plan.detail += buf;
      }
      plan.detail += "}";
    }
    if (byCases)
      plan.detail += "; the plan: a leaf's solution";
  }
  if (leastPeakOnly)
    plan.detail += "; the least peak is proven, the recompute at that peak "
                   "is not";
  plan.solver = stats;
  return plan;
#endif
}
