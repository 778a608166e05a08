//===- Planner.cpp - strategy selection for rematerialization ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/Transforms/Planner.h"

#include "remat/Scheduling/BudgetDriver.h"
#include "remat/Scheduling/Chain.h"
#include "remat/Scheduling/ChainOptimal.h"
#include "remat/Scheduling/ForwardOnly.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MinCut.h"
#include "remat/Scheduling/Phases.h"
#include "remat/Scheduling/Revolve.h"
#include "remat/Scheduling/Strategies.h"

#include "llvm/ADT/STLExtras.h"
#include <chrono>
#include <cmath>

using namespace remat;
using namespace remat::sched;

llvm::ArrayRef<llvm::StringRef> remat::getStrategyNames() {
  static const llvm::StringRef names[] = {
      "auto",      "store-all",        "sqrt", "greedy", "logn", "revolve",
      "chain-opt", "forward-min-peak", "milp", "mincut"};
  return names;
}

/// Wraps a chain plan into a PlanResult; returns false (with a note) when the
/// chain strategy declined the graph.
static bool fromChainPlan(const Graph &graph, const char *strategy,
                          ChainPlan chain, double seconds, PlanResult &out,
                          std::vector<std::string> &notes) {
  if (!chain.ok) {
    notes.push_back(std::string(strategy) + ": " + chain.detail);
    return false;
  }
  out.strategy = strategy;
  out.detail = chain.detail;
  out.schedule = std::move(chain.schedule);
  out.planSeconds = seconds;
  if (std::optional<std::string> err = simulate(graph, out.schedule, out.sim)) {
    notes.push_back(std::string(strategy) + ": invalid schedule: " + *err);
    return false;
  }
  return true;
}

/// Stage limit of the chain dynamic program (O(L^3 S) time): longer chains
/// are coarsened to this many stages first.
static constexpr unsigned kMaxDPStages = 100;

/// Graphs up to this many ops get the exact MILP plan among auto's
/// candidates (CBC proves such graphs optimal in well under a second).
static constexpr unsigned kAutoMilpMaxOps = 32;

