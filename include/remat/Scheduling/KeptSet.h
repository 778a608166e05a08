//===- KeptSet.h - Lowering a kept set to a schedule ------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Single-level checkpointing in the style of Chen et al. 2016: a strategy
/// picks which forward values stay resident (the kept set); every other
/// forward value is dropped after its last forward use and recomputed once,
/// on demand, right before the first backward node that needs it.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_KEPTSET_H
#define REMAT_SCHEDULING_KEPTSET_H

#include "remat/Scheduling/Graph.h"

#include <vector>

namespace remat {
namespace sched {

/// True for forward nodes that every strategy must keep: `keep` and
/// `noRecompute` hints, and step outputs (live to the end anyway, so a
/// recomputation could only add memory and cost).
bool isAlwaysKept(const Node &node);

/// Lowers a kept set to a schedule. `kept` has one entry per node (entries of
/// backward nodes are ignored); nodes for which `isAlwaysKept` holds count as
/// kept whatever `kept` says.
///
/// Before each backward node, in op order, every forward operand that is
/// neither kept nor already recomputed is recomputed, preceded by its own
/// missing forward operands (transitively); the list is in topological order.
/// A recomputed instance is reused by all later backward nodes, so the result
/// recomputes every dropped value at most once, and only the dropped values
/// some backward node needs (directly or through other dropped values).
///
/// Late forward nodes (forward nodes after the first backward node,
/// Phases.h) are served like backward nodes: their dropped operands are
/// recomputed before them. A late forward value may be dropped too: it still
/// runs where the input places it, and that instance serves only the
/// dropped late forward nodes reading it (a chain of dropped late values
/// runs as the input places it); every other reader gets a recomputation
/// (once, or before each reader when refreshed). With every late forward
/// value kept the schedule is that of the `pinLateForward` graph, where they
/// count as backward nodes. Runs in O(nodes + operand references).
Schedule lowerKeptSet(const Graph &graph, const std::vector<bool> &kept);

/// Like `lowerKeptSet`, except for the dropped values with `refresh` set
/// (one entry per node; other entries are ignored): such a value's
/// recomputed instance serves only the backward node it was recomputed for,
/// and every later backward node that needs it (directly or through another
/// recomputation) recomputes it again, with whatever of its own dropped
/// inputs is not available then. The instance is then freed after the step
/// that needed it instead of staying live to the value's last backward
/// reader: more recompute, less memory between far-apart readers. A value
/// may so be recomputed several times (Graph.h allows it). With no entry
/// set the result is `lowerKeptSet(graph, kept)`. Runs in O(nodes +
/// operand references of all recomputations).
Schedule lowerKeptSet(const Graph &graph, const std::vector<bool> &kept,
                      const std::vector<bool> &refresh);

/// Like `lowerKeptSet(graph, kept, refresh)`, except that a refreshed
/// value's recomputed instance also serves every later step at most
/// `refreshGap` steps after the last step that read it (or made it): readers
/// close together (a gradient op and the mask op beside it) share one
/// recomputation, readers far apart get their own. With `refreshGap` 0 it
/// is `lowerKeptSet(graph, kept, refresh)`.
Schedule lowerKeptSet(const Graph &graph, const std::vector<bool> &kept,
                      const std::vector<bool> &refresh, unsigned refreshGap);

/// The kept set of `schedule`: every forward node that it never recomputes.
std::vector<bool> keptSetOf(const Graph &graph, const Schedule &schedule);

/// For each node, the last step that reads it under `schedule`: the largest
/// index of a node that has it as an operand, or of a step before which a
/// recomputation that reads it runs (0 if nothing reads it). Runs in
/// O(nodes + operand references).
std::vector<unsigned> lastReadSteps(const Graph &graph,
                                    const Schedule &schedule);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_KEPTSET_H
