//===- Planner.cpp - Strategy registry and selection ----------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Planner.h"

#include "remat/Scheduling/Algorithms.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Phases.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#define DEBUG_TYPE "remat-planner"

using namespace remat;
using namespace remat::sched;
namespace names = remat::sched::strategy;

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

/// Every strategy: name, the graphs it plans, its function (Algorithms.h).
static const StrategyInfo kStrategies[] = {
    {names::kAuto, AnyGraph, planAuto},
    {names::kStoreAll, AnyGraph, planStoreAll},
    {names::kSqrt, TrainingStep, planSqrt},
    {names::kGreedy, TrainingStep, planGreedy},
    {names::kLogN, TrainingStep, planLogN},
    {names::kRevolve, TrainingStep, planRevolve},
    {names::kChainOpt, TrainingStep, planChainOpt},
    {names::kForwardMinPeak, ForwardOnly, planForwardMinPeak},
    {names::kMilp, AnyGraph, planMilp},
    {names::kMinCut, TrainingStep, planMinCut},
};

llvm::ArrayRef<StrategyInfo> sched::getStrategies() { return kStrategies; }

const StrategyInfo *sched::lookupStrategy(llvm::StringRef name) {
  for (const StrategyInfo &info : kStrategies)
    if (info.name == name)
      return &info;
  return nullptr;
}

llvm::ArrayRef<llvm::StringRef> sched::getStrategyNames() {
  static const std::vector<llvm::StringRef> list = [] {
    std::vector<llvm::StringRef> result;
    for (const StrategyInfo &info : kStrategies)
      result.push_back(info.name);
    return result;
  }();
  return list;
}

//===----------------------------------------------------------------------===//
// The budget driver
//===----------------------------------------------------------------------===//

static std::string label(const PlanResult &plan) {
  return plan.strategy + (plan.detail.empty() ? "" : " (" + plan.detail + ")");
}

BudgetDecision sched::selectForBudget(const std::vector<PlanResult> &candidates,
                                      int64_t budgetBytes) {
  BudgetDecision decision;
  const PlanResult *chosen = nullptr, *smallest = nullptr;
  for (const PlanResult &plan : candidates) {
    if (!smallest || plan.sim.peakBytes < smallest->sim.peakBytes)
      smallest = &plan;
    if (plan.sim.peakBytes > budgetBytes)
      continue;
    if (!chosen || plan.sim.recomputeCost < chosen->sim.recomputeCost ||
        (plan.sim.recomputeCost == chosen->sim.recomputeCost &&
         plan.sim.peakBytes < chosen->sim.peakBytes))
      chosen = &plan;
  }
  if (!smallest) {
    decision.message = "no candidate plan";
    return decision;
  }
  decision.minPeakBytes = smallest->sim.peakBytes;
  if (chosen) {
    decision.feasible = true;
    decision.plan = *chosen;
    decision.message = label(*chosen) + " fits the budget of " +
                       std::to_string(budgetBytes) + " bytes with peak " +
                       std::to_string(chosen->sim.peakBytes) + " bytes";
    return decision;
  }
  decision.plan = *smallest;
  decision.message = "no plan fits the budget of " +
                     std::to_string(budgetBytes) +
                     " bytes; the smallest activation peak remat can meet is " +
                     std::to_string(smallest->sim.peakBytes) + " bytes (" +
                     label(*smallest) + ")";
  return decision;
}

//===----------------------------------------------------------------------===//
// planRematerialization in the graph's own order, phase by phase
//===----------------------------------------------------------------------===//

namespace {
/// A request's outcome while it is planned: a plan, or the error and the
/// smallest feasible budget (which becomes a PlanningError at the end).
struct PlanOutcome {
  std::optional<PlanResult> plan;
  std::string error;
  std::optional<int64_t> minFeasibleBudget;
  std::string minFeasibleStrategy;
  int64_t storeAllPeak = 0;
  std::vector<PlanResult> candidates;
  std::vector<std::string> notes;
  std::map<std::string, unsigned> algorithmRuns;
  /// LowerBound's any-order bound at the budget, where the planner computed
  /// it (`qualifyOrderProof`): the report's bound (`attachLowerBound`) reuses
  /// it instead of computing it again.
  std::optional<LowerBound> anyOrderBound;
};
} // namespace

static std::string budgetError(int64_t budget, llvm::StringRef strategy) {
  return "budget of " + std::to_string(budget) +
         " bytes is below what strategy '" + strategy.str() + "' can meet";
}

/// Phase 1: the registry entry of the requested strategy, if it accepts the
/// graph; otherwise sets `result.error`.
static const StrategyInfo *findStrategy(const Graph &graph,
                                        const PlannerOptions &options,
                                        PlanOutcome &result) {
  const std::string &s = options.strategy;
  const StrategyInfo *info = lookupStrategy(s);
  if (!info) {
    result.error = "unknown strategy '" + s + "'";
  } else if (graph.isForwardOnly() && !(info->accepts & ForwardOnly)) {
    result.error = "strategy '" + s +
                   "' needs a training step (forward and backward ops); this "
                   "function is forward-only (remat.forward_only): use auto, "
                   "forward-min-peak or store-all";
    info = nullptr;
  } else if (!graph.isForwardOnly() && !(info->accepts & TrainingStep)) {
    result.error = "strategy '" + s +
                   "' needs a forward-only function (remat.forward_only, no "
                   "backward ops); this one is a training step";
    info = nullptr;
  }
  if (!info)
    LDBG() << "rejected strategy '" << s << "': " << result.error;
  return info;
}

