//===- KeptSet.cpp - Lowering a kept set to a schedule --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"

#include "remat/Scheduling/Phases.h"
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
  return lowerKeptSet(graph, kept, std::vector<bool>(graph.size(), false));
}

Schedule remat::sched::lowerKeptSet(const Graph &graph,
                                    const std::vector<bool> &kept,
                                    const std::vector<bool> &refresh) {
  return lowerKeptSet(graph, kept, refresh, /*refreshGap=*/0);
}

Schedule remat::sched::lowerKeptSet(const Graph &graph,
                                    const std::vector<bool> &kept,
                                    const std::vector<bool> &refresh,
                                    unsigned refreshGap) {
  unsigned n = graph.size();
  assert(kept.size() == n && refresh.size() == n &&
         "kept and refresh sets must have one entry per node");
  const std::vector<Node> &nodes = graph.nodes;
  constexpr unsigned kNever = ~0u;

  // resident[v]: a forward value that is never recomputed. madeAt[v]: the
  // step of v's latest recomputation; the instance serves every later step
  // unless v is refreshed, then only that step. enteredAt[v]: the step whose
  // search last pushed v; as the graph is a DAG a node pushed in a step's
  // search is emitted before it could be reached again in that search.
  std::vector<bool> resident(n);
  // readAt[v]: the last step that read v's latest recomputed instance (or
  // made it): a refreshed instance serves a step at most `refreshGap` steps
  // later.
  std::vector<unsigned> madeAt(n, kNever), enteredAt(n, kNever),
      readAt(n, kNever);
  for (unsigned v = 0; v != n; ++v)
    if (!nodes[v].backward)
      resident[v] = kept[v] || isAlwaysKept(nodes[v]);

  Schedule schedule(n);
  std::vector<std::pair<unsigned, unsigned>> stack;
  // Every step from the first backward node on is served, a late forward
  // node (Phases.h) as a backward one, except that a dropped late forward
  // node reads the latest instances of the late forward values: the
  // original chain of dropped late values runs as the input places it,
  // and the values are recomputed for their other readers.
  unsigned firstBackward = firstBackwardNode(graph);
  for (unsigned k = firstBackward; k < n; ++k) {
    bool droppedLateStep = !nodes[k].backward && !resident[k];
    auto available = [&](unsigned v) {
      return resident[v] || (madeAt[v] != kNever &&
                             (!refresh[v] || madeAt[v] == k ||
                              (refreshGap > 0 && k - readAt[v] <= refreshGap)));
    };
    // Forward nodes only have forward operands (Graph::validate), so only
    // the roots can be backward nodes.
    appendRecomputeClosure(
        graph, k,
        [&](unsigned v) {
          if (nodes[v].backward || available(v) || enteredAt[v] == k ||
              (droppedLateStep && v >= firstBackward))
            return false;
          enteredAt[v] = k;
          return true;
        },
        [&](unsigned v) { madeAt[v] = readAt[v] = k; },
        schedule.recomputeBefore[k], stack);
    if (refreshGap > 0) {
      // Reads of this step: node k's operands and those of its list.
      auto markRead = [&](unsigned u) {
        for (unsigned v : nodes[u].operands)
          if (madeAt[v] != kNever)
            readAt[v] = k;
      };
      markRead(k);
      for (unsigned u : schedule.recomputeBefore[k])
        markRead(u);
    }
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
