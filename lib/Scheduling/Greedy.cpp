//===- Greedy.cpp - Chen's greedy memory-threshold planner ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Cuts.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"
#include "remat/Scheduling/Strategies.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

using namespace remat::sched;

namespace {
/// What Chen's accumulation shares across thresholds: the separators, the
/// forward cuts and their candidates (none depends on the threshold), and
/// the simulation of every kept set lowered so far (several thresholds often
/// give the same set). A search over T thresholds then costs T walks plus one
/// lowering and simulation per distinct kept set, instead of recomputing
/// everything per threshold.
class GreedyContext {
public:
  explicit GreedyContext(const Graph &graph)
      : graph(graph), simulator(graph), isSeparator(graph.size(), false),
        cuts(computeForwardCuts(graph)),
        candidates(cutCandidates(graph, cuts)) {
    for (unsigned v : findSeparators(graph))
      isSeparator[v] = true;
  }

  std::vector<bool> separatorKeptSet(int64_t thresholdBytes,
                                     int64_t *keptBytes = nullptr,
                                     int64_t *maxSegmentBytes = nullptr) const;
  std::vector<bool> cutKeptSet(int64_t thresholdBytes,
                               int64_t *keptBytes = nullptr,
                               int64_t *maxSegmentBytes = nullptr) const;
  /// greedyKeptSet.
  std::vector<bool> keptSet(int64_t thresholdBytes,
                            int64_t *keptBytes = nullptr,
                            int64_t *maxSegmentBytes = nullptr);
  /// The simulation of `lowerKeptSet(graph, kept)`; none if it does not
  /// simulate (only on an invalid graph). Memoized.
  const std::optional<SimResult> &evaluate(const std::vector<bool> &kept);

private:
  const Graph &graph;
  Simulator simulator;
  std::vector<bool> isSeparator;
  ForwardCuts cuts;
  std::vector<unsigned> candidates;
  std::unordered_map<std::vector<bool>, std::optional<SimResult>> simulated;
};
} // namespace

std::vector<bool>
GreedyContext::separatorKeptSet(int64_t thresholdBytes, int64_t *keptBytes,
                                int64_t *maxSegmentBytes) const {
  unsigned n = graph.size();
  std::vector<bool> kept(n, false);
  int64_t acc = 0, x = 0, y = 0;
  for (unsigned v = 0; v != n; ++v) {
    const Node &node = graph.nodes[v];
    if (node.backward)
      continue;
    acc += node.bytes;
    y = std::max(y, acc);
    if (isSeparator[v] && acc > thresholdBytes) {
      kept[v] = true;
      x += node.bytes;
      acc = 0;
    }
  }
  if (keptBytes)
    *keptBytes = x;
  if (maxSegmentBytes)
    *maxSegmentBytes = y;
  return kept;
}

std::vector<bool> GreedyContext::cutKeptSet(int64_t thresholdBytes,
                                            int64_t *keptBytes,
                                            int64_t *maxSegmentBytes) const {
  unsigned n = graph.size();
  // Chen's accumulation over forward positions, closing a segment at the
  // first candidate cut once the accumulator (its node included) exceeds the
  // threshold.
  std::vector<unsigned> chosen;
  int64_t acc = 0, y = 0;
  auto nextCandidate = candidates.begin();
  for (unsigned p = 0, m = cuts.numPositions(); p != m; ++p) {
    acc += graph.nodes[cuts.forward[p]].bytes;
    y = std::max(y, acc);
    bool isCandidate = nextCandidate != candidates.end() && *nextCandidate == p;
    if (isCandidate)
      ++nextCandidate;
    if (isCandidate && acc > thresholdBytes) {
      chosen.push_back(p);
      acc = 0;
    }
  }

  std::vector<bool> kept(n, false);
  int64_t x = 0;
  for (const std::vector<unsigned> &set : cutSets(cuts, chosen))
    for (unsigned v : set)
      if (!kept[v]) {
        kept[v] = true;
        x += graph.nodes[v].bytes;
      }
  if (keptBytes)
    *keptBytes = x;
  if (maxSegmentBytes)
    *maxSegmentBytes = y;
  return kept;
}

const std::optional<SimResult> &
GreedyContext::evaluate(const std::vector<bool> &kept) {
  auto [it, inserted] = simulated.try_emplace(kept);
  if (inserted) {
    SimResult sim;
    if (!simulator.simulate(lowerKeptSet(graph, kept), sim))
      it->second = sim;
  }
  return it->second;
}

