//===- MilpLarge.h - The MILP on graphs too large to solve -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `milpOptimal` (Milp.h) on graphs above kMilpMaxNodes nodes or whose model
/// exceeds kMilpMaxNonzeros, for the cases the window search of
/// MilpWindows.h alone cannot take (it needs a plan within the budget):
///
/// - a budget no plan given meets: windows of stages prove it infeasible
///   where they can (forward-only graphs), else the least-peak plan is
///   repaired to the budget by windows of stages re-planned around its peak
///   (`milpLowerPeak`), then its recompute lowered by the window search;
/// - the least peak (no budget): the least-peak plan's peak is lowered the
///   same way as far as the time allows, then its recompute at that peak,
///   and the peak is reported against a lower bound (LowerBound's and, on
///   forward-only graphs, windows of stages whose entering state is free),
///   optimal only where the bound meets it.
///
/// Nothing here searches the whole model: a plan is a plan, and only a bound
/// that meets it is a proof.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPLARGE_H
#define REMAT_SCHEDULING_MILPLARGE_H

#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/Plan.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {
namespace sched {

/// Limits of `milpLargePlan` beyond the time limit.
struct MilpLargeOptions {
  /// CBC's node limit per window solve of the peak descent (-1: none; each
  /// solve then stops after 4 s). With it and a time limit that never
  /// binds, the descent is the same on every run (tests).
  int64_t descentNodes = -1;
  /// Lower the peak of the plan started from (off: that plan's peak with the
  /// bound, its recompute lowered at that peak; tests of the bound).
  bool descend = true;
  /// forward-min-peak's plan, the seed on forward-only graphs, may be the
  /// rebuilding construction's (ForwardOnly.h, ForwardRebuild.h), which may
  /// lie outside the stage model the bounds here hold in (off: the
  /// drop-mode search's alone; tests of the bound).
  bool rebuildSeed = true;
  /// On a forward-only graph whose forward-min-peak plan misses the budget
  /// (or without a budget), this share of the time left after the proofs
  /// goes to the perturbed drop-mode search (`forwardOnlyPerturbedSearch`,
  /// ForwardOnly.h), whose plan seeds the descent where it peaks lower (0:
  /// off).
  double perturbShare = 0.8;
  /// Perturbed searches at most (`ForwardPerturbOptions::maxRounds`).
  unsigned perturbRounds = 100;
  /// Steps the perturbed search simulates at most
  /// (`ForwardPerturbOptions::maxSteps`; 0: `forwardPerturbSteps` of
  /// `perturbShare` of the call's time limit, which a quiet core does in
  /// about half that time). This work limit, not the seconds (a safety
  /// cap), ends the search, so that the seed is the same on every run.
  uint64_t perturbSteps = 0;
  /// Forward nodes one window of the descent may recompute
  /// (`milpLowerPeak`'s `candidateCap`; 0: every one).
  unsigned descentCandidates = 96;
  /// CBC's node limit and wall seconds per window of the recompute search
  /// (MilpWindows.h).
  int64_t windowNodes = 200;
  double windowSeconds = 2;
  /// Window solves of the recompute search at most (0: no limit).
  unsigned maxWindowSolves = 0;
  /// At a budget no plan given meets, this share of the time left after the
  /// proofs goes to the LP relaxation of the whole stage model and its
  /// rounding (MilpRounding.h) before the repair (0: off, the default; see
  /// docs/Scheduling.md for why). An LP proven infeasible proves the
  /// budget infeasible; a rounded plan within the budget is the window
  /// search's start; else the rounded plan of least peak seeds the repair
  /// where it peaks below the other seed; an LP proven optimal above
  /// LowerBound's bound is the reported bound.
  double lpRoundingShare = 0;
  /// Seconds the caller already spent of the same limit (`milpOptimal`'s
  /// bound and model); `timeLimitSeconds` is then what is left, and the
  /// plan's seconds and limit are reported as the whole call's.
  double spentSeconds = 0;
};

/// `milpOptimal`'s answer on a graph it does not solve whole (`why` says
/// why, for the detail), on any graph size. With `budgetBytes > 0`: the
/// window search from `start` when it is within the budget
/// (`milpWindowPlan`); otherwise LowerBound's least-peak bound and, on a
/// forward-only graph, windows of stages (a sixth of the time) may prove
/// the budget infeasible (none returned, `note` says "(proved)" and why),
/// else the least-peak plan (forward-min-peak's on a forward-only graph, or
/// `start` if it peaks lower; `start` on a training graph) is repaired to
/// the budget with nine tenths of the time left and the window search lowers
/// its recompute with the rest; none, with a note that proves nothing, when
/// the repair misses the budget. With `budgetBytes <= 0`: the least peak
/// the same repair reaches from that plan (two thirds of what the bound
/// leaves), then the least recompute the window search finds at that peak;
/// `solver` reports the peak against the lower bound (objective, bound and
/// gap in bytes), optimal only if the bound meets the peak and the
/// recompute at it is proven least (it never is here: the detail says
/// "the least peak is proven, the recompute at that peak is not"). Training
/// graphs need their forward nodes first (else none, the note naming the
/// first late forward node, as `milpOptimal` says). Every returned plan
/// simulates within the budget (without one, at the reported peak).
std::optional<PlanResult>
milpLargePlan(const Graph &graph, int64_t budgetBytes, double timeLimitSeconds,
              const Schedule *start, const std::string &why, std::string &note,
              const MilpLargeOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPLARGE_H
