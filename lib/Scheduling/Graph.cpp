//===- Graph.cpp - Training graph and schedule model ----------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Graph.h"

#include <cmath>

using namespace remat::sched;

unsigned Graph::addNode(Node node) {
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

/// Names a node in diagnostics: `'name' (#index)`.
static std::string describe(const Graph &graph, unsigned index) {
  return "'" + graph.nodes[index].name + "' (#" + std::to_string(index) + ")";
}

std::optional<std::string> Graph::validate() const {
  if (inputBytes < 0)
    return "graph input bytes are negative";
  if (inputBytes > kMaxGraphBytes)
    return "graph input bytes " + std::to_string(inputBytes) +
           " exceed the limit of 2^60";
  // Running totals: every sum a strategy or the simulator forms over
  // distinct values stays far from int64_t and double overflow.
  int64_t totalBytes = inputBytes;
  double totalCost = 0;
  for (unsigned i = 0, e = nodes.size(); i != e; ++i) {
    const Node &node = nodes[i];
    if (node.bytes < 0)
      return "node " + describe(*this, i) + " has negative size";
    if (node.workspace < 0 || node.workspace > kMaxGraphBytes)
      return "node " + describe(*this, i) +
             " has a negative workspace or one above 2^60";
    if (!(node.cost >= 0) || std::isinf(node.cost))
      return "node " + describe(*this, i) + " has a negative or invalid cost";
    if (node.bytes > kMaxGraphBytes - totalBytes)
      return "the bytes of the inputs and nodes up to " + describe(*this, i) +
             " exceed the limit of 2^60";
    totalBytes += node.bytes;
    totalCost += node.cost;
    if (!(totalCost <= kMaxGraphCost))
      return "the costs of the nodes up to " + describe(*this, i) +
             " sum above the limit of 1e280";
    for (unsigned op : node.operands) {
      if (op >= i)
        return "node " + describe(*this, i) + " uses operand #" +
               std::to_string(op) + " which does not precede it";
      if (!node.backward && nodes[op].backward)
        return "forward node " + describe(*this, i) + " uses backward node " +
               describe(*this, op);
    }
  }
  return std::nullopt;
}

size_t Graph::workSize() const {
  size_t size = nodes.size();
  for (const Node &node : nodes)
    size += node.operands.size();
  return size;
}

double Graph::forwardCost() const {
  double total = 0;
  for (const Node &node : nodes)
    if (!node.backward)
      total += node.cost;
  return total;
}

bool Graph::isForwardOnly() const {
  for (const Node &node : nodes)
    if (node.backward)
      return false;
  return true;
}

size_t Schedule::numRecomputed() const {
  size_t count = 0;
  for (const std::vector<unsigned> &list : recomputeBefore)
    count += list.size();
  return count;
}
