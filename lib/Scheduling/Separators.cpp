//===- Separators.cpp - Segment boundaries of the forward pass ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Separators.h"

#include <cstdint>

using namespace remat::sched;

std::vector<unsigned> remat::sched::findSeparators(const Graph &graph) {
  const std::vector<Node> &nodes = graph.nodes;
  unsigned n = graph.size();

  // Position of every forward node among forward nodes.
  std::vector<unsigned> forward;
  std::vector<unsigned> pos(n, 0);
  for (unsigned v = 0; v != n; ++v) {
    if (nodes[v].backward)
      continue;
    pos[v] = forward.size();
    forward.push_back(v);
  }

  // Every forward edge u -> w covers the open position interval
  // (pos(u), pos(w)); count the cover with a difference array.
  std::vector<int64_t> delta(forward.size() + 1, 0);
  for (unsigned w : forward) {
    for (unsigned u : nodes[w].operands) {
      if (nodes[u].backward || pos[u] + 1 >= pos[w])
        continue;
      ++delta[pos[u] + 1];
      --delta[pos[w]];
    }
  }

  std::vector<unsigned> separators;
  int64_t cover = 0;
  for (unsigned i = 0, e = forward.size(); i != e; ++i) {
    cover += delta[i];
    if (cover == 0)
      separators.push_back(forward[i]);
  }
  return separators;
}
