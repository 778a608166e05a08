//===- CaseSplitBound.h - A recompute bound split on one node ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A branch and bound whose node bound is LowerBound.h's: split every
/// schedule by how often it recomputes one forward node v (the executions
/// of v after its first one), at most k times or at least k + 1, bound
/// each case, and split the case of the least bound again on another node
/// (or on the same one at a smaller k), as long as the limits allow.
///
/// Validity. Every schedule recomputes v some number of times r, and
/// either r <= k or r >= k + 1: the two cases cover every schedule, and a
/// split of a case covers that case's schedules; so the leaves of the tree
/// cover every schedule, and the least of their bounds, each valid for the
/// schedules of its leaf, is valid for every schedule. A leaf is a set of
/// ranges lo_u <= r_u <= hi_u; its bound is the largest of its parent's
/// (its schedules are the parent's) and:
///
///  - Forced cost: a schedule's recompute is sum_u cost(u) r_u, at least
///    sum over ranged u of lo_u cost(u) plus its recompute on the graph
///    with those nodes' costs set to 0; that is at least LowerBound on that
///    graph, so the leaf costs at least that sum plus LowerBound there.
///  - Caps: a node with hi_u = 0 is `noRecompute` in that graph (every part
///    of LowerBound then keeps it live where it is read later; a schedule
///    of the leaf never recomputes it); one with hi_u > 0 gets the row
///    sum_j e_j(u) <= hi_u in LowerBound's interval programs
///    (`LowerBoundOptions::maxRecomputations`), which every schedule of the
///    leaf meets: window j executes only values made before its step t_j
///    (the values step t_j concerns; the others are pinned there), so each
///    execution of u in a window is an execution after u's first, and the
///    windows are disjoint in time.
///  - Executions forced late, for a node v with 0 < hi_v = k (the range
///    split last, and the root's): if the interval program of steps s =
///    t_1 < .. < t_K, s > v, with the leaf's caps and v's at k - 1 has no
///    point (`intervalStepsBound` is +infinity), every schedule of the leaf
///    within the budget executes v at least k times after s, so it never
///    recomputes v in the lists up to s. Its recompute is then the part
///    after s, at least that program's bound with the leaf's caps, plus the
///    part up to s: those lists are a schedule of the graph of the nodes up
///    to s (each instance freed at its last read there, never later than in
///    the whole graph; an output's final instance there counts at most the
///    bytes its instance counted in the whole schedule; so within the
///    budget) that never recomputes v and keeps to the leaf's other caps, at
///    least LowerBound on that graph with v `noRecompute`. Another capped
///    node u < s whose program (v at k, u at hi_u - 1) has no point either
///    has all its executions after s too, and is `noRecompute` there as
///    well. The two parts are disjoint lists. A leaf with no schedule
///    within the budget bounds +infinity. A program taken to have no point
///    is confirmed first at a budget larger by 1e-5 (a relaxation: its
///    proof implies the first), else not used; a head graph LowerBound
///    proves infeasible leaves the part after s alone.
///
/// Forward-only graphs (no backward node: a list before every node,
/// Graph.h). Each node's first execution is its own step; every later one
/// is in a list, a recomputation, so r_v counts the same executions as in
/// a training graph, and every argument above holds as it stands: the
/// windows execute only values made before their step, the lists up to s
/// are a schedule of the nodes up to s (a forward-only graph again, whose
/// lists may stand before any node). Only the suffixes differ: in a
/// training graph they start at or after the first backward node (nothing
/// is recomputed before it), in a forward-only graph at any step after v.
///
/// The split pays off where one node's repeated execution decides the plan:
/// resnet_n4 at 0.4 of store-all, whose last backward steps force the stem
/// convolution (node 0) to run twice more (the interval program of steps
/// {83, 84} has no point with one execution), and whose cheapest plans
/// either run it a third time (`auto`'s 29.56% of the forward: the second
/// case, at least 3 x 8.66%) or hold one of its 0.5 MB chain values
/// through the backward (the optimum, 23.42%): the first case's bound by
/// executions forced late is 22.96%, against the plain bound's 21.44%, and
/// its split on the stem's batch norm (at most once more: both executions
/// forced after step 83 with the convolution's, the head graph never
/// recomputing either) 23.08-23.12% by LowerBound's time limits under load
/// (docs/Scheduling.md, "A case split on one node's recomputations").
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CASESPLITBOUND_H
#define REMAT_SCHEDULING_CASESPLITBOUND_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/LowerBound.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace remat {
namespace sched {

/// A range of a case of the split: each schedule of the case recomputes
/// `node` at least `lo` and at most `hi` times (~0u: no most).
struct RecomputeRange {
  unsigned node = 0, lo = 0, hi = ~0u;
};

/// A leaf of the case tree: the schedules within every range, and a bound
/// on the recompute of each of them.
struct CaseSplitLeaf {
  std::vector<RecomputeRange> ranges;
  double bound = 0;
  /// Whether LowerBound bounded the leaf itself (else its bound is its
  /// parent's or its forced cost).
  bool bounded = false;
  /// Where LowerBound bounded the leaf and a bound by executions forced
  /// late applied to it (the largest, whether or not above the capped
  /// LowerBound): its step s (~0u: none) and the nodes proved to execute
  /// only after s in every schedule of the leaf (the node of its range,
  /// then each other capped node made `noRecompute` in the head graph).
  unsigned lateFrom = ~0u;
  std::vector<unsigned> lateNodes;
  /// Where LowerBound bounded the leaf: its capped LowerBound, or a head
  /// graph's of its bound by executions forced late, was cut short by its
  /// time limit (`LowerBound::cutShort`: more time could raise the bound,
  /// which then depends on the machine's load).
  bool cutShort = false;
};

/// A bound by a case split on one node's recomputations.
struct CaseSplitBound {
  /// The node split on, and k: the cases recompute it at most k times and
  /// at least k + 1 times.
  unsigned node = 0;
  unsigned maxRecomputations = 0;
  /// The bound of each case of the root (the units of `Node::cost`): the
  /// least bound of the leaves below it, each at least the plain bound; a
  /// leaf not bounded by LowerBound (its forced cost already reached
  /// another leaf's bound, or the limits ran out) has its parent's bound
  /// or its forced cost, whichever is larger ((k + 1) cost(node) and the
  /// plain bound for the root's second case).
  double atMost = 0, atLeast = 0;
  /// min(atMost, atLeast), the least over the leaves: a bound on the
  /// recompute of every schedule within the budget.
  double recomputeCost = 0;
  /// LowerBound of the first case (`atMost`): its `jointSolution` is a
  /// solution of that case's interval program, a plan seed
  /// (`lowerBoundWithinBudget`, CutLowering.h). Its ranges and bound hold
  /// for the schedules of that case only.
  LowerBound capped;
  /// The step s after which the root's first case's bound by executions
  /// forced late proved the node executed k times, when that bound was
  /// that case's own (above its capped LowerBound; ~0u: it was not): a
  /// schedule of that case never recomputes the node in the lists up to s.
  /// Its split's leaves may bound higher (`atMost` is their least); each
  /// leaf records its own (`CaseSplitLeaf::lateFrom`).
  unsigned lateFrom = ~0u;
  /// The tree's size: cases bounded by LowerBound, and splits below the
  /// root (its leaves, `cases`: splits + 2).
  unsigned caseBounds = 0, splits = 0;
  /// The leaves (splits + 2): their ranges cover every schedule (each
  /// split divides a leaf's schedules in two), so the least of their
  /// bounds holds for every schedule within the budget.
  std::vector<CaseSplitLeaf> cases;
  /// Wall seconds spent.
  double seconds = 0;
};

/// Limits of the case tree below the root's split.
struct CaseSplitOptions {
  /// The plan whose recomputations choose the splits below the root (the
  /// costliest first); none: no split below the root.
  const Schedule *plan = nullptr;
  /// At most this many cases bounded by LowerBound (each by its capped
  /// LowerBound and, where they apply, up to two bounds by executions
  /// forced late); at least 2 (0 and 1 act as 2): the root's first case,
  /// then its second where that is the least. A deterministic limit.
  unsigned maxCaseBounds = 2;
  /// A safety cap on the tree's time (<= 0: none): every LowerBound call
  /// and interval program of a case has its limit cut to what is left of
  /// it (at least 0.01 s), so that a case ends within it but for the
  /// calls' own overruns, and a case other than the root's two is bounded
  /// only where one as long as the longest so far still ends within it.
  double seconds = 0;
  /// For tests: the seconds since some fixed time, read in place of the
  /// steady clock at the tree's start, at each case's start and end and
  /// before each step of the tree (the start rule above; the cut limits
  /// and LowerBound keep the steady clock).
  std::function<double()> elapsedForTest;
};

/// The nodes of positive cost that `schedule` recomputes, with the number
/// of lists that execute each, the costliest (cost times that number)
/// first, ties in node order: the nodes the case tree and the case proof
/// split on.
std::vector<std::pair<unsigned, unsigned>>
recomputationsByCost(const Graph &graph, const Schedule &schedule);

/// The forward node whose recomputations in `schedule` cost the most
/// (cost times the lists that execute it), with the number of those lists;
/// none when the schedule recomputes no node of positive cost.
std::optional<std::pair<unsigned, unsigned>>
costliestRecomputation(const Graph &graph, const Schedule &schedule);

/// The bound of every schedule of `graph` within `budgetBytes` by the split
/// on `node` at `maxRecomputations` (see above), and below it by the tree
/// of `tree`, each case's LowerBound computed with `options` (its time
/// limit each; a case only when it could be the least). `plainBound` is a
/// bound that holds for every schedule (`recomputeLowerBound`'s, 0: none);
/// `plainSteps` the steps whose suffixes the bound by executions forced
/// late tries (empty: each case's own joint steps).
CaseSplitBound caseSplitBound(const Graph &graph, int64_t budgetBytes,
                              unsigned node, unsigned maxRecomputations,
                              const LowerBoundOptions &options,
                              double plainBound = 0,
                              llvm::ArrayRef<unsigned> plainSteps = {},
                              const CaseSplitOptions &tree = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CASESPLITBOUND_H
