//===- MilpNeighbourhood.h - Search over the recomputable set ---*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A large-neighbourhood search over which values a plan may recompute
/// (`milpNeighbourhoodSearch`): each move restricts the compact MILP of
/// Milp.h to a candidate set of recomputable values (every other value is
/// never recomputed) and solves it with CBC under a node limit, cut off at
/// the incumbent's recompute cost; a solution that simulates within the
/// budget at a lower cost becomes the incumbent. `milpOptimal` runs it at a
/// budget where CBC's search of the whole model ended without proving its
/// plan (docs/Scheduling.md, "A search over the recomputable set").
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPNEIGHBOURHOOD_H
#define REMAT_SCHEDULING_MILPNEIGHBOURHOOD_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// What decides how much `milpNeighbourhoodSearch` tries: moves and CBC
/// nodes, with wall seconds as a safety cap. For a given start the search
/// is deterministic unless the cap stops it (`MilpNeighbourhoodResult::stop`
/// says so).
struct MilpNeighbourhoodOptions {
  /// CBC's branch-and-bound node limit of each move.
  int64_t moveNodes = 200;
  /// Moves at most.
  unsigned maxMoves = 40;
  /// Values dropped in turn per round (the costliest recomputed first).
  unsigned drops = 6;
  /// Wall seconds of the whole search at most (a safety cap: on a loaded
  /// machine the search may stop before its moves are done). Each move's
  /// CBC and each LP relaxation gets the time left, so one slow move may
  /// use up the cap (`MilpNeighbourhoodResult::stop` then says time).
  double seconds = 30;
  /// Values a lower bound's solution executes after the forward pass
  /// (LowerBound.h's interval solution): candidates the moves add.
  std::vector<unsigned> hintValues;
  /// The knapsack rows of `milpOptimal` in each move's model.
  bool knapsackRows = true;
};

/// What `milpNeighbourhoodSearch` found.
struct MilpNeighbourhoodResult {
  /// The best plan (the start when no move improved it), simulated.
  Schedule schedule;
  SimResult sim;
  /// Moves solved, moves that improved the incumbent, CBC nodes of all.
  unsigned moves = 0, improvements = 0;
  /// The move that last improved the incumbent (1-based; 0: none).
  unsigned lastImprovingMove = 0;
  /// LP relaxations solved.
  unsigned lps = 0;
  int64_t nodes = 0;
  /// Wall seconds the search took.
  double seconds = 0;
  /// Why it stopped: a round gained nothing (the search's own end), the
  /// move limit, or time (the cap: then the result depends on the
  /// machine's load).
  enum class Stop { NoGain, MoveLimit, Time } stop = Stop::NoGain;
  /// `stop` in words ("a round gained nothing", "the move limit", "time").
  const char *stopReason() const;
};

/// Lowers the recompute cost of `start`, a schedule of `graph` within
/// `budget` in the stage model (forward nodes first, or a forward-only
/// graph; lists in index order), by moves over the set of values the plan
/// may recompute. Each move solves the compact model restricted to a set S
/// (`MilpBuilder::recomputeAllowed`; every other value is never recomputed)
/// with CBC, cut off at the incumbent's cost, heuristics on, at most
/// `moveNodes` nodes. In each round, from the incumbent's recomputed set A:
///  1. A less one value, the cheapest to recompute first (small models,
///     mostly proved empty below the cutoff at the root);
///  2. for each of the `drops` values of A whose recomputations cost the
///     most (with the chains rebuilt for them in the same list), and then
///     for none: the values with recompute mass in the LP relaxation of the
///     whole model without that value (with A too when none is dropped),
///     so that the model must hold it, or what reads it, and the LP says
///     what to rebuild instead (resnet_n4 at 0.4 of store-all: dropping the
///     stem's ReLU output, rebuilt from a third execution of the stem
///     convolution, gives the optimum's set plus three values);
///  3. A with its values' operands and consumers;
///  4. A with `hintValues`.
/// The first move whose solution simulates within the budget below the
/// incumbent's cost starts the next round; the search ends when a round
/// gains nothing, after `maxMoves` moves, or at `seconds`. LP relaxations
/// are cached (they do not depend on the incumbent). Returns none for
/// graphs the stage model does not take or above kMilpMaxNodes, a start
/// that is not valid, outside the stage model or above the budget, or
/// without CBC; else the best plan, never above the start's cost. Nothing
/// it returns is a proof.
std::optional<MilpNeighbourhoodResult>
milpNeighbourhoodSearch(const Graph &graph, int64_t budget,
                        const Schedule &start,
                        const MilpNeighbourhoodOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPNEIGHBOURHOOD_H
