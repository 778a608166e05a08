//===- MilpLarge.cpp - The MILP on graphs too large to solve whole --------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Budgets no plan meets and the least peak on graphs `milpOptimal` does not
/// solve whole (MilpLarge.h).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpLarge.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/ForwardRebuild.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpRounding.h"
#include "remat/Scheduling/MilpWindows.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace remat::sched;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The plan the descent starts from: forward-min-peak's at `budget` (its
/// least peak when it misses it; with the rebuilding construction if
/// `rebuild`) on a forward-only graph, or, where that misses the budget (or
/// without one), the perturbed drop-mode search's (ForwardOnly.h) within
/// `perturbSteps` simulated steps (`perturbSeconds` and `perturbRounds` at
/// most) where it peaks lower or meets the budget; or `start`
/// where it peaks lower; `start` on a training graph. `what` names it.
/// Where the perturbed search's plan meets the budget, forward-min-peak's
/// goes to `displaced`.
std::optional<Schedule> descentSeed(const Graph &graph, int64_t budget,
                                    const Schedule *start, bool rebuild,
                                    double perturbSeconds,
                                    unsigned perturbRounds,
                                    uint64_t perturbSteps, std::string &what,
                                    std::optional<Schedule> &displaced) {
  std::optional<Schedule> seed;
  int64_t seedPeak = 0;
  if (graph.isForwardOnly()) {
    auto began = Clock::now();
    ForwardDropSearch end;
    PlanResult p =
        forwardOnlyMinPeak(graph, std::max<int64_t>(0, budget), rebuild, &end);
    seed = std::move(p.schedule);
    seedPeak = p.sim.peakBytes;
    what = "forward-min-peak's plan";
    double rest = perturbSeconds - secondsSince(began);
    if ((budget <= 0 || seedPeak > budget) && rest > 0.05) {
      ForwardPerturbOptions options;
      options.seconds = rest;
      options.maxRounds = perturbRounds;
      options.maxSteps = perturbSteps;
      options.from = &end;
      PlanResult q = forwardOnlyPerturbedSearch(
          graph, std::max<int64_t>(0, budget), options);
      if (q.sim.peakBytes < seedPeak) {
        if (budget > 0 && q.sim.peakBytes <= budget)
          displaced = std::move(seed);
        seed = std::move(q.schedule);
        seedPeak = q.sim.peakBytes;
        // Its detail: "budget=B; R perturbed searches from ...; ...".
        size_t from = q.detail.find("; ");
        size_t to =
            from == std::string::npos ? from : q.detail.find("; ", from + 2);
        what = "the perturbed drop-mode search's plan";
        if (to != std::string::npos)
          what += " (" + q.detail.substr(from + 2, to - from - 2) + ")";
      }
    }
  }
  SimResult sim;
  if (start && !simulate(graph, *start, sim) &&
      (!seed || sim.peakBytes < seedPeak)) {
    seed = *start;
    what = "the warm start";
  }
  return seed;
}

std::string bytes(int64_t b) { return std::to_string(b) + " bytes"; }

/// Restates the headline of a window-search plan (`milpWindowPlan`: its
/// claim, up to the first "; ") with the whole call's time: `seconds` of
/// `limit`.
void restateWindowHeadline(PlanResult &plan, double seconds, double limit) {
  if (!plan.solver)
    return;
  plan.planSeconds = seconds;
  SolverStats &stats = *plan.solver;
  stats.seconds = seconds;
  stats.timeLimitSeconds = limit;
  size_t end = plan.detail.find("; ");
  plan.detail =
      milpWindowHeadline(stats) +
      (end == std::string::npos ? std::string() : plan.detail.substr(end));
}

} // namespace

