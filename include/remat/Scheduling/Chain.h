//===- Chain.h - Stage chains and abstract chain schedules ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The chain view of a training graph used by the multi-level checkpointing
/// strategies (Revolve, Chen's log(n) recursion, the Rotor-style dynamic
/// program of ChainOptimal.h).
///
/// The forward nodes are cut at the separators (Separators.h) into stages
/// 1..L: stage i holds the forward nodes after boundary i-1 up to and
/// including boundary i, the separator whose value ("the boundary") is all the
/// later stages need. Position i is the state "boundary i is known"; position 0
/// is the graph inputs, always available and free.
///
/// Nodes that are never recomputed ("pinned": `keep`, `noRecompute`, graph
/// outputs, see `isAlwaysKept`) are left out of the chain: their bytes are
/// counted as resident for the whole step (`StageChain::pinnedBytes`) and
/// every recomputation reads their original instance.
///
/// Backward nodes are attributed to stages: a backward node reading forward
/// values (pinned ones aside) belongs to the largest stage it reads from. The
/// chain is *reversible* when every backward node only reads values of its
/// own stage or that stage's input boundary, and the attributed stages never
/// increase along the backward nodes (so the backward pass consumes stage L,
/// then L-1, ..., then 1). The builder makes it so by merging consecutive
/// stages where needed: the stages a backward node reads from (down to the
/// one whose boundary it reads) are merged, stages whose backward would
/// interleave are merged, and stages that no backward node reads are merged
/// into the following stage (the last ones into the last read stage). In the
/// worst case the whole forward pass is one stage (store-all). The result is
/// then checked; a graph that still fails (or has a forward node after a
/// backward node, or is malformed) is reported as not reversible.
///
/// Abstract schedules (`ChainSchedule`) are written over positions and
/// stages and mapped to a `Schedule` by `materializeChainSchedule`: the first
/// forward sweep of the abstract schedule is the original forward pass, and
/// everything executed after the backward of stage i+1 and before the backward
/// of stage i is recomputed, in order, right before the first backward node of
/// stage i. As instances die at their last use, checkpoints and tapes are not
/// freed explicitly in the Schedule; `checkChainSchedule` evaluates the chain
/// memory model below, which is built to over-approximate `simulate`'s peak
/// (minus the pinned bytes) for every schedule it accepts: every size is a
/// per-stage maximum and every value the model drops is dead in `simulate`
/// (the unit tests check the bound on random chain-like and arbitrary graphs).
/// It is not exact: e.g. a checkpoint is counted until it is freed, not until
/// its last use, and a merged stage counts the tapes of its parts in full.
///
/// Chain memory model (all sizes are per stage, see ChainStage):
///   state memory = sum of held tapes' tape bytes
///                + the boundary bytes of every live position not covered by
///                  a held tape (a tape of stage i covers position i); a
///                  position is live while it is a checkpoint, the current
///                  position, or the input of a held tape whose stage's
///                  backward reads its input
///                + the gradient bytes live while waiting for the next
///                  backward stage n (`gradientBytes` of stage n, 0 when all
///                  stages are reversed).
///   advancing over stage i peaks at state + advancePeakBytes(i); taping it
///   at state + tapePeakBytes(i); the backward of stage n at
///   state - tapeBytes(n) - gradientBytes(n) + backwardPeakBytes(n).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CHAIN_H
#define REMAT_SCHEDULING_CHAIN_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// One stage of a chain (stage i of the documentation is `stages[i - 1]`).
/// Byte counts exclude pinned nodes and, except where said, the stage's
/// input boundary.
struct ChainStage {
  /// First forward node of the stage and its boundary (last forward node).
  unsigned firstNode = 0;
  unsigned boundaryNode = 0;
  /// First backward node attributed to the stage: recomputations for its
  /// backward are placed right before it.
  unsigned firstBackward = 0;
  /// Stages of the uncoarsened chain merged into this one.
  unsigned numFineStages = 1;

  /// Cost of advancing over the stage: the nodes the boundary depends on.
  double forwardCost = 0;
  /// Cost of a taped forward: the nodes the boundary or the backward needs.
  double tapeCost = 0;
  /// Cost of the backward nodes attributed to the stage (informational:
  /// every backward node runs exactly once whatever the schedule).
  double backwardCost = 0;

