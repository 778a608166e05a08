//===- Strategies.cpp - Store-all and sqrt(n) checkpointing ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Strategies.h"
#include "remat/Scheduling/Cuts.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace remat::sched;

Schedule remat::sched::storeAll(const Graph &graph) {
  return Schedule(graph.size());
}

unsigned remat::sched::numForwardNodes(const Graph &graph) {
  unsigned count = 0;
  for (const Node &node : graph.nodes)
    count += !node.backward;
  return count;
}

unsigned remat::sched::sqrtNSegments(const Graph &graph) {
  unsigned m = numForwardNodes(graph);
  unsigned k = std::ceil(std::sqrt(static_cast<double>(m)));
  // Guard against rounding of the square root.
  while (k > 0 && static_cast<uint64_t>(k - 1) * (k - 1) >= m)
    --k;
  while (static_cast<uint64_t>(k) * k < m)
    ++k;
  return k;
}

std::vector<bool> remat::sched::sqrtNSeparatorKeptSet(const Graph &graph,
                                                      unsigned numSegments) {
  unsigned n = graph.size();
  std::vector<bool> kept(n, false);
  std::vector<unsigned> forwardPos(n, 0);
  unsigned m = 0;
  for (unsigned v = 0; v != n; ++v)
    if (!graph.nodes[v].backward)
      forwardPos[v] = m++;
  unsigned k = numSegments ? numSegments : sqrtNSegments(graph);
  if (k <= 1 || m == 0)
    return kept;

  std::vector<unsigned> separators = findSeparators(graph);
  std::vector<int64_t> sepPos;
  sepPos.reserve(separators.size());
  for (unsigned v : separators)
    sepPos.push_back(forwardPos[v]);

  int64_t lastChosen = -1;
  for (unsigned j = 1; j < k; ++j) {
    // Last forward position of segment j when m positions are split evenly.
    int64_t target =
        static_cast<int64_t>((static_cast<uint64_t>(j) * m) / k) - 1;
    auto it = std::lower_bound(sepPos.begin(), sepPos.end(), target);
    size_t best = it - sepPos.begin();
    if (it == sepPos.end() ||
        (it != sepPos.begin() && target - *(it - 1) <= *it - target))
      best = (it - sepPos.begin()) - 1;
    if (static_cast<int64_t>(best) == lastChosen)
      continue;
    lastChosen = best;
    kept[separators[best]] = true;
  }
  return kept;
}

std::vector<bool> remat::sched::sqrtNCutKeptSet(const Graph &graph,
                                                unsigned numSegments) {
  unsigned n = graph.size();
  std::vector<bool> kept(n, false);
  unsigned m = numForwardNodes(graph);
  unsigned k = numSegments ? numSegments : sqrtNSegments(graph);
  if (k <= 1 || m == 0)
    return kept;

  ForwardCuts cuts = computeForwardCuts(graph);
  std::vector<unsigned> candidates = cutCandidates(graph, cuts);
  // A target may move to a cheaper cut at most a quarter of a segment away,
  // so that the segments stay balanced.
  int64_t radius = m / (4 * static_cast<uint64_t>(k));

  std::vector<unsigned> chosen;
  for (unsigned j = 1; j < k; ++j) {
    // Last forward position of segment j when m positions are split evenly.
    int64_t target =
        static_cast<int64_t>((static_cast<uint64_t>(j) * m) / k) - 1;
    auto lo = std::lower_bound(candidates.begin(), candidates.end(),
                               std::max<int64_t>(0, target - radius));
    auto best = candidates.end();
    auto better = [&](auto it) {
      if (best == candidates.end())
        return true;
      if (cuts.bytes[*it] != cuts.bytes[*best])
        return cuts.bytes[*it] < cuts.bytes[*best];
      int64_t d = std::abs(int64_t(*it) - target);
      int64_t dBest = std::abs(int64_t(*best) - target);
      return d < dBest || (d == dBest && *it < *best);
    };
    for (auto it = lo; it != candidates.end() && *it <= target + radius; ++it)
      if (better(it))
        best = it;
    if (best == candidates.end()) {
      // No candidate near the target: the closest one, ties to the earlier.
      best = lo;
      if (lo == candidates.end() ||
          (lo != candidates.begin() && target - *(lo - 1) <= *lo - target))
        best = lo - 1;
    }
    chosen.push_back(*best);
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  for (const std::vector<unsigned> &set : cutSets(cuts, chosen))
    for (unsigned v : set)
      kept[v] = true;
  return kept;
}

bool remat::sched::lowersBetter(const Graph &graph,
                                const std::vector<bool> &candidate,
                                const std::vector<bool> &incumbent) {
  SimResult c, i;
  if (simulate(graph, lowerKeptSet(graph, candidate), c) ||
      simulate(graph, lowerKeptSet(graph, incumbent), i))
    return false;
  return c.peakBytes < i.peakBytes ||
         (c.peakBytes == i.peakBytes && c.recomputeCost < i.recomputeCost);
}

std::vector<bool> remat::sched::sqrtNKeptSet(const Graph &graph,
                                             unsigned numSegments) {
  std::vector<bool> separators = sqrtNSeparatorKeptSet(graph, numSegments);
  std::vector<bool> cuts = sqrtNCutKeptSet(graph, numSegments);
  if (cuts != separators && lowersBetter(graph, cuts, separators))
    return cuts;
  return separators;
}

Schedule remat::sched::sqrtN(const Graph &graph) {
  return lowerKeptSet(graph, sqrtNKeptSet(graph));
}