template <typename Fn> static double timed(Fn &&fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

static std::optional<PlanResult> planRevolve(const Graph &graph, unsigned c,
                                             std::vector<std::string> &notes) {
  ChainPlan chain;
  double s = timed([&] { chain = revolve(graph, c); });
  PlanResult plan;
  if (!fromChainPlan(graph, "revolve", std::move(chain), s, plan, notes))
    return std::nullopt;
  return plan;
}

/// Revolve with the most slots whose peak fits `budget` (fewest recomputations
/// among the Revolve plans that fit), by bisection over the slot count.
static std::optional<PlanResult>
planRevolveForBudget(const Graph &graph, int64_t budget,
                     std::vector<std::string> &notes) {
  StageChain chain = buildStageChain(graph);
  unsigned stages = std::max<unsigned>(1, chain.stages.size());
  std::optional<PlanResult> best;
  unsigned lo = 1, hi = stages;
  while (lo <= hi) {
    unsigned mid = lo + (hi - lo) / 2;
    std::vector<std::string> scratch;
    std::optional<PlanResult> p = planRevolve(graph, mid, scratch);
    if (!p) {
      llvm::append_range(notes, scratch);
      return best;
    }
    if (p->sim.peakBytes <= budget) {
      best = std::move(p);
      lo = mid + 1;
    } else {
      if (mid == 1) {
        if (!best)
          best =
              std::move(p); // Smallest Revolve peak, reported if nothing fits.
        break;
      }
      hi = mid - 1;
    }
  }
  return best;
}

static std::optional<PlanResult>
planChainOptimal(const Graph &graph, int64_t budget, unsigned dpSlots,
                 std::vector<std::string> &notes) {
  ChainPlan chain;
  ChainOptimalOptions opts;
  opts.slots = dpSlots;
  opts.maxStages = kMaxDPStages;
  double s = timed([&] { chain = chainOptimal(graph, budget, opts); });
  PlanResult plan;
  if (!fromChainPlan(graph, "chain-opt", std::move(chain), s, plan, notes))
    return std::nullopt;
  return plan;
}

/// The chain model's least-memory plan: the dynamic program at the smallest
/// budget it reports feasible. Declines like chainOptimal.
static std::optional<PlanResult>
planChainMinMemory(const Graph &graph, unsigned dpSlots,
                   std::vector<std::string> &notes) {
  ChainOptimalOptions opts;
  opts.slots = dpSlots;
  opts.maxStages = kMaxDPStages;
  ChainPlan probe;
  double s = timed([&] { probe = chainOptimal(graph, 0, opts); });
  if (probe.ok || !probe.infeasible || !probe.minFeasibleBytes) {
    if (!probe.ok)
      notes.push_back("chain-opt (least memory): " + probe.detail);
    return std::nullopt;
  }
  ChainPlan chain;
  s += timed(
      [&] { chain = chainOptimal(graph, *probe.minFeasibleBytes, opts); });
  PlanResult plan;
  if (!fromChainPlan(graph, "chain-opt", std::move(chain), s, plan, notes))
    return std::nullopt;
  plan.detail = "least memory; " + plan.detail;
  return plan;
}

/// Wall-time limit of the exact MILP among `auto`'s candidates (the user's
/// `time-limit=` when smaller).
static constexpr double kAutoMilpSeconds = 10;

/// The exact MILP (CBC) within `seconds` of wall time in all, warm-started
/// from the cheapest of `heuristics` within the budget (the least peak
/// without one): with a budget the least recompute within it, without one
/// the least peak. When the budget is proved infeasible (or no plan is found
/// in time), the least-peak plan is tried with the time left, so that an
/// error can name the smallest budget.
static std::optional<PlanResult>
planMilp(const Graph &graph, int64_t budget, double seconds,
         const std::vector<PlanResult> &heuristics,
         std::vector<std::string> &notes) {
  auto pick = [&](int64_t limit) -> const Schedule * {
    const PlanResult *best = nullptr;
    for (const PlanResult &p : heuristics) {
      if (!p.order.empty()) // Planned in another op order.
        continue;
      if (limit > 0 ? p.sim.peakBytes > limit
                    : best && p.sim.peakBytes > best->sim.peakBytes)
        continue;
      if (!best || (limit <= 0 && p.sim.peakBytes < best->sim.peakBytes) ||
          p.sim.recomputeCost < best->sim.recomputeCost)
        best = &p;
    }
    return best ? &best->schedule : nullptr;
  };
  auto start = std::chrono::steady_clock::now();
  std::string note;
  std::optional<PlanResult> p =
      milpOptimal(graph, budget, seconds, note, pick(budget));
  if (!p && budget > 0) {
    notes.push_back(note);
    double left =
        seconds - std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    if (left > 0.05)
      p = milpOptimal(graph, 0, left, note, pick(0));
  }
  if (!p)
    notes.push_back(note);
  return p;
}

/// Every plan of the min-cut sweep (MinCut.h), as "mincut" plans.
static std::vector<PlanResult> planMinCut(const Graph &graph) {
  std::vector<MinCutPlan> sweep;
  double seconds = timed([&] { sweep = minCutSweep(graph); });
  std::vector<PlanResult> plans;
  for (MinCutPlan &m : sweep) {
    PlanResult p;
    p.strategy = "mincut";
    p.detail = std::move(m.detail);
    p.schedule = std::move(m.schedule);
    p.sim = m.sim;
    p.planSeconds = seconds / std::max<size_t>(1, sweep.size());
    plans.push_back(std::move(p));
  }
  return plans;
}

/// The plan of `plans` with the least peak (ties: least recompute).
static const PlanResult *leastPeak(const std::vector<PlanResult> &plans) {
  const PlanResult *best = nullptr;
  for (const PlanResult &p : plans)
    if (!best || p.sim.peakBytes < best->sim.peakBytes ||
        (p.sim.peakBytes == best->sim.peakBytes &&
         p.sim.recomputeCost < best->sim.recomputeCost))
      best = &p;
  return best;
}


/// The strategies that need a forward/backward split.
static const char *const kTrainingStrategies[] = {"sqrt", "greedy", "logn",
                                                  "revolve", "chain-opt"};

/// planAllStrategies on a forward-only graph: store-all and the least-peak
/// search; the training-step strategies are declined in `notes`.
static std::vector<PlanResult>
planAllForwardOnly(const Graph &graph, std::vector<std::string> &notes) {
  std::vector<PlanResult> plans;
  PlanResult storeAllPlan;
  if (std::optional<std::string> err =
          evaluatePlan(graph, "store-all", "", storeAll, storeAllPlan))
    notes.push_back("store-all: " + *err);
  else
    plans.push_back(std::move(storeAllPlan));
  plans.push_back(forwardOnlyMinPeak(graph, 0));
  std::string names;
  for (const char *name : kTrainingStrategies)
    names += (names.empty() ? "" : ", ") + std::string(name);
  notes.push_back(names + ": need a training step (forward and backward "
                          "ops); the graph is forward-only");
  return plans;
}

/// planRematerialization on a forward-only graph: `auto` and
/// `forward-min-peak` run `forwardOnlyMinPeak` (without a budget, the least
/// peak it finds; with one, the least recompute it finds within it), and
/// `store-all` is the baseline; the other strategies decline.
static void planForwardOnly(const Graph &graph, const PlannerOptions &options,
                            PlannerResult &result) {
  const std::string &s = options.strategy;
  if (s == "store-all") {
    PlanResult p;
    if (std::optional<std::string> err =
            evaluatePlan(graph, "store-all", "", storeAll, p)) {
      result.error = *err;
      return;
    }
    result.candidates.push_back(p);
    if (options.budget > 0 && p.sim.peakBytes > options.budget) {
      PlanResult least = forwardOnlyMinPeak(graph, 0);
      result.minFeasibleBudget = least.sim.peakBytes;
      result.minFeasibleStrategy = least.strategy;
      result.error = "budget of " + std::to_string(options.budget) +
                     " bytes is below what strategy 'store-all' can meet";
      return;
    }
    result.plan = std::move(p);
    return;
  }
  if (s != "auto" && s != "forward-min-peak") {
    result.error = "strategy '" + s +
                   "' needs a training step (forward and backward ops); this "
                   "function is forward-only (remat.forward_only): use auto, "
                   "forward-min-peak or store-all";
    return;
  }
  // Without a budget the search returns the least peak it finds; with a
  // budget it returns a plan within it, or (when it cannot meet it) again
  // the least peak, which is then the smallest budget it meets.
  PlanResult p = forwardOnlyMinPeak(graph, options.budget);
  result.candidates.push_back(p);
  if (options.budget > 0 && p.sim.peakBytes > options.budget) {
    result.minFeasibleBudget = p.sim.peakBytes;
    result.minFeasibleStrategy = p.strategy;
    result.error = "budget of " + std::to_string(options.budget) +
                   " bytes is below what strategy '" + s + "' can meet";
    return;
  }
  result.plan = std::move(p);
}

/// planAllStrategies in the graph's own order (no late forward node).
static std::vector<PlanResult>
planAllInOrder(const Graph &graph, std::vector<std::string> &notes,
               unsigned dpSlots) {
  if (graph.isForwardOnly())
    return planAllForwardOnly(graph, notes);
  std::vector<PlanResult> plans;
  auto add = [&](const char *name, std::string detail, ScheduleBuilder fn) {
    PlanResult p;
    if (std::optional<std::string> err =
            evaluatePlan(graph, name, std::move(detail), fn, p))
      notes.push_back(std::string(name) + ": " + *err);
    else
      plans.push_back(std::move(p));
  };
  add("store-all", "", storeAll);
  add("sqrt", "segments=" + std::to_string(sqrtNSegments(graph)), sqrtN);
  {
    PlanResult p;
    GreedySearchResult r;
    p.planSeconds = timed([&] { r = greedySearch(graph); });
    p.strategy = "greedy";
    p.detail = "threshold=" + std::to_string(r.threshold) + " (searched " +
               std::to_string(r.tried) + ")";
    p.schedule = std::move(r.schedule);
    p.sim = r.sim;
    plans.push_back(std::move(p));
  }
  {
    ChainPlan chain;
    double s = timed([&] { chain = logN(graph); });
    PlanResult p;
    if (fromChainPlan(graph, "logn", std::move(chain), s, p, notes))
      plans.push_back(std::move(p));
  }
  StageChain chain = buildStageChain(graph);
  unsigned c = std::max<unsigned>(
      1,
      static_cast<unsigned>(std::ceil(std::sqrt(double(chain.stages.size())))));
  if (std::optional<PlanResult> p = planRevolve(graph, c, notes))
    plans.push_back(std::move(*p));
  // The heterogeneous-chain optimum at the memory of the sqrt(n) plan: the
  // least recompute that memory allows in the chain model.
  if (plans.size() > 1)
    if (std::optional<PlanResult> p =
            planChainOptimal(graph, plans[1].sim.peakBytes, dpSlots, notes))
      plans.push_back(std::move(*p));
  if (std::optional<PlanResult> p = planChainMinMemory(graph, dpSlots, notes))
    plans.push_back(std::move(*p));
  // Min-cut: the least peak of the sweep, and its cheapest plan below
  // store-all (the cheap end of the frontier).
  std::vector<PlanResult> cuts = planMinCut(graph);
  if (const PlanResult *p = leastPeak(cuts))
    plans.push_back(*p);
  const PlanResult *cheapest = nullptr;
  for (const PlanResult &p : cuts)
    if (p.sim.peakBytes < plans.front().sim.peakBytes &&
        (!cheapest || p.sim.recomputeCost < cheapest->sim.recomputeCost))
      cheapest = &p;
  if (cheapest && cheapest != leastPeak(cuts))
    plans.push_back(*cheapest);
  return plans;
}

/// The candidates of `auto`: every strategy and parameter, and with a budget
/// the budget-specific plans (Revolve with the most slots that fit, the chain
/// optimum, the exact MILP on small graphs). The least-peak plans are always
/// among them, so the smallest budget any of them meets is the smallest budget
/// remat can meet.
static std::vector<PlanResult> autoCandidates(const Graph &graph,
                                              const PlannerOptions &options,
                                              std::vector<std::string> &notes) {
  std::vector<PlanResult> all = defaultCandidates(graph);
  for (PlanResult &p : planAllInOrder(graph, notes, options.dpSlots))
    if (p.strategy == "logn" || p.strategy == "revolve" ||
        p.strategy == "chain-opt")
      all.push_back(std::move(p));
  llvm::append_range(all, planMinCut(graph));
  if (options.budget > 0) {
    if (std::optional<PlanResult> p =
            planRevolveForBudget(graph, options.budget, notes))
      all.push_back(std::move(*p));
    if (std::optional<PlanResult> p =
            planChainOptimal(graph, options.budget, options.dpSlots, notes))
      all.push_back(std::move(*p));
    // Small graphs: the exact optimum joins the candidates (the least
    // recompute within the budget, or the least peak when none fits), so
    // that auto is optimal where that can be proven.
    if (milpAvailable() && graph.size() <= kAutoMilpMaxOps) {
      std::vector<std::string> milpNotes;
      std::optional<PlanResult> p =
          planMilp(graph, options.budget,
                   std::min(options.timeLimitSeconds, kAutoMilpSeconds), all,
                   milpNotes);
      if (p)
        all.push_back(std::move(*p));
      else
        llvm::append_range(notes, milpNotes);
    }
  }
  return all;
}

/// Budgets (fractions of store-all's peak) at which the frontier collects
/// the budget-specific plans.
static constexpr double kFrontierBudgets[] = {0.2, 0.3, 0.4, 0.5, 0.6,
                                              0.7, 0.8, 0.9};

static std::vector<PlanResult>
frontierCandidates(const Graph &graph, const PlannerOptions &options,
                   std::vector<std::string> &notes) {
  SimResult storeAllSim;
  simulate(graph, storeAll(graph), storeAllSim);
  std::vector<PlanResult> all;
  PlannerOptions atBudget = options;
  atBudget.budget = 0;
  llvm::append_range(all, autoCandidates(graph, atBudget, notes));
  for (double f : kFrontierBudgets) {
    atBudget.budget = std::max<int64_t>(1, f * storeAllSim.peakBytes);
    std::vector<std::string> scratch;
    if (std::optional<PlanResult> p =
            planRevolveForBudget(graph, atBudget.budget, scratch))
      all.push_back(std::move(*p));
    if (std::optional<PlanResult> p = planChainOptimal(
            graph, atBudget.budget, options.dpSlots, scratch))
      all.push_back(std::move(*p));
  }
  return all;
}

/// planRematerialization in the graph's own order (no late forward node);
/// `nameSmallest` says whether an infeasible budget searches for the
/// smallest budget to name (off in that search's own reruns).
static PlannerResult planInOrder(const Graph &graph,
                                 const PlannerOptions &options,
                                 bool nameSmallest = true) {
  PlannerResult result;
  {
    SimResult sim;
    simulate(graph, storeAll(graph), sim);
    result.storeAllPeak = sim.peakBytes;
  }
  if (graph.isForwardOnly()) {
    planForwardOnly(graph, options, result);
    return result;
  }
  const std::string &s = options.strategy;
  if (s == "forward-min-peak") {
    result.error = "strategy 'forward-min-peak' needs a forward-only function "
                   "(remat.forward_only, no backward ops); this one is a "
                   "training step";
    return result;
  }
  std::vector<PlanResult> &cands = result.candidates;
  auto addBuilder = [&](const char *name, std::string detail,
                        ScheduleBuilder fn) {
    PlanResult p;
    if (std::optional<std::string> err =
            evaluatePlan(graph, name, std::move(detail), fn, p))
      result.notes.push_back(std::string(name) + ": " + *err);
    else
      cands.push_back(std::move(p));
  };

  if (s == "store-all") {
    addBuilder("store-all", "", storeAll);
  } else if (s == "sqrt") {
    addBuilder("sqrt", "segments=" + std::to_string(sqrtNSegments(graph)),
               sqrtN);
  } else if (s == "greedy") {
    if (options.threshold > 0) {
      int64_t t = options.threshold;
      addBuilder("greedy", "threshold=" + std::to_string(t),
                 [t](const Graph &g) { return greedy(g, t); });
    } else {
      std::vector<std::string> notes;
      std::vector<PlanResult> all = planAllInOrder(graph, notes, 500);
      for (PlanResult &p : all)
        if (p.strategy == "greedy")
          cands.push_back(std::move(p));
    }
  } else if (s == "logn") {
    ChainPlan chain;
    double t = timed([&] { chain = logN(graph); });
    PlanResult p;
    if (fromChainPlan(graph, "logn", std::move(chain), t, p, result.notes))
      cands.push_back(std::move(p));
  } else if (s == "revolve") {
    std::optional<PlanResult> p;
    if (options.slots > 0)
      p = planRevolve(graph, options.slots, result.notes);
    else if (options.budget > 0)
      p = planRevolveForBudget(graph, options.budget, result.notes);
    else {
      StageChain chain = buildStageChain(graph);
      unsigned c = std::max<unsigned>(
          1, std::ceil(std::sqrt(double(chain.stages.size()))));
      p = planRevolve(graph, c, result.notes);
    }
    if (p)
      cands.push_back(std::move(*p));
  } else if (s == "chain-opt") {
    int64_t budget = options.budget;
    if (budget <= 0) {
      // Without a budget: the least recompute at the memory of sqrt(n).
      SimResult sim;
      simulate(graph, sqrtN(graph), sim);
      budget = sim.peakBytes;
    }
    std::optional<PlanResult> p =
        planChainOptimal(graph, budget, options.dpSlots, result.notes);
    // Without a user budget, fall back to the chain model's least-memory
    // plan when the sqrt(n) memory is below what the model can meet.
    if (!p && options.budget <= 0)
      p = planChainMinMemory(graph, options.dpSlots, result.notes);
    if (p)
      cands.push_back(std::move(*p));
  } else if (s == "milp") {
    // Exact (CBC): with a budget the least recompute within it, without one
    // the least peak. When the budget is proved infeasible, the least-peak
    // plan becomes the candidate so that the error names the smallest budget.
    if (std::optional<PlanResult> p =
            planMilp(graph, options.budget, options.timeLimitSeconds,
                     defaultCandidates(graph), result.notes))
      cands.push_back(std::move(*p));
  } else if (s == "mincut") {
    cands = planMinCut(graph);
  } else if (s == "auto") {
    cands = autoCandidates(graph, options, result.notes);
    if (options.maxRecomputePercent >= 0)
      // A recompute limit: the plans a budget brings too (frontier).
      for (PlanResult &p : frontierCandidates(graph, options, result.notes))
        cands.push_back(std::move(p));
  } else {
    result.error = "unknown strategy '" + s + "'";
    return result;
  }

  if (cands.empty()) {
    result.error = "strategy '" + s + "' produced no plan";
    for (const std::string &n : result.notes)
      result.error += "; " + n;
    return result;
  }

  if (options.maxRecomputePercent >= 0) {
    // A recompute limit: the least peak within it (and within the budget,
    // if there is one).
    double limit = options.maxRecomputePercent / 100 * graph.forwardCost();
    std::vector<PlanResult> within;
    for (const PlanResult &p : cands)
      if (p.sim.recomputeCost <= limit * (1 + 1e-12))
        within.push_back(p);
    const PlanResult *best = leastPeak(within);
    if (!best) {
      result.error = "no plan of strategy '" + s + "' recomputes at most " +
                     std::to_string(options.maxRecomputePercent) +
                     "% of the forward cost";
      return result;
    }
    if (options.budget > 0 && best->sim.peakBytes > options.budget) {
      result.minFeasibleBudget = best->sim.peakBytes;
      result.minFeasibleStrategy = best->strategy;
      result.error = "budget of " + std::to_string(options.budget) +
                     " bytes is below what strategy '" + s +
                     "' can meet within the recompute limit";
      return result;
    }
    result.plan = *best;
    return result;
  }

  if (options.budget <= 0 && s == "mincut") {
    // Without a budget: the least peak of the sweep.
    result.plan = *leastPeak(cands);
    return result;
  }

  if (options.budget <= 0) {
    // No budget: the single plan, or for auto the least recompute (store-all).
    auto best =
        llvm::min_element(cands, [](const PlanResult &a, const PlanResult &b) {
          return a.sim.recomputeCost < b.sim.recomputeCost;
        });
    result.plan = *best;
    return result;
  }

  BudgetDecision decision = selectForBudget(cands, options.budget);
  if (decision.feasible) {
    result.plan = decision.plan;
    return result;
  }
  // Infeasible for this strategy: name the smallest budget that any strategy
  // meets, so the user knows what to ask for.
  std::vector<PlanResult> all = cands;
  if (s != "auto") {
    std::vector<std::string> notes;
    llvm::append_range(all, autoCandidates(graph, options, notes));
  }
  result.error = "budget of " + std::to_string(options.budget) +
                 " bytes is below what strategy '" + s + "' can meet";
  if (!nameSmallest)
    return result;
  // Name a budget and a strategy that a rerun with them meets: a candidate's
  // strategy may plan differently under that budget (auto's candidates use
  // budget-specific parameters), so each pair is checked, least peak first.
  llvm::stable_sort(all, [](const PlanResult &a, const PlanResult &b) {
    return a.sim.peakBytes < b.sim.peakBytes;
  });
  for (const PlanResult &candidate : all) {
    for (const std::string &name : {candidate.strategy, std::string("auto")}) {
      PlannerOptions rerun = options;
      rerun.strategy = name;
      rerun.budget = candidate.sim.peakBytes;
      PlannerResult check =
          planInOrder(graph, rerun, /*nameSmallest=*/false);
      if (check.plan && check.plan->sim.peakBytes <= rerun.budget) {
        result.minFeasibleBudget = rerun.budget;
        result.minFeasibleStrategy = name;
        return result;
      }
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Any topological order (Phases.h)
//===----------------------------------------------------------------------===//

/// Marks plans of the forward-first re-sequencing.
static void markReordered(PlanResult &plan, const std::vector<unsigned> &order) {
  plan.order = order;
  plan.detail += plan.detail.empty() ? "" : "; ";
  plan.detail += "forward-first order";
}

static std::string lateForwardNote(size_t numLate) {
  return std::string(kOrderNotePrefix) + "the input places " + std::to_string(numLate) +
         " forward op(s) after the first backward op: planned both in the "
         "input order (those ops run where they are, never recomputed) and "
         "re-sequenced forward-first (stable)";
}

std::vector<PlanResult>
remat::planAllStrategies(const Graph &graph, std::vector<std::string> &notes,
                         unsigned dpSlots) {
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return planAllInOrder(graph, notes, dpSlots);
  std::vector<PlanResult> inOrder =
      planAllInOrder(pinLateForward(graph), notes, dpSlots);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  std::vector<std::string> reorderedNotes;
  std::vector<PlanResult> reordered =
      planAllInOrder(reorderGraph(graph, order), reorderedNotes, dpSlots);
  // Per strategy, the plans of the order where its least peak is smaller.
  auto leastPeak = [](const std::vector<PlanResult> &plans,
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
    std::optional<int64_t> a = leastPeak(inOrder, name);
    std::optional<int64_t> b = leastPeak(reordered, name);
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

PlannerResult remat::planRematerialization(const Graph &graph,
                                           const PlannerOptions &options) {
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return planInOrder(graph, options);
  PlannerResult inOrder = planInOrder(pinLateForward(graph), options);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  PlannerResult reordered = planInOrder(reorderGraph(graph, order), options);
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
        (options.budget > 0 || options.strategy == "auto");
    if (recomputeFirst && a.sim.recomputeCost != b.sim.recomputeCost)
      return a.sim.recomputeCost < b.sim.recomputeCost;
    if (a.sim.peakBytes != b.sim.peakBytes)
      return a.sim.peakBytes < b.sim.peakBytes;
    return a.sim.recomputeCost < b.sim.recomputeCost;
  };
  PlannerResult result = std::move(inOrder);
  if (reordered.plan &&
      (!result.plan || better(*reordered.plan, *result.plan))) {
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
  result.notes.push_back(lateForwardNote(late.size()));
  return result;
}

std::vector<PlanResult> remat::paretoFrontier(std::vector<PlanResult> plans) {
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

std::vector<PlanResult> remat::planFrontier(const Graph &graph,
                                            std::vector<std::string> &notes,
                                            unsigned dpSlots) {
  PlannerOptions options;
  options.dpSlots = dpSlots;
  if (graph.isForwardOnly()) {
    std::vector<PlanResult> plans = planAllForwardOnly(graph, notes);
    return paretoFrontier(std::move(plans));
  }
  std::vector<unsigned> late = lateForwardNodes(graph);
  if (late.empty())
    return paretoFrontier(frontierCandidates(graph, options, notes));
  std::vector<PlanResult> all =
      frontierCandidates(pinLateForward(graph), options, notes);
  std::vector<unsigned> order = forwardFirstOrder(graph);
  std::vector<std::string> scratch;
  for (PlanResult &p :
       frontierCandidates(reorderGraph(graph, order), options, scratch)) {
    markReordered(p, order);
    all.push_back(std::move(p));
  }
  notes.push_back(lateForwardNote(late.size()));
  return paretoFrontier(std::move(all));
}

std::optional<double> remat::parseRecomputeLimit(llvm::StringRef text) {
  text = text.trim();
  if (text.empty())
    return -1.0;
  text.consume_back("%");
  double value;
  if (text.trim().getAsDouble(value) || !(value >= 0) || std::isinf(value))
    return std::nullopt;
  return value;
}
