//===- KeptSet.cpp - Lowering a kept set to a schedule --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"

#include "remat/Scheduling/RecomputeClosure.h"

#include <algorithm>
#include <cassert>
#include <utility>

using namespace remat::sched;

bool remat::sched::isAlwaysKept(const Node &node) {
  return node.keep || node.noRecompute || node.output;
}

Schedule remat::sched::lowerKeptSet(const Graph &graph,
                                    const std::vector<bool> &kept) {
  unsigned n = graph.size();
  assert(kept.size() == n && "kept set must have one entry per node");
  const std::vector<Node> &nodes = graph.nodes;

  // available[v]: a forward value backward nodes can read without a new
  // recomputation (kept, or recomputed already). visited[v]: pushed on the
  // search; as the graph is a DAG a visited node is emitted before it could
  // be reached again.
  std::vector<bool> available(n), visited(n);
  for (unsigned v = 0; v != n; ++v)
    if (!nodes[v].backward)
      available[v] = kept[v] || isAlwaysKept(nodes[v]);

  Schedule schedule(n);
  std::vector<std::pair<unsigned, unsigned>> stack;
  for (unsigned k = 0; k != n; ++k) {
    if (!nodes[k].backward)
      continue;
    // Forward nodes only have forward operands (Graph::validate), so only
    // the roots can be backward nodes.
    appendRecomputeClosure(
        graph, k,
        [&](unsigned v) {
          if (nodes[v].backward || available[v] || visited[v])
            return false;
          visited[v] = true;
          return true;
        },
        [&](unsigned v) { available[v] = true; }, schedule.recomputeBefore[k],
        stack);
  }
  return schedule;
}

std::vector<unsigned> remat::sched::lastReadSteps(const Graph &graph,
                                                  const Schedule &schedule) {
  unsigned n = graph.size();
  std::vector<unsigned> lastUse(n, 0);
  for (unsigned r = 0; r != n; ++r)
    for (unsigned v : graph.nodes[r].operands)
      lastUse[v] = std::max(lastUse[v], r);
  for (unsigned k = 0; k != n; ++k)
    for (unsigned u : schedule.recomputeBefore[k])
      for (unsigned v : graph.nodes[u].operands)
        lastUse[v] = std::max(lastUse[v], k);
  return lastUse;
}

std::vector<bool> remat::sched::keptSetOf(const Graph &graph,
                                          const Schedule &schedule) {
  unsigned n = graph.size();
  std::vector<bool> kept(n, false);
  for (unsigned v = 0; v != n; ++v)
    kept[v] = !graph.nodes[v].backward;
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned v : list)
      kept[v] = false;
  return kept;
}