std::vector<bool> GreedyContext::keptSet(int64_t thresholdBytes,
                                         int64_t *keptBytes,
                                         int64_t *maxSegmentBytes) {
  int64_t sepX = 0, sepY = 0, cutX = 0, cutY = 0;
  std::vector<bool> separators = separatorKeptSet(thresholdBytes, &sepX, &sepY);
  std::vector<bool> cutSet = cutKeptSet(thresholdBytes, &cutX, &cutY);
  // lowersBetter(graph, cutSet, separators), on the memoized simulations.
  bool useCuts = false;
  if (cutSet != separators) {
    const std::optional<SimResult> &c = evaluate(cutSet);
    const std::optional<SimResult> &i = evaluate(separators);
    useCuts = c && i &&
              (c->peakBytes < i->peakBytes ||
               (c->peakBytes == i->peakBytes &&
                c->recomputeCost < i->recomputeCost));
  }
  if (keptBytes)
    *keptBytes = useCuts ? cutX : sepX;
  if (maxSegmentBytes)
    *maxSegmentBytes = useCuts ? cutY : sepY;
  return useCuts ? cutSet : separators;
}

std::vector<bool> remat::sched::greedySeparatorKeptSet(const Graph &graph,
                                                       int64_t thresholdBytes,
                                                       int64_t *keptBytes,
                                                       int64_t *maxSegmentBytes) {
  return GreedyContext(graph).separatorKeptSet(thresholdBytes, keptBytes,
                                               maxSegmentBytes);
}

std::vector<bool> remat::sched::greedyCutKeptSet(const Graph &graph,
                                                 int64_t thresholdBytes,
                                                 int64_t *keptBytes,
                                                 int64_t *maxSegmentBytes) {
  return GreedyContext(graph).cutKeptSet(thresholdBytes, keptBytes,
                                         maxSegmentBytes);
}

std::vector<bool> remat::sched::greedyKeptSet(const Graph &graph,
                                              int64_t thresholdBytes,
                                              int64_t *keptBytes,
                                              int64_t *maxSegmentBytes) {
  return GreedyContext(graph).keptSet(thresholdBytes, keptBytes,
                                      maxSegmentBytes);
}

Schedule remat::sched::greedy(const Graph &graph, int64_t thresholdBytes) {
  return lowerKeptSet(graph, greedyKeptSet(graph, thresholdBytes));
}

std::vector<std::optional<PlanResult>>
remat::sched::greedyPlans(const Graph &graph,
                          const std::vector<int64_t> &thresholds) {
  GreedyContext context(graph);
  std::vector<std::optional<PlanResult>> plans;
  for (int64_t threshold : thresholds) {
    auto start = std::chrono::steady_clock::now();
    std::vector<bool> kept = context.keptSet(threshold);
    const std::optional<SimResult> &sim = context.evaluate(kept);
    std::optional<PlanResult> &plan = plans.emplace_back();
    if (!sim)
      continue;
    plan.emplace();
    plan->strategy = strategy::kGreedy.str();
    plan->detail = "threshold=" + std::to_string(threshold);
    plan->schedule = lowerKeptSet(graph, kept);
    plan->sim = *sim;
    plan->planSeconds = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  }
  return plans;
}

