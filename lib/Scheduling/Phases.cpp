//===- Phases.cpp - Phases from dependences, op order normalization -------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Phases.h"

#include <cassert>

using namespace remat::sched;

std::vector<bool>
remat::sched::dependsOnSeeds(const Graph &graph,
                             const std::vector<unsigned> &seeds) {
  unsigned n = graph.size();
  std::vector<bool> reached(n, false);
  for (unsigned s : seeds)
    if (s < n)
      reached[s] = true;
  // Operands precede their readers, so one pass in order suffices.
  for (unsigned i = 0; i != n; ++i)
    for (unsigned op : graph.nodes[i].operands)
      if (op < n && reached[op]) {
        reached[i] = true;
        break;
      }
  return reached;
}

unsigned remat::sched::firstBackwardNode(const Graph &graph) {
  for (unsigned i = 0, e = graph.size(); i != e; ++i)
    if (graph.nodes[i].backward)
      return i;
  return graph.size();
}

std::vector<unsigned> remat::sched::lateForwardNodes(const Graph &graph) {
  std::vector<unsigned> late;
  for (unsigned i = firstBackwardNode(graph), e = graph.size(); i < e; ++i)
    if (!graph.nodes[i].backward)
      late.push_back(i);
  return late;
}

Graph remat::sched::pinLateForward(const Graph &graph) {
  Graph pinned = graph;
  for (unsigned i : lateForwardNodes(graph))
    pinned.nodes[i].backward = true;
  return pinned;
}

std::vector<unsigned> remat::sched::forwardFirstOrder(const Graph &graph) {
  std::vector<unsigned> order;
  order.reserve(graph.size());
  for (bool backward : {false, true})
    for (unsigned i = 0, e = graph.size(); i != e; ++i)
      if (graph.nodes[i].backward == backward)
        order.push_back(i);
  return order;
}

Graph remat::sched::reorderGraph(const Graph &graph,
                                 const std::vector<unsigned> &order) {
  assert(order.size() == graph.size() && "order must be a permutation");
  std::vector<unsigned> position(graph.size());
  for (unsigned i = 0, e = order.size(); i != e; ++i)
    position[order[i]] = i;
  Graph result;
  result.inputBytes = graph.inputBytes;
  result.nodes.reserve(graph.size());
  for (unsigned old : order) {
    Node node = graph.nodes[old];
    for (unsigned &op : node.operands)
      op = position[op];
    result.nodes.push_back(std::move(node));
  }
  return result;
}
