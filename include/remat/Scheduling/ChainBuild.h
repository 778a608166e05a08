//===- ChainBuild.h - The phases of buildStageChain -------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `buildStageChain` (Chain.h) runs in phases, each a function of plain
/// vectors so that it can be tested alone:
///
///  1. `findFineStages`: the forward pass cut at its separators (pinned
///     values do not tie segments together) into fine stages;
///  2. `getBackwardReads`: the fine stages each backward node reads;
///  3. `groupFineStages`: the merges that make the chain reversible (reads
///     across separators, interleaved backwards, unread stages);
///  4. `layoutStages`: the final stages, their first and boundary nodes;
///  5. `attributeBackward`: the stage of each backward node, checked;
///  6. measuring each stage (sizes, costs, peaks) in ChainBuild.cpp.
///
/// Indices of fine stages and stages are 0-based here.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CHAINBUILD_H
#define REMAT_SCHEDULING_CHAINBUILD_H

#include "remat/Scheduling/Graph.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {
namespace chainbuild {

/// "None" for stage and node indices.
constexpr unsigned kNone = ~0u;

/// The forward nodes [0, numForward) cut at their separators.
struct FineStages {
  /// The fine stage of each forward node.
  std::vector<unsigned> stageOf;
  /// The last node (the separator) of each fine stage; the last fine stage
  /// ends at the last forward node.
  std::vector<unsigned> boundary;

  unsigned size() const { return boundary.size(); }
  /// True if forward node `v` ends its fine stage.
  bool isBoundary(unsigned v) const { return boundary[stageOf[v]] == v; }
};

/// Cuts the forward nodes [0, numForward) (numForward > 0) of `graph` at the
/// separators of the forward pass without the edges out of `pinned` nodes.
FineStages findFineStages(const Graph &graph, unsigned numForward,
                          const std::vector<char> &pinned);

/// The fine stages a backward node reads (pinned values aside): `hi` the
/// highest, `lo` the lowest its stage must start at (a read of a stage's
/// boundary only needs the stage to start right after it). Both kNone if it
/// reads no such value.
struct BackwardReads {
  unsigned lo = kNone;
  unsigned hi = kNone;
};

/// The reads of the backward nodes [numForward, graph.size()), in order.
std::vector<BackwardReads> getBackwardReads(const Graph &graph,
                                            unsigned numForward,
                                            const std::vector<char> &pinned,
                                            const FineStages &fine);

/// Consecutive fine stages grouped into the stages of the chain.
struct StageGroups {
  /// For each fine stage, the first fine stage of its group.
  std::vector<unsigned> groupOf;
  /// Fine stages merged by each rule: the reads of one backward node span
  /// them, their backward nodes interleave, no backward node reads them.
  unsigned mergedReads = 0, mergedOrder = 0, mergedUnread = 0;
  /// Index in `reads` of the first backward node that caused a merge of the
  /// first and of the second kind, or kNone.
  unsigned firstReadMerge = kNone, firstOrderMerge = kNone;
  /// False if no backward node reads a forward value (nothing merged then
  /// by the third rule).
  bool anyRead = false;
};

/// Merges fine stages (`numFine` of them) so that every backward node
/// (`reads`, in op order) reads one group only (plus the boundary before it),
/// the groups of the backward nodes never increase, and every group is read
/// by some backward node (an unread group joins the next one; unread groups
/// after the last read one join that one).
StageGroups groupFineStages(unsigned numFine,
                            const std::vector<BackwardReads> &reads);

/// The stages of the chain.
struct StageLayout {
  /// First node and boundary (last node) of each stage.
  std::vector<unsigned> first, boundary;
  /// The stage of each forward node.
  std::vector<unsigned> stageOf;

  unsigned size() const { return boundary.size(); }
  /// The input boundary of stage `s`, kNone for the first stage.
  unsigned inputOf(unsigned s) const {
    return s == 0 ? kNone : boundary[s - 1];
  }
};

/// The stages the groups of `fine` form.
StageLayout layoutStages(const FineStages &fine, const StageGroups &groups);

/// The backward nodes of each stage.
struct BackwardAttribution {
  /// The first backward node attributed to each stage.
  std::vector<unsigned> firstBackward;
  /// Whether a backward node of the stage reads the stage's input boundary.
  std::vector<char> readsInput;
  /// Whether a backward node reads forward node v.
  std::vector<char> readByBackward;
};

/// Attributes every backward node to the largest stage it reads and checks
/// that the chain is reversible: forward nodes read their own stage or its
/// input boundary, backward nodes likewise, the stages of the backward nodes
/// never increase and every stage has a backward node. Returns why not.
std::optional<std::string>
attributeBackward(const Graph &graph, unsigned numForward,
                  const std::vector<char> &pinned, const StageLayout &layout,
                  BackwardAttribution &result);

} // namespace chainbuild
} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CHAINBUILD_H
