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

std::vector<unsigned> remat::sched::shuffledOrder(const Graph &graph,
                                                  OrderShuffle mode,
                                                  unsigned seed) {
  unsigned n = graph.size();
  if (mode == OrderShuffle::ForwardFirst)
    return forwardFirstOrder(graph);
  std::vector<std::vector<unsigned>> readers(n);
  std::vector<unsigned> pending(n, 0);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned input : graph.nodes[i].operands) {
      readers[input].push_back(i);
      ++pending[i];
    }
  // A small deterministic generator (a 64-bit LCG).
  uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  auto next = [&](unsigned bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<unsigned>((state >> 33) % bound);
  };
  std::vector<unsigned> order, ready, phase[2];
  for (unsigned i = 0; i < n; ++i) {
    phase[graph.nodes[i].backward].push_back(i);
    if (pending[i] == 0)
      ready.push_back(i);
  }
  size_t pos[2] = {0, 0};
  while (order.size() < n) {
    unsigned v;
    if (mode == OrderShuffle::Interleave) {
      // The next node of a phase is ready once its operands are placed; the
      // next forward node always is (it reads forward nodes only).
      bool ok[2];
      for (unsigned p = 0; p < 2; ++p)
        ok[p] = pos[p] < phase[p].size() && pending[phase[p][pos[p]]] == 0;
      unsigned p = ok[0] && ok[1] ? next(2) : (ok[0] ? 0 : 1);
      v = phase[p][pos[p]++];
    } else {
      unsigned pick = next(ready.size());
      v = ready[pick];
      ready.erase(ready.begin() + pick);
    }
    order.push_back(v);
    for (unsigned r : readers[v])
      if (--pending[r] == 0)
        ready.push_back(r);
  }
  return order;
}
