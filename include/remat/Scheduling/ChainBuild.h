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
///     values do not tie segments together) into fine stages, or, with
///     `maxCutValues` > 1, also at small multi-value cuts (an LSTM's
///     {h, c}): a stage then hands several values to the next one;
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

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {
namespace chainbuild {

/// "None" for stage and node indices.
constexpr unsigned kNone = ~0u;

/// The forward nodes [0, numForward) cut at their separators (and small
/// cuts).
struct FineStages {
  /// The fine stage of each forward node.
  std::vector<unsigned> stageOf;
  /// The last node of each fine stage; the last fine stage ends at the last
  /// forward node.
  std::vector<unsigned> boundary;
  /// The outputs of each fine stage, ascending: its last node and its values
  /// that later forward nodes read (all inside the stage). Empty (as for a
  /// separator, or when not filled in) means {boundary}.
  std::vector<std::vector<unsigned>> outputs;
  /// Per forward node: 1 if it is an output of its fine stage (empty: the
  /// outputs are the boundaries).
  std::vector<char> isOutput;

  unsigned size() const { return boundary.size(); }
  /// True if forward node `v` is an output of its fine stage: the next
  /// stage may read it (a single-value separator: `v` ends the stage).
  bool isBoundary(unsigned v) const {
    return isOutput.empty() ? boundary[stageOf[v]] == v : bool(isOutput[v]);
  }
  /// The outputs of fine stage `k`.
  std::vector<unsigned> outputsOf(unsigned k) const {
    if (k < outputs.size() && !outputs[k].empty())
      return outputs[k];
    return {boundary[k]};
  }
};

/// Cuts the forward nodes [0, numForward) (numForward > 0) of `graph` at the
/// separators of the forward pass without the edges out of `pinned` nodes.
/// With `maxCutValues` > 1 a position p also ends a fine stage when the
/// values read across it (those at or before p that a later forward node
/// reads, pinned ones aside, and p itself) are at most `maxCutValues` and
/// all lie after the previous fine stage's last node: the next stage then
/// reads nothing older. Among such positions within `kCutWindow` of the
/// first one (before the next separator) the one with the fewest cut bytes
/// ends the stage, so every separator still ends one (the fine stages refine
/// those of `maxCutValues` = 1).
FineStages findFineStages(const Graph &graph, unsigned numForward,
                          const std::vector<char> &pinned,
                          unsigned maxCutValues = 1);

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
  /// Per backward node (index in `reads`): 1 if it reads only outputs of
  /// fine stage `hi` and joins the group after it (`boundaryReadsLate`).
  std::vector<char> lateRead;
};

/// Merges fine stages (`numFine` of them) so that every backward node
/// (`reads`, in op order) reads one group only (plus the boundary before it),
/// the groups of the backward nodes never increase, and every group is read
/// by some backward node (an unread group joins the next one; unread groups
/// after the last read one join that one).
///
/// With `boundaryReadsLate` (chains with multi-value boundaries), a backward
/// node reading only the outputs of a fine stage (e.g. an LSTM step's
/// backward reading c_{t-1}) belongs to the group after that stage when the
/// order of the backward nodes allows, instead of forcing a merge.
StageGroups groupFineStages(unsigned numFine,
                            const std::vector<BackwardReads> &reads,
                            bool boundaryReadsLate = false);

/// The stages of the chain.
struct StageLayout {
  /// First node and boundary (last node) of each stage.
  std::vector<unsigned> first, boundary;
  /// The stage of each forward node.
  std::vector<unsigned> stageOf;

  /// The outputs of each stage (those of its last fine stage); empty means
  /// {boundary}.
  std::vector<std::vector<unsigned>> outputs;

  unsigned size() const { return boundary.size(); }
  /// The input boundary of stage `s` (the last node of the stage before),
  /// kNone for the first stage.
  unsigned inputOf(unsigned s) const {
    return s == 0 ? kNone : boundary[s - 1];
  }
  /// The outputs of stage `s`.
  std::vector<unsigned> outputsOf(unsigned s) const {
    if (s < outputs.size() && !outputs[s].empty())
      return outputs[s];
    return {boundary[s]};
  }
  /// True if `u` is an input of stage `s` (an output of stage s - 1).
  bool isInput(unsigned s, unsigned u) const {
    if (s == 0)
      return false;
    if (s - 1 < outputs.size() && !outputs[s - 1].empty())
      return std::binary_search(outputs[s - 1].begin(), outputs[s - 1].end(),
                                u);
    return u == boundary[s - 1];
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
/// inputs (the outputs of the stage before), backward nodes likewise, the
/// stages of the backward nodes never increase and every stage has a backward
/// node. Returns why not. With `boundaryReadsLate` (as `groupFineStages`), a
/// backward node reading only the outputs of stage s belongs to stage s + 1
/// when that keeps the order (it reads the inputs of s + 1).
std::optional<std::string>
attributeBackward(const Graph &graph, unsigned numForward,
                  const std::vector<char> &pinned, const StageLayout &layout,
                  BackwardAttribution &result, bool boundaryReadsLate = false);

} // namespace chainbuild
} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CHAINBUILD_H
