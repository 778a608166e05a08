//===- CaseSplitBound.cpp - A recompute bound split on one node -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The two cases of CaseSplitBound.h, each bounded by LowerBound.h.
///
//===----------------------------------------------------------------------===//

#include "remat/Scheduling/CaseSplitBound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace remat::sched;

std::optional<std::pair<unsigned, unsigned>>
remat::sched::costliestRecomputation(const Graph &graph,
                                     const Schedule &schedule) {
  std::vector<unsigned> count(graph.size(), 0);
  for (const std::vector<unsigned> &list : schedule.recomputeBefore)
    for (unsigned v : list)
      if (v < count.size())
        ++count[v];
  std::optional<std::pair<unsigned, unsigned>> best;
  double bestCost = 0;
  for (unsigned v = 0; v != graph.size(); ++v) {
    double cost = graph.nodes[v].cost * count[v];
    if (count[v] && cost > bestCost) {
      bestCost = cost;
      best = {v, count[v]};
    }
  }
  return best;
}

/// The first case's bound by executions forced late (CaseSplitBound.h):
/// for the shortest suffix of `steps` whose interval program with the node
/// capped at k - 1 recomputations has no point (so every schedule executes
/// it at least k times after the suffix's first step s, and a schedule of
/// the case never before s), the program capped at k (the recompute after
/// s) plus LowerBound on the graph of the nodes up to s with the node never
/// recomputed (the recompute up to s); 0 when no suffix qualifies,
/// +infinity when the case has no schedule within the budget.
static double forcedLateBound(const Graph &graph, int64_t budgetBytes,
                              unsigned node, unsigned k,
                              const LowerBoundOptions &options,
                              llvm::ArrayRef<unsigned> steps,
                              unsigned &from) {
  double inf = std::numeric_limits<double>::infinity();
  double seconds = options.timeLimitSeconds > 0 ? options.timeLimitSeconds : 2;
  unsigned firstBackward = 0;
  while (firstBackward < graph.size() && !graph.nodes[firstBackward].backward)
    ++firstBackward;
  // The last kMaxSuffixes suffixes, each program with a quarter of the
  // time limit.
  constexpr unsigned kMaxSuffixes = 4;
  for (unsigned i = steps.size(), tried = 0;
       i-- > 0 && tried++ < kMaxSuffixes;) {
    unsigned s = steps[i];
    if (s <= node || s < firstBackward)
      break;
    llvm::ArrayRef<unsigned> suffix = steps.drop_front(i);
    std::optional<double> fewer = intervalStepsBound(
        graph, budgetBytes, suffix, seconds / 4, {{node, k - 1}});
    if (!fewer || *fewer < inf)
      continue;
    std::optional<double> late = intervalStepsBound(graph, budgetBytes, suffix,
                                                    seconds / 4, {{node, k}});
    if (!late)
      return 0;
    from = s;
    if (*late == inf)
      return inf;
    // The schedule's lists up to s are a schedule of the nodes up to s
    // (each instance freed at its last read there, never later than in
    // the whole graph), within the budget, that never recomputes the node.
    Graph head;
    head.inputBytes = graph.inputBytes;
    head.nodes.assign(graph.nodes.begin(), graph.nodes.begin() + s + 1);
    head.nodes[node].noRecompute = true;
    LowerBound early = recomputeLowerBound(head, budgetBytes, options);
    if (early.infeasible)
      return inf;
    return *late + early.recomputeCost;
  }
  return 0;
}

CaseSplitBound remat::sched::caseSplitBound(
    const Graph &graph, int64_t budgetBytes, unsigned node,
    unsigned maxRecomputations, const LowerBoundOptions &options,
    double plainBound, llvm::ArrayRef<unsigned> plainSteps) {
  CaseSplitBound split;
  split.node = node;
  split.maxRecomputations = maxRecomputations;
  // At most k recomputations: the interval programs with the cap.
  LowerBoundOptions capped = options;
  capped.maxRecomputations.push_back({node, maxRecomputations});
  split.capped = recomputeLowerBound(graph, budgetBytes, capped);
  split.atMost = std::max(plainBound, split.capped.recomputeCost);
  // And by executions forced late, on the steps of the plain bound's joint
  // program, else on the capped one's.
  if (maxRecomputations > 0)
    for (llvm::ArrayRef<unsigned> steps :
         {plainSteps,
          llvm::ArrayRef<unsigned>(split.capped.jointSolution.steps)}) {
      unsigned from = ~0u;
      double late = forcedLateBound(graph, budgetBytes, node, maxRecomputations,
                                    options, steps, from);
      if (late > split.atMost) {
        split.atMost = late;
        split.lateFrom = from;
      }
      if (!steps.empty())
        break; // One LowerBound of a head graph at most.
    }
  // At least k + 1: (k + 1) cost(node) plus the rest, bounded on the graph
  // with the node free, unless the first term already reaches the first
  // case (the minimum is then that case's bound).
  double forced = double(maxRecomputations + 1) * graph.nodes[node].cost;
  split.atLeast = std::max(plainBound, forced);
  if (split.atLeast < split.atMost) {
    Graph free = graph;
    free.nodes[node].cost = 0;
    LowerBound rest = recomputeLowerBound(free, budgetBytes, options);
    split.atLeast = std::max(split.atLeast, forced + rest.recomputeCost);
  }
  split.recomputeCost = std::min(split.atMost, split.atLeast);
  return split;
}
