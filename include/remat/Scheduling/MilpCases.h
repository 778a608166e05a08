//===- MilpCases.h - The case tree's leaves solved by CBC -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A branch and bound whose branching is the case tree's (CaseSplitBound.h:
/// ranges lo_v <= r_v <= hi_v on how often forward node v is recomputed)
/// and whose leaves are solved by CBC (`milpCaseProof`): each leaf is the
/// compact MILP of Milp.h with its ranges as rows
/// (`MilpBuilder::recomputeRanges`), cut off at the plan's cost, under a
/// node limit. `milpOptimal` runs it where CBC, the bound and the case
/// tree leave the plan unproven (docs/Scheduling.md, "The case tree's
/// leaves solved by CBC").
///
/// Validity. The leaves cover every solution of the model exactly once
/// (every split divides a leaf's count vectors in two: r_u <= c - 1 or
/// r_u >= c), so the least over the leaves of a bound valid for each leaf's
/// solutions is a bound of the whole model, that is of the stage model. A
/// leaf is closed when its tree bound (rounded to a whole cost where the
/// node costs are whole, `wholeCostBound`) reaches the plan's cost, or when
/// CBC's search of it finished (MilpClaims.h: not stopped on its time,
/// node or solution limit) with no solution below the cutoff or with an
/// optimum at or above the plan's cost; a leaf whose search finished with
/// an optimum below it gives a cheaper plan (checked with `simulate`), and
/// the leaves closed before stay closed (their solutions cost at least the
/// old plan's cost). An open leaf bounds its solutions by the larger of
/// its tree bound and CBC's bound of it (counted only as MilpClaims.h
/// allows). The plan is proven optimal in the stage model only when every
/// leaf is closed.
///
/// Determinism. What is tried is decided by CBC node limits, the number of
/// solves and the splits, never by the clock: each leaf's CBC gets no
/// objective row from a time-limited bound, so for a given plan and given
/// leaves the outcome is the same on every run unless the safety cap on
/// wall seconds stops it (`MilpCasesResult::timeCapped` then says so).
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPCASES_H
#define REMAT_SCHEDULING_MILPCASES_H

#include "remat/Scheduling/CaseSplitBound.h"
#include "remat/Scheduling/Graph.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// What decides how much `milpCaseProof` tries: CBC nodes, solves and the
/// depth of the splits (the same on every run); wall seconds only as a
/// safety cap.
struct MilpCasesOptions {
  /// CBC's branch-and-bound node limit of each leaf's solve.
  int64_t leafNodes = 200;
  /// Each given leaf is split this many levels deep (on the plan's
  /// costliest recomputed nodes it has no range on) before any leaf is
  /// solved: on random_layered_n100 at 0.8 of store-all the leaf of one
  /// range (the plan's costliest node never recomputed) stays open after
  /// 100 nodes, while its two leaves split on the next node close in 0 and
  /// 2 (rn4r, bench/milp-results.md).
  unsigned firstSplits = 2;
  /// A leaf CBC leaves open is split again while it has fewer ranges than
  /// this (and a split is left).
  unsigned maxRanges = 4;
  /// Leaf solves at most.
  unsigned maxSolves = 16;
  /// Wall seconds at most, a safety cap: a leaf not solved within it stays
  /// open, and each solve's CBC gets at most what is left.
  double seconds = 30;
  /// The knapsack rows of `milpOptimal` in each leaf's model.
  bool knapsackRows = true;
};

/// How a leaf of `milpCaseProof` ended.
enum class MilpCaseClose {
  /// Its tree bound (or CBC's counted bound) reaches the plan's cost.
  Bound,
  /// CBC's finished search found no solution below the cutoff (or its
  /// ranges are empty).
  NoneBelowCutoff,
  /// CBC's finished search found the leaf's optimum, at or above the plan's
  /// (possibly new) cost.
  Optimum,
  /// Split again into two leaves (reported after it).
  Split,
  /// Left open: CBC stopped on its node limit (or the cap) and no split or
  /// solve was left.
  Open,
};

/// `how` in words ("closed by its bound", "no solution below the cutoff",
/// "the leaf's optimum", "split", "open").
const char *milpCaseCloseName(MilpCaseClose how);

/// One leaf of `milpCaseProof`, for the plan's detail.
struct MilpCaseLeafReport {
  std::vector<RecomputeRange> ranges;
  MilpCaseClose how = MilpCaseClose::Open;
  /// Its bound when it ended (the tree's, raised by CBC's where that
  /// counts).
  double bound = 0;
  /// Solved by CBC, its nodes and wall seconds.
  bool solved = false;
  int64_t nodes = 0;
  double seconds = 0;
};

/// What `milpCaseProof` found.
struct MilpCasesResult {
  /// Every leaf is closed: no schedule of the stage model within the budget
  /// costs less than `sim.recomputeCost`.
  bool proven = false;
  /// The least bound over the open leaves, at most `sim.recomputeCost` (that
  /// cost when proven): a bound on the recompute of every schedule of the
  /// stage model within the budget.
  double bound = 0;
  /// The best plan (the start, or a cheaper one a leaf's solve found),
  /// simulated.
  Schedule schedule;
  SimResult sim;
  /// Leaves solved by CBC, closed, left open; CBC nodes of all solves.
  unsigned solves = 0, closed = 0, open = 0;
  int64_t nodes = 0;
  /// Wall seconds of the whole proof.
  double seconds = 0;
  /// The safety cap on wall seconds left a leaf unsolved or cut a solve
  /// short: then the outcome depends on the machine's load.
  bool timeCapped = false;
  /// Every leaf in the order it ended.
  std::vector<MilpCaseLeafReport> leaves;
};

/// Proves `plan` (a schedule of `graph` within `budget` in the stage model)
/// optimal in the stage model, or bounds the model, by the leaves `leaves`
/// (ranges covering every schedule once, each with a bound valid for its
/// schedules: a CaseSplitBound's `cases`, or one leaf without ranges and a
/// bound of the whole model; an empty list is read as the latter with a
/// bound of 0). Each leaf is first split `firstSplits` levels
/// on the plan's recomputed nodes it has no range on, the costliest (cost
/// times executions) first, at the plan's count c (at most c - 1 or at
/// least c times); then the leaves are solved by CBC, the least bound
/// first, cut off at the plan's cost, each within `leafNodes` nodes; a leaf
/// left open is split again (on the next such node, or a range of the
/// plan's nodes [lo, hi], lo < hi, at lo: exactly lo or more) while it has
/// fewer than `maxRanges` ranges. Returns none for graphs the stage model
/// does not take or above kMilpMaxNodes, a plan that is not valid, outside
/// the stage model or above the budget, or without CBC.
std::optional<MilpCasesResult>
milpCaseProof(const Graph &graph, int64_t budget, const Schedule &plan,
              llvm::ArrayRef<CaseSplitLeaf> leaves,
              const MilpCasesOptions &options = {});

/// One leaf's solve: the compact model of `graph` at `budget` restricted to
/// the schedules within `ranges`, cut off at `cutoff` if given (only
/// solutions below it are searched), within `maxNodes` CBC nodes (-1: none)
/// and `seconds`.
struct MilpCaseLeafSolve {
  /// CBC's search ended (MilpClaims.h): `infeasible` and `optimal` count.
  bool finished = false;
  /// No solution (below the cutoff) within the ranges; the leaf's optimum
  /// (`objective`, `schedule`) was found.
  bool infeasible = false, optimal = false;
  /// A solution found, its objective (CBC's) and schedule.
  bool found = false;
  double objective = 0;
  Schedule schedule;
  /// CBC's bound where it counts (MilpClaims.h), else 0.
  double bound = 0;
  int64_t nodes = 0;
};
std::optional<MilpCaseLeafSolve>
milpCaseLeaf(const Graph &graph, int64_t budget,
             llvm::ArrayRef<RecomputeRange> ranges,
             std::optional<double> cutoff, int64_t maxNodes, double seconds,
             bool knapsackRows = true);

/// "41 'name' 0..0, 46 'name' 1..inf" for the plan's detail.
std::string formatRanges(const Graph &graph,
                         llvm::ArrayRef<RecomputeRange> ranges);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPCASES_H
