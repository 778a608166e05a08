//===- MilpWindows.cpp - Large-neighbourhood search with the MILP ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Windows of stages re-planned by the compact MILP inside the rest of a
/// plan (MilpWindows.h).
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MilpWindows.h"
#include "remat/Scheduling/LowerBound.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpClaims.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <deque>

using namespace remat::sched;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// True if `a` is below `b` by more than the relative tolerance of costs.
bool cheaper(double a, double b) {
  return a < b - 1e-9 * std::max(1.0, std::fabs(b));
}

/// A window: the stages of nodes `first` to `last`.
struct Window {
  unsigned first, last;
  double cost; // Recompute cost of the plan's lists in the window.
};

/// The recompute cost of the lists of nodes `first` to `last`.
double listCost(const Graph &graph, const Schedule &plan, unsigned first,
                unsigned last) {
  double cost = 0;
  for (unsigned k = first; k <= last; ++k)
    for (unsigned v : plan.recomputeBefore[k])
      cost += graph.nodes[v].cost;
  return cost;
}

/// The forward nodes a window may recompute: those `plan` recomputes there,
/// then the forward values the window's nodes and those recomputations
/// read and their forward ancestors, nearest first (breadth-first over
/// operands), until `cap` nodes are chosen. `numForward` forward nodes come
/// first (all of them in a forward-only graph).
std::vector<bool> recomputeCandidates(const Graph &graph, const Schedule &plan,
                                      unsigned numForward, unsigned first,
                                      unsigned last, unsigned cap) {
  unsigned n = graph.size();
  std::vector<bool> allowed(n, false);
  unsigned chosen = 0;
  std::deque<unsigned> queue;
  std::vector<bool> queued(n, false);
  auto push = [&](unsigned v) {
    if (v < numForward && !queued[v]) {
      queued[v] = true;
      queue.push_back(v);
    }
  };
  for (unsigned k = first; k <= last; ++k)
    for (unsigned v : plan.recomputeBefore[k])
      if (!allowed[v]) {
        allowed[v] = true;
        ++chosen;
      }
  for (unsigned k = first; k <= last; ++k) {
    for (unsigned v : plan.recomputeBefore[k])
      for (unsigned op : graph.nodes[v].operands)
        push(op);
    for (unsigned op : graph.nodes[k].operands)
      push(op);
  }
  while (!queue.empty() && chosen < cap) {
    unsigned v = queue.front();
    queue.pop_front();
    if (!allowed[v]) {
      allowed[v] = true;
      ++chosen;
    }
    for (unsigned op : graph.nodes[v].operands)
      push(op);
  }
  return allowed;
}

/// Where a plan reads and recomputes each value, and each step's peak:
/// what `entryExtension` needs.
struct PlanTrace {
  std::vector<int64_t> stepPeak;
  /// Steps (ascending, with repeats) where the original instance of each
  /// value (its own execution's) is read, and where the value is
  /// recomputed.
  std::vector<std::vector<unsigned>> reads, recomputes;

  PlanTrace(const Graph &graph, const Schedule &plan) {
    unsigned n = graph.size();
    SimResult sim;
    liveBytesTrace(graph, plan, sim, stepPeak);
    reads.resize(n);
    recomputes.resize(n);
    // Every read resolves to the most recent instance (Graph.h).
    std::vector<bool> recomputed(n, false);
    auto run = [&](unsigned v, unsigned k) {
      for (unsigned op : graph.nodes[v].operands)
        if (!recomputed[op])
          reads[op].push_back(k);
    };
    for (unsigned k = 0; k != n; ++k) {
      for (unsigned v : plan.recomputeBefore[k]) {
        run(v, k);
        recomputes[v].push_back(k);
        recomputed[v] = true;
      }
      run(k, k);
    }
  }
};

