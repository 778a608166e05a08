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
#include <chrono>
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

/// The relative slack of the budget with which a program found without a
/// point is solved again before +infinity is taken from it: the programs
/// of a larger budget are relaxations (every schedule within the budget is
/// within the larger one), so the second proof implies the first, with a
/// margin far above CLP's primal tolerance (1e-7 on rows in units of the
/// budget).
constexpr double kConfirmSlack = 1e-5;

/// The first case's bound by executions forced late (CaseSplitBound.h):
/// for the shortest suffix of `steps` whose interval program with the node
/// capped at k - 1 recomputations has no point (so every schedule executes
/// it at least k times after the suffix's first step s, and a schedule of
/// the case never before s), the program capped at k (the recompute after
/// s) plus LowerBound on the graph of the nodes up to s with the node never
/// recomputed (the recompute up to s); 0 when no suffix qualifies,
/// +infinity when the case has no schedule within the budget. A program
/// without a point counts only when it has none with the budget loosened by
/// kConfirmSlack either (else the suffix is passed over, or the bound is 0:
/// one false infeasibility at a leaf of CLP's branch and bound would
/// otherwise decide the case). The interval programs, the confirmations
/// included, share the time limit (each at most a quarter of it); the
/// LowerBound of the head graph has a time limit of its own.
static double forcedLateBound(const Graph &graph, int64_t budgetBytes,
                              unsigned node, unsigned k,
                              const LowerBoundOptions &options,
                              llvm::ArrayRef<unsigned> steps,
                              unsigned &from) {
  using Clock = std::chrono::steady_clock;
  double inf = std::numeric_limits<double>::infinity();
  double seconds = options.timeLimitSeconds > 0 ? options.timeLimitSeconds : 2;
  Clock::time_point start = Clock::now();
  // The next program's share: a quarter of the limit, at most what is left.
  auto share = [&] {
    double spent = std::chrono::duration<double>(Clock::now() - start).count();
    return std::min(seconds / 4, seconds - spent);
  };
  int64_t looser =
      budgetBytes + std::max<int64_t>(1, int64_t(std::ceil(double(budgetBytes) *
                                                           kConfirmSlack)));
  // No point with the cap at the budget, confirmed at the looser budget.
  auto noPoint = [&](llvm::ArrayRef<unsigned> suffix, unsigned cap,
                     std::optional<double> atBudget) {
    if (!atBudget || *atBudget < inf || share() <= 0)
      return false;
    std::optional<double> confirmed =
        intervalStepsBound(graph, looser, suffix, share(), {{node, cap}});
    return confirmed && *confirmed == inf;
  };
  unsigned firstBackward = 0;
  while (firstBackward < graph.size() && !graph.nodes[firstBackward].backward)
    ++firstBackward;
  // The last kMaxSuffixes suffixes.
  constexpr unsigned kMaxSuffixes = 4;
  for (unsigned i = steps.size(), tried = 0;
       i-- > 0 && tried++ < kMaxSuffixes && share() > 0;) {
    unsigned s = steps[i];
    if (s <= node || s < firstBackward)
      break;
    llvm::ArrayRef<unsigned> suffix = steps.drop_front(i);
    std::optional<double> fewer = intervalStepsBound(graph, budgetBytes, suffix,
                                                     share(), {{node, k - 1}});
    if (!noPoint(suffix, k - 1, fewer))
      continue;
    if (share() <= 0)
      return 0;
    std::optional<double> late =
        intervalStepsBound(graph, budgetBytes, suffix, share(), {{node, k}});
    if (!late)
      return 0;
    if (*late == inf && !noPoint(suffix, k, late))
      return 0; // Not confirmed: no finite bound of the program either.
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
    // A head graph proved without a schedule is not taken for +infinity
    // (a single proof of LowerBound's): the part after s alone still holds.
    if (early.infeasible)
      return *late;
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
