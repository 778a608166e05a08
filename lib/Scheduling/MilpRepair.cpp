//===- MilpRepair.cpp - Windows of stages in a fixed plan
//------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The windows of stages of Milp.h: window bounds that prove budgets
/// infeasible, the repair of a plan to a budget, and windows re-planned
/// inside a fixed schedule (`milpWindow*`, `milpRepairToBudget`,
/// `milpLowerPeak`, `milpReplanWindow*`; private helpers in MilpRepair.h).
///
//===----------------------------------------------------------------------===//

#include "MilpRepair.h"
#include "MilpBuilder.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/MilpWindows.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <set>

using namespace remat::sched;

#ifdef REMAT_HAVE_CBC
using namespace remat::sched::detail;

namespace {

/// Windows of stages that prove a budget infeasible on a forward-only graph
/// (`milpOptimal` without a plan within the budget): the model of
/// `milpWindowPeakBound` over the stages of nodes s - w + 1 to s, for the
/// kWindowSteps steps s that hold the most bytes whatever is recomputed
/// (`stepBytes`) and the widths in kWindowWidths, each asked for a solution
/// with a peak below the budget plus a margin (CBC's cutoff). A window
/// whose search ends without one proves that every schedule of the whole
/// graph peaks above the budget. Returns the first such window's nodes.
/// Measured on random_layered_n100 at 0.5 of store-all (the 4 stages ending
/// at node index 61: CBC's bound on the window's least peak 0.52-0.53 of
/// store-all within 8 CPU s, against 0.46 from the whole graph's least-peak
/// MILP after 39 CPU s and 0.43 from LowerBound; bench/milp-results.md).
constexpr unsigned kWindowSteps = 3;
constexpr unsigned kWindowWidths[] = {4, 8};

/// The windows `windowProvesInfeasible` and `milpWindowLeastPeakBound` try
/// on `graph` (forward-only; `windows` is its model), first and last node of
/// each: widths kWindowWidths ending at the kWindowSteps steps with the most
/// bytes.
std::vector<std::pair<unsigned, unsigned>>
boundWindows(const Graph &graph, const MilpBuilder &windows) {
  unsigned n = graph.size();
  std::vector<unsigned> steps(n);
  for (unsigned v = 0; v != n; ++v)
    steps[v] = v;
  std::stable_sort(steps.begin(), steps.end(), [&](unsigned a, unsigned b) {
    return windows.stepBytes(a) > windows.stepBytes(b);
  });
  steps.resize(std::min<size_t>(steps.size(), kWindowSteps));
  std::vector<std::pair<unsigned, unsigned>> tried;
  for (unsigned width : kWindowWidths)
    for (unsigned s : steps) {
      unsigned first = s + 1 >= width ? s + 1 - width : 0;
      if (std::find(tried.begin(), tried.end(), std::make_pair(first, s)) ==
          tried.end())
        tried.push_back({first, s});
    }
  return tried;
}

} // namespace

std::optional<std::pair<unsigned, unsigned>>
detail::windowProvesInfeasible(const Graph &graph, int64_t budget,
                               double seconds) {
  if (seconds <= 0.05 || !graph.isForwardOnly())
    return std::nullopt;
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
  MilpBuilder windows(graph, graph.size(), /*compact=*/true);
  windows.knapsackRows = false;
  // A window proves something only if its search ends with no solution
  // within the cutoff, so the first one found ends it (CBC's heuristics on
  // to find it): random_layered_n100 at 0.6 of store-all, where no window
  // proves anything, 9.7 -> 1.6 s for the six windows; asked alone
  // (milpWindowsProveInfeasible) they prove 0.5 with the first window
  // (n100d, bench/milp-results.md).
  windows.firstSolution = true;
  windows.heuristicsWithCutoff = true;
  std::vector<std::pair<unsigned, unsigned>> tried =
      boundWindows(graph, windows);
  // CBC prunes what lies within its cutoff increment and its tolerances of
  // the cutoff; the margin keeps every proof above the budget itself.
  double margin = 0.5 + 1e-3 * windows.memoryScale();
  for (size_t k = 0; k != tried.size(); ++k) {
    double left = std::chrono::duration<double>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
    if (left <= 0.05)
      break;
    windows.windowFirst = tried[k].first;
    windows.windowLast = tried[k].second;
    SolveOutcome out =
        windows.solve(/*peakMode=*/true, 0, left / double(tried.size() - k),
                      double(budget) + margin);
    if (out.infeasible && out.finished)
      return tried[k];
  }
  return std::nullopt;
}