/// Values a window starting at step `first` may keep from before it
/// although `plan` drops them (`MilpWindowRequest::enterAlso`), with the
/// rows that charge them to the steps before the window. A value qualifies
/// when it is one the window may read (`relevant`), `plan` recomputes it at
/// no step before `first` (its only instance there is the original one) and
/// reads that original instance at no step at or after `first` (else it already
/// enters, or may). Kept, its original instance lives from the step of its last
/// read before `first` (its own step if none) to the window, adding its bytes
/// at most to each of those steps' peaks; a row per group of values with the
/// same first step bounds the bytes of the values covering each step by
/// the budget less the step's peak. At most `cap` values, the shortest
/// extensions first.
void entryExtension(const Graph &graph, const PlanTrace &trace,
                    const std::vector<bool> &relevant, unsigned first,
                    int64_t budget, unsigned cap, MilpWindowRequest &request) {
  struct Extension {
    unsigned value, from;
  };
  std::vector<Extension> ext;
  for (unsigned j = 0; j != first && j != graph.size(); ++j) {
    if (!relevant[j] || graph.nodes[j].backward || graph.nodes[j].bytes == 0)
      continue;
    const std::vector<unsigned> &rc = trace.recomputes[j];
    if (!rc.empty() && rc.front() < first)
      continue;
    const std::vector<unsigned> &rd = trace.reads[j];
    auto at = std::lower_bound(rd.begin(), rd.end(), first);
    if (at != rd.end())
      continue;
    unsigned from = at == rd.begin() ? j : *(at - 1);
    ext.push_back({j, std::max(from, j)});
  }
  std::stable_sort(
      ext.begin(), ext.end(),
      [](const Extension &a, const Extension &b) { return a.from > b.from; });
  if (ext.size() > cap)
    ext.resize(cap);
  std::stable_sort(
      ext.begin(), ext.end(),
      [](const Extension &a, const Extension &b) { return a.from < b.from; });
  std::vector<unsigned> covering;
  for (size_t k = 0; k != ext.size(); ++k) {
    covering.push_back(ext[k].value);
    request.enterAlso.push_back(ext[k].value);
    if (k + 1 < ext.size() && ext[k + 1].from == ext[k].from)
      continue;
    unsigned end = k + 1 < ext.size() ? ext[k + 1].from : first;
    int64_t slack = INT64_MAX;
    for (unsigned step = ext[k].from; step < end; ++step)
      slack = std::min(slack, budget - trace.stepPeak[step]);
    request.entryRows.push_back({covering, std::max<int64_t>(0, slack)});
  }
}

/// `milpWindowRequest` with the plan's trace at hand.
MilpWindowRequest windowRequest(const Graph &graph, const Schedule &plan,
                                const PlanTrace &trace, unsigned first,
                                unsigned last, int64_t budget,
                                const MilpWindowSearchOptions &options) {
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  MilpWindowRequest request;
  request.first = first;
  request.last = last;
  request.budget = budget;
  request.recomputeAllowed = recomputeCandidates(
      graph, plan, f, first, last, options.maxRecomputeCandidates);
  double cost = listCost(graph, plan, first, last);
  // Only what beats the window's own lists (CBC's cutoff prunes the rest;
  // its tolerance is absorbed by the caller's simulated check).
  request.cutoff = cost - 1e-7 * std::max(1.0, cost);
  request.seconds = options.windowSeconds;
  request.maxNodes = options.windowNodes;
  if (options.maxKeptFromBefore == 0)
    return request;
  std::vector<bool> relevant = request.recomputeAllowed;
  for (unsigned v = 0; v != f; ++v)
    if (request.recomputeAllowed[v])
      for (unsigned op : graph.nodes[v].operands)
        relevant[op] = true;
  for (unsigned k = first; k <= last; ++k)
    for (unsigned op : graph.nodes[k].operands)
      relevant[op] = true;
  if (f < n && first == f) {
    // The window starts at the first backward stage: the model has the
    // forward pass's rows, so what it keeps from the forward pass is
    // counted exactly there, and any forward value may enter.
    for (unsigned v = 0; v != f; ++v)
      if (relevant[v])
        request.enterAlso.push_back(v);
    return request;
  }
  entryExtension(graph, trace, relevant, first, budget,
                 options.maxKeptFromBefore, request);
  return request;
}

} // namespace