/// Phase 2: the strategy's candidate plans (the one place that dispatches
/// on the registry); a strategy that declines leaves a note, and no
/// candidate at all is an error.
static bool collectCandidates(const StrategyInfo &info, PlanRequest &request,
                              PlanOutcome &result) {
  llvm::Expected<std::vector<PlanResult>> plans = info.plan(request);
  if (plans)
    result.candidates = std::move(*plans);
  else
    request.note(plans.takeError());
  llvm::append_range(result.notes, request.notes);
  LDBG() << "strategy '" << info.name << "': " << result.candidates.size()
         << " candidate(s), " << request.notes.size() << " note(s)";
  for (const std::string &note : request.notes)
    LDBG() << "  declined: " << note;
  if (!result.candidates.empty())
    return true;
  result.error =
      "strategy '" + request.getOptions().strategy + "' produced no plan";
  for (const std::string &n : result.notes)
    result.error += "; " + n;
  return false;
}

/// Phase 3a, forward-only graphs: the one candidate, within the budget if
/// one is given; otherwise the error names the least peak of the search.
static void selectForwardOnly(PlanRequest &request, PlanOutcome &result) {
  const PlannerOptions &options = request.getOptions();
  PlanResult &p = result.candidates.front();
  if (options.budget > 0 && p.sim.peakBytes > options.budget) {
    PlanResult least = options.strategy == names::kStoreAll
                           ? forwardMinPeakPlan(request, 0)
                           : p;
    result.minFeasibleBudget = least.sim.peakBytes;
    result.minFeasibleStrategy = least.strategy;
    result.error = budgetError(options.budget, options.strategy);
    return;
  }
  result.plan = p;
}

/// The search at `kForwardOnlyFrontierBudgets - 1` budgets evenly spaced
/// strictly between `least` and `storeAll` (each the least recompute the
/// search finds within its budget; kept if it meets it).
static constexpr unsigned kForwardOnlyFrontierBudgets = 8;
static void appendForwardOnlySweep(PlanRequest &request, int64_t least,
                                   int64_t storeAll,
                                   std::vector<PlanResult> &plans) {
  for (unsigned k = 1; k != kForwardOnlyFrontierBudgets; ++k) {
    int64_t budget =
        least + (storeAll - least) * int64_t(k) / kForwardOnlyFrontierBudgets;
    PlanResult p = forwardMinPeakPlan(request, budget);
    if (p.sim.peakBytes <= budget)
      plans.push_back(std::move(p));
  }
}

/// Phase 3a', a forward-only graph under a recompute limit: the search's
/// least peak, the frontier's budget sweep between it and store-all, and
/// store-all join the candidates (for auto and forward-min-peak), so that
/// the limit picks from the same plans as `planFrontier`.
static void addForwardOnlySweep(PlanRequest &request, PlanOutcome &result) {
  const std::string &s = request.getOptions().strategy;
  if (s != names::kAuto && s != names::kForwardMinPeak)
    return;
  PlanResult least = forwardMinPeakPlan(request, 0);
  int64_t leastPeak = least.sim.peakBytes;
  result.candidates.push_back(std::move(least));
  if (llvm::Expected<PlanResult> storeAll = storeAllPlan(request))
    result.candidates.push_back(std::move(*storeAll));
  else
    llvm::consumeError(storeAll.takeError());
  if (result.storeAllPeak > leastPeak)
    appendForwardOnlySweep(request, leastPeak, result.storeAllPeak,
                           result.candidates);
}

/// Phase 3b, a recompute limit: the least peak within it (and within the
/// budget, if there is one).
static void selectWithinRecomputeLimit(const Graph &graph,
                                       const PlannerOptions &options,
                                       PlanOutcome &result) {
  double limit = options.maxRecomputePercent / 100 * graph.forwardCost();
  std::vector<PlanResult> within;
  for (const PlanResult &p : result.candidates)
    if (p.sim.recomputeCost <= limit * (1 + 1e-12))
      within.push_back(p);
  const PlanResult *best = leastPeak(within);
  LDBG() << within.size() << " of " << result.candidates.size()
         << " candidates within the recompute limit of "
         << options.maxRecomputePercent << "%";
  if (!best) {
    result.error =
        "no plan of strategy '" + options.strategy + "' recomputes at most " +
        std::to_string(options.maxRecomputePercent) + "% of the forward cost";
    return;
  }
  if (options.budget > 0 && best->sim.peakBytes > options.budget) {
    result.minFeasibleBudget = best->sim.peakBytes;
    result.minFeasibleStrategy = best->strategy;
    result.error = budgetError(options.budget, options.strategy) +
                   " within the recompute limit";
    return;
  }
  result.plan = *best;
}

/// Phase 3c, no budget: mincut's least peak; otherwise the single plan, or
/// for auto the least recompute (store-all).
static void selectWithoutBudget(const PlannerOptions &options,
                                PlanOutcome &result) {
  if (options.strategy == names::kMinCut) {
    result.plan = *leastPeak(result.candidates);
    return;
  }
  result.plan = *llvm::min_element(
      result.candidates, [](const PlanResult &a, const PlanResult &b) {
        return a.sim.recomputeCost < b.sim.recomputeCost;
      });
}

static PlanOutcome
planInOrder(PlanCache &cache, const PlannerOptions &options, bool nameSmallest,
            const std::vector<PlanResult> *autoStarts = nullptr);