namespace {

/// The boundary of the stages of nodes `first` to `last` inside `schedule`,
/// a forward-only graph's schedule whose lists are in index order: `enter[j]`
/// when an instance of j exists entering stage `first` and a read at or
/// after that stage uses it, `exit[j]` the same entering stage last + 1.
void windowBoundary(const Graph &graph, const Schedule &schedule,
                    unsigned first, unsigned last, std::vector<bool> &enter,
                    std::vector<bool> &exit) {
  unsigned n = graph.size();
  std::vector<size_t> lastUse, latest(n, SIZE_MAX);
  std::vector<size_t> atFirst, atExit;
  size_t firstPos = 0, exitPos = SIZE_MAX;
  for (unsigned k = 0; k != n; ++k) {
    if (k == first) {
      atFirst = latest;
      firstPos = lastUse.size();
    }
    if (k == last + 1) {
      atExit = latest;
      exitPos = lastUse.size();
    }
    auto run = [&](unsigned v) {
      for (unsigned op : graph.nodes[v].operands)
        lastUse[latest[op]] = lastUse.size();
      latest[v] = lastUse.size();
      lastUse.push_back(lastUse.size());
    };
    for (unsigned u : schedule.recomputeBefore[k])
      run(u);
    run(k);
  }
  auto usedFrom = [&](const std::vector<size_t> &at, size_t pos,
                      std::vector<bool> &out) {
    out.assign(n, false);
    for (unsigned j = 0; j != at.size(); ++j)
      out[j] = at[j] != SIZE_MAX && lastUse[at[j]] >= pos;
  };
  usedFrom(atFirst, firstPos, enter);
  usedFrom(atExit, exitPos, exit);
}

/// Restricts `builder`'s window (its bounds, `enterAllowed` and
/// `exitRequired` set) to the forward nodes in `allowed` (indexed by node)
/// as recomputations, and gives variables only to the values that enter or
/// leave it, those of `enterAlso`, the operands of the window's nodes and
/// the recomputable nodes and their operands (`MilpBuilder::windowValues`).
void restrictWindow(const Graph &graph, unsigned f,
                    const std::vector<bool> &allowed,
                    const std::vector<unsigned> &enterAlso,
                    MilpBuilder &builder) {
  unsigned n = graph.size();
  std::vector<bool> values(n, false);
  builder.recomputeAllowed.clear();
  for (unsigned i = 0; i != f; ++i) {
    builder.recomputeAllowed.push_back(allowed[i]);
    if (builder.enterAllowed[i] || builder.exitRequired[i])
      values[i] = true;
    if (allowed[i]) {
      values[i] = true;
      for (unsigned op : graph.nodes[i].operands)
        values[op] = true;
    }
  }
  for (unsigned v = builder.windowFirst; v <= builder.windowLast && v < n; ++v)
    for (unsigned op : graph.nodes[v].operands)
      values[op] = true;
  for (unsigned j : enterAlso)
    if (j < f)
      values[j] = true;
  values.resize(f);
  builder.windowValues = std::move(values);
}

/// Radii of the free stages around a peak step that `repairToBudget` tries,
/// smallest first: the stages of nodes p - r to p + r / 2 for step p.
constexpr unsigned kRepairRadii[] = {4, 8, 16, 32};
/// The radii with a cap on each window's recomputations
/// (`repairToBudget`'s `candidateCap`), whose models stay small enough for
/// wider windows.
constexpr unsigned kCappedRepairRadii[] = {4, 8, 16, 32, 64};
/// Wall seconds one repair solve gets at most.
constexpr double kRepairSolveSeconds = 4;

/// How far a forward-only schedule is from a budget: its peak, the steps at
/// the peak, and the bytes above the budget summed over all steps. Smaller
/// (lexicographically) is better; a repair step must make it smaller.
struct Excess {
  int64_t peak = 0;
  size_t peakSteps = 0;
  int64_t above = 0;
  bool operator<(const Excess &o) const {
    return std::tie(peak, peakSteps, above) <
           std::tie(o.peak, o.peakSteps, o.above);
  }
};

/// Simulates `schedule` and measures it against `budget`; none if it is
/// not a valid schedule.
std::optional<Excess> measureExcess(const Graph &graph,
                                    const Schedule &schedule, int64_t budget,
                                    std::vector<int64_t> &stepPeak) {
  SimResult sim;
  if (liveBytesTrace(graph, schedule, sim, stepPeak))
    return std::nullopt;
  Excess e;
  e.peak = sim.peakBytes;
  for (int64_t bytes : stepPeak) {
    e.peakSteps += bytes == sim.peakBytes;
    e.above += std::max<int64_t>(0, bytes - budget);
  }
  return e;
}

/// Seconds left until a deadline set `seconds` (at least 0) from now; may be
/// negative once it has passed.
class SecondsLeft {
public:
  explicit SecondsLeft(double seconds)
      : deadline(
            std::chrono::steady_clock::now() +
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(std::max(0.0, seconds)))) {}
  double operator()() const {
    return std::chrono::duration<double>(deadline -
                                         std::chrono::steady_clock::now())
        .count();
  }

private:
  std::chrono::steady_clock::time_point deadline;
};

} // namespace