std::optional<MilpWindowSearchResult>
remat::sched::milpWindowSearch(const Graph &graph, int64_t budget,
                               const Schedule &start,
                               const MilpWindowSearchOptions &options) {
  auto began = Clock::now();
  unsigned n = graph.size();
  if (graph.validate() || start.recomputeBefore.size() != n)
    return std::nullopt;
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return std::nullopt;
  unsigned firstStage = f == n ? 0 : f;
  MilpWindowSearchResult result;
  result.schedule = start;
  if (simulate(graph, result.schedule, result.sim) ||
      result.sim.peakBytes > budget)
    return std::nullopt;
  auto left = [&] { return options.seconds - secondsSince(began); };
  auto solvesLeft = [&] {
    return options.maxSolves == 0 || result.solves < options.maxSolves;
  };
  unsigned numStages = n - firstStage;
  std::optional<PlanTrace> trace;
  size_t width = 0;
  while (milpAvailable() && numStages > 0 && width < options.widths.size() &&
         left() > 0.05 && solvesLeft()) {
    unsigned w = std::max(1u, options.widths[width]);
    unsigned stride = std::max(1u, w / 2);
    // The windows of this width where the plan spends recompute, the
    // costliest first (the order is fixed for the sweep).
    std::vector<Window> windows;
    for (unsigned k = 0; k < numStages; k += stride) {
      unsigned first = firstStage + k;
      unsigned last = firstStage + std::min(numStages - 1, k + w - 1);
      double cost = listCost(graph, result.schedule, first, last);
      if (cost > 0)
        windows.push_back({first, last, cost});
      if (k + w >= numStages)
        break;
    }
    std::stable_sort(
        windows.begin(), windows.end(),
        [](const Window &a, const Window &b) { return a.cost > b.cost; });
    bool gained = false;
    for (const Window &win : windows) {
      if (left() <= 0.05 || !solvesLeft())
        break;
      double cost = listCost(graph, result.schedule, win.first, win.last);
      if (cost <= 0)
        continue;
      if (!trace)
        trace.emplace(graph, result.schedule);
      MilpWindowRequest request = windowRequest(
          graph, result.schedule, *trace, win.first, win.last, budget, options);
      request.seconds = std::min(left(), options.windowSeconds);
      ++result.solves;
      MilpWindowAnswer answer =
          milpReplanWindowAtBudget(graph, result.schedule, request);
      result.nodes += answer.nodes;
      SimResult sim;
      bool invalid = !answer.schedule || simulate(graph, *answer.schedule, sim);
      if (invalid || sim.peakBytes > budget ||
          !cheaper(sim.recomputeCost, result.sim.recomputeCost))
        continue;
      result.schedule = std::move(*answer.schedule);
      result.sim = sim;
      trace.reset();
      ++result.kept;
      gained = true;
    }
    if (!gained && ++width == options.widths.size())
      result.converged = true;
  }
  result.seconds = secondsSince(began);
  return result;
}

std::string remat::sched::milpWindowHeadline(const SolverStats &stats) {
  char buf[320];
  if (stats.optimal)
    std::snprintf(buf, sizeof(buf),
                  "optimal (recompute cost %.6g, proven by the lower bound "
                  "(LowerBound.h), %.2f s of %.0f s, warm start)",
                  stats.objective, stats.seconds, stats.timeLimitSeconds);
  else
    std::snprintf(buf, sizeof(buf),
                  "feasible, gap %.2f%% (recompute cost %.6g, bound %.6g, "
                  "%.2f s of %.0f s, warm start)",
                  stats.gapPercent, stats.objective, stats.bound, stats.seconds,
                  stats.timeLimitSeconds);
  return buf;
}

