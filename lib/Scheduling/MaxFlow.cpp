//===- MaxFlow.cpp - Maximum flow on double capacities --------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/MaxFlow.h"

#include <algorithm>
#include <cmath>

using namespace remat::sched;

void FlowNetwork::addEdge(unsigned from, unsigned to, double capacity) {
  if (capacity <= 0)
    return;
  adjacency[from].push_back(edges.size());
  edges.push_back({to, capacity});
  adjacency[to].push_back(edges.size());
  edges.push_back({from, 0});
}

double FlowNetwork::maxFlow(unsigned source, unsigned sink) {
  double total = 0;
  while (buildLevels(source, sink)) {
    std::fill(next.begin(), next.end(), 0);
    while (double f = push(source, sink, kInf))
      total += f;
  }
  return total;
}

std::vector<bool> FlowNetwork::sourceSide(unsigned source) const {
  std::vector<bool> seen(adjacency.size(), false);
  std::vector<unsigned> stack = {source};
  seen[source] = true;
  while (!stack.empty()) {
    unsigned v = stack.back();
    stack.pop_back();
    for (unsigned e : adjacency[v])
      if (residual(e) > 0 && !seen[edges[e].to]) {
        seen[edges[e].to] = true;
        stack.push_back(edges[e].to);
      }
  }
  return seen;
}

double FlowNetwork::residual(unsigned e) const {
  const Edge &edge = edges[e];
  if (std::isinf(edge.capacity))
    return kInf;
  double r = edge.capacity - edge.flow;
  return r > kEps * std::max(1.0, std::fabs(edge.capacity)) ? r : 0;
}

bool FlowNetwork::buildLevels(unsigned source, unsigned sink) {
  std::fill(level.begin(), level.end(), -1);
  std::vector<unsigned> queue = {source};
  level[source] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    unsigned v = queue[i];
    for (unsigned e : adjacency[v])
      if (level[edges[e].to] < 0 && residual(e) > 0) {
        level[edges[e].to] = level[v] + 1;
        queue.push_back(edges[e].to);
      }
  }
  return level[sink] >= 0;
}

double FlowNetwork::push(unsigned source, unsigned sink, double limit) {
  std::vector<unsigned> path; // Edge ids.
  unsigned v = source;
  while (true) {
    if (v == sink) {
      double f = limit;
      for (unsigned e : path)
        f = std::min(f, residual(e));
      if (std::isinf(f))
        return 0; // An infinite path: excluded by the class's contract.
      for (unsigned e : path) {
        if (!std::isinf(edges[e].capacity))
          edges[e].flow += f;
        if (!std::isinf(edges[e ^ 1].capacity))
          edges[e ^ 1].flow -= f;
      }
      return f;
    }
    bool advanced = false;
    for (; next[v] < adjacency[v].size(); ++next[v]) {
      unsigned e = adjacency[v][next[v]];
      unsigned to = edges[e].to;
      if (level[to] == level[v] + 1 && residual(e) > 0) {
        path.push_back(e);
        v = to;
        advanced = true;
        break;
      }
    }
    if (advanced)
      continue;
    // Dead end: retreat.
    level[v] = -1;
    if (path.empty())
      return 0;
    unsigned e = path.back();
    path.pop_back();
    v = edges[e ^ 1].to;
    ++next[v];
  }
}