std::optional<Schedule>
detail::repairToBudget(const Graph &graph, int64_t budget, Schedule seed,
                       double seconds, unsigned &solves, int64_t maxNodes,
                       Schedule *best, unsigned candidateCap, bool cuts) {
  SecondsLeft left(seconds);
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  unsigned firstStage = f == n ? 0 : f;
  for (std::vector<unsigned> &list : seed.recomputeBefore)
    std::sort(list.begin(), list.end());
  std::vector<int64_t> stepPeak;
  std::optional<Excess> cur = measureExcess(graph, seed, budget, stepPeak);
  if (!cur || firstStage == n)
    return std::nullopt;
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = false;
  // CBC's primal heuristics find these solutions: with the cutoff and
  // without them nothing came back in 4 s per window (random_layered_n100
  // at 0.6 of store-all).
  builder.heuristicsWithCutoff = true;
  builder.maxNodes = maxNodes;
  builder.cuts = cuts;
  double solveSeconds = maxNodes >= 0 ? seconds : kRepairSolveSeconds;
  std::vector<bool> exhausted(n, false);
  size_t radius = 0;
  while (cur->peak > budget && left() > 0.05) {
    unsigned p = n;
    for (unsigned k = 0; k != n && p == n; ++k)
      if (stepPeak[k] == cur->peak && !exhausted[k])
        p = k;
    if (p == n && maxNodes < 0 && left() > 4 * solveSeconds) {
      // Every step at the peak tried at every radius with time left: again
      // with twice the time per solve (random_layered_n500 at 0.4 of
      // store-all stopped at 30 s of 60 s, its wider windows cut short).
      solveSeconds *= 2;
      exhausted.assign(n, false);
      continue;
    }
    if (p == n)
      break;
    // Each radius twice: CBC without a cutoff (its heuristics' first
    // solutions), then with the current peak as its cutoff (heuristics kept
    // on); on random_layered_n100 at 0.6 of store-all each variant alone
    // stalled at a step where the other one gained.
    unsigned r = candidateCap > 0 ? kCappedRepairRadii[radius / 2]
                                  : kRepairRadii[radius / 2];
    bool withCutoff = radius % 2 == 1;
    builder.fixedLists = &seed;
    builder.windowFirst = std::max(firstStage, p >= r ? p - r : 0);
    builder.windowLast =
        std::min(n - 1, std::max(p, builder.windowFirst) + r / 2);
    windowBoundary(graph, seed, builder.windowFirst, builder.windowLast,
                   builder.enterAllowed, builder.exitRequired);
    if (candidateCap > 0)
      restrictWindow(graph, f,
                     milpRecomputeCandidates(graph, seed, builder.windowFirst,
                                             builder.windowLast, candidateCap),
                     {}, builder);
    // The first backward stage has the forward pass's rows: what it keeps
    // from the forward pass is counted there, so any value that has
    // variables in the window may enter. With a candidate cap those are the
    // window values `restrictWindow` chose above, from the boundary before
    // this widening: a value outside them stays out (a smaller search, not
    // a wrong plan; every plan is simulated).
    if (f != n && builder.windowFirst == f)
      builder.enterAllowed.assign(n, true);
    ++solves;
    std::optional<double> cutoff;
    if (withCutoff)
      cutoff = double(cur->peak) - 0.5;
    SolveOutcome out = builder.solve(
        /*peakMode=*/true, 0, std::min(left(), solveSeconds), cutoff);
    if (out.tooLargeNonzeros) {
      // Wider windows around this step would be larger still.
      exhausted[p] = true;
      radius = 0;
      continue;
    }
    std::vector<int64_t> nextPeak;
    std::optional<Excess> next;
    if (out.found)
      next = measureExcess(graph, out.schedule, budget, nextPeak);
    if (next && *next < *cur) {
      seed = std::move(out.schedule);
      cur = next;
      stepPeak = std::move(nextPeak);
      radius = 0;
      continue;
    }
    if (++radius == 2 * (candidateCap > 0 ? std::size(kCappedRepairRadii)
                                          : std::size(kRepairRadii))) {
      exhausted[p] = true;
      radius = 0;
    }
  }
  if (best)
    *best = seed;
  if (cur->peak > budget)
    return std::nullopt;
  return seed;
}

namespace {

/// Stages freed at once by `cutRepairedRecompute`, and the step between
/// the first stages of two consecutive windows of a sweep. On
/// random_layered_n100 (60 s, one run each, load 1-2): 8 / 4 left 50.98%
/// recompute at 0.7 of store-all and 193.25% at 0.6, 16 / 8 24.01% and
/// 147.60%, 24 / 12 19.08% and 86.24%, 32 / 16 11.52% and 146.26%.
constexpr unsigned kRecomputeWindow = 24, kRecomputeStride = 12;

} // namespace

void detail::cutRepairedRecompute(const Graph &graph, int64_t budget,
                                  Schedule &plan, double seconds,
                                  unsigned &solves, int64_t maxNodes) {
  SecondsLeft left(seconds);
  unsigned n = graph.size();
  SimResult sim;
  if (simulate(graph, plan, sim) || sim.peakBytes > budget)
    return;
  MilpBuilder builder(graph, n, /*compact=*/true);
  builder.knapsackRows = false;
  // With a node limit each solve is a function of the plan alone: CBC
  // without cuts (whose root passes took seconds on windows of 24 stages
  // and are not bounded by the node limit), and the time only as a cap.
  builder.maxNodes = maxNodes;
  builder.cuts = maxNodes < 0;
  double solveSeconds = maxNodes >= 0 ? seconds : kRepairSolveSeconds;
  // With a node limit, the plan's version at each window's last solve
  // that ended on its own (not on the time): solved again on the same
  // plan it would give the same answer, so it is skipped.
  unsigned version = 0;
  std::vector<unsigned> solvedAt(n / kRecomputeStride + 1, ~0u);
  bool gained = true;
  while (gained && left() > 0.05) {
    gained = false;
    for (unsigned first = 0; first < n && left() > 0.05;
         first += kRecomputeStride) {
      unsigned &solved = solvedAt[first / kRecomputeStride];
      if (maxNodes >= 0 && solved == version)
        continue;
      builder.fixedLists = &plan;
      builder.windowFirst = first;
      builder.windowLast = std::min(n - 1, first + kRecomputeWindow - 1);
      windowBoundary(graph, plan, builder.windowFirst, builder.windowLast,
                     builder.enterAllowed, builder.exitRequired);
      ++solves;
      SolveOutcome out = builder.solve(/*peakMode=*/false, budget,
                                       std::min(left(), solveSeconds));
      if (out.tooLargeNonzeros)
        return;
      if (out.finished || out.stoppedOnLimit)
        solved = version;
      SimResult next;
      if (out.found && !simulate(graph, out.schedule, next) &&
          next.peakBytes <= budget &&
          next.recomputeCost < sim.recomputeCost - 1e-9) {
        plan = std::move(out.schedule);
        sim = next;
        gained = true;
        ++version;
      }
    }
  }
}
#endif

