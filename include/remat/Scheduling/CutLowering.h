//===- CutLowering.h - A lower bound's cut lowered to a plan ----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A lower bound's cut (LowerBound.h, `cutRecomputed`: the values its best
/// solution recomputes after its step) is a kept set, and its lowering
/// (`lowerKeptSet`) is a plan whose recompute is the cut's cost when each
/// value is recomputed once. Such a plan often overflows the budget at a
/// later step: the cut of the joint interval program (StepProgram.h) pays
/// some values twice, because holding them from one window of the backward
/// pass to the next does not fit, and the plain lowering holds every
/// recomputed value from its first reader to its last. Refreshing those
/// values instead (recomputing them before each reader, readers at most a
/// gap of steps apart sharing one recomputation, `lowerKeptSet` with a
/// refresh set) is the plan the program describes. So the lowerings tried
/// are: the cut with no value, one value or two values refreshed, at each
/// of a few refresh gaps, and the cheapest that simulates within the budget
/// is returned. MobileNet at 0.4 of store-all: the joint interval bound's
/// cut (26 values) with two values refreshed at gap 1 is a plan at the
/// bound's 3,990 cost units, against `auto`'s 4,000; gpt_l2 at 0.4: 70.50%
/// of the forward cost against `auto`'s 79.82% and the bound's 70.47%
/// (bench/milp-results.md, "milp19").
///
/// The bound's joint interval program also says which values each window
/// between two of its steps executes (`LowerBound::jointSolution`), and
/// lowered window by window (`lowerByWindows`, WindowLowering.h) that
/// solution can fit where no refresh set of its cut does: VGG U-Net at 0.4
/// of store-all, 43.97% of the forward cost at the 6-step bound, against
/// `auto`'s 44.78% (`lowerBoundWithinBudget`, milp20).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_CUTLOWERING_H
#define REMAT_SCHEDULING_CUTLOWERING_H

#include "remat/Scheduling/BudgetSearch.h"
#include "remat/Scheduling/Graph.h"
#include "remat/Scheduling/LowerBound.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat {
namespace sched {

/// Limits of `lowerCutWithinBudget`.
struct CutLoweringOptions {
  /// Refresh gaps tried for each refresh set (`KeptChoice::refreshGap`).
  std::vector<unsigned> refreshGaps = {0, 1, 2, 4, 8};
  /// At most this many lowerings are simulated (no refresh set first, then
  /// single values, then pairs in the cut's order), so the work and the
  /// result do not depend on the machine's speed.
  unsigned maxEvaluations = 20000;
  /// Wall-clock seconds after which no further lowering is tried (0: no
  /// limit), for callers inside a time limit; the limit of evaluations
  /// above is what makes the result reproducible.
  double seconds = 0;
};

/// What `lowerCutWithinBudget` found.
struct CutLowering {
  Schedule schedule;
  SimResult sim;
  /// The kept set, refresh set and gap lowered (`lowerKeptChoice`).
  KeptChoice choice;
  /// Values of the cut refreshed (0, 1 or 2).
  unsigned refreshed = 0;
  /// `lowerBoundWithinBudget` only: the plan is the bound's joint interval
  /// solution lowered by windows (`choice` then unused).
  bool byWindows = false;
  /// Lowerings simulated.
  unsigned evaluations = 0;
};

/// The cheapest lowering within `budgetBytes` of the kept set that drops
/// the values of `cut` (node indices of `graph`, forward values) and keeps
/// every other, with no value, one or two values of `cut` refreshed at each
/// gap of `options.refreshGaps`; none when no such lowering simulates within
/// the budget. The graph must be valid (`Graph::validate`).
std::optional<CutLowering>
lowerCutWithinBudget(const Graph &graph, int64_t budgetBytes,
                     llvm::ArrayRef<unsigned> cut,
                     const CutLoweringOptions &options = {});

/// The cheaper of two plans lowered from `bound`, a lower bound computed on
/// `graph` at `budgetBytes`, that simulate within the budget: its joint
/// interval solution (`LowerBound::jointSolution`) lowered by windows, and
/// its cut (`cutRecomputed`) lowered by `lowerCutWithinBudget` with
/// `options`. None: neither fits (or the bound has neither).
std::optional<CutLowering>
lowerBoundWithinBudget(const Graph &graph, int64_t budgetBytes,
                       const LowerBound &bound,
                       const CutLoweringOptions &options = {});

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_CUTLOWERING_H