/// Phase 4, the budget is below every candidate: names a budget and a
/// strategy that a rerun with them meets. A candidate's strategy may plan
/// differently under that budget (auto's candidates use budget-specific
/// parameters), so each pair is checked, least peak first; the reruns share
/// `cache`, so no algorithm runs twice for the same parameters.
static void nameSmallestBudget(PlanRequest &request, PlanOutcome &result) {
  const PlannerOptions &options = request.getOptions();
  std::vector<PlanResult> all = result.candidates;
  if (options.strategy != names::kAuto) {
    PlanRequest autoRequest(request.getCache(), options);
    llvm::append_range(all, autoCandidates(autoRequest));
  }
  llvm::stable_sort(all, [](const PlanResult &a, const PlanResult &b) {
    return a.sim.peakBytes < b.sim.peakBytes;
  });
  for (const PlanResult &candidate : all) {
    for (const std::string &name :
         {candidate.strategy, std::string(names::kAuto)}) {
      PlannerOptions rerun = options;
      rerun.strategy = name;
      rerun.budget = candidate.sim.peakBytes;
      PlanOutcome check =
          planInOrder(request.getCache(), rerun, /*nameSmallest=*/false);
      if (check.plan && check.plan->sim.peakBytes <= rerun.budget) {
        result.minFeasibleBudget = rerun.budget;
        result.minFeasibleStrategy = name;
        LDBG() << "smallest budget: " << rerun.budget << " bytes (strategy '"
               << name << "')";
        return;
      }
    }
  }
}

/// planRematerialization in the graph's own order (no late forward node);
/// `nameSmallest` says whether an infeasible budget searches for the
/// smallest budget to name (off in that search's own reruns); `autoStarts`:
/// `auto`'s candidates, planned already (PlanRequest::autoStarts).
static PlanOutcome planInOrder(PlanCache &cache, const PlannerOptions &options,
                               bool nameSmallest,
                               const std::vector<PlanResult> *autoStarts) {
  const Graph &graph = cache.getGraph();
  PlanOutcome result;
  PlanRequest request(cache, options);
  if (autoStarts)
    request.autoStarts = *autoStarts;
  if (llvm::Expected<PlanResult> storeAll = storeAllPlan(request))
    result.storeAllPeak = storeAll->sim.peakBytes;
  else
    llvm::consumeError(storeAll.takeError());
  LDBG() << "planning strategy '" << options.strategy << "', budget "
         << options.budget << ", " << graph.size() << " ops"
         << (graph.isForwardOnly() ? " (forward-only)" : "");

  const StrategyInfo *info = findStrategy(graph, options, result);
  if (!info || !collectCandidates(*info, request, result))
    return result;

  if (graph.isForwardOnly() && options.maxRecomputePercent < 0) {
    selectForwardOnly(request, result);
  } else if (options.maxRecomputePercent >= 0) {
    if (graph.isForwardOnly())
      addForwardOnlySweep(request, result);
    selectWithinRecomputeLimit(graph, options, result);
  } else if (options.budget <= 0) {
    selectWithoutBudget(options, result);
  } else if (BudgetDecision decision =
                 selectForBudget(result.candidates, options.budget);
             decision.feasible) {
    result.plan = std::move(decision.plan);
  } else {
    // Infeasible for this strategy: name the smallest budget that any
    // strategy meets, so the user knows what to ask for.
    result.error = budgetError(options.budget, options.strategy);
    LDBG() << decision.message;
    if (nameSmallest)
      nameSmallestBudget(request, result);
  }

  if (result.plan)
    LDBG() << "chose " << label(*result.plan) << ": peak "
           << result.plan->sim.peakBytes << " bytes, recompute cost "
           << result.plan->sim.recomputeCost;
  else
    LDBG() << "no plan: " << result.error;
  result.algorithmRuns = cache.getRuns();
  return result;
}

//===----------------------------------------------------------------------===//
// Any topological order (Phases.h)
//===----------------------------------------------------------------------===//

/// Marks plans of the forward-first re-sequencing.
static void markReordered(PlanResult &plan,
                          const std::vector<unsigned> &order) {
  plan.order = order;
  plan.detail += plan.detail.empty() ? "" : "; ";
  plan.detail += "forward-first order";
}

static std::string lateForwardNote(size_t numLate) {
  return std::string(kOrderNotePrefix) + "the input places " +
         std::to_string(numLate) +
         " forward op(s) after the first backward op: planned both in the "
         "input order (those ops run where they are, never recomputed) and "
         "re-sequenced forward-first (stable)";
}

/// planAllStrategies in the graph's own order, with a fresh cache.
static std::vector<PlanResult> planAllOfGraph(const Graph &graph,
                                              std::vector<std::string> &notes,
                                              unsigned dpSlots,
                                              double searchWork) {
  PlanCache cache(graph);
  PlannerOptions options;
  options.dpSlots = dpSlots;
  options.searchWork = searchWork;
  PlanRequest request(cache, options);
  std::vector<PlanResult> plans = planAllInOrder(request);
  llvm::append_range(notes, request.notes);
  return plans;
}

