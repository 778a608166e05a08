//===- MinCut.h - Saved-set selection by minimum cut -------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The saved set as a minimum s-t cut, in the spirit of PyTorch's min-cut
/// rematerialization partitioner (functorch, `min_cut_rematerialization_
/// partition`): recompute cheap ops from small saved inputs, never the
/// expensive ones unless allowed.
///
/// Flow network: every recomputable forward node v is an edge v_in -> v_out
/// of capacity bytes(v) (saving v costs its bytes) and an edge source -> v_in
/// of capacity `recomputeWeight * cost(v)` (recomputing v costs its compute,
/// weighted); reads are infinite edges u_out -> v_in; a forward value read by
/// a backward node has v_out -> sink (infinite). So a node on the sink side
/// (recomputed) has every operand saved or recomputed too, down to graph
/// inputs (resident, free). Nodes that must not be recomputed
/// (`noRecompute`) and "expensive" nodes (cost above `banCostPerByte *
/// bytes`) get an infinite source edge: if the backward needs them they are
/// saved. Always-kept nodes (keep hints, outputs, no-recompute nodes) save
/// for free and are in the returned set. The saved set is the nodes whose v_in is on the
/// source side of the minimum cut and v_out is not; every other forward value
/// is dropped and recomputed by `lowerKeptSet`. With `recomputeWeight = 0`
/// and the expensive ops banned this is PyTorch's cut (less its heuristic
/// weights); larger weights trade memory for less recompute.
///
/// What it proves: the cut minimises saved bytes + weight * recomputed cost
/// over all kept sets closed in this sense; that sum is a proxy, not the peak
/// (the peak also depends on when values die and on the backward's own
/// values). Plans are judged by `simulate`, and `minCutSweep` tries a grid of
/// weights and ban levels.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MINCUT_H
#define REMAT_SCHEDULING_MINCUT_H

#include "remat/Scheduling/Graph.h"

#include <limits>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// Parameters of one cut.
struct MinCutOptions {
  /// Bytes one unit of recompute cost is worth (lambda); 0: memory only.
  double recomputeWeight = 0;
  /// Forward nodes with cost > banCostPerByte * bytes are never recomputed
  /// (infinity: none is banned for its cost).
  double banCostPerByte = std::numeric_limits<double>::infinity();
  /// Saving v costs bytes(v) * distanceBase^min(max(d, 1), 100), d the
  /// number of reads from v to the nearest backward node (PyTorch weighs
  /// its cut with 1.1^d): > 1 prefers saving values the backward reads soon
  /// after they are made. 1: bytes only.
  double distanceBase = 1;
};

/// The kept set of the minimum cut (one entry per node; true for saved
/// forward nodes). The graph must be valid and have no forward node after a
/// backward one (plan `pinLateForward` graphs, Phases.h). O(V^2 E) worst
/// case (Dinic), near-linear on training graphs.
std::vector<bool> minCutKeptSet(const Graph &graph,
                                const MinCutOptions &options);

/// One point of the sweep.
struct MinCutPlan {
  MinCutOptions options;
  /// A short description, e.g. "weight=0.25 ban=4x".
  std::string detail;
  Schedule schedule;
  SimResult sim;
};

/// The median of cost / bytes over forward nodes with bytes > 0 (0 if none):
/// the unit of `banCostPerByte` levels in `minCutSweep`.
double medianCostPerByte(const Graph &graph);

/// Cuts for a grid of parameters, each lowered (`lowerKeptSet`) and
/// simulated: ban levels {4, 16, 64} x the median cost per byte and none;
/// weights 0, a tie-breaking epsilon, and forward bytes / forward cost times
/// 2^k for k = -8..8; distance bases 1 and 1.1. Each cut also yields a
/// refined kept set: while the simulated peak falls in a recomputation, the
/// values recomputed there are kept instead, if that lowers the peak (up to
/// 8 rounds). Distinct kept sets only, in grid order. Then the local search
/// of KeptSetSearch.h: from every cut within its own recompute and then 25%
/// more (by best rate of peak saved per recompute), and from the least-peak plan within 1, 5, 10, 20, 35, 50 and 100%
/// of the forward cost up to that limit; the plans it passes on the way
/// that no plan of the sweep dominates follow the cuts ("... searched"),
/// thinned to one per 0.1% of store-all's peak. The search has a fixed
/// budget of evaluations per sweep (deterministic; about 4e7 node and
/// operand visits, times `searchWork`; below 1, `searchWork` also thins the
/// grid to every round(1 / sqrt(searchWork))-th point). Last, every plan whose peak falls in a recomputation
/// is also offered with that recomputation moved earlier
/// (`hoistRecomputations`, "... hoisted") where that lowers the peak.
std::vector<MinCutPlan> minCutSweep(const Graph &graph,
                                    double searchWork = 1);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MINCUT_H