  /// The boundary: the values later stages read, ascending: the last
  /// forward node, or the values of a small cut (`buildStageChain` with
  /// `maxCutValues` > 1, e.g. an LSTM step's h and c).
  std::vector<unsigned> boundaryValues;
  /// Bytes of the boundary values (pinned ones count 0).
  int64_t boundaryBytes = 0;
  /// Bytes a taped forward leaves live until the stage's backward: the
  /// stage's values read by backward nodes, and the boundary.
  int64_t tapeBytes = 0;
  /// The stage's backward reads its input boundary: a tape of the stage keeps
  /// the input position live too (see the memory model).
  bool backwardReadsInput = false;
  /// Peak bytes of the stage's own values while advancing over it (boundary
  /// included, input boundary excluded); at least boundaryBytes.
  int64_t advancePeakBytes = 0;
  /// Same while taping it; at least tapeBytes.
  int64_t tapePeakBytes = 0;
  /// Peak of tape plus live backward values during the stage's backward
  /// nodes; at least tapeBytes + gradientBytes.
  int64_t backwardPeakBytes = 0;
  /// Bytes of backward values live right before `firstBackward` (the
  /// gradients held while recomputing for this stage).
  int64_t gradientBytes = 0;

  /// Nodes executed, in op order, by an advance / a taped forward.
  std::vector<unsigned> advanceNodes;
  std::vector<unsigned> tapeNodes;
};

/// A graph cut into stages, see the file comment.
struct StageChain {
  std::vector<ChainStage> stages;
  /// True if the strategies may use the chain; otherwise `reason` says why.
  bool reversible = false;
  std::string reason;
  /// Bytes of pinned forward nodes (never recomputed, counted as resident).
  int64_t pinnedBytes = 0;
  /// Number of graph nodes (length of the schedules built from the chain).
  unsigned numNodes = 0;
  /// Number of stages before coarsening (after the merges that make the
  /// chain reversible) and number of separator segments before those merges.
  unsigned numFineStages = 0;
  unsigned numSegments = 0;
  /// What the builder merged to make the chain reversible (empty if nothing).
  std::string notes;
  /// Stages whose boundary holds more than one value (small cuts).
  unsigned numMultiValueBoundaries = 0;

  /// Number of stages L.
  unsigned size() const { return stages.size(); }
  /// Bytes of the boundary at position `pos` (0 for position 0).
  int64_t boundaryBytes(unsigned pos) const {
    return pos == 0 ? 0 : stages[pos - 1].boundaryBytes;
  }
};

/// Cuts `graph` into its stage chain. Never fails: a graph the strategies
/// cannot handle gives `reversible = false` with the reason. A graph without
/// any backward node reading a forward value gives a reversible empty chain.
/// With `maxCutValues` > 1, a stage may also end at a cut of up to that many
/// values (`chainbuild::findFineStages`): its boundary is that set, whose
/// bytes are the checkpoint a position holds; the stages refine those of
/// `maxCutValues` = 1. O(nodes + operand references), times log(nodes) with
/// cuts.
StageChain buildStageChain(const Graph &graph, unsigned maxCutValues = 1);

/// The most values of a cut `buildStageChain` makes a stage boundary when the
/// chain strategies try multi-value boundaries (an LSTM step hands on 2: h
/// and c).
constexpr unsigned kChainCutValues = 3;

/// Merges consecutive stages so that at most `maxStages` remain (groups of
/// roughly equal forward cost). The merged stage's sizes are conservative
/// (tapes of the parts add up). Returns `chain` unchanged if it is short
/// enough or not reversible.
StageChain coarsen(const StageChain &chain, unsigned maxStages);

/// An action of an abstract chain schedule.
enum class ChainActionKind : uint8_t {
  /// From position `from` (the current position, a checkpoint, a position
  /// covered by a tape, or 0) advance to position `to` > `from`, keeping only
  /// the final boundary.
  Advance,
  /// Store the current position `to` as a checkpoint.
  Checkpoint,
  /// Forward stage `to` from position `to - 1` keeping all the values its
  /// backward needs (its tape); the current position becomes `to`.
  Tape,
  /// Backward of stage `to`; needs its tape, consumes it.
  Backward,
  /// Drop the checkpoint at position `to`.
  Free,
};

struct ChainAction {
  ChainActionKind kind = ChainActionKind::Advance;
  unsigned from = 0;
  unsigned to = 0;

