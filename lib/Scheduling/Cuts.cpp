//===- Cuts.cpp - Multi-value segment boundaries of the forward pass ------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/Cuts.h"
#include "remat/Scheduling/KeptSet.h"
#include "remat/Scheduling/Separators.h"

#include <algorithm>
#include <cassert>

using namespace remat::sched;

ForwardCuts remat::sched::computeForwardCuts(const Graph &graph) {
  const std::vector<Node> &nodes = graph.nodes;
  unsigned n = graph.size();
  ForwardCuts cuts;
  std::vector<unsigned> pos(n, 0);
  for (unsigned v = 0; v != n; ++v) {
    if (nodes[v].backward)
      continue;
    pos[v] = cuts.forward.size();
    cuts.forward.push_back(v);
  }
  unsigned m = cuts.forward.size();

  // lastForwardUse[p]: the largest position of a forward reader of the value
  // at position p (p itself if none); read[p]: any node reads it.
  std::vector<unsigned> lastForwardUse(m);
  std::vector<bool> read(m, false);
  for (unsigned p = 0; p != m; ++p)
    lastForwardUse[p] = p;
  for (unsigned w = 0; w != n; ++w) {
    for (unsigned u : nodes[w].operands) {
      if (nodes[u].backward)
        continue;
      read[pos[u]] = true;
      if (!nodes[w].backward)
        lastForwardUse[pos[u]] = std::max(lastForwardUse[pos[u]], pos[w]);
    }
  }

  // The value at p belongs to the cuts [p, lastForwardUse) when a later
  // forward node reads it, to the cut at p alone when only backward nodes
  // read it, and to none when nothing reads it or it is always kept.
  cuts.memberEnd.resize(m);
  std::vector<int64_t> deltaBytes(m + 1, 0);
  std::vector<int64_t> deltaCount(m + 1, 0);
  for (unsigned p = 0; p != m; ++p) {
    const Node &node = nodes[cuts.forward[p]];
    unsigned end = p;
    if (!isAlwaysKept(node) && read[p])
      end = std::max(lastForwardUse[p], p + 1);
    cuts.memberEnd[p] = end;
    if (end == p)
      continue;
    deltaBytes[p] += node.bytes;
    deltaBytes[end] -= node.bytes;
    ++deltaCount[p];
    --deltaCount[end];
  }
  cuts.bytes.resize(m);
  cuts.numValues.resize(m);
  int64_t bytes = 0, count = 0;
  for (unsigned p = 0; p != m; ++p) {
    bytes += deltaBytes[p];
    count += deltaCount[p];
    cuts.bytes[p] = bytes;
    cuts.numValues[p] = static_cast<unsigned>(count);
  }
  return cuts;
}

std::vector<unsigned> remat::sched::cutSet(const ForwardCuts &cuts,
                                           unsigned position) {
  assert(position < cuts.numPositions() && "cut position out of range");
  std::vector<unsigned> set;
  for (unsigned p = 0; p <= position; ++p)
    if (cuts.memberEnd[p] > position)
      set.push_back(cuts.forward[p]);
  return set;
}

std::vector<std::vector<unsigned>>
remat::sched::cutSets(const ForwardCuts &cuts,
                      const std::vector<unsigned> &positions) {
  assert(std::is_sorted(positions.begin(), positions.end()) &&
         std::adjacent_find(positions.begin(), positions.end()) ==
             positions.end() &&
         "cut positions must be ascending and distinct");
  std::vector<std::vector<unsigned>> sets(positions.size());
  // Values in position order, so every set comes out ascending.
  for (unsigned p = 0, m = cuts.numPositions(); p != m; ++p) {
    auto it = std::lower_bound(positions.begin(), positions.end(), p);
    for (; it != positions.end() && *it < cuts.memberEnd[p]; ++it)
      sets[it - positions.begin()].push_back(cuts.forward[p]);
  }
  return sets;
}

std::vector<unsigned> remat::sched::cutCandidates(const Graph &graph,
                                                  const ForwardCuts &cuts,
                                                  unsigned window,
                                                  unsigned maxValues) {
  unsigned m = cuts.numPositions();
  std::vector<bool> candidate(m, false);
  std::vector<unsigned> pos(graph.size(), 0);
  for (unsigned p = 0; p != m; ++p)
    pos[cuts.forward[p]] = p;
  for (unsigned v : findSeparators(graph))
    candidate[pos[v]] = true;

  // Sliding-window minimum of the cut bytes over [p - window, p + window]
  // with a monotone deque of positions: O(m) overall.
  std::vector<unsigned> deque(m);
  size_t head = 0, tail = 0;
  unsigned next = 0; // Next position to enter the window.
  for (unsigned p = 0; p != m; ++p) {
    unsigned hi = std::min<uint64_t>(m - 1, uint64_t(p) + window);
    for (; next <= hi; ++next) {
      while (tail > head && cuts.bytes[deque[tail - 1]] >= cuts.bytes[next])
        --tail;
      deque[tail++] = next;
    }
    while (deque[head] + window < p)
      ++head;
    if (cuts.numValues[p] <= maxValues &&
        cuts.bytes[p] <= cuts.bytes[deque[head]])
      candidate[p] = true;
  }

  std::vector<unsigned> result;
  for (unsigned p = 0; p != m; ++p)
    if (candidate[p])
      result.push_back(p);
  return result;
}