MilpWindowBound remat::sched::milpWindowPeakBound(const Graph &graph,
                                                  unsigned first, unsigned last,
                                                  double seconds) {
  MilpWindowBound result;
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0)
    return result;
  last = std::min(last, graph.size() - 1);
  if (first > last)
    return result;
  MilpBuilder builder(graph, graph.size(), /*compact=*/true);
  builder.knapsackRows = false;
  builder.windowFirst = first;
  builder.windowLast = last;
  SolveOutcome out = builder.solve(/*peakMode=*/true, 0, seconds);
  result.nodes = out.nodes;
  result.finished = out.finished;
  if (out.tooLargeNonzeros)
    return result;
  // Peaks are whole bytes: the least one at or above CBC's bound, less a
  // relative 1e-6 for its tolerances (a 48-byte optimum comes back as
  // 47.99999995).
  double bound = out.bound - 1e-6 * std::max(1.0, std::fabs(out.bound));
  result.peakBytes = bound > 0 ? int64_t(std::ceil(bound)) : 0;
#else
  (void)graph;
  (void)first;
  (void)last;
  (void)seconds;
#endif
  return result;
}

std::optional<Schedule> remat::sched::milpRepairToBudget(const Graph &graph,
                                                         int64_t budget,
                                                         const Schedule &seed,
                                                         double seconds,
                                                         int64_t maxNodes) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0 ||
      graph.size() > kMilpMaxNodes ||
      seed.recomputeBefore.size() != graph.size())
    return std::nullopt;
  unsigned solves = 0;
  std::optional<Schedule> plan =
      repairToBudget(graph, budget, seed, seconds, solves, maxNodes);
  SimResult sim;
  if (plan && (simulate(graph, *plan, sim) || sim.peakBytes > budget))
    return std::nullopt;
  return plan;
#else
  (void)graph;
  (void)budget;
  (void)seed;
  (void)seconds;
  (void)maxNodes;
  return std::nullopt;
#endif
}

unsigned remat::sched::milpLowerRecompute(const Graph &graph, int64_t budget,
                                          Schedule &plan, double seconds,
                                          int64_t maxNodes) {
  unsigned solves = 0;
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0 ||
      graph.size() > kMilpMaxNodes ||
      plan.recomputeBefore.size() != graph.size())
    return 0;
  for (std::vector<unsigned> &list : plan.recomputeBefore)
    std::sort(list.begin(), list.end());
  cutRepairedRecompute(graph, budget, plan, seconds, solves, maxNodes);
#else
  (void)graph;
  (void)budget;
  (void)plan;
  (void)seconds;
  (void)maxNodes;
#endif
  return solves;
}

MilpWindowBound remat::sched::milpWindowLeastPeakBound(const Graph &graph,
                                                       double seconds) {
  MilpWindowBound result;
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0)
    return result;
  SecondsLeft left(seconds);
  MilpBuilder windows(graph, graph.size(), /*compact=*/true);
  windows.knapsackRows = false;
  std::vector<std::pair<unsigned, unsigned>> tried =
      boundWindows(graph, windows);
  result.finished = true;
  for (size_t k = 0; k != tried.size(); ++k) {
    if (left() <= 0.05) {
      result.finished = false;
      break;
    }
    MilpWindowBound w =
        milpWindowPeakBound(graph, tried[k].first, tried[k].second,
                            left() / double(tried.size() - k));
    result.nodes += w.nodes;
    result.finished = result.finished && w.finished;
    result.peakBytes = std::max(result.peakBytes, w.peakBytes);
  }
#else
  (void)graph;
  (void)seconds;
#endif
  return result;
}

std::optional<MilpPeakDescent>
remat::sched::milpLowerPeak(const Graph &graph, int64_t target,
                            const Schedule &seed, double seconds,
                            int64_t maxNodes, unsigned candidateCap) {
#ifdef REMAT_HAVE_CBC
  unsigned n = graph.size();
  if (graph.validate() || n == 0 || seed.recomputeBefore.size() != n)
    return std::nullopt;
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return std::nullopt; // The stage model needs the forward pass first.
  MilpPeakDescent descent;
  descent.schedule = seed;
  repairToBudget(graph, target, seed, seconds, descent.solves, maxNodes,
                 &descent.schedule, candidateCap);
  if (simulate(graph, descent.schedule, descent.sim))
    return std::nullopt;
  // The repair puts every list in index order first (the stage model's), which
  // can raise the peak of a seed whose lists rebuild one operand after another
  // (ForwardRebuild.h); with no window kept it returns that sorted seed. Never
  // return more than the seed's own peak.
  SimResult seedSim;
  if (!simulate(graph, seed, seedSim) &&
      seedSim.peakBytes < descent.sim.peakBytes) {
    descent.schedule = seed;
    descent.sim = seedSim;
  }
  return descent;
#else
  (void)graph;
  (void)target;
  (void)seed;
  (void)seconds;
  (void)maxNodes;
  (void)candidateCap;
  return std::nullopt;
#endif
}