std::vector<PlanResult>
sched::planAllStrategies(const Graph &graph, std::vector<std::string> &notes,
                         unsigned dpSlots, double searchWork) {
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return planAllOfGraph(graph, notes, dpSlots, searchWork);
  std::vector<PlanResult> inOrder =
      planAllOfGraph(pinLateForward(graph), notes, dpSlots, searchWork);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  std::vector<std::string> reorderedNotes;
  std::vector<PlanResult> reordered = planAllOfGraph(
      reorderGraph(graph, order), reorderedNotes, dpSlots, searchWork);
  // Per strategy, the plans of the order where its least peak is smaller.
  auto leastPeakOf = [](const std::vector<PlanResult> &plans,
                        const std::string &name) {
    std::optional<int64_t> best;
    for (const PlanResult &p : plans)
      if (p.strategy == name && (!best || p.sim.peakBytes < *best))
        best = p.sim.peakBytes;
    return best;
  };
  std::vector<PlanResult> result;
  std::vector<std::string> done;
  auto consider = [&](const std::string &name) {
    if (llvm::is_contained(done, name))
      return;
    done.push_back(name);
    std::optional<int64_t> a = leastPeakOf(inOrder, name);
    std::optional<int64_t> b = leastPeakOf(reordered, name);
    bool useReordered = b && (!a || *b < *a);
    for (const PlanResult &p : useReordered ? reordered : inOrder)
      if (p.strategy == name) {
        result.push_back(p);
        if (useReordered)
          markReordered(result.back(), order);
      }
  };
  for (const PlanResult &p : inOrder)
    consider(p.strategy);
  for (const PlanResult &p : reordered)
    consider(p.strategy);
  notes.push_back(lateForwardNote(late.size()));
  return result;
}

/// Plans `graph` in its own order with a fresh cache (planInOrder).
static PlanOutcome
planGraph(const Graph &graph, const PlannerOptions &options,
          bool nameSmallest = true,
          const std::vector<PlanResult> *autoStarts = nullptr) {
  PlanCache cache(graph);
  return planInOrder(cache, options, nameSmallest, autoStarts);
}

/// Joint steps of the bound the planner reports
/// (`LowerBoundOptions::jointExactSteps`; the library's default is none):
/// on the 1,287-4,082-op graphs of bench/bound-results.md they bring 28 of
/// the 30 budgets within 5% of `auto`'s plan against 26 without (encoder-12
/// at 0.5 and 0.6: the joint program of the best step and the one where its
/// cut overflows), and they lower three time-limited bounds at 0.4 of
/// store-all by 0.01-0.10 points (the exact steps stop at 0.9 of the limit),
/// none out of 5%.
static constexpr unsigned kReportJointExactSteps = 4;

/// The name under which `algorithmRuns` counts LowerBound's any-order bound.
static constexpr const char *kAnyOrderBoundRun = "lower-bound-any-order";

/// LowerBound's any-order bound at the budget for the planner (4 joint exact
/// steps, as the report has), counted in `runs`.
static LowerBound anyOrderBound(const Graph &graph, int64_t budget,
                                double seconds,
                                std::map<std::string, unsigned> &runs) {
  LowerBoundOptions boundOptions;
  boundOptions.timeLimitSeconds = seconds;
  boundOptions.jointExactSteps = kReportJointExactSteps;
  ++runs[kAnyOrderBoundRun];
  return recomputeLowerBoundAnyOrder(graph, budget, boundOptions);
}

/// Seconds of the any-order bound that restates a solver's claim
/// (qualifyOrderProof): a tenth of the time limit, 0.05 .. 2 s, taken from
/// that limit.
static double orderClaimSeconds(double timeLimitSeconds) {
  return std::clamp(0.1 * timeLimitSeconds, 0.05, 2.0);
}

/// The seconds that bound gets: where the report's bound is asked for too
/// (`lower-bound=`), it is this one, with the larger of the two times (the
/// seconds beyond orderClaimSeconds are the report's, not the limit's).
static double claimBoundSeconds(const PlannerOptions &options) {
  return std::max(orderClaimSeconds(options.timeLimitSeconds),
                  options.boundSeconds);
}

bool sched::orderClaimBoundMeets(double bound, double cost) {
  return cost <= 0 || (cost - bound) / cost <= 1e-9;
}

LowerBound sched::orderClaimBound(const Graph &graph, int64_t budgetBytes,
                                  double timeLimitSeconds) {
  PlannerOptions options;
  options.timeLimitSeconds = timeLimitSeconds;
  std::map<std::string, unsigned> runs;
  return anyOrderBound(graph, budgetBytes, claimBoundSeconds(options), runs);
}

namespace {
/// Where the plan `qualifyOrderProof` restates the claim of comes from.
enum class ClaimedPlan {
  /// The solver's, in the order it planned.
  Solver,
  /// `auto`'s, better than the solver's (milpWithAutoPlan).
  AutoOverSolver,
  /// `auto`'s, where the solver has no plan (or did not run: the
  /// any-order bound proved `auto`'s plan first).
  AutoAlone,
};
} // namespace

