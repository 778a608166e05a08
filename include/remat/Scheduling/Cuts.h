//===- Cuts.h - Multi-value segment boundaries of the forward pass -*- C++ -*-//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Cuts generalise separators (Separators.h) to boundaries crossed by several
/// values, such as the h and c carries of an unrolled LSTM or the skip
/// connections of a U-Net.
///
/// Forward nodes are numbered 0..m-1 by their position among forward nodes.
/// The cut at position i lies between the i-th and the (i+1)-th forward node.
/// Its set holds every forward value u that
///   - is defined at or before i and read by a forward node after i, or
///   - is the i-th forward node itself and is read by any node at all
///     (forward or backward),
/// except the values that `isAlwaysKept` (KeptSet.h): those are resident
/// anyway, so keeping them costs nothing and they are left out of the set and
/// of its bytes. Keeping a cut set makes every forward value after i
/// recomputable from kept values, graph inputs and forward values after i
/// alone: no recomputation behind the cut is ever needed to rebuild the later
/// part of the forward pass.
///
/// A separator v at position p (no forward edge jumps over p) has the cut set
/// {v} (or {} when v is unread or always kept): single separators are the
/// special case of cuts with at most one value.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CUTS_H
#define REMAT_SCHEDULING_CUTS_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <vector>

namespace remat {
namespace sched {

/// Default half-width of the window over which a candidate cut must have the
/// least cut bytes (non-strictly).
constexpr unsigned kCutWindow = 4;
/// Default largest number of values of a candidate cut.
constexpr unsigned kMaxCutValues = 4;

/// The cuts of all forward positions of a graph, in compact form: the byte
/// cost and the value count of every cut, and for every forward value the
/// half-open position interval of the cuts it belongs to.
struct ForwardCuts {
  /// Forward node indices in op order: `forward[i]` is at position i.
  std::vector<unsigned> forward;
  /// `bytes[i]`: sum of the bytes of the cut set at position i.
  std::vector<int64_t> bytes;
  /// `numValues[i]`: number of values in the cut set at position i.
  std::vector<unsigned> numValues;
  /// `memberEnd[i]`: the forward value at position i belongs to the cut sets
  /// of the positions [i, memberEnd[i]) (empty when memberEnd[i] == i).
  std::vector<unsigned> memberEnd;

  unsigned numPositions() const { return forward.size(); }
};

/// Computes the cut bytes and value counts of every forward position in
/// O(nodes + operand references), with difference arrays over each value's
/// membership interval. The graph must be valid (`Graph::validate`).
ForwardCuts computeForwardCuts(const Graph &graph);

/// The cut set at `position` (node indices, ascending). O(positions).
std::vector<unsigned> cutSet(const ForwardCuts &cuts, unsigned position);

/// The cut sets of `positions` (ascending, distinct), each ascending, in
/// O(positions of the graph * log(positions.size()) + output size).
std::vector<std::vector<unsigned>>
cutSets(const ForwardCuts &cuts, const std::vector<unsigned> &positions);

/// Candidate segment boundaries, ascending: every separator position (see
/// `findSeparators`), and every position whose cut has at most `maxValues`
/// values and whose cut bytes are no larger than those of any position within
/// `window` positions on either side.
std::vector<unsigned> cutCandidates(const Graph &graph, const ForwardCuts &cuts,
                                    unsigned window = kCutWindow,
                                    unsigned maxValues = kMaxCutValues);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CUTS_H