std::optional<std::pair<unsigned, unsigned>>
remat::sched::milpWindowsProveInfeasible(const Graph &graph, int64_t budget,
                                         double seconds) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || graph.size() == 0)
    return std::nullopt;
  return windowProvesInfeasible(graph, budget, seconds);
#else
  (void)graph;
  (void)budget;
  (void)seconds;
  return std::nullopt;
#endif
}

std::optional<Schedule>
remat::sched::milpReplanWindow(const Graph &graph, const Schedule &schedule,
                               unsigned first, unsigned last, double seconds,
                               int64_t maxNodes) {
#ifdef REMAT_HAVE_CBC
  if (graph.validate() || !graph.isForwardOnly() || graph.size() == 0 ||
      graph.size() > kMilpMaxNodes ||
      schedule.recomputeBefore.size() != graph.size() || first > last ||
      last >= graph.size())
    return std::nullopt;
  MilpBuilder builder(graph, graph.size(), /*compact=*/true);
  builder.knapsackRows = false;
  builder.fixedLists = &schedule;
  builder.windowFirst = first;
  builder.windowLast = last;
  builder.maxNodes = maxNodes;
  windowBoundary(graph, schedule, first, last, builder.enterAllowed,
                 builder.exitRequired);
  SolveOutcome out = builder.solve(/*peakMode=*/true, 0, seconds);
  if (!out.found)
    return std::nullopt;
  return out.schedule;
#else
  (void)graph;
  (void)schedule;
  (void)first;
  (void)last;
  (void)seconds;
  return std::nullopt;
#endif
}

MilpWindowAnswer
remat::sched::milpReplanWindowAtBudget(const Graph &graph,
                                       const Schedule &schedule,
                                       const MilpWindowRequest &request) {
  MilpWindowAnswer answer;
#ifdef REMAT_HAVE_CBC
  unsigned n = graph.size();
  unsigned f = 0;
  while (f < n && !graph.nodes[f].backward)
    ++f;
  unsigned firstStage = f == n ? 0 : f;
  if (n == 0 || schedule.recomputeBefore.size() != n ||
      request.first > request.last || request.last >= n ||
      request.first < firstStage ||
      (!request.recomputeAllowed.empty() &&
       request.recomputeAllowed.size() != n))
    return answer;
  for (unsigned v = f; v < n; ++v)
    if (!graph.nodes[v].backward)
      return answer; // The stage model needs the forward pass first.
  MilpBuilder builder(graph, f, /*compact=*/true);
  builder.knapsackRows = false;
  builder.fixedLists = &schedule;
  builder.windowFirst = request.first;
  builder.windowLast = request.last;
  builder.maxNodes = request.maxNodes;
  builder.cuts = request.cuts;
  windowBoundary(graph, schedule, request.first, request.last,
                 builder.enterAllowed, builder.exitRequired);
  for (unsigned j : request.enterAlso)
    if (j < f)
      builder.enterAllowed[j] = true;
  builder.entryRows = request.entryRows;
  if (!request.recomputeAllowed.empty())
    restrictWindow(graph, f, request.recomputeAllowed, request.enterAlso,
                   builder);
  SolveOutcome out = builder.solve(/*peakMode=*/false, request.budget,
                                   request.seconds, request.cutoff);
  answer.tooLarge = out.tooLargeNonzeros != 0;
  answer.nodes = out.nodes;
  answer.finished = out.finished;
  if (out.found)
    answer.schedule = std::move(out.schedule);
#else
  (void)graph;
  (void)schedule;
  (void)request;
#endif
  return answer;
}
