//===- Phases.h - Phases from dependences, op order normalization -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Real exporters neither mark phases the way remat's model needs nor emit
/// every forward op before every backward op. AOTAutograd, for instance,
/// labels as backward every op the forward outputs do not need: batch-norm
/// statistics and max-pool indices, computed from forward values and read
/// only by the backward, and the weight transposes and ReLU masks it traces
/// among the backward ops. By the dependences those are forward values: a
/// node is backward iff it depends on the gradient seed (the loss gradient).
///
/// Strategies plan a graph whatever its topological order:
/// - `pinLateForward` marks the forward nodes placed after the first backward
///   node ("late" forward nodes) as backward for planning: they run once,
///   where the input placed them, and are never recomputed, while the
///   forward values they read may be dropped and recomputed before them (a
///   schedule may list recomputations before any node from the first
///   backward node on, Graph.h). The schedule keeps the input's node indices
///   and simulates identically on the input graph.
/// - `forwardFirstOrder` is the stable re-sequencing that moves every forward
///   node before every backward node (each phase keeping its relative
///   order); valid because forward nodes never read backward ones. Planning
///   the reordered graph needs the rewriter to move the ops accordingly.
/// The planner (Planner.h) plans both and keeps the better plan.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_PHASES_H
#define REMAT_SCHEDULING_PHASES_H

#include "remat/Scheduling/Graph.h"

#include <vector>

namespace remat {
namespace sched {

/// For every node: true if it is one of `seeds` or reads (transitively) a
/// value of one. Seeds out of range are ignored. O(nodes + operands).
std::vector<bool> dependsOnSeeds(const Graph &graph,
                                 const std::vector<unsigned> &seeds);

/// Index of the first backward node; `graph.size()` if there is none.
unsigned firstBackwardNode(const Graph &graph);

/// The forward nodes placed after the first backward node, ascending.
std::vector<unsigned> lateForwardNodes(const Graph &graph);

/// `graph` with every late forward node marked backward (see the file
/// comment). The result is valid if `graph` is: a late node's readers come
/// after it and so are late or backward themselves.
Graph pinLateForward(const Graph &graph);

/// The stable forward-first order: `order[i]` is the index in `graph` of the
/// node placed at position `i`; forward nodes first, then backward nodes, both
/// in their input order. The identity when no forward node is late.
std::vector<unsigned> forwardFirstOrder(const Graph &graph);

/// `graph` with its nodes in `order` (a permutation, `order[i]` = old index
/// of new node `i`, which must be a topological order), operands renumbered.
Graph reorderGraph(const Graph &graph, const std::vector<unsigned> &order);

/// How `shuffledOrder` re-sequences a graph (for tests that planning does
/// not depend on the op order).
enum class OrderShuffle {
  /// A random merge of the forward and the backward sequences that respects
  /// the dependences: each phase keeps its relative order, forward nodes
  /// move among the backward ones (as exporters emit them).
  Interleave,
  /// A random topological order: any node whose operands are placed may
  /// come next.
  Topological,
  /// Not random: `forwardFirstOrder`, of which every `Interleave` shuffle
  /// of a forward-first graph is an interleaving.
  ForwardFirst,
};

/// A topological order of `graph` (`order[i]` = index of the node placed at
/// position `i`, as `reorderGraph` takes it) drawn by `mode` from `seed`
/// with a fixed generator (the same order on every platform). Only the
/// operands and the phase marks of the nodes are read; `graph` must be
/// topologically ordered with no forward node reading a backward one (as
/// `Graph::validate` checks). O(nodes + operands) for `Interleave`, O(nodes^2) at
/// worst for `Topological`.
std::vector<unsigned> shuffledOrder(const Graph &graph, OrderShuffle mode,
                                    unsigned seed);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_PHASES_H
