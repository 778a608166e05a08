//===- MilpWindows.h - Large-neighbourhood search with the MILP -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MILP on graphs too large to solve whole (Milp.h declines graphs above
/// kMilpMaxNodes nodes and models above kMilpMaxNonzeros nonzeros):
/// large-neighbourhood search from a plan within the budget (typically
/// `auto`'s). Windows of consecutive stages where the plan spends recompute
/// are re-planned exactly by the compact model while the rest of the plan
/// stays fixed (`milpReplanWindowAtBudget`): what the rest keeps resident
/// may enter a window, what later stages read must leave it. A window's
/// answer is kept only when the whole plan simulates within the budget at a
/// lower recompute cost, so the result is never worse than the start and
/// always within the budget. A window solved to optimality proves nothing
/// about the whole plan: the gap is reported against LowerBound.h's bound,
/// and the plan is called optimal only where that bound meets it.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPWINDOWS_H
#define REMAT_SCHEDULING_MILPWINDOWS_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Milp.h"
#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// Limits of `milpWindowSearch`.
struct MilpWindowSearchOptions {
  /// Wall-time limit of the whole search (the user's time limit).
  double seconds = 10;
  /// Wall seconds one window's solve gets at most.
  double windowSeconds = 2;
  /// CBC's node limit per window (-1: none): with `maxSolves` and limits
  /// of time that never bind, the search is deterministic.
  int64_t windowNodes = 200;
  /// Stop after this many window solves (0: no limit).
  unsigned maxSolves = 0;
  /// Window widths (stages), tried in this order: a sweep over every
  /// window of one width that gains nothing moves to the next width.
  std::vector<unsigned> widths = {4, 8, 16};
  /// Forward nodes one window may recompute: those the plan recomputes
  /// there, and the ancestors of what the window reads, nearest first, up
  /// to this many.
  unsigned maxRecomputeCandidates = 96;
  /// Values the plan drops before a window that the window may keep from
  /// before it instead, their bytes charged to the steps before it (at
  /// most this many per window; 0: only what the plan has resident enters).
  unsigned maxKeptFromBefore = 48;
};

/// What `milpWindowSearch` did.
struct MilpWindowSearchResult {
  Schedule schedule;
  SimResult sim;
  /// Window solves, and those whose answer was kept.
  unsigned solves = 0, kept = 0;
  /// CBC's branch-and-bound nodes over all window solves.
  int64_t nodes = 0;
  /// A sweep of the last width gained nothing (not a proof of anything).
  bool converged = false;
  double seconds = 0;
};

/// Large-neighbourhood search for a cheaper plan within `budget`, from
/// `start` (a schedule of `graph` simulating within the budget). Training
/// graphs need their forward nodes first (Phases.h's `forwardFirstOrder`);
/// forward-only graphs have every node a stage. Returns none when `start`
/// is not a valid schedule within the budget or the graph has a forward node
/// after a backward one; otherwise a plan within the budget whose recompute
/// is at most `start`'s.
std::optional<MilpWindowSearchResult>
milpWindowSearch(const Graph &graph, int64_t budget, const Schedule &start,
                 const MilpWindowSearchOptions &options = {});

/// The request `milpWindowSearch` makes for the window of stages of nodes
/// `first` to `last` of `plan` (a valid schedule within `budget`; training
/// graphs forward-first): the forward nodes it may recompute
/// (`maxRecomputeCandidates`), the cutoff (the window's own recompute
/// cost), the limits, and the values `plan` drops before the window that it
/// may keep instead (`maxKeptFromBefore`): each value that `plan` recomputes
/// at no step before `first` and whose original instance it reads at no
/// step from `first` on (it recomputes the value before reading it there),
/// whose original instance would then live from its last read before the window
/// (its own step if none) into it; a row per group of such values with the
/// same last read bounds their bytes by the budget less the peak of each
/// step they would then cover. A window that starts at the first backward
/// stage models the forward pass itself: there every value may enter.
MilpWindowRequest milpWindowRequest(const Graph &graph, const Schedule &plan,
                                    unsigned first, unsigned last,
                                    int64_t budget,
                                    const MilpWindowSearchOptions &options);

/// The forward nodes a window of the stages of nodes `first` to `last` of
/// `plan` may recompute (`MilpWindowRequest::recomputeAllowed`): those
/// `plan` recomputes there, then the forward ancestors of what the window
/// reads, nearest first, up to `cap` nodes. Indexed by node.
std::vector<bool> milpRecomputeCandidates(const Graph &graph,
                                          const Schedule &plan, unsigned first,
                                          unsigned last, unsigned cap);

/// The claim that heads a window-search plan's detail: "optimal (...)" or
/// "feasible, gap ...", with `stats`' cost, bound and `seconds` of
/// `timeLimitSeconds` (`milpWindowPlan`, and MilpLarge.h when it restates
/// the whole call's time).
std::string milpWindowHeadline(const SolverStats &stats);

/// `milpOptimal`'s answer on graphs it does not solve whole (Milp.h): the
/// window search from `warmStart` within `timeLimitSeconds`, its gap
/// against LowerBound's recompute bound. `why` says why the whole model
/// was not solved (for the plan's detail). Returns none with `note` set
/// when there is no warm start within the budget. `searchOptions` are the
/// search's limits but for `seconds`, which the time limit sets.
std::optional<PlanResult>
milpWindowPlan(const Graph &graph, int64_t budgetBytes, double timeLimitSeconds,
               const Schedule *warmStart, const std::string &why,
               std::string &note,
               const MilpWindowSearchOptions &searchOptions = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPWINDOWS_H