/// The threshold grid: `points` geometric values, 0, and Chen's estimate
/// sqrt(x * y) of the separator kept set (what Chen's search used) and, if
/// `withCutEstimate`, that of the cut kept set.
static std::vector<int64_t> thresholdGrid(const Graph &graph, unsigned points,
                                          bool withCutEstimate) {
  int64_t lo = std::numeric_limits<int64_t>::max(), total = 0;
  for (const Node &node : graph.nodes) {
    if (node.backward)
      continue;
    total += node.bytes;
    if (node.bytes > 0)
      lo = std::min(lo, node.bytes);
  }
  // Threshold 0 keeps every candidate boundary that produces bytes.
  std::vector<int64_t> grid{0};
  if (total > 0) {
    double ratio = static_cast<double>(total) / lo;
    for (unsigned i = 0; i < points; ++i) {
      double t =
          points == 1 ? lo : lo * std::pow(ratio, double(i) / (points - 1));
      grid.push_back(std::min<int64_t>(total, std::llround(t)));
    }
    // Chen's estimate sqrt(x * y) from a first sqrt(n)-like pass.
    int64_t first = total / std::max(1u, sqrtNSegments(graph));
    int64_t x = 0, y = 0;
    GreedyContext context(graph);
    context.separatorKeptSet(first, &x, &y);
    grid.push_back(std::llround(std::sqrt(double(x) * double(y))));
    if (withCutEstimate) {
      context.cutKeptSet(first, &x, &y);
      grid.push_back(std::llround(std::sqrt(double(x) * double(y))));
    }
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

std::vector<int64_t> remat::sched::greedyThresholdGrid(const Graph &graph,
                                                       unsigned points) {
  return thresholdGrid(graph, points, /*withCutEstimate=*/true);
}

/// The number of geometric grid points greedySearch uses (the default of
/// greedyThresholdGrid).
constexpr unsigned kSearchGridPoints = 60;

/// Plan `a` (at threshold `ta`) beats plan `b` (at `tb`): smaller peak, then
/// smaller recompute cost, then smaller threshold.
static bool beats(const SimResult &a, int64_t ta, const SimResult &b,
                  int64_t tb) {
  if (a.peakBytes != b.peakBytes)
    return a.peakBytes < b.peakBytes;
  if (a.recomputeCost != b.recomputeCost)
    return a.recomputeCost < b.recomputeCost;
  return ta < tb;
}

/// Up to 15 evenly spaced thresholds strictly between the neighbours of
/// `center` in `grid` (which holds it), `center` excluded.
static std::vector<int64_t> refinement(const std::vector<int64_t> &grid,
                                       int64_t center) {
  std::vector<int64_t> result;
  auto it = std::lower_bound(grid.begin(), grid.end(), center);
  if (it == grid.end() || *it != center)
    return result;
  int64_t lo = it == grid.begin() ? *it : *(it - 1);
  int64_t hi = it + 1 == grid.end() ? *it : *(it + 1);
  constexpr int kRefinePoints = 16;
  int64_t last = lo;
  for (int i = 1; i < kRefinePoints; ++i) {
    int64_t t = lo + static_cast<int64_t>((static_cast<double>(hi - lo) * i) /
                                          kRefinePoints);
    if (t == last || t == center || t >= hi)
      continue;
    last = t;
    result.push_back(t);
  }
  return result;
}

GreedySearchResult remat::sched::greedySearch(const Graph &graph) {
  GreedySearchResult best;
  bool found = false;
  // Chen's search restricted to separator kept sets, on its own grid: the
  // threshold where it does best is refined too, so that the result is never
  // worse than that search (every plan simulated is at least as good as the
  // separator plan of its threshold).
  std::vector<int64_t> separatorGrid =
      thresholdGrid(graph, kSearchGridPoints, /*withCutEstimate=*/false);
  SimResult separatorBest;
  int64_t separatorBestThreshold = 0;
  bool separatorFound = false;
  std::set<int64_t> tried;
  GreedyContext context(graph);
  // The best kept set so far, lowered once at the end.
  std::vector<bool> bestKept;

  auto consider = [&](int64_t threshold, bool onSeparatorGrid) {
    if (!tried.insert(threshold).second)
      return;
    std::vector<bool> kept = context.keptSet(threshold);
    const std::optional<SimResult> &evaluated = context.evaluate(kept);
    if (!evaluated)
      return; // Only possible on an invalid graph.
    SimResult sim = *evaluated;
    ++best.tried;
    if (onSeparatorGrid) {
      const std::optional<SimResult> &sepSim =
          context.evaluate(context.separatorKeptSet(threshold));
      if (sepSim &&
          (!separatorFound ||
           beats(*sepSim, threshold, separatorBest, separatorBestThreshold))) {
        separatorFound = true;
        separatorBest = *sepSim;
        separatorBestThreshold = threshold;
      }
    }
    if (found && !beats(sim, threshold, best.sim, best.threshold))
      return;
    found = true;
    bestKept = std::move(kept);
    best.threshold = threshold;
    best.sim = sim;
  };

  std::vector<int64_t> grid = greedyThresholdGrid(graph, kSearchGridPoints);
  for (int64_t threshold : grid)
    consider(threshold, std::binary_search(separatorGrid.begin(),
                                           separatorGrid.end(), threshold));
  if (!found) {
    best.schedule = storeAll(graph);
    return best;
  }

  // Refine between the grid neighbours of the best threshold: the grid is
  // geometric, so its steps are coarse where the optimum usually lies. Then
  // the same around the best separator-only threshold, on its grid.
  int64_t center = best.threshold;
  for (int64_t t : refinement(grid, center))
    consider(t, false);
  if (separatorFound)
    for (int64_t t : refinement(separatorGrid, separatorBestThreshold))
      consider(t, false);
  best.schedule = lowerKeptSet(graph, bestKept);
  return best;
}
