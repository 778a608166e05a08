//===- KeptSet.cpp - Lowering a kept set to a schedule --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/KeptSet.h"

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
  // DFS stack; as the graph is a DAG a visited node is emitted before it
  // could be reached again.
  std::vector<bool> available(n), visited(n);
  for (unsigned v = 0; v != n; ++v)
    if (!nodes[v].backward)
      available[v] = kept[v] || isAlwaysKept(nodes[v]);

  Schedule schedule(n);
  // Explicit DFS stack of (node, next operand) to survive 10^5-deep chains.
  std::vector<std::pair<unsigned, unsigned>> stack;
  for (unsigned k = 0; k != n; ++k) {
    if (!nodes[k].backward)
      continue;
    std::vector<unsigned> &list = schedule.recomputeBefore[k];
    for (unsigned root : nodes[k].operands) {
      if (nodes[root].backward || available[root] || visited[root])
        continue;
      visited[root] = true;
      stack.emplace_back(root, 0);
      while (!stack.empty()) {
        auto &[v, next] = stack.back();
        const std::vector<unsigned> &ops = nodes[v].operands;
        if (next < ops.size()) {
          unsigned op = ops[next++];
          // Forward nodes only have forward operands (Graph::validate).
          if (!available[op] && !visited[op]) {
            visited[op] = true;
            stack.emplace_back(op, 0);
          }
          continue;
        }
        list.push_back(v);
        available[v] = true;
        stack.pop_back();
      }
    }
  }
  return schedule;
}
