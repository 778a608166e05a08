//===- Strategies.cpp - Store-all and sqrt(n) checkpointing ---------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Strategies.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include <algorithm>
#include <cmath>

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

std::vector<bool> remat::sched::sqrtNKeptSet(const Graph &graph,
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

Schedule remat::sched::sqrtN(const Graph &graph) {
  return lowerKeptSet(graph, sqrtNKeptSet(graph));
}