/// On a graph with late forward ops a solver's claim (Milp.h: optimal, or
/// its bound) covers the order it planned only: the input order with those
/// ops run where they are, never recomputed, or the forward-first order. A
/// plan in the input order that drops late forward values (auto's,
/// `lateForwardCandidates`) may cost less than either optimum. Restates the
/// claim over every order the planner plans with LowerBound's any-order
/// bound at the budget (a tenth of the time limit, at most 2 s): optimal
/// only where that bound meets the plan. Without a budget or with a
/// recompute limit (the least peak) nothing is proven over every order.
static void qualifyOrderProof(const Graph &graph, const PlannerOptions &options,
                              size_t numLate, ClaimedPlan from,
                              PlanOutcome &outcome) {
  PlanResult &plan = *outcome.plan;
  SolverStats &solver = *plan.solver;
  std::string pinned = "the input order with its " + std::to_string(numLate) +
                       " late forward op(s) never recomputed";
  std::string where =
      from == ClaimedPlan::AutoOverSolver
          ? pinned + " or the forward-first order only, and this plan is "
                     "auto's, not the solver's"
      : plan.order.empty() ? pinned + " only"
                           : std::string("the forward-first order only");
  std::string claim;
  if (options.budget > 0 && options.maxRecomputePercent < 0) {
    // `milp` computed it before its orders (planAnyOrder).
    if (!outcome.anyOrderBound)
      outcome.anyOrderBound =
          anyOrderBound(graph, options.budget, claimBoundSeconds(options),
                        outcome.algorithmRuns);
    const LowerBound &lb = *outcome.anyOrderBound;
    // The plan is within the budget, so the bound cannot prove infeasibility.
    double bound = lb.infeasible ? 0 : lb.recomputeCost;
    double cost = plan.sim.recomputeCost;
    double gap = cost > 0 ? (cost - bound) / cost : 0;
    solver.optimal = orderClaimBoundMeets(bound, cost);
    solver.bound = bound;
    solver.gapPercent = solver.optimal ? 0 : 100 * gap;
    claim = solver.optimal
                ? llvm::formatv("optimal over every order (LowerBound's "
                                "any-order bound {0} meets it)",
                                bound)
                      .str()
                : llvm::formatv("feasible, gap {0:F2}% over every order "
                                "(LowerBound's any-order bound {1})",
                                solver.gapPercent, bound)
                      .str();
  } else {
    // The least peak (within the recompute limit, if one is given): the
    // bound is on the recompute.
    solver.optimal = false;
    solver.bound = 0;
    solver.gapPercent = 100;
    claim = options.maxRecomputePercent >= 0
                ? "least peak within the recompute limit not proven over "
                  "every order"
                : "least peak not proven over every order";
  }
  if (from == ClaimedPlan::AutoAlone)
    plan.detail = claim + ": " + plan.detail;
  else
    plan.detail =
        claim + "; the solver's claim covers " + where + ": " + plan.detail;
}

/// `auto`'s candidates in each order of a graph with late forward ops, as
/// planned there (the forward-first graph's in its own indices, without
/// `PlanResult::order`): the MILP's warm starts in that order
/// (PlanRequest::autoStarts).
namespace {
struct OrderStarts {
  std::vector<PlanResult> pinned, reordered;
};
} // namespace

/// Plans a graph with `numLate` late forward ops in two orders, the input
/// order with those ops pinned and the stable forward-first order, each
/// with half of the options' time limit, and keeps the better plan; `auto`
/// within a budget also searches the input order with the late forward
/// values droppable. `starts`: `auto`'s candidates per order, planned
/// already (the MILP's warm starts); `startsOut`: where this call's
/// candidates per order are kept (for `auto`, before the late forward
/// search). `nameSmallest` as for planInOrder.
static PlanOutcome planBothOrders(const Graph &graph,
                                  const PlannerOptions &options, size_t numLate,
                                  bool nameSmallest, const OrderStarts *starts,
                                  OrderStarts *startsOut) {
  // The extra splits of the cut seed's bound go to the late forward search
  // below only (PlannerOptions::budgetSearchCutSplits).
  PlannerOptions derived = options;
  derived.budgetSearchCutSplits = false;
  // Two orders, one time limit: each gets half (a `milp` that proves
  // nothing would otherwise take twice the user's `time-limit=`).
  derived.timeLimitSeconds = std::max(0.01, options.timeLimitSeconds) / 2;
  PlanOutcome inOrder = planGraph(pinLateForward(graph), derived, nameSmallest,
                                  starts ? &starts->pinned : nullptr);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  // Window plans (PlannerOptions::budgetSearchWindows) in the input order
  // only: in both, the programs ran twice (encoder-12 at 0.5 of store-all:
  // 17 s of plan at load 3).
  derived.budgetSearchWindows = false;
  PlanOutcome reordered =
      planGraph(reorderGraph(graph, order), derived, nameSmallest,
                starts ? &starts->reordered : nullptr);
  if (startsOut) {
    startsOut->pinned = inOrder.candidates;
    startsOut->reordered = reordered.candidates;
  }
  for (PlanResult &p : reordered.candidates)
    markReordered(p, order);
  if (reordered.plan)
    markReordered(*reordered.plan, order);

  // Which plan is better: with a budget (or for auto, which then returns its
  // least recompute) the least recompute, then the least peak; a fixed
  // strategy without a budget returns its one plan, and a recompute limit
  // asks for the least peak: the least peak first.
  auto better = [&](const PlanResult &a, const PlanResult &b) {
    bool recomputeFirst =
        options.maxRecomputePercent < 0 &&
        (options.budget > 0 || options.strategy == names::kAuto);
    if (recomputeFirst && a.sim.recomputeCost != b.sim.recomputeCost)
      return a.sim.recomputeCost < b.sim.recomputeCost;
    if (a.sim.peakBytes != b.sim.peakBytes)
      return a.sim.peakBytes < b.sim.peakBytes;
    return a.sim.recomputeCost < b.sim.recomputeCost;
  };
  // auto within a budget also searches the input order with the late
  // forward values droppable (Algorithms.h, `lateForwardCandidates`), from
  // the candidates of the pinned graph and the lower bound's cut on the
  // input order; its plans, simulated on the input graph, join the input
  // order's, and the better plan within the budget is kept.
  if (options.strategy == names::kAuto && options.maxRecomputePercent < 0 &&
      options.budget > 0) {
    for (PlanResult &p :
         lateForwardCandidates(graph, inOrder.candidates, options)) {
      if (p.sim.peakBytes <= options.budget &&
          (!inOrder.plan || better(p, *inOrder.plan))) {
        LDBG() << "dropping late forward values plans better";
        inOrder.plan = p;
        inOrder.error.clear();
        inOrder.minFeasibleBudget.reset();
        inOrder.minFeasibleStrategy.clear();
      }
      inOrder.candidates.push_back(std::move(p));
    }
  }
  std::map<std::string, unsigned> runs = inOrder.algorithmRuns;
  for (const auto &[name, count] : reordered.algorithmRuns)
    runs[name] += count;
  PlanOutcome result = std::move(inOrder);
  if (reordered.plan &&
      (!result.plan || better(*reordered.plan, *result.plan))) {
    LDBG() << "the forward-first order plans better";
    int64_t storeAllPeak = result.storeAllPeak;
    std::vector<PlanResult> candidates = std::move(result.candidates);
    result = std::move(reordered);
    result.storeAllPeak = storeAllPeak;
    candidates.swap(result.candidates);
    llvm::append_range(result.candidates, candidates);
  } else {
    llvm::append_range(result.candidates, reordered.candidates);
    if (!result.plan && reordered.minFeasibleBudget &&
        (!result.minFeasibleBudget ||
         *reordered.minFeasibleBudget < *result.minFeasibleBudget)) {
      result.minFeasibleBudget = reordered.minFeasibleBudget;
      result.minFeasibleStrategy =
          reordered.minFeasibleStrategy + " (forward-first order)";
    }
  }
  result.algorithmRuns = std::move(runs);
  result.notes.push_back(lateForwardNote(numLate));
  return result;
}

