//===- RecomputeClosure.h - What a use needs recomputed ---------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The search both schedule lowerings (`lowerKeptSet`, `lowerDropModes`) run
/// before each node: which of its operands have no live instance, and which
/// of their operands must be recomputed first, transitively.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_RECOMPUTECLOSURE_H
#define REMAT_SCHEDULING_RECOMPUTECLOSURE_H

#include "remat/Scheduling/Graph.h"

#include <utility>
#include <vector>

namespace remat {
namespace sched {

/// Appends to `list` the nodes to recompute right before node `k`, in
/// topological order. A depth-first search starts at each operand of `k` in
/// turn and follows operands; it enters a node `v` only if `enter(v)` returns
/// true, and `enter` must then record `v` so that it returns false for `v`
/// until the search is over (so each node is entered at most once). An
/// entered node is appended, and passed to `emitted`, after every operand the
/// search enters from it. `stack` is scratch space (empty on entry and on
/// return), kept by the caller across calls so that it is allocated once; the
/// search is iterative so that 10^5-deep chains do not exhaust the C++ stack.
/// Runs in O(operand references of the entered nodes).
template <typename EnterFn, typename EmittedFn>
void appendRecomputeClosure(const Graph &graph, unsigned k, EnterFn &&enter,
                            EmittedFn &&emitted, std::vector<unsigned> &list,
                            std::vector<std::pair<unsigned, unsigned>> &stack) {
  const std::vector<Node> &nodes = graph.nodes;
  for (unsigned root : nodes[k].operands) {
    if (!enter(root))
      continue;
    // Entries are (node, index of its next operand to look at).
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto &[v, next] = stack.back();
      const std::vector<unsigned> &ops = nodes[v].operands;
      if (next < ops.size()) {
        unsigned op = ops[next++];
        if (enter(op))
          stack.emplace_back(op, 0);
        continue;
      }
      list.push_back(v);
      emitted(v);
      stack.pop_back();
    }
  }
}

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_RECOMPUTECLOSURE_H
