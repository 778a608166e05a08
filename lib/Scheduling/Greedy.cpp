//===- Greedy.cpp - Chen's greedy memory-threshold planner ----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"
#include "remat/Scheduling/Strategies.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace remat::sched;

std::vector<bool> remat::sched::greedyKeptSet(const Graph &graph,
                                              int64_t thresholdBytes,
                                              int64_t *keptBytes,
                                              int64_t *maxSegmentBytes) {
  unsigned n = graph.size();
  std::vector<bool> isSeparator(n, false);
  for (unsigned v : findSeparators(graph))
    isSeparator[v] = true;

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

Schedule remat::sched::greedy(const Graph &graph, int64_t thresholdBytes) {
  return lowerKeptSet(graph, greedyKeptSet(graph, thresholdBytes));
}

std::vector<int64_t> remat::sched::greedyThresholdGrid(const Graph &graph,
                                                       unsigned points) {
  int64_t lo = std::numeric_limits<int64_t>::max(), total = 0;
  for (const Node &node : graph.nodes) {
    if (node.backward)
      continue;
    total += node.bytes;
    if (node.bytes > 0)
      lo = std::min(lo, node.bytes);
  }
  // Threshold 0 keeps every separator that produces bytes.
  std::vector<int64_t> grid{0};
  if (total > 0) {
    double ratio = static_cast<double>(total) / lo;
    for (unsigned i = 0; i < points; ++i) {
      double t =
          points == 1 ? lo : lo * std::pow(ratio, double(i) / (points - 1));
      grid.push_back(std::min<int64_t>(total, std::llround(t)));
    }
    // Chen's estimate sqrt(x * y) from a first sqrt(n)-like pass.
    int64_t x = 0, y = 0;
    greedyKeptSet(graph, total / std::max(1u, sqrtNSegments(graph)), &x, &y);
    grid.push_back(std::llround(std::sqrt(double(x) * double(y))));
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

GreedySearchResult remat::sched::greedySearch(const Graph &graph) {
  GreedySearchResult best;
  bool found = false;
  auto consider = [&](int64_t threshold) {
    Schedule schedule = greedy(graph, threshold);
    SimResult sim;
    if (simulate(graph, schedule, sim))
      return; // Only possible on an invalid graph.
    ++best.tried;
    bool better = !found || sim.peakBytes < best.sim.peakBytes ||
                  (sim.peakBytes == best.sim.peakBytes &&
                   (sim.recomputeCost < best.sim.recomputeCost ||
                    (sim.recomputeCost == best.sim.recomputeCost &&
                     threshold < best.threshold)));
    if (!better)
      return;
    found = true;
    best.schedule = std::move(schedule);
    best.threshold = threshold;
    best.sim = sim;
  };

  std::vector<int64_t> grid = greedyThresholdGrid(graph);
  for (int64_t threshold : grid)
    consider(threshold);
  if (!found) {
    best.schedule = storeAll(graph);
    return best;
  }

  // Refine between the grid neighbours of the best threshold: the grid is
  // geometric, so its steps are coarse where the optimum usually lies.
  auto it = std::lower_bound(grid.begin(), grid.end(), best.threshold);
  if (it != grid.end() && *it == best.threshold) {
    int64_t lo = it == grid.begin() ? *it : *(it - 1);
    int64_t hi = it + 1 == grid.end() ? *it : *(it + 1);
    constexpr int kRefinePoints = 16;
    int64_t last = lo;
    for (int i = 1; i < kRefinePoints; ++i) {
      int64_t t = lo + static_cast<int64_t>((static_cast<double>(hi - lo) * i) /
                                            kRefinePoints);
      if (t == last || t == best.threshold || t >= hi)
        continue;
      last = t;
      consider(t);
    }
  }
  return best;
}