/// On a graph with late forward ops, `auto`'s plans that drop late forward
/// values (`lateForwardCandidates`) lie outside the stage model of both
/// orders the MILP solves, so they cannot warm-start CBC, and the MILP's
/// optimum in either order may cost more (bench/graphs-small/gpt1_b4.json
/// at 0.8 of store-all: 3.54% of the forward against auto's 0.26%). So
/// that `milp` never returns a plan worse than `auto`'s, `auto`'s plan
/// (planned first, milpAfterAuto) replaces the MILP's where it recomputes
/// less within the budget, or where the MILP has no plan; its claim is then
/// only LowerBound's over every order (qualifyOrderProof). `seconds`: the
/// whole call's so far; `milpRan`: whether the MILP ran; `milpRun`: for how
/// long, or why not (empty: the any-order bound met auto's plan). Returns
/// where the plan comes from.
static ClaimedPlan milpWithAutoPlan(const PlannerOptions &options,
                                    const PlanResult &autoPlan, double seconds,
                                    bool milpRan, const std::string &milpRun,
                                    PlanOutcome &outcome) {
  double cost = autoPlan.sim.recomputeCost;
  // A recompute limit asks for the least peak within it, then the least
  // recompute (planBothOrders' `better`).
  bool leastPeak = options.maxRecomputePercent >= 0;
  auto solverAtLeastAsGood = [&](const PlanResult &p) {
    bool noDearer = p.sim.recomputeCost <= cost * (1 + 1e-12) + 1e-12;
    if (!leastPeak)
      return noDearer;
    return p.sim.peakBytes < autoPlan.sim.peakBytes ||
           (p.sim.peakBytes == autoPlan.sim.peakBytes && noDearer);
  };
  if (outcome.plan && solverAtLeastAsGood(*outcome.plan)) {
    outcome.plan->detail +=
        leastPeak
            ? llvm::formatv("; auto's plan peaks at {0} bytes "
                            "(recompute cost {1}), not less",
                            autoPlan.sim.peakBytes, cost)
                  .str()
            : llvm::formatv("; auto's plan recomputes {0}, not less", cost)
                  .str();
    return ClaimedPlan::Solver;
  }
  ClaimedPlan from = outcome.plan && outcome.plan->solver
                         ? ClaimedPlan::AutoOverSolver
                         : ClaimedPlan::AutoAlone;
  std::string why = milpRan ? std::string("the MILP has no plan within the ") +
                                  (leastPeak ? "limits" : "budget") +
                                  " in either order (" + milpRun + ")"
                            : "the MILP is not run: " + milpRun;
  if (!milpRan && milpRun.empty())
    why = "proven optimal by LowerBound's any-order bound after auto, so "
          "strategy milp's own MILP is not run";
  else if (outcome.plan && outcome.plan->solver && leastPeak)
    why = llvm::formatv("a smaller peak within the recompute limit than the "
                        "MILP's plan (peak {0} bytes, recompute cost {1}, "
                        "{2}: {3})",
                        outcome.plan->sim.peakBytes,
                        outcome.plan->sim.recomputeCost, milpRun,
                        outcome.plan->detail)
              .str();
  else if (outcome.plan && outcome.plan->solver)
    why = llvm::formatv("cheaper than the MILP's plan (recompute cost {0}, "
                        "{1}: {2})",
                        outcome.plan->sim.recomputeCost, milpRun,
                        outcome.plan->detail)
              .str();
  // Not the solver's plan, nor a warm start of it (auto's plans that drop
  // late forward values cannot be one): the MILP's own figures stay in the
  // detail.
  SolverStats stats;
  stats.objective = cost;
  stats.timeLimitSeconds = options.timeLimitSeconds;
  stats.seconds = seconds;
  PlanResult plan = autoPlan;
  plan.strategy = names::kMilp.str();
  plan.detail = "auto's plan (" + label(autoPlan) + "), " + why;
  plan.solver = stats;
  plan.planSeconds = stats.seconds;
  LDBG() << "milp: auto's plan, recompute cost " << cost << ": " << why;
  outcome.plan = std::move(plan);
  outcome.error.clear();
  outcome.minFeasibleBudget.reset();
  outcome.minFeasibleStrategy.clear();
  return from;
}