std::optional<PlanResult>
remat::sched::milpWindowPlan(const Graph &graph, int64_t budgetBytes,
                             double timeLimitSeconds, const Schedule *warmStart,
                             const std::string &why, std::string &note,
                             const MilpWindowSearchOptions &searchOptions) {
  auto began = Clock::now();
  SimResult warmSim;
  if (budgetBytes <= 0 || !warmStart || simulate(graph, *warmStart, warmSim) ||
      warmSim.peakBytes > budgetBytes) {
    note = "milp: " + why +
           (budgetBytes <= 0
                ? "; the window search needs a budget"
                : "; the window search needs a plan within the budget to "
                  "start from, and none was given");
    return std::nullopt;
  }
  // LowerBound's bound first (a tenth of the time, at most 2 s, with the
  // joint exact and interval steps, as milpOptimal gives it), then the
  // search with the rest. At 10 s (lns18, load ~2) the steps raised
  // ResNet-50 0.4 / 0.5 5.65 / 1.95% -> 5.68 / 1.98% and encoder-12 0.5
  // 23.93 -> 24.03%, ResNet-18 0.5 unchanged.
  LowerBoundOptions boundOptions;
  boundOptions.timeLimitSeconds =
      std::max(0.01, std::min(2.0, timeLimitSeconds / 10));
  boundOptions.jointExactSteps = kMilpBoundJointSteps;
  boundOptions.intervalSteps = true;
  LowerBound bound = recomputeLowerBound(graph, budgetBytes, boundOptions);
  std::vector<double> nodeCosts;
  for (const Node &node : graph.nodes)
    nodeCosts.push_back(node.cost);
  double boundCost =
      wholeCostBound(nodeCosts, std::max(0.0, bound.recomputeCost));
  auto meets = [](double b, double objective) {
    return b >= objective - 1e-9 * std::max(1.0, std::fabs(objective));
  };
  MilpWindowSearchResult search;
  search.schedule = *warmStart;
  search.sim = warmSim;
  if (!meets(boundCost, warmSim.recomputeCost)) {
    MilpWindowSearchOptions options = searchOptions;
    options.seconds = timeLimitSeconds - secondsSince(began);
    if (std::optional<MilpWindowSearchResult> r =
            milpWindowSearch(graph, budgetBytes, *warmStart, options))
      search = std::move(*r);
  }
  PlanResult plan;
  plan.strategy = strategy::kMilp.str();
  plan.schedule = std::move(search.schedule);
  plan.sim = search.sim;
  plan.planSeconds = secondsSince(began);
  SolverStats stats;
  stats.objective = plan.sim.recomputeCost;
  stats.bound = std::min(boundCost, stats.objective);
  stats.optimal = meets(boundCost, stats.objective);
  if (stats.optimal)
    stats.bound = stats.objective;
  stats.gapPercent = stats.objective > 0
                         ? std::max(0.0, 100 * (stats.objective - stats.bound) /
                                             stats.objective)
                         : 0;
  stats.seconds = plan.planSeconds;
  stats.timeLimitSeconds = timeLimitSeconds;
  stats.warmStarted = true;
  stats.fromWarmStart = search.kept == 0;
  stats.nodes = search.nodes;
  plan.solver = stats;
  plan.detail = milpWindowHeadline(stats);
  plan.detail += "; " + why +
                 ": windows of stages re-planned inside the "
                 "warm start (" +
                 std::to_string(search.solves) + " solves, " +
                 std::to_string(search.kept) + " kept";
  if (search.kept == 0)
    plan.detail += ", the warm start is returned";
  plan.detail += "); the gap is against the lower bound (LowerBound.h), "
                 "not CBC's";
  return plan;
}

MilpWindowRequest
remat::sched::milpWindowRequest(const Graph &graph, const Schedule &plan,
                                unsigned first, unsigned last, int64_t budget,
                                const MilpWindowSearchOptions &options) {
  PlanTrace trace(graph, plan);
  return windowRequest(graph, plan, trace, first, last, budget, options);
}

std::vector<bool> remat::sched::milpRecomputeCandidates(const Graph &graph,
                                                        const Schedule &plan,
                                                        unsigned first,
                                                        unsigned last,
                                                        unsigned cap) {
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  if (plan.recomputeBefore.size() != n || first > last || last >= n)
    return std::vector<bool>(n, false);
  return recomputeCandidates(graph, plan, f, first, last, cap);
}
