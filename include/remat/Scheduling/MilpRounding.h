//===- MilpRounding.h - LP relaxation and rounding of the MILP --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Checkmate's two-phase rounding (Jain et al., MLSys 2020, section 5) on
/// remat's compact stage model (Milp.h): the LP relaxation of the model at a
/// budget is solved by CLP, its keep variables S[t][i] (value i resident
/// entering stage t) are rounded (deterministic thresholds and randomized
/// rounding), and each rounded S gets the cheapest recomputation it needs
/// (a backward pass per stage: what the stage's node reads and what the
/// next stage keeps but this one does not is recomputed, with its operands
/// not resident). The recompute variables R[t][i] are also rounded directly
/// at the same thresholds (lists of the R at or above it). Every rounded
/// plan is judged by `simulate`; those within the budget are kept. Like
/// Checkmate, the LP is also solved at lower budgets (an allowance), so that a
/// rounded plan fits the real one.
///
/// The LP solved to optimality at the budget itself is a lower bound on the
/// recompute of every schedule of the stage model, and an LP proven
/// infeasible proves the budget infeasible; neither holds for an LP cut
/// short by the time limit.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SCHEDULING_MILPROUNDING_H
#define REMAT_SCHEDULING_MILPROUNDING_H

#include "remat/Scheduling/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {
namespace sched {

/// What `milpRoundRelaxation` tries.
struct MilpRoundingOptions {
  /// Fractions of the budget the LP is solved at after the budget itself
  /// (Checkmate's allowance: a tighter LP rounds to plans that fit).
  std::vector<double> allowances{0.95, 0.9, 0.8, 0.7};
  /// Deterministic thresholds: S (and, separately, R) rounds to 1 where the
  /// LP has at least it.
  std::vector<double> thresholds{0.01, 0.1, 0.25, 0.5, 0.75, 0.9};
  /// Randomized roundings per LP point (S = 1 with its LP value's
  /// probability), from `seed`.
  unsigned randomRounds = 8;
  uint64_t seed = 1;
  /// Solve the LP at the budget by CLP's barrier instead of the dual
  /// simplex (measurements only: Debian's CLP 1.17 barrier did not stop on
  /// the wall-clock limit, and on random_layered_n250 it had no answer
  /// after 233 s against the dual simplex's 21-23 s; bench/milp-results.md).
  bool barrier = false;
};

/// The LP relaxation and what its rounding reached.
struct MilpRoundingResult {
  /// The least recompute of the rounded plans that simulate within the
  /// budget (none if no rounding fits), and its simulation.
  std::optional<Schedule> schedule;
  SimResult sim;
  /// The rounded plan of least peak (then least recompute), within the
  /// budget or not: a start for a repair to the budget (MilpLarge.h).
  std::optional<Schedule> leastPeak;
  SimResult leastPeakSim;
  /// The fraction of the budget whose LP point gave `schedule`.
  double allowance = 0;
  /// The LP at the budget itself ended before the time limit: optimal
  /// (then `bound`, the weak-duality
  /// value of CLP's dual solution, is a lower bound on the recompute cost of
  /// every schedule of the stage model; `lpObjective` is CLP's objective,
  /// which its tolerances may leave slightly above the optimum) or proven
  /// infeasible with no secondary status from CLP (then no schedule of the
  /// stage model fits the budget).
  bool lpOptimal = false, lpInfeasible = false;
  double bound = 0, lpObjective = 0;
  /// The LP's size and times (seconds): building the model, solving it at
  /// the budget, and the whole call.
  size_t rows = 0, columns = 0, nonzeros = 0;
  double buildSeconds = 0, lpSeconds = 0, seconds = 0;
  int lpIterations = 0;
  /// LP points solved (budgets), plans rounded and simulated, and those
  /// within the budget.
  unsigned points = 0, rounded = 0, fit = 0;
  /// Why nothing was tried (malformed graph, no CBC/CLP, no stages).
  std::string declined;
};

/// The LP relaxation of the compact model (Milp.h) of `graph` at
/// `budgetBytes` (> 0), rounded as described above. `seconds` stops the LP
/// solves (CLP's wall-clock limit, counted from the call); building the
/// model cannot be interrupted and is not limited by the model size (n500:
/// 7.6M nonzeros, some seconds, before the first LP), and the rounding is
/// linear in the model's size per plan. Forward-only graphs and training
/// graphs with their forward nodes first.
MilpRoundingResult milpRoundRelaxation(const Graph &graph, int64_t budgetBytes,
                                       double seconds,
                                       const MilpRoundingOptions &options = {});

/// The recomputation a choice of kept values needs (the second phase of the
/// rounding): `keep[t][i]` says forward value i is resident entering stage
/// t (stage t runs node `firstStage + t`; `firstStage` is 0 on a
/// forward-only graph, else the number of forward nodes). Per stage, going
/// down from its node, a value read by the node, or kept entering the next
/// stage, that is not kept entering this one is recomputed, and its
/// operands become needed the same way. Values that are never recomputed
/// (`isAlwaysKept`) are left to stay resident.
Schedule milpRecomputeForKeep(const Graph &graph, unsigned firstStage,
                              const std::vector<std::vector<bool>> &keep);

} // namespace sched
} // namespace remat

#endif // REMAT_SCHEDULING_MILPROUNDING_H