/// Seconds of the time limit below which `milp` after `auto`'s plan
/// (milpAfterAuto) does not run the MILP: a quarter of a second per order
/// is too little for CBC to improve on a warm start.
static constexpr double kMinMilpSeconds = 0.5;

/// `milp` within a budget or a recompute limit on a graph with `numLate`
/// late forward ops: `auto`'s plan first (milpWithAutoPlan, compared by
/// the request's objective), with half of the time limit for
/// its own time-limited parts (the exact MILP among its candidates on
/// graphs of at most 32 ops, the window programs' safety cap); its
/// deterministic work is not capped. Where LowerBound's any-order bound
/// (computed once, for the claim too, qualifyOrderProof) meets `auto`'s
/// plan (within a budget, without a recompute limit), no plan is cheaper in
/// any order: the MILP does not run. Otherwise
/// the MILP gets the time left (`lower-bound=` seconds beyond the claim's
/// are not taken from it) in both orders, warm-started from `auto`'s
/// candidates in that order, or does not run where less than
/// kMinMilpSeconds is left.
static PlanOutcome milpAfterAuto(const Graph &graph,
                                 const PlannerOptions &options,
                                 size_t numLate) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  PlannerOptions autoOptions = options;
  autoOptions.strategy = names::kAuto.str();
  autoOptions.boundSeconds = 0;
  autoOptions.timeLimitSeconds = options.timeLimitSeconds / 2;
  OrderStarts starts;
  PlanOutcome autoOutcome = planBothOrders(
      graph, autoOptions, numLate, /*nameSmallest=*/false, nullptr, &starts);
  std::optional<PlanResult> autoPlan = autoOutcome.plan;
  if (autoPlan && options.budget > 0 &&
      autoPlan->sim.peakBytes > options.budget)
    autoPlan.reset();
  double autoSeconds = elapsed();
  std::optional<LowerBound> claimBound;
  std::map<std::string, unsigned> claimRuns;
  double boundSeconds = 0;
  // A recompute limit asks for the least peak, which the recompute bound
  // does not prove.
  if (autoPlan && options.budget > 0 && options.maxRecomputePercent < 0) {
    claimBound = anyOrderBound(graph, options.budget,
                               claimBoundSeconds(options), claimRuns);
    boundSeconds = std::min(elapsed() - autoSeconds,
                            orderClaimSeconds(options.timeLimitSeconds));
    if (!claimBound->infeasible &&
        orderClaimBoundMeets(claimBound->recomputeCost,
                             autoPlan->sim.recomputeCost)) {
      PlanOutcome result = std::move(autoOutcome);
      result.anyOrderBound = std::move(claimBound);
      for (const auto &[name, count] : claimRuns)
        result.algorithmRuns[name] += count;
      result.plan.reset();
      milpWithAutoPlan(options, *autoPlan, elapsed(), /*milpRan=*/false, "",
                       result);
      qualifyOrderProof(graph, options, numLate, ClaimedPlan::AutoAlone,
                        result);
      return result;
    }
  }
  double left = options.timeLimitSeconds - autoSeconds - boundSeconds;
  PlanOutcome result;
  std::string milpRun;
  bool milpRan = !autoPlan || left >= kMinMilpSeconds;
  if (!milpRan) {
    milpRun =
        llvm::formatv("auto's plan and the any-order bound took "
                      "{0:F2} s of the {1:F2} s limit",
                      autoSeconds + boundSeconds, options.timeLimitSeconds)
            .str();
    LDBG() << "milp: " << milpRun;
    result = std::move(autoOutcome);
    result.plan.reset();
  } else {
    PlannerOptions milpOptions = options;
    milpOptions.timeLimitSeconds = std::max(0.01, left);
    double milpStart = elapsed();
    // Where auto's plan is within the budget, the MILP's error is not
    // returned, so no smallest budget is searched for.
    result = planBothOrders(graph, milpOptions, numLate,
                            /*nameSmallest=*/!autoPlan, &starts, nullptr);
    milpRun = llvm::formatv("it ran {0:F2} s of {1:F2} s in the two orders",
                            elapsed() - milpStart, milpOptions.timeLimitSeconds)
                  .str();
    for (const auto &[name, count] : autoOutcome.algorithmRuns)
      result.algorithmRuns[name] += count;
    llvm::append_range(result.candidates, autoOutcome.candidates);
    for (std::string &note : autoOutcome.notes)
      if (!llvm::is_contained(result.notes, note))
        result.notes.push_back(std::move(note));
  }
  for (const auto &[name, count] : claimRuns)
    result.algorithmRuns[name] += count;
  result.anyOrderBound = std::move(claimBound);
  ClaimedPlan from = autoPlan ? milpWithAutoPlan(options, *autoPlan, elapsed(),
                                                 milpRan, milpRun, result)
                              : ClaimedPlan::Solver;
  if (result.plan && result.plan->solver)
    qualifyOrderProof(graph, options, numLate, from, result);
  return result;
}

/// planRematerialization before its outcome becomes a result or an error.
static PlanOutcome planAnyOrder(const Graph &graph,
                                const PlannerOptions &options) {
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return planGraph(graph, options);
  LDBG() << late.size()
         << " late forward op(s): planning the input order and forward-first";
  if (options.strategy == names::kMilp &&
      (options.budget > 0 || options.maxRecomputePercent >= 0))
    return milpAfterAuto(graph, options, late.size());
  PlanOutcome result = planBothOrders(graph, options, late.size(),
                                      /*nameSmallest=*/true, nullptr, nullptr);
  if (result.plan && result.plan->solver)
    qualifyOrderProof(graph, options, late.size(), ClaimedPlan::Solver, result);
  return result;
}

char PlanningError::ID = 0;

