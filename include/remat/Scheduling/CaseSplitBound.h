//===- CaseSplitBound.h - A recompute bound split on one node ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The first branch of a branch and bound whose node bound is LowerBound.h's:
/// split every schedule by how often it recomputes one forward node v (the
/// executions of v after its forward one), at most k times or at least
/// k + 1, and bound each case.
///
/// Validity. Every schedule recomputes v some number of times r, and
/// either r <= k or r >= k + 1: the two cases cover every schedule, so the
/// smaller of two bounds, each valid for the schedules of its case, is
/// valid for every schedule.
///
///  - At most k: `recomputeLowerBound` with the cap (v, k)
///    (`LowerBoundOptions::maxRecomputations`): its interval programs get
///    the row sum_j e_j(v) <= k, which every schedule of the case meets:
///    window j executes only values made before its step t_j (the values
///    step t_j concerns; the others are pinned there), so each execution
///    in a window is a recomputation, and the windows are disjoint in
///    time; every other part of
///    the bound holds for every schedule. And by executions forced late:
///    if the interval program of steps s = t_1 < .. < t_K with the cap
///    (v, k - 1) has no point (`intervalStepsBound` is +infinity), every
///    schedule within the budget executes v at least k times after s, so a
///    schedule of the case never recomputes v in the lists up to s. Its
///    recompute is then the part after s, at least that program's bound
///    with the cap (v, k), plus the part up to s: those lists are a
///    schedule of the graph of the nodes up to s (each instance freed at
///    its last read there, never later than in the whole graph, so within
///    the budget) that never recomputes v, at least LowerBound on that
///    graph with v `noRecompute`. The two parts are disjoint lists. A case
///    with no schedule within the budget bounds +infinity. A program taken
///    to have no point is confirmed first at a budget larger by 1e-5 (a
///    relaxation: its proof implies the first), else not used; a head
///    graph LowerBound proves infeasible leaves the part after s alone.
///  - At least k + 1: the recompute cost of a schedule is cost(v) r plus
///    the cost of its other executions, which is its recompute cost on the
///    graph with v's cost set to 0; that is at least LowerBound on that
///    graph, so the case costs at least (k + 1) cost(v) + LowerBound(graph
///    with cost(v) = 0).
///
/// Both cases also keep the plain bound (it holds for every schedule). The
/// split pays off where one node's repeated execution decides the plan:
/// resnet_n4 at 0.4 of store-all, whose last backward steps force the stem
/// convolution (node 0) to run twice more (the interval program of steps
/// {83, 84} has no point with one execution), and whose cheapest plans
/// either run it a third time (`auto`'s 29.56% of the forward: the second
/// case, at least 3 x 8.66%) or hold one of its 0.5 MB chain values
/// through the backward (the optimum, 23.42%): the first case's bound by
/// executions forced late is 22.96%, against the plain bound's 21.44%
/// (docs/Scheduling.md, "A case split on one node's recomputations").
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CASESPLITBOUND_H
#define REMAT_SCHEDULING_CASESPLITBOUND_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/LowerBound.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace remat {
namespace sched {

/// A bound by a case split on one node's recomputations.
struct CaseSplitBound {
  /// The node split on, and k: the cases recompute it at most k times and
  /// at least k + 1 times.
  unsigned node = 0;
  unsigned maxRecomputations = 0;
  /// The bound of each case (the units of `Node::cost`), each at least the
  /// plain bound; `atLeast` is only (k + 1) cost(node) and the plain bound
  /// when that already reaches `atMost` (the graph with the node's cost set
  /// to 0 is then not bounded).
  double atMost = 0, atLeast = 0;
  /// min(atMost, atLeast): a bound on the recompute of every schedule
  /// within the budget.
  double recomputeCost = 0;
  /// LowerBound of the first case (`atMost`): its `jointSolution` is a
  /// solution of that case's interval program, a plan seed
  /// (`lowerBoundWithinBudget`, CutLowering.h). Its ranges and bound hold
  /// for the schedules of that case only.
  LowerBound capped;
  /// The step s after which the first case's bound by executions forced
  /// late proved the node executed k times, when that bound gave `atMost`
  /// (~0u: it did not): a schedule of the case never recomputes the node
  /// in the lists up to s.
  unsigned lateFrom = ~0u;
};

/// The forward node whose recomputations in `schedule` cost the most
/// (cost times the lists that execute it), with the number of those lists;
/// none when the schedule recomputes no node of positive cost.
std::optional<std::pair<unsigned, unsigned>>
costliestRecomputation(const Graph &graph, const Schedule &schedule);

/// The bound of every schedule of `graph` within `budgetBytes` by the split
/// on `node` at `maxRecomputations` (see above), each case's LowerBound
/// computed with `options` (its time limit each; the second case only when
/// needed). `plainBound` is a bound that holds for every schedule
/// (`recomputeLowerBound`'s, 0: none).
CaseSplitBound caseSplitBound(const Graph &graph, int64_t budgetBytes,
                              unsigned node, unsigned maxRecomputations,
                              const LowerBoundOptions &options,
                              double plainBound = 0,
                              llvm::ArrayRef<unsigned> plainSteps = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CASESPLITBOUND_H
