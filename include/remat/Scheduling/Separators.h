//===- Separators.h - Segment boundaries of the forward pass ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Separators are the forward nodes at which the forward pass may be cut into
/// segments: no forward value produced before a separator is read by a forward
/// node after it, so once the separator's value is known the later part of the
/// forward pass does not need anything earlier (graph inputs and parameters
/// aside). On a plain chain every forward node is a separator; inside a
/// residual block (or any skip connection) no node is.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_SEPARATORS_H
#define REMAT_SCHEDULING_SEPARATORS_H

#include "remat/Scheduling/Graph.h"

#include <vector>

namespace remat {
namespace sched {

/// Returns, in op order, the indices of the forward nodes `v` such that no
/// forward edge `u -> w` (both forward) has `pos(u) < pos(v) < pos(w)`, where
/// `pos` is the position among forward nodes. The first and the last forward
/// node are always separators. Runs in O(nodes + operand references).
std::vector<unsigned> findSeparators(const Graph &graph);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_SEPARATORS_H