void PlanningError::log(llvm::raw_ostream &os) const {
  os << message;
  if (minFeasibleBudget)
    os << "; the smallest budget remat can meet for this graph is "
       << *minFeasibleBudget << " bytes (strategy '" << minFeasibleStrategy
       << "')";
}

/// Attaches the recompute lower bound at the budget to `outcome`'s plan with
/// the plan's gap to it: the bound the planner already computed, if any,
/// else a new one.
static void attachLowerBound(const Graph &graph, const PlannerOptions &options,
                             PlanOutcome &outcome) {
  if (!outcome.anyOrderBound)
    outcome.anyOrderBound = anyOrderBound(
        graph, options.budget, options.boundSeconds, outcome.algorithmRuns);
  const LowerBound &lb = *outcome.anyOrderBound;
  PlanResult &plan = *outcome.plan;
  BoundStats stats;
  // A plan within the budget exists, so the bound cannot prove infeasibility.
  stats.recomputeCost = lb.infeasible ? 0 : lb.recomputeCost;
  double cost = plan.sim.recomputeCost;
  // Below 1e-9 the difference is rounding in the bound's flows: no gap.
  double gap = cost > 0 ? (cost - stats.recomputeCost) / cost : 0;
  stats.gapPercent = gap > 1e-9 ? 100 * gap : 0;
  stats.seconds = lb.seconds;
  stats.complete = lb.complete;
  plan.bound = stats;
}

llvm::Expected<PlannerResult>
sched::planRematerialization(const Graph &graph,
                             const PlannerOptions &options) {
  PlanOutcome outcome = planAnyOrder(graph, options);
  if (!outcome.plan)
    return llvm::make_error<PlanningError>(
        std::move(outcome.error), outcome.minFeasibleBudget,
        std::move(outcome.minFeasibleStrategy));
  if (options.boundSeconds > 0 && options.budget > 0)
    attachLowerBound(graph, options, outcome);
  PlannerResult result;
  result.plan = std::move(*outcome.plan);
  result.storeAllPeak = outcome.storeAllPeak;
  result.candidates = std::move(outcome.candidates);
  result.notes = std::move(outcome.notes);
  result.algorithmRuns = std::move(outcome.algorithmRuns);
  return result;
}

//===----------------------------------------------------------------------===//
// The frontier
//===----------------------------------------------------------------------===//

std::vector<PlanResult> sched::paretoFrontier(std::vector<PlanResult> plans) {
  // Least recompute first; a plan is kept if its peak is below every plan
  // of smaller or equal recompute kept so far.
  llvm::stable_sort(plans, [](const PlanResult &a, const PlanResult &b) {
    if (a.sim.recomputeCost != b.sim.recomputeCost)
      return a.sim.recomputeCost < b.sim.recomputeCost;
    return a.sim.peakBytes < b.sim.peakBytes;
  });
  std::vector<PlanResult> frontier;
  for (PlanResult &p : plans)
    if (frontier.empty() || p.sim.peakBytes < frontier.back().sim.peakBytes)
      frontier.push_back(std::move(p));
  return frontier;
}

/// frontierCandidates of `graph` with a fresh cache.
static std::vector<PlanResult>
frontierOfGraph(const Graph &graph, const PlannerOptions &options,
                std::vector<std::string> &notes) {
  PlanCache cache(graph);
  PlanRequest request(cache, options);
  std::vector<PlanResult> plans = frontierCandidates(request);
  llvm::append_range(notes, request.notes);
  return plans;
}

/// The frontier candidates of a forward-only graph: store-all, the least-peak
/// search, and the search at budgets evenly spaced between that least peak
/// and store-all's peak (appendForwardOnlySweep).
static std::vector<PlanResult>
forwardOnlyFrontierCandidates(const Graph &graph,
                              const PlannerOptions &options,
                              std::vector<std::string> &notes) {
  std::vector<PlanResult> plans =
      planAllOfGraph(graph, notes, options.dpSlots, options.searchWork);
  int64_t storeAll = 0, least = std::numeric_limits<int64_t>::max();
  for (const PlanResult &p : plans) {
    if (p.strategy == names::kStoreAll)
      storeAll = p.sim.peakBytes;
    least = std::min(least, p.sim.peakBytes);
  }
  if (storeAll <= least)
    return plans;
  PlanCache cache(graph);
  PlanRequest request(cache, options);
  appendForwardOnlySweep(request, least, storeAll, plans);
  return plans;
}

std::vector<PlanResult> sched::planFrontier(const Graph &graph,
                                            std::vector<std::string> &notes,
                                            unsigned dpSlots) {
  PlannerOptions options;
  options.dpSlots = dpSlots;
  if (graph.isForwardOnly())
    return paretoFrontier(forwardOnlyFrontierCandidates(graph, options, notes));
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return paretoFrontier(frontierOfGraph(graph, options, notes));
  std::vector<PlanResult> all =
      frontierOfGraph(pinLateForward(graph), options, notes);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  std::vector<std::string> scratch;
  for (PlanResult &p :
       frontierOfGraph(reorderGraph(graph, order), options, scratch)) {
    markReordered(p, order);
    all.push_back(std::move(p));
  }
  notes.push_back(lateForwardNote(late.size()));
  return paretoFrontier(std::move(all));
}

std::optional<double> sched::parseRecomputeLimit(llvm::StringRef text) {
  text = text.trim();
  if (text.empty())
    return -1.0;
  text.consume_back("%");
  double value;
  if (text.trim().getAsDouble(value) || !(value >= 0) || std::isinf(value))
    return std::nullopt;
  return value;
}
