//===- ForwardRebuild.h - Forward-only plans by rebuilding ------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Low-peak plans of forward-only graphs (`Graph::isForwardOnly`) built by
/// heavy recomputation: a pebbling of the graph under a memory budget, one
/// stage (node, in op order) at a time, instead of store-all weakened one
/// value at a time (`forwardOnlyMinPeak`, ForwardOnly.h).
///
/// Why it can go far below store-all. In a forward-only graph a stage may
/// recompute any value computed before it, from the graph's inputs if need
/// be, so (without `no_recompute` or `keep` nodes, which stay held from
/// their one execution to their last reader) the stages do not depend on
/// each other: the least peak of the
/// whole graph is the largest, over nodes t, of the least memory that
/// computes t from nothing but the inputs (with recomputation), and a plan
/// that rebuilds every operand of every node from scratch reaches it. That
/// plan recomputes without end; values kept from stage to stage trade memory
/// for recompute.
///
/// The construction (`rebuildWithinBudget`) keeps an account of the values
/// held (every instance computed and not given up) and executes stage t's
/// node once its operands are held: a missing operand is rebuilt before t,
/// its own missing operands first (recursively, the operands whose rebuild
/// needs the most memory beyond their result first), every operand of a
/// node being rebuilt held until that node has run. Before each execution
/// it gives up held values until the execution fits the budget: first those
/// no later node reads (dormant), largest first, then the others by what
/// their rebuild would cost now (the value and its operands not held) per
/// byte and per stage until their next reader, cheapest first; an operand a
/// rebuild in progress waits for goes last, and never one it holds nor an
/// always-kept node (KeptSet.h, `isAlwaysKept`). A value
/// given up is read again through a new instance. The account is never
/// below what the simulator counts (an instance is freed at its last read,
/// at the latest when it is given up), so every schedule it returns
/// simulates within the budget; the caller simulates it anyway.
///
/// What is not claimed: the least recompute at the budget, or the least
/// peak. Eviction is a heuristic (Belady's rule, furthest next reader first,
/// reached 0.703-0.882 of store-all on the Moccasin DAGs where this one
/// reaches 0.648-0.883), the operand order is a static estimate, and the
/// construction is not monotone in the budget.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_FORWARDREBUILD_H
#define REMAT_SCHEDULING_FORWARDREBUILD_H

#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <optional>

namespace remat {
namespace sched {

/// Limits of the rebuilding construction.
struct ForwardRebuildOptions {
  /// Recomputed executions at most, as a multiple of the graph's nodes; a
  /// construction that needs more gives up (the budget is then too tight
  /// for it to be worth it). The construction is not monotone in the cap
  /// either; on the Moccasin DAGs 16 per node reach the least peaks 64 do
  /// (n100, n500; n250 0.898 against 0.876 of store-all) and give up four
  /// times sooner where nothing fits.
  double maxRecomputePerNode = 16;
  /// Constructions `rebuildLeastPeak` runs at most.
  unsigned maxLeastPeakRuns = 24;
};

/// A schedule with its simulation.
struct RebuildPlan {
  Schedule schedule;
  SimResult sim;
};

/// The schedule the rebuilding construction (file comment) reaches within
/// `budget` bytes of activations, or none if some execution cannot fit (its
/// operands, result and workspace with the always-kept values held exceed
/// the budget) or the construction needs more recomputations than
/// `options` allow. `graph` must be valid and forward-only.
std::optional<Schedule>
rebuildWithinBudget(const Graph &graph, int64_t budget,
                    const ForwardRebuildOptions &options = {});

/// The least peak below `below` bytes the construction reaches: a bisection
/// over budgets between `forwardLeastPeakBound` (LowerBound.h) and `below`,
/// each construction simulated; none if no construction within
/// `options.maxLeastPeakRuns` peaks below `below`. The construction is not
/// monotone in the budget, so this is not the least budget it meets, only the
/// least peak of the budgets tried.
std::optional<RebuildPlan>
rebuildLeastPeak(const Graph &graph, int64_t below,
                 const ForwardRebuildOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_FORWARDREBUILD_H