  static ChainAction advance(unsigned from, unsigned to) {
    return {ChainActionKind::Advance, from, to};
  }
  static ChainAction checkpoint(unsigned pos) {
    return {ChainActionKind::Checkpoint, pos, pos};
  }
  static ChainAction tape(unsigned stage) {
    return {ChainActionKind::Tape, stage - 1, stage};
  }
  static ChainAction backward(unsigned stage) {
    return {ChainActionKind::Backward, stage, stage};
  }
  static ChainAction free(unsigned pos) {
    return {ChainActionKind::Free, pos, pos};
  }
  bool operator==(const ChainAction &o) const {
    return kind == o.kind && from == o.from && to == o.to;
  }
};

using ChainSchedule = std::vector<ChainAction>;

/// Human-readable form of an action, e.g. "advance 0->3", "tape 4".
std::string toString(const ChainAction &action);

/// What `checkChainSchedule` measured.
struct ChainRunStats {
  /// Single-stage advances executed, first sweep included.
  uint64_t advanceSteps = 0;
  /// Taped forwards executed.
  uint64_t tapeSteps = 0;
  /// Forward executions (advances and tapes) that are the first execution of
  /// their stage, i.e. part of the original forward pass.
  uint64_t firstSweepSteps = 0;
  /// Most checkpoints held at once (a checkpoint at position 0 counts).
  unsigned maxCheckpoints = 0;
  /// With a chain: the model's peak bytes (pinned bytes excluded), the cost of
  /// all forward executions and of the non-first ones (the recomputations).
  int64_t modelPeakBytes = 0;
  double modelCost = 0;
  double recomputeCost = 0;
};

/// Executes `schedule` on an abstract chain of `numStages` stages and checks
/// it: every advance or tape starts from an available position, no stage is
/// run forward while its tape is held or after its backward, the first
/// forward sweep runs stages 1..L in order before any other forward action,
/// backwards run in order L..1 on taped stages, checkpoints are taken at the
/// current position and freed only if held, and all stages are reversed at
/// the end. If `chain` is given (its size must be `numStages`), also
/// evaluates the memory model and costs. Returns a message on the first
/// violation.
std::optional<std::string>
checkChainSchedule(const ChainSchedule &schedule, unsigned numStages,
                   ChainRunStats &stats, const StageChain *chain = nullptr);

/// Maps an abstract schedule to a `Schedule` of the chain's graph (see the
/// file comment). The abstract schedule must pass `checkChainSchedule`.
std::optional<std::string>
materializeChainSchedule(const StageChain &chain, const ChainSchedule &actions,
                         Schedule &schedule);

/// A chain strategy's result.
struct ChainPlan {
  /// A schedule was produced. False when the graph is not a reversible chain,
  /// when the budget is infeasible (`infeasible`), or on an internal error;
  /// `detail` says which.
  bool ok = false;
  /// chainOptimal only: no schedule fits the budget in the chain model.
  bool infeasible = false;
  /// chainOptimal only, when infeasible: the least memory (in
  /// SimResult::peakBytes units, pinned bytes included) the chain model needs
  /// on the (coarsened) chain.
  std::optional<int64_t> minFeasibleBytes;
  Schedule schedule;
  ChainSchedule actions;
  ChainRunStats stats;
  /// Strategy, parameters, chain length (and coarsening), model figures.
  std::string detail;
};

/// Shared tail of the chain strategies: checks `actions` against `chain`,
/// materialises them and fills a plan whose detail starts with `what`.
ChainPlan makeChainPlan(const StageChain &chain, ChainSchedule actions,
                        const std::string &what);

/// The stage chains the chain strategies plan on: `buildStageChain(graph)`
/// first and, when cuts of up to `kChainCutValues` values give a reversible
/// chain with more stages, that chain second. The strategies keep the better
/// plan by simulation.
std::vector<StageChain> buildStageChains(const Graph &graph);

/// Of the plans that are ok, the one `simulate` gives the least peak (then
/// the least recompute; the first on ties); the first plan if none is ok.
/// `plans` must not be empty.
ChainPlan leastPeakChainPlan(const Graph &graph, std::vector<ChainPlan> plans);

/// Chen et al.'s recursive schedule on `numStages` stages: to reverse stages
/// (a, b], advance to the middle m, checkpoint it, reverse (m, b], free it,
/// reverse (a, m]. At most ceil(log2 L) checkpoints, O(L log L) advances.
ChainSchedule logNSchedule(unsigned numStages);

/// `logNSchedule` applied to the stage chains of `graph`
/// (`buildStageChains`), the least simulated peak kept.
ChainPlan logN(const Graph &graph);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CHAIN_H