std::optional<PlanResult>
remat::sched::milpLargePlan(const Graph &graph, int64_t budgetBytes,
                            double timeLimitSeconds, const Schedule *start,
                            const std::string &why, std::string &note,
                            const MilpLargeOptions &options) {
  auto began = Clock::now();
  auto left = [&] { return timeLimitSeconds - secondsSince(began); };
  // The whole call's time and limit, for the report.
  auto spent = [&] { return options.spentSeconds + secondsSince(began); };
  double limit = options.spentSeconds + timeLimitSeconds;
  if (std::optional<std::string> err = graph.validate()) {
    note = "milp: malformed graph: " + *err;
    return std::nullopt;
  }
  if (!milpAvailable()) {
    note = "milp: remat was built without CBC (coinor-libcbc-dev)";
    return std::nullopt;
  }
  if (std::optional<std::string> late = milpForwardFirstViolation(graph)) {
    note = *late;
    return std::nullopt;
  }
  SimResult startSim;
  bool startValid = start && !simulate(graph, *start, startSim);
  if (budgetBytes > 0 && startValid && startSim.peakBytes <= budgetBytes) {
    std::optional<PlanResult> plan =
        milpWindowPlan(graph, budgetBytes, timeLimitSeconds, start, why, note);
    if (plan && options.spentSeconds > 0)
      restateWindowHeadline(*plan, spent(), limit);
    return plan;
  }

  // Proofs first: a step that holds more than the budget whatever is
  // recomputed, a node whose operands' instances, made one after another,
  // do (ForwardRebuild.h), or (forward-only graphs) a window of stages that
  // does in the stage model.
  int64_t stepBound = leastPeakLowerBound(graph);
  unsigned orderAt = 0;
  int64_t orderBound = forwardLeastPeakBound(graph, &orderAt);
  if (budgetBytes > 0) {
    if (stepBound > budgetBytes) {
      note = "milp: no schedule fits the budget of " + bytes(budgetBytes) +
             " (proved): some step holds more whatever is recomputed (lower "
             "bound)";
      return std::nullopt;
    }
    if (orderBound > budgetBytes) {
      note = "milp: no schedule fits the budget of " + bytes(budgetBytes) +
             " (proved): node '" + graph.nodes[orderAt].name + "' needs " +
             bytes(orderBound) +
             ": whatever order its operands are made in, the last made "
             "needs its own operands with the others held "
             "(forwardLeastPeakBound)";
      return std::nullopt;
    }
    if (std::optional<std::pair<unsigned, unsigned>> window =
            milpWindowsProveInfeasible(graph, budgetBytes, left() / 6)) {
      note = "milp: no schedule fits the budget of " + bytes(budgetBytes) +
             " (proved) in the stage model (a schedule outside it may fit): "
             "the stages of nodes '" +
             graph.nodes[window->first].name + "' to '" +
             graph.nodes[window->second].name +
             "' alone need more, whatever is kept entering them";
      return std::nullopt;
    }
  }
  bool orderBinds = orderBound > stepBound;
  stepBound = std::max(stepBound, orderBound);

  // The LP relaxation and its rounding (opt-in, MilpLargeOptions).
  std::optional<MilpRoundingResult> rounding;
  if (budgetBytes > 0 && options.lpRoundingShare > 0 && left() > 0.05) {
    rounding = milpRoundRelaxation(graph, budgetBytes,
                                   left() * options.lpRoundingShare);
    if (rounding->lpInfeasible) {
      note = "milp: no schedule fits the budget of " + bytes(budgetBytes) +
             " (proved) in the stage model (a schedule outside it may fit): "
             "the LP relaxation of the stage model is infeasible";
      return std::nullopt;
    }
  }
  // The LP's optimum where it is above the plan's bound (LowerBound's).
  // It bounds the stage model's schedules only (Milp.h), so it is never
  // called a proof of optimality (the headline's "optimal" names
  // LowerBound.h), and a plan below it lies outside that model (the window
  // search may keep lists of its start that are), where it says nothing.
  auto lpBound = [&](std::optional<PlanResult> &plan) {
    if (!plan || !plan->solver || !rounding || !rounding->lpOptimal)
      return;
    SolverStats &stats = *plan->solver;
    if (stats.optimal || rounding->bound <= stats.bound ||
        rounding->bound > stats.objective)
      return;
    stats.bound = rounding->bound;
    stats.gapPercent =
        stats.objective > 0
            ? std::max(0.0,
                       100 * (stats.objective - stats.bound) / stats.objective)
            : 0;
    plan->detail +=
        "; the bound is the LP relaxation's optimum (MilpRounding.h), "
        "above LowerBound's, over the stage model's schedules only";
    restateWindowHeadline(*plan, spent(), limit);
  };
  char lpBuf[256] = "";
  if (rounding)
    std::snprintf(lpBuf, sizeof(lpBuf),
                  "the LP relaxation (%zu nonzeros, %s in %.1f s; %.1f s "
                  "with the model and the rounding) rounded to %u plans, %u "
                  "within the budget",
                  rounding->nonzeros,
                  rounding->lpOptimal ? "optimal" : "not solved",
                  rounding->lpSeconds, rounding->seconds, rounding->rounded,
                  rounding->fit);
  if (rounding && rounding->schedule) {
    MilpWindowSearchOptions search;
    search.windowNodes = options.windowNodes;
    search.windowSeconds = options.windowSeconds;
    search.maxSolves = options.maxWindowSolves;
    std::optional<PlanResult> plan = milpWindowPlan(
        graph, budgetBytes, std::max(0.0, left()), &*rounding->schedule,
        why + "; no plan given within the budget: " + lpBuf, note, search);
    if (plan)
      restateWindowHeadline(*plan, spent(), limit);
    lpBound(plan);
    return plan;
  }

  std::string seedName;
  std::optional<Schedule> displaced;
  // At a budget the perturbed search stops once within it, so it may take
  // most of the time; so it may for the least peak, which on the Moccasin
  // DAGs it lowers where the windows' descent barely does
  // (random_layered_n500: 210,479 -> 210,279 bytes in 10 s). Its work is
  // sized from the call's time limit, not the time left, so that its plan
  // does not depend on the load (the seconds are only a safety cap).
  std::optional<Schedule> seed = descentSeed(
      graph, budgetBytes, startValid ? start : nullptr, options.rebuildSeed,
      std::max(0.0, left()) * options.perturbShare, options.perturbRounds,
      options.perturbSteps ? options.perturbSteps
                           : forwardPerturbSteps(limit * options.perturbShare),
      seedName, displaced);
  if (rounding && rounding->leastPeak) {
    SimResult sim;
    if (!seed || (!simulate(graph, *seed, sim) &&
                  rounding->leastPeakSim.peakBytes < sim.peakBytes)) {
      seed = *rounding->leastPeak;
      seedName = "the rounded LP's plan";
    }
  }
  if (!seed) {
    note = "milp: " + why +
           "; the search needs a plan to start from, and none was given";
    return std::nullopt;
  }
  SimResult seedSim;
  if (simulate(graph, *seed, seedSim)) {
    note = "milp: invalid plan to start from";
    return std::nullopt;
  }

  // The least peak: a bound first (LowerBound's step bound; on forward-only
  // graphs also windows of stages, with a sixth of the time).
  int64_t peakBound = stepBound;
  bool windowBound = false;
  if (budgetBytes <= 0 && stepBound < seedSim.peakBytes) {
    MilpWindowBound w = milpWindowLeastPeakBound(graph, left() / 6);
    if (w.peakBytes > peakBound) {
      peakBound = w.peakBytes;
      windowBound = true;
    }
  }
  int64_t target = budgetBytes > 0 ? budgetBytes : peakBound;
  MilpPeakDescent descent;
  descent.schedule = *seed;
  descent.sim = seedSim;
  if (options.descend && seedSim.peakBytes > target && left() > 0.05) {
    // At a budget the descent stops once within it, so it may take most of
    // the time (a miss returns nothing, and the rest would go unused); for
    // the least peak a third is kept for the recompute at the peak reached.
    double share = budgetBytes > 0 ? 0.9 : 2.0 / 3;
    if (std::optional<MilpPeakDescent> d =
            milpLowerPeak(graph, target, *seed, left() * share,
                          options.descentNodes, options.descentCandidates))
      descent = std::move(*d);
  } else if (displaced && options.descend && left() > 0.05) {
    // The perturbed search stops at its first plan within the budget, which
    // may recompute much (random_layered_n500 just below forward-min-peak's
    // peak: 160% of the forward against the repair's ~50%): the descent from
    // forward-min-peak's plan gets half the time left, and its plan is kept
    // where it meets the budget at less recompute. Only where that plan
    // peaks within 2% above the budget: the descent lowers peaks little
    // (n500 at 0.7 of store-all: 210,479 -> ~210,129 bytes for 199,107),
    // and a repair that cannot succeed takes the window search's time.
    SimResult displacedSim;
    if (!simulate(graph, *displaced, displacedSim) &&
        double(displacedSim.peakBytes) <= 1.02 * double(budgetBytes))
      if (std::optional<MilpPeakDescent> d =
              milpLowerPeak(graph, target, *displaced, left() / 2,
                            options.descentNodes, options.descentCandidates))
        if (d->sim.peakBytes <= budgetBytes &&
            d->sim.recomputeCost < descent.sim.recomputeCost) {
          descent = std::move(*d);
          seedSim = displacedSim;
          seedName = "forward-min-peak's plan";
        }
  }
  char buf[512];
  if (budgetBytes > 0) {
    if (descent.sim.peakBytes > budgetBytes) {
      std::snprintf(buf, sizeof(buf),
                    "; no plan within the budget of %lld bytes found in "
                    "%.1f s: windows of stages re-planned around the peak "
                    "(%u solves) lowered %s from %lld to %lld bytes (not a "
                    "proof: the budget may still be met)",
                    (long long)budgetBytes, spent(), descent.solves,
                    seedName.c_str(), (long long)seedSim.peakBytes,
                    (long long)descent.sim.peakBytes);
      note = "milp: " + why + buf;
      if (rounding)
        note += std::string("; ") + lpBuf;
      return std::nullopt;
    }
    if (seedSim.peakBytes <= budgetBytes)
      std::snprintf(buf, sizeof(buf),
                    "; no plan given within the budget: %s (peak %lld bytes) "
                    "meets it",
                    seedName.c_str(), (long long)seedSim.peakBytes);
    else
      std::snprintf(buf, sizeof(buf),
                    "; no plan given within the budget: %s (peak %lld bytes) "
                    "repaired to it by windows of stages re-planned around "
                    "the peak (%u solves, %.1f s)",
                    seedName.c_str(), (long long)seedSim.peakBytes,
                    descent.solves, secondsSince(began));
    MilpWindowSearchOptions search;
    search.windowNodes = options.windowNodes;
    search.windowSeconds = options.windowSeconds;
    search.maxSolves = options.maxWindowSolves;
    std::string what = why + buf;
    if (rounding)
      what += std::string("; ") + lpBuf;
    std::optional<PlanResult> plan =
        milpWindowPlan(graph, budgetBytes, std::max(0.0, left()),
                       &descent.schedule, what, note, search);
    // The whole call's time, not the window search's alone.
    if (plan)
      restateWindowHeadline(*plan, spent(), limit);
    lpBound(plan);
    return plan;
  }

  // The least recompute at the peak reached, by the window search.
  int64_t peak = descent.sim.peakBytes;
  PlanResult plan;
  plan.strategy = strategy::kMilp.str();
  plan.schedule = descent.schedule;
  plan.sim = descent.sim;
  unsigned windowSolves = 0, windowKept = 0;
  int64_t windowNodes = 0;
  if (left() > 0.05) {
    MilpWindowSearchOptions search;
    search.seconds = left();
    search.windowNodes = options.windowNodes;
    search.windowSeconds = options.windowSeconds;
    search.maxSolves = options.maxWindowSolves;
    if (std::optional<MilpWindowSearchResult> r =
            milpWindowSearch(graph, peak, plan.schedule, search)) {
      windowSolves = r->solves;
      windowKept = r->kept;
      windowNodes = r->nodes;
      if (r->sim.peakBytes <= peak &&
          r->sim.recomputeCost <= plan.sim.recomputeCost) {
        plan.schedule = std::move(r->schedule);
        plan.sim = r->sim;
      }
    }
  }
  plan.planSeconds = spent();
  // The windows' bound holds in the stage model only: a plan outside it (a
  // rebuilt seed's lists, ForwardRebuild.h) may peak below it, and is then
  // bounded by the bounds of remat's schedule model alone.
  if (windowBound && plan.sim.peakBytes < peakBound) {
    peakBound = stepBound;
    windowBound = false;
  }
  SolverStats stats;
  stats.objective = double(plan.sim.peakBytes);
  stats.bound = double(std::min(peakBound, plan.sim.peakBytes));
  bool peakProven = peakBound >= plan.sim.peakBytes;
  // The recompute at that peak is never proven least here.
  stats.optimal = false;
  stats.gapPercent = stats.objective > 0
                         ? std::max(0.0, 100 * (stats.objective - stats.bound) /
                                             stats.objective)
                         : 0;
  stats.seconds = plan.planSeconds;
  stats.timeLimitSeconds = limit;
  stats.warmStarted = true;
  stats.fromWarmStart =
      plan.sim.peakBytes == seedSim.peakBytes && windowKept == 0;
  stats.nodes = windowNodes;
  plan.solver = stats;
  std::snprintf(buf, sizeof(buf),
                "feasible, gap %.2f%% (peak %lld B, bound %lld B, %.2f s of "
                "%.0f s, warm start); %s: the least peak of %s (%lld bytes) "
                "lowered by windows of stages re-planned around the peak "
                "(%u solves), then its recompute by windows at that peak "
                "(%u solves, %u kept); the bound is ",
                stats.gapPercent, (long long)plan.sim.peakBytes,
                (long long)stats.bound, stats.seconds, limit, why.c_str(),
                seedName.c_str(), (long long)seedSim.peakBytes, descent.solves,
                windowSolves, windowKept);
  plan.detail = buf;
  plan.detail += windowBound  ? "the least peak of windows of stages entered "
                                "in any state (milpWindowPeakBound), in the "
                                "stage model only (a schedule outside it may "
                                "peak lower)"
                 : orderBinds ? "the operand-order bound "
                                "(forwardLeastPeakBound)"
                              : "LowerBound's least-peak bound";
  plan.detail += ", not CBC's";
  if (peakProven)
    plan.detail += windowBound
                       ? "; the least peak is proven in the stage model (a "
                         "schedule outside it may peak lower), the "
                         "recompute at that peak is not"
                       : "; the least peak is proven, the recompute at that "
                         "peak is not";
  return plan;
}
