//===- ForwardOnly.h - Rematerialization without backward -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Rematerialization of forward-only graphs (`Graph::isForwardOnly`): DAGs
/// without a forward/backward split, such as the random layered graphs of the
/// Moccasin benchmark, where any value may be freed after a use and computed
/// again right before a later consumer. The goal is the least activation peak
/// over the whole DAG, or the least recompute cost under a memory budget.
///
/// A plan is a drop mode per value (`DropMode`), lowered to a `Schedule` that
/// recomputes a dropped value, and recursively its dropped operands, right
/// before the consumers it no longer serves. `forwardOnlyMinPeak` searches the
/// drop modes greedily, guided by `simulate`.
///
/// What is not claimed: optimality. Moccasin (Bartan et al. 2023, constraint
/// programming) and Checkmate (Jain et al. 2020, MILP) solve this problem
/// exactly, over all placements of recomputations; the search here explores
/// only drop modes (a value is recomputed before all or all but the first of
/// its consumers, never before some of them) with single-value moves.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_FORWARDONLY_H
#define REMAT_SCHEDULING_FORWARDONLY_H

#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace remat {
namespace sched {

/// How a forward-only plan treats a value. The consumers of a value are the
/// nodes that list it as an operand, in op order: c_1 < c_2 < ...
enum class DropMode : uint8_t {
  /// The value lives from its definition to its last use (including uses by
  /// recomputations of other values).
  Keep,
  /// The original instance serves c_1 and is freed there; the value is
  /// recomputed right before every later consumer.
  AfterFirstUse,
  /// The value is recomputed right before every consumer, so it only lives
  /// around its uses; the original instance is freed as soon as it is made,
  /// unless c_1 immediately follows the definition (index + 1), which then
  /// reads it (a recomputation there would cost more and save nothing).
  AtEveryUse,
};

/// Lowers drop modes (one per node) to a schedule of a forward-only graph.
/// Nodes for which `isAlwaysKept` holds (KeptSet.h: outputs, `keep` and
/// `noRecompute` nodes) are kept whatever `modes` says.
///
/// Before node k, every dropped operand of k whose original instance no
/// longer serves k (see `DropMode`) is recomputed, preceded by those of its
/// own dropped operands that need a new instance at k too, transitively; the
/// list is in topological order and holds each node at most once, and all of
/// its reads of a value resolve to one instance. Kept operands of a
/// recomputation are read in place, which extends their lifetime to k.
/// Runs in O(nodes + operand references of all executions).
Schedule lowerDropModes(const Graph &graph, const std::vector<DropMode> &modes);

/// `lowerDropModes` with `DropMode::AtEveryUse` for every `dropped` node and
/// `DropMode::Keep` for the others: a dropped value is recomputed right
/// before each of its consumers (recursively its dropped operands), so it
/// lives only around its uses; kept values live from definition to last use.
/// Outputs, `keep` and `noRecompute` nodes are never dropped.
Schedule lowerDroppedSet(const Graph &graph, const std::vector<bool> &dropped);

/// Where the drop-mode search of `forwardOnlyMinPeak` ended (filled through
/// its `search`, whether or not the rebuilding construction then wins):
/// `forwardOnlyPerturbedSearch` starts from it at the same budget instead
/// of running that search again (0.6 s on random_layered_n500).
struct ForwardDropSearch {
  int64_t budget = 0;
  std::vector<DropMode> modes;
};

/// Plans a forward-only graph (the graph must be valid and forward-only).
///
/// With `budget` = 0 it minimises the activation peak; with `budget` > 0 it
/// stops lowering the peak once it is within the budget and then minimises
/// the recompute cost subject to it. The budget is met if and only if the
/// returned plan's `sim.peakBytes <= budget` (the plan is simulated exactly);
/// otherwise the plan is the least peak the search found, which is then the
/// smallest budget this strategy can meet.
///
/// The search is a heuristic (see the file comment). From store-all, it
/// repeatedly applies the single move (one value to a stronger drop mode)
/// that lowers the simulated peak the most per unit of added recompute cost;
/// only values with an instance live during the peak execution are tried. A
/// move that leaves the peak equal but reduces the number of steps at the
/// peak counts as progress (to walk along plateaus). When no move helps, a
/// pass tries to weaken each drop (most expensive first) and keeps every
/// change that stays within the budget (or the peak reached), to cut
/// recompute. Without a budget, search and pass are repeated while the peak
/// still falls. Each move costs one simulation per candidate, so a plan
/// costs O(moves * candidates * simulation).
///
/// Where that search misses the budget (or, without one, always), the
/// rebuilding construction of ForwardRebuild.h is tried too: at the budget,
/// else its least peak (`rebuildLeastPeak`); its plan is returned where it
/// meets the budget the search missed or peaks below the search's least
/// peak (the detail then says "rebuilt under ..."). Its plans recompute far
/// more (random_layered_n100: 0.648 of store-all at 169% of the forward,
/// against the search's 0.705 at 44%), and unlike the search's they may
/// lie outside the MILP's stage model (a list out of index order, or a
/// value recomputed twice in one list), so they may peak below a least
/// peak the MILP proves in that model. `rebuild` = false leaves the
/// construction out (the search's plan, inside the stage model).
PlanResult forwardOnlyMinPeak(const Graph &graph, int64_t budget,
                              bool rebuild = true,
                              ForwardDropSearch *search = nullptr);

/// Limits of `forwardOnlyPerturbedSearch`.
struct ForwardPerturbOptions {
  /// Wall seconds, a safety cap checked between searches and between the
  /// moves of one; where it binds, the plan depends on the load.
  double seconds = 1;
  /// Perturbed searches at most (0: no limit).
  unsigned maxRounds = 0;
  /// Work at most: schedule steps simulated (each simulation counts the
  /// graph's nodes and its recomputations) by the perturbed searches, not
  /// by the greedy search they start from, checked where `seconds` is (0:
  /// no limit). With it or `maxRounds` binding before `seconds`, the plan
  /// is the same on every run, whatever the load.
  uint64_t maxSteps = 0;
  /// The drop-mode search's end at the same budget (`forwardOnlyMinPeak`'s
  /// `search`), started from without running that search again; null: it
  /// runs first.
  const ForwardDropSearch *from = nullptr;
  /// Values changed by one kick.
  unsigned kick = 8;
  /// Seed of the kicks' random choices.
  unsigned seed = 1;
};

/// Iterated local search over drop modes (forward-only graphs): the search
/// of `forwardOnlyMinPeak` (without the rebuilding construction), then,
/// until the budget is met (none: until `options` stop it), a kick from the
/// best modes found (`options.kick` values live at its peak, each taken at
/// random: a kept value given a stronger drop mode, a dropped one kept or,
/// with even odds, dropped harder where it can be) followed by the same
/// search from there; a search's plan replaces
/// the best when it is within the budget and the best is not (or both are
/// and it recomputes less), else when it peaks lower (or as low, at less
/// recompute). The greedy search stops in a local optimum where one or two
/// moves only move the peak; a kick leaves it.
///
/// Returned like `forwardOnlyMinPeak`'s plans: simulated exactly, within the
/// budget if and only if `sim.peakBytes <= budget`, in the stage model,
/// never above the greedy search's peak (nor its recompute, at the same
/// peak or within the budget). A heuristic: nothing is claimed optimal.
PlanResult forwardOnlyPerturbedSearch(const Graph &graph, int64_t budget,
                                      const ForwardPerturbOptions &options);

/// A work limit (`ForwardPerturbOptions::maxSteps`) for `seconds`: 15M
/// steps a second, which one core simulates in less than half of that
/// (about 36M a CPU second on random_layered_n250 and n500).
uint64_t forwardPerturbSteps(double seconds);

/// Test hook (unset outside tests): called on each schedule the drop-mode
/// searches (`forwardOnlyMinPeak`, `forwardOnlyPerturbedSearch`) lower
/// from their modes, before it is simulated, so that a test may corrupt it
/// and check that a lowering that does not simulate is never kept.
std::function<void(Schedule &)> &forwardLoweringTestHook();

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_FORWARDONLY_H
